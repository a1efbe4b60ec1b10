#!/usr/bin/env bash
# `make bench-gateway`: what the request path costs, against the HTTP server alone.
#
# Starts Hummingbird's hello-world (`gateway-hello`) and the system (auth, orders, hydration; rate
# limits off: wrk is one address), signs up one account, then runs `wrk` against each target in
# turn: hello (the reference), healthz (no broker), currencies (signed in, cached by orders), me
# (auth, PostgreSQL), orders (a list read from PostgreSQL), drinks (POST /v1/me/drinks, a new
# drink per request by many users, the rows added counted against 2xx answers), loadgen-healthz
# (`loadgen get` beside wrk, with its own CPU per request); docs/benchmarks.md describes each.
# Then `loadgen get --rate` asks for /v1/currencies open loop at half the median rate wrk
# reached, at most WRK_CONNECTIONS open, for the p99 from when each request was due. It prints
# per round rates, p50/p99, shares of hello-world and CPU per request by process, then medians.
#
# Environment:
#   WRK_THREADS   wrk's -t, threads (default 2)
#   WRK_CONNECTIONS  wrk's -c, connections (default 64; also loadgen's)
#   WRK_S         wrk's -d, seconds of each measured run (default 8; also loadgen's and the
#                 half-rate run's; formerly WRK_SECONDS)
#   ROUNDS        rounds of every target in turn (default 3), each share against its round's
#                 hello-world
#   TARGETS       which targets, in order (default "hello healthz currencies me orders drinks
#                 loadgen-healthz")
#   SKIP_HALF_RATE=1  skip the open-loop run at half rate on /v1/currencies
#   DRINK_USERS   accounts the drinks target logs as, each request the next one's (default 64)
#   SKIP_BUILD=1  use the release executables as they are
#   BACKPLANE_BIN_DIR  run the executables in this folder instead (e.g. two builds compared)
#   LOG_LEVEL     the system's log level (default info: the gateway writes its access log, as
#                 in production; the output goes to .data/bench-gateway.log, emptied first)
#   PERF          processes to record with `perf record -g` during each measured run, e.g.
#                 "gateway orders" (.data/perf-<target>-<process>.data); the sampling costs CPU
#   BENCH_RESULTS  the folder for the result file gateway.json (default docs/bench, which
#                 docs/benchmarks.md's table is made from); off: none. Off by default when
#                 TARGETS, PERF or BACKPLANE_BIN_DIR is set (a partial, profiled or A/B run)
#   BENCH_COMMAND  the command gateway.json names (default make bench-gateway)
set -euo pipefail
LOG_TAG=bench-gateway
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
renamed_variable WRK_SECONDS WRK_S
require_cmd wrk "apt-get install wrk"
require_cmd curl
require_cmd psql "run deploy/scripts/bootstrap.sh"

: "${WRK_THREADS:=2}" "${WRK_CONNECTIONS:=64}" "${WRK_S:=8}" "${ROUNDS:=3}"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number of rounds, 1 or more, not '$ROUNDS'"
if [[ -n ${TARGETS:-}${PERF:-}${BACKPLANE_BIN_DIR:-} && -z ${BENCH_RESULTS:-} ]]; then BENCH_RESULTS=off; fi
export BENCH_RESULTS
: "${TARGETS:=hello healthz currencies me orders drinks loadgen-healthz}"
[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release)
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
mkdir -p "$REPO_ROOT/.data"
LOG=$REPO_ROOT/.data/bench-gateway.log
# A fresh log per run (the access log writes about a gigabyte over three rounds), new drink users.
: >"$LOG" && rm -f "$REPO_ROOT/.data/bench-gateway-drink-tokens"

HELLO_PORT=$(free_port) HTTP_PORT=$(free_port) BROKER_PORT=$(free_port) XSUB_PORT=$(free_port) XPUB_PORT=$(free_port)
export HTTP_PORT SKIP_BUILD=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-info}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export SERVICES="auth orders hydration" READINESS_SERVICES=auth,orders,hydration
export RATE_LIMIT_READ=off RATE_LIMIT_WRITE=off RATE_LIMIT_LOGIN=off RATE_LIMIT_REGISTER=off

"$BIN_DIR/gateway-hello" "$HELLO_PORT" >>"$LOG" 2>&1 &
HELLO_PID=$!
info "starting the system (auth, orders, hydration; output in $LOG)"
"$SCRIPTS_DIR/up.sh" >>"$LOG" 2>&1 &
UP_PID=$!
stop_all() {
    kill -TERM "$HELLO_PID" "$UP_PID" 2>/dev/null || true
    wait "$HELLO_PID" "$UP_PID" 2>/dev/null || true
}
trap stop_all EXIT

GATEWAY=http://127.0.0.1:$HTTP_PORT
deadline=$((SECONDS + 120))
until curl -fsS "$GATEWAY/readyz" >/dev/null 2>&1 && curl -fsS "http://127.0.0.1:$HELLO_PORT/hello" >/dev/null 2>&1; do
    pid_alive "$UP_PID" || die "the system did not start; see $LOG"
    ((SECONDS < deadline)) || die "not ready after 120 s; see $LOG"
    sleep 0.5
done

# The database up.sh uses (its own throwaway one unless DATABASE_URL is set): the drinks are counted there.
: "${DATABASE_URL:=$(grep -o -m1 'DATABASE_URL=postgres[^ ]*' "$LOG" | cut -d= -f2-)}"
[[ -n $DATABASE_URL ]] || die "could not tell which database the system uses; see $LOG"

user="bench-gateway-$RANDOM$RANDOM@example.org"
credentials="{\"username\": \"$user\", \"password\": \"Gateway2026x-bench\"}"
answer=$(curl -sS -w '\n%{http_code}' -H 'Content-Type: application/json' -d "$credentials" "$GATEWAY/v1/auth/register")
[[ ${answer##*$'\n'} == 201 ]] || die "could not register the bench account: $answer"
TOKEN=$(curl -fsS -H 'Content-Type: application/json' -d "$credentials" "$GATEWAY/v1/auth/login" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])') || die "could not log in"

# Each share is taken within its round: on a shared VM the hello-world's own rate moves by a fifth
# from one minute to the next, so a share is only fair against the reference measured beside it.
export DATABASE_URL BIN_DIR GATEWAY HELLO_URL="http://127.0.0.1:$HELLO_PORT/hello" TOKEN WRK_THREADS WRK_CONNECTIONS WRK_S
RESULTS=$REPO_ROOT/.data/bench-gateway-results.tsv
: >"$RESULTS"
for ((round = 1; round <= ROUNDS; round++)); do
    for target in $TARGETS; do
        "$SCRIPTS_DIR/bench-gateway-measure.sh" "$round" "$target" >>"$RESULTS" || die "round $round, $target: the run failed"
    done
done
# The report, kept in .data/bench-gateway-report.txt, becomes docs/bench/gateway.json (bench-json.py).
report() {
    python3 "$SCRIPTS_DIR/bench-gateway-report.py" "$RESULTS" "$ROUNDS" "$TARGETS" "$WRK_THREADS" "$WRK_CONNECTIONS" "$WRK_S"
    if [[ " $TARGETS " == *" currencies "* && -z ${SKIP_HALF_RATE:-} ]]; then
        half=$(awk -F '\t' '$2 == "currencies" { print $3 }' "$RESULTS" | sort -n |
            awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f", m / 2 }')
        info "currencies open loop at $half requests/s (half the median closed-loop rate)"
        out=$(LOADGEN_AUTHORIZATION="Bearer $TOKEN" "$BIN_DIR/loadgen" get --url "$GATEWAY/v1/currencies" --rate "$half" \
            --in-flight "$WRK_CONNECTIONS" --seconds "$WRK_S") || die "currencies at half rate: loadgen get failed: $out"
        echo "$out" >"$REPO_ROOT/.data/bench-gateway-currencies-half-rate.txt"
        printf '\n/v1/currencies open loop at half the median rate (target: p99 < 20 ms):\n\n%s\n' "$out"
    fi
    printf '\nload average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

REPORT=$REPO_ROOT/.data/bench-gateway-report.txt
report | tee "$REPORT"
python3 "$SCRIPTS_DIR/bench-json.py" gateway --input "$REPORT" --command "${BENCH_COMMAND:-make bench-gateway}" ||
    warn "the report could not be turned into docs/bench/gateway.json"
