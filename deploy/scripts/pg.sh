#!/usr/bin/env bash
# A throwaway PostgreSQL under one directory, for `make up` and `make test`.
#
#   deploy/scripts/pg.sh start  DIR [PORT]   init on first use, start, wait until ready (PORT 5432)
#   deploy/scripts/pg.sh stop   DIR          fast shutdown (no error when it is not running)
#   deploy/scripts/pg.sh url    DIR [PORT]   print the DATABASE_URL (PORT: the running server's)
#   deploy/scripts/pg.sh status DIR          exit 0 and print the port when it is running
#
# Layout: DIR/data (the cluster), DIR/run (its socket), DIR/postgres.log. It listens on 127.0.0.1,
# trusts every local connection, and has role `backplane` (password `backplane`) owning database
# `backplane`, both (re)created when missing: a DIR is reused with its data. As root the server
# runs as PG_OS_USER (pg-cluster.sh: the directory and its owner).
#
# Environment:
#   PG_BINDIR             PostgreSQL's bin directory (default: pg_config --bindir, else the newest
#                         /usr/lib/postgresql/*/bin)
#   PG_OS_USER            OS user that runs the server when we are root (default postgres)
#   PG_START_TIMEOUT      seconds to wait for readiness (default 30)
#   PG_MAX_CONNECTIONS    max_connections (default 200: test suites open many pools)
#   PG_FAST=1             fsync/synchronous_commit/full_page_writes off: faster, and only unsafe if
#                         the machine itself crashes (a killed process loses nothing). test.sh sets it.
#   PG_ARCHIVE=1          archive the WAL into backup.sh's pgBackRest repository (BACKUP_REPO, with
#                         its key), for backups and point-in-time restore; make up sets it
set -euo pipefail
LOG_TAG=pg
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${PG_START_TIMEOUT:=30}"

usage() { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2 && exit 2; }

# find_bindir: PostgreSQL's server binaries are not on PATH on Debian, only the client wrappers.
find_bindir() {
    [[ -z ${PG_BINDIR:-} ]] || { echo "$PG_BINDIR"; return; }
    local dir
    for dir in "$(pg_config --bindir 2>/dev/null || true)" "$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)" \
        "$(dirname "$(command -v initdb 2>/dev/null || echo /none/initdb)")"; do
        [[ -x $dir/initdb ]] && { echo "$dir"; return; }
    done
    die "PostgreSQL server binaries not found: run deploy/scripts/bootstrap.sh (apt-get install postgresql postgresql-contrib)"
}

as_pg() { "$SCRIPTS_DIR/pg-cluster.sh" run "$DIR" "$@"; }

# running_port: prints the port of the server running on DIR/data, or fails when none runs.
# pg_ctl status alone would take a killed postmaster that is not yet reaped for a live one.
running_port() {
    [[ -f $DIR/data/postmaster.pid ]] || return 1
    as_pg "$BINDIR/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1 || return 1
    pid_alive "$(head -n 1 "$DIR/data/postmaster.pid")" || return 1
    sed -n 4p "$DIR/data/postmaster.pid"
}

wait_ready() {
    local port=$1 deadline=$((SECONDS + PG_START_TIMEOUT)) problem=""
    until "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres; do
        as_pg "$BINDIR/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1 || problem="PostgreSQL exited while starting"
        ((SECONDS < deadline)) || problem="PostgreSQL not ready on port $port after ${PG_START_TIMEOUT}s"
        if [[ -n $problem ]]; then
            tail -n 20 "$DIR/postgres.log" >&2
            die "$problem (log: $DIR/postgres.log)"
        fi
        sleep 0.2
    done
}

# ensure_role_and_db: idempotent, so a DIR whose first start was interrupted heals itself.
ensure_role_and_db() {
    local psql=("$BINDIR/psql" -X -h 127.0.0.1 -p "$1" -U postgres -d postgres)
    "${psql[@]}" -q -v ON_ERROR_STOP=1 >/dev/null <<'EOF'
SELECT 'CREATE ROLE backplane LOGIN CREATEDB PASSWORD ''backplane'''
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'backplane') \gexec
SELECT 'CREATE DATABASE backplane OWNER backplane'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'backplane') \gexec
EOF
    # pg_trgm is a trusted extension: the backplane role can CREATE EXTENSION it in a migration.
    [[ $("${psql[@]}" -At -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm'") == 1 ]] ||
        warn "extension pg_trgm is not available: apt-get install postgresql-contrib"
}

cmd_start() {
    local port=${1:-5432} current
    [[ $port =~ ^[0-9]+$ ]] || die "PORT must be a number, got '$port'"
    "$SCRIPTS_DIR/pg-cluster.sh" init "$DIR" "$BINDIR"
    if current=$(running_port); then
        if [[ $current == "$port" ]]; then
            info "already running on port $port ($DIR)"
            wait_ready "$port"
            ensure_role_and_db "$port"
            return 0
        fi
        info "running on port $current; restarting on port $port"
        cmd_stop
    fi
    port_in_use "$port" && die "port $port is already in use by another program"
    local opts="-p $port"
    [[ -z ${PG_FAST:-} ]] || opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [[ ${PG_ARCHIVE:-} != 1 ]] || opts+=" $("$SCRIPTS_DIR/backup.sh" archive-opts "$DIR")"
    # No -w: readiness is checked with pg_isready below, which also notices an early exit.
    as_pg "$BINDIR/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -o "$opts" start >/dev/null ||
        die "pg_ctl start failed (log: $DIR/postgres.log)"
    wait_ready "$port"
    ensure_role_and_db "$port"
    info "ready on 127.0.0.1:$port ($DIR)"
}

cmd_stop() {
    running_port >/dev/null || { info "not running ($DIR)"; return 0; }
    as_pg "$BINDIR/pg_ctl" -D "$DIR/data" stop -m fast -w -t 30 >/dev/null || die "pg_ctl stop failed (log: $DIR/postgres.log)"
    info "stopped ($DIR)"
}

(($# >= 2)) || usage
DIR=$(realpath -m -- "$2")
BINDIR=$(find_bindir)
case $1 in
    start) cmd_start "${@:3}" ;;
    stop) cmd_stop ;;
    url) echo "postgres://backplane:backplane@127.0.0.1:${3:-$(running_port || echo 5432)}/backplane" ;;
    status) running_port || { info "not running ($DIR)"; exit 1; } ;;
    *) usage ;;
esac
