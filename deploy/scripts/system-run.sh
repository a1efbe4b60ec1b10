#!/usr/bin/env bash
# A system of its own for a test script (api-fuzz.sh, console-test.sh): up.sh with a database
# nothing else uses, free ports for HTTP, the broker, the event proxy, the SMTP sink and the civic
# stand-in, the console's operator listener, mail and data under OUT, the admin ports off. It waits until the system is ready, runs
# CMD, stops the system (and its throwaway PostgreSQL) and exits with CMD's status.
#
#   deploy/scripts/system-run.sh NAME OUT CMD...
#
# The database is a new one named NAME_<time>_<pid> in DATABASE_URL's cluster, or else a throwaway
# server under OUT/pg. up.sh's output goes to OUT/system.log. CMD gets HTTP_PORT, SYSTEM_URL
# (http://127.0.0.1:HTTP_PORT) and OPERATOR_URL (the operator listener, with the console); what the caller exports (ADMIN_USERNAME, RATE_LIMIT_*, ...)
# reaches up.sh. BACKPLANE_BIN_DIR names the executables; LOG_TAG the caller's messages.
#
# Environment:
#   SYSTEM_ADMIN_PORTS=1  give each process an admin port (/metrics, /readyz) from a block of free
#                         ports, in deploy/services.txt's order; CMD gets the block's ADMIN_PORT_BASE
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
(($# >= 3)) || die "usage: system-run.sh NAME OUT CMD..."
NAME=$1
OUT=$2
shift 2
PG_DIR=""
UP_PID=""

stop() {
    trap '' PIPE
    if [[ -n $UP_PID ]]; then
        kill -TERM "$UP_PID" 2>/dev/null || true
        wait "$UP_PID" 2>/dev/null || true
    fi
    [[ -z $PG_DIR ]] || "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -n ${DATABASE_URL:-} ]]; then
    name="${NAME}_$(date +%s)_$$"
    psql "$DATABASE_URL" -qc "CREATE DATABASE $name" >/dev/null || die "could not create database $name"
    DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$DATABASE_URL" "$name")
else
    PG_DIR="$OUT/pg"
    mkdir -p "$PG_DIR"
    port=$(free_port)
    PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$port" >/dev/null
    DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$port")
fi
HTTP_PORT=$(free_port)
OPERATOR_PORT=$(free_port)
broker=$(free_port)
xsub=$(free_port)
xpub=$(free_port)
export DATABASE_URL HTTP_PORT OPERATOR_PORT OPERATOR_URL="http://127.0.0.1:$OPERATOR_PORT" SKIP_BUILD=1 SKIP_BOOTSTRAP=1 LOG_LEVEL=${LOG_LEVEL:-warning}
export BROKER_BIND="tcp://127.0.0.1:$broker" BROKER_URL="tcp://127.0.0.1:$broker"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$xsub" EVENTS_PUB_URL="tcp://127.0.0.1:$xsub"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$xpub" EVENTS_SUB_URL="tcp://127.0.0.1:$xpub"
export SMTP_PORT=$(free_port) SMTP_SINK_DIR="$OUT/mail" DATA_DIR="$OUT/data" CIVIC_STANDIN_PORT=$(free_port)
# Its ports are free ones picked at random; the admin ports (a fixed range by default) stay off
# unless asked for, then from a free block: one port per process, consecutive.
ADMIN_PORT_BASE=off
while [[ -n ${SYSTEM_ADMIN_PORTS:-} && $ADMIN_PORT_BASE == off ]]; do
    base=$(free_port) && ADMIN_PORT_BASE=$base
    for ((i = 1; i < $(wc -w <<<"$(registry broker worker gateway)"); i++)); do
        ! port_in_use $((base + i)) || ADMIN_PORT_BASE=off
    done
done
export ADMIN_PORT_BASE SYSTEM_URL="http://127.0.0.1:$HTTP_PORT"

info "starting the system (log in ${OUT#"$REPO_ROOT"/}/system.log)"
"$SCRIPTS_DIR/up.sh" >"$OUT/system.log" 2>&1 &
UP_PID=$!
deadline=$((SECONDS + 120))
until curl -fsS -o /dev/null --max-time 2 "$SYSTEM_URL/readyz" 2>/dev/null; do
    pid_alive "$UP_PID" || die "the system did not start; see $OUT/system.log"
    ((SECONDS < deadline)) || die "not ready after 120 s; see $OUT/system.log"
    sleep 0.5
done
status=0
"$@" || status=$?
exit "$status"
