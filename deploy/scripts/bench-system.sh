#!/usr/bin/env bash
# Benchmarks that need the running system: starts it with up.sh (release build, the throwaway
# PostgreSQL in .data/pg unless DATABASE_URL is set, free ports), waits for /readyz, runs one
# loadgen scenario against the gateway, then stops everything.
#
#   deploy/scripts/bench-system.sh SCENARIO [loadgen options...]
#   e.g. deploy/scripts/bench-system.sh login --clients 1,4,16 --seconds 10
#
# Environment:
#   SERVICES      services to start (default: the ones the scenario needs; login: auth)
#   BENCH_LOG     where the system's output goes (default .data/bench-<scenario>.log)
#   SKIP_BUILD=1  use the release executables as they are (no swift build -c release)
#   REPLICAS_gateway=N  N gateways on consecutive ports; loadgen sends its requests to them in
#                 turn, and each gateway's request count is printed after the run (they add up
#                 to loadgen's total: make bench-scaleout)
#   BACKPLANE_BIN_DIR  where the executables are (default: the release build's folder); a folder
#                 of links with one wrapper script runs a service under a profiler
#   BENCH_NAME    also turn loadgen's output into docs/bench/BENCH_NAME.json with
#                 deploy/scripts/bench-json.py's parser of that name (the bench-*.sh wrappers set
#                 it: auth, orders, gifts)
#   BENCH_RESULTS  another folder for that file, or off
#   BENCH_COMMAND  the command the file names (default make bench-BENCH_NAME)
#   CIVIC_STANDIN_PORT  the Open States stand-in's port (default: a free one)
#   Settings of the executables (WORKER_CONCURRENCY, LOG_LEVEL, ...) pass through.
set -euo pipefail
LOG_TAG=bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCENARIO=${1:?usage: bench-system.sh SCENARIO [loadgen options...]}
shift
# The login and orders benches measure capacity (the hashing bound; one account's orders at a
# fixed rate), not the rate limits, so they turn off the limits they would otherwise meet.
case $SCENARIO in
    login) : "${SERVICES:=auth}" "${RATE_LIMIT_LOGIN:=off}" "${RATE_LIMIT_REGISTER:=off}" ;;
    orders) : "${SERVICES:=auth orders}" "${RATE_LIMIT_WRITE:=off}" "${RATE_LIMIT_READ:=off}" ;;
    # One buyer's gifts at 100/s would meet the per-account write limit; set-up registers and
    # signs in pairs of accounts from one address.
    gifts)
        : "${SERVICES:=auth orders social}" "${RATE_LIMIT_WRITE:=off}" "${RATE_LIMIT_READ:=off}"
        : "${RATE_LIMIT_SEARCH:=off}" "${RATE_LIMIT_LOGIN:=off}" "${RATE_LIMIT_REGISTER:=off}"
        ;;
    flood | stuffing) : "${SERVICES:=auth}" "${RATE_LIMIT_REGISTER:=off}" ;;
    politimap) : "${SERVICES:=civic}" "${RATE_LIMIT_WRITE:=off}" "${RATE_LIMIT_READ:=off}" ;;
    *) : "${SERVICES:=$(registry worker)}" ;;
esac
export RATE_LIMIT_LOGIN RATE_LIMIT_REGISTER RATE_LIMIT_WRITE RATE_LIMIT_READ RATE_LIMIT_SEARCH
export SERVICES
mkdir -p "$REPO_ROOT/.data"
: "${BENCH_LOG:=$REPO_ROOT/.data/bench-$SCENARIO.log}"

[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release)
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
GATEWAYS=${REPLICAS_gateway:-1}
# N consecutive free ports for N gateways.
while :; do
    HTTP_PORT=$(free_port)
    taken=""
    for ((i = 1; i < GATEWAYS; i++)); do port_in_use $((HTTP_PORT + i)) && taken=1; done
    [[ -n $taken ]] || break
done
URLS="http://127.0.0.1:$HTTP_PORT"
for ((i = 1; i < GATEWAYS; i++)); do URLS+=",http://127.0.0.1:$((HTTP_PORT + i))"; done
BROKER_PORT=$(free_port)
XSUB_PORT=$(free_port)
XPUB_PORT=$(free_port)
export HTTP_PORT SKIP_BUILD=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-warning}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export READINESS_SERVICES=${READINESS_SERVICES:-${SERVICES// /,}}
export CIVIC_STANDIN_PORT=${CIVIC_STANDIN_PORT:-$(free_port)}

info "starting the system (services: $SERVICES; output in $BENCH_LOG)"
"$SCRIPTS_DIR/up.sh" >"$BENCH_LOG" 2>&1 &
UP_PID=$!
stop_system() {
    kill -TERM "$UP_PID" 2>/dev/null || true
    wait "$UP_PID" 2>/dev/null || true
}
trap stop_system EXIT

deadline=$((SECONDS + 120))
until curl -fsS "http://127.0.0.1:$HTTP_PORT/readyz" >/dev/null 2>&1; do
    pid_alive "$UP_PID" || die "the system did not start; see $BENCH_LOG"
    ((SECONDS < deadline)) || die "not ready after 120 s; see $BENCH_LOG"
    sleep 0.5
done
info "ready; running loadgen $SCENARIO"
declare -a before=()
for ((i = 0; i < GATEWAYS; i++)); do before[i]=$("$SCRIPTS_DIR/gateway-requests.sh" $((HTTP_PORT + i))); done
if [[ -n ${BENCH_NAME:-} ]]; then
    OUTPUT=$(mktemp)
    "$BIN_DIR/loadgen" "$SCENARIO" --url "$URLS" "$@" | tee "$OUTPUT"
    python3 "$SCRIPTS_DIR/bench-json.py" "$BENCH_NAME" --input "$OUTPUT" \
        --command "${BENCH_COMMAND:-make bench-$BENCH_NAME}" || warn "no docs/bench/$BENCH_NAME.json from this run"
    rm -f "$OUTPUT"
else
    "$BIN_DIR/loadgen" "$SCENARIO" --url "$URLS" "$@"
fi
if ((GATEWAYS > 1)); then
    total=0
    for ((i = 0; i < GATEWAYS; i++)); do
        served=$(($("$SCRIPTS_DIR/gateway-requests.sh" $((HTTP_PORT + i))) - before[i]))
        total=$((total + served))
        echo "gateway-$((i + 1)) (port $((HTTP_PORT + i))): $served requests"
    done
    echo "all gateways: $total requests"
fi
