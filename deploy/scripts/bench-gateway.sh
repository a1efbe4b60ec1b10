#!/usr/bin/env bash
# `make bench-gateway`: what the request path costs, against the HTTP server alone.
#
# Builds the release executables (and `gateway-hello`, Hummingbird's hello-world), starts the
# hello-world and the system (auth and orders, rate limits off: wrk is one client address), signs
# up one account, then runs `wrk` against each target in turn, in one run on this machine:
#
#   hello-world      GET /hello on gateway-hello (the reference, 100%)
#   healthz          GET /healthz on the gateway (no broker)
#   currencies       GET /v1/currencies with a Bearer token (gateway -> broker -> orders, cached)
#   me               GET /v1/me with a Bearer token (gateway -> broker -> auth -> PostgreSQL)
#   loadgen-healthz  GET /healthz again, sent by `loadgen get` (closed loop, as many connections
#                    as wrk) instead of wrk: the load generator's rate beside wrk's, and its own
#                    CPU per request
#
# After the rounds, `loadgen get --rate` asks for /v1/currencies open loop at half the median
# rate wrk reached on it, with at most WRK_CONNECTIONS requests (and connections) open, as
# `wrk2 -c64 -R rate` would, and prints the p99 from when each request was due (wrk's closed
# loop cannot show latency at a given rate).
#
# and prints requests/s, p50/p99, the share of the hello-world rate, and the CPU time each of our
# processes spent per request (gateway, broker, auth, orders; the hello-world's own for it) for
# each, a table per round and the median shares.
#
# Environment:
#   WRK_THREADS   wrk's -t, threads (default 2)
#   WRK_CONNECTIONS  wrk's -c, connections (default 64; also loadgen's)
#   WRK_S         wrk's -d, seconds of each measured run (default 8; also loadgen's and the
#                 half-rate run's; formerly WRK_SECONDS)
#   ROUNDS        rounds of every target in turn (default 3); each share is taken against its
#                 own round's hello-world, and the median share over the rounds is printed last
#   TARGETS       which targets, in order (default "hello healthz currencies me loadgen-healthz")
#   SKIP_HALF_RATE=1  skip the open-loop run at half rate on /v1/currencies
#   SKIP_BUILD=1  use the release executables as they are
#   BACKPLANE_BIN_DIR  run the executables in this folder instead (e.g. two builds compared)
#   LOG_LEVEL     the system's log level (default info: the gateway writes its access log, as
#                 in production; the output goes to .data/bench-gateway.log, emptied first)
#   PERF          processes to record with `perf record -g` during each measured run, e.g.
#                 "gateway orders" (.data/perf-<target>-<process>.data; read with `perf report
#                 -i FILE`); the sampling costs CPU, so the figures of such a run are not the
#                 ones to quote
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

: "${WRK_THREADS:=2}" "${WRK_CONNECTIONS:=64}" "${WRK_S:=8}" "${ROUNDS:=3}"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number of rounds, 1 or more, not '$ROUNDS'"
if [[ -n ${TARGETS:-}${PERF:-}${BACKPLANE_BIN_DIR:-} && -z ${BENCH_RESULTS:-} ]]; then BENCH_RESULTS=off; fi
export BENCH_RESULTS
: "${TARGETS:=hello healthz currencies me loadgen-healthz}"
[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release)
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
mkdir -p "$REPO_ROOT/.data"
LOG=$REPO_ROOT/.data/bench-gateway.log
# A fresh log per run: the access log writes about a gigabyte over three rounds, and appending
# run after run fills the disk and its page cache.
: >"$LOG"

HELLO_PORT=$(free_port)
HTTP_PORT=$(free_port)
BROKER_PORT=$(free_port)
XSUB_PORT=$(free_port)
XPUB_PORT=$(free_port)
export HTTP_PORT SKIP_BUILD=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-info}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export SERVICES="auth orders" READINESS_SERVICES=auth,orders
export RATE_LIMIT_READ=off RATE_LIMIT_WRITE=off RATE_LIMIT_LOGIN=off RATE_LIMIT_REGISTER=off

"$BIN_DIR/gateway-hello" "$HELLO_PORT" >>"$LOG" 2>&1 &
HELLO_PID=$!
info "starting the system (auth, orders; output in $LOG)"
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

user="bench-gateway-$RANDOM$RANDOM@example.org"
credentials="{\"username\": \"$user\", \"password\": \"Gateway2026x-bench\"}"
answer=$(curl -sS -w '\n%{http_code}' -H 'Content-Type: application/json' -d "$credentials" "$GATEWAY/v1/auth/register")
[[ ${answer##*$'\n'} == 201 ]] || die "could not register the bench account: $answer"
TOKEN=$(curl -fsS -H 'Content-Type: application/json' -d "$credentials" "$GATEWAY/v1/auth/login" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])') || die "could not log in"

url_of() {
    case $1 in
        hello) echo "http://127.0.0.1:$HELLO_PORT/hello" ;;
        healthz | loadgen-healthz) echo "$GATEWAY/healthz" ;;
        currencies) echo "$GATEWAY/v1/currencies" ;;
        me) echo "$GATEWAY/v1/me" ;;
        *) die "unknown target '$1' (hello, healthz, currencies, me, loadgen-healthz)" ;;
    esac
}

# CPU time (utime + stime, clock ticks) of the newest process running executable $1.
TICKS=$(getconf CLK_TCK)
ticks_of() {
    local pid
    pid=$(pgrep -n -f "^$BIN_DIR/$1( |\$)") || { echo 0; return; }
    awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0
}
PROCESSES="gateway broker auth orders"

# Each target: a short warm-up, then the measured run; wrk's --latency output is kept, and the
# CPU each process spent in the run, per request (CPU time depends much less than rates on what
# else the machine runs). ROUNDS rounds run every target in turn, and each share is taken within
# its round: on a shared VM the hello-world's own rate moves by a fifth from one minute to the
# next, so a share is only fair against the reference measured beside it.
declare -A RATE P50 P99 ERRORS CPU LOADGEN_CPU
measure() { # measure ROUND TARGET
    local round=$1 target=$2 url headers out requests spent process pid label
    url=$(url_of "$target")
    headers=()
    [[ $target == hello || $target == *healthz ]] || headers=(-H "Authorization: Bearer $TOKEN")
    curl -fsS -o /dev/null "${headers[@]}" "$url" || die "$target: $url does not answer 200"
    [[ $target == loadgen-* ]] || wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d2s "${headers[@]}" "$url" >/dev/null
    declare -A before=()
    for process in $PROCESSES gateway-hello; do before[$process]=$(ticks_of "$process"); done
    local perf_pids=()
    for process in ${PERF:-}; do
        pid=$(pgrep -n -f "^$BIN_DIR/$process( |\$)") || continue
        perf record -q -g -F 999 -p "$pid" -o "$REPO_ROOT/.data/perf-$target-$process.data" -- sleep "$WRK_S" \
            >/dev/null 2>&1 &
        perf_pids+=($!)
    done
    local key="$round,$target" cpu="" measured=$PROCESSES
    if [[ $target == loadgen-* ]]; then
        # One line of `key value` pairs; the warm-up second is not counted.
        out=$("$BIN_DIR/loadgen" get --url "$url" --connections "$WRK_CONNECTIONS" --seconds "$WRK_S") ||
            die "$target: loadgen get failed: $out"
        field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$out"; }
        requests=$(field requests)
        RATE[$key]=$(field rate)
        P50[$key]="$(field p50_ms)ms"
        P99[$key]="$(field p99_ms)ms"
        ERRORS[$key]=$(field non200)
        LOADGEN_CPU[$key]=$(field loadgen_cpu_us)
    else
        out=$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${WRK_S}s" --latency "${headers[@]}" "$url")
        requests=$(awk '/requests in/ { print $1 }' <<<"$out")
        RATE[$key]=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
        P50[$key]=$(awk '$1 == "50%" { print $2 }' <<<"$out")
        P99[$key]=$(awk '$1 == "99%" { print $2 }' <<<"$out")
        ERRORS[$key]=$(awk '/Non-2xx or 3xx responses:/ { n += $NF } /Socket errors:/ { n += 1 } END { print n + 0 }' <<<"$out")
    fi
    ((${#perf_pids[@]} == 0)) || wait "${perf_pids[@]}" || true
    echo "$out" >"$REPO_ROOT/.data/bench-gateway-$target.txt"
    # CPU per request of each process that worked in the run (the hello-world's own for it).
    [[ $target != hello ]] || measured=gateway-hello
    for process in $measured; do
        spent=$(($(ticks_of "$process") - before[$process]))
        ((spent > 0)) || continue
        [[ $process == gateway-hello ]] && label=server || label=$process
        cpu+="$label $(awk -v t="$spent" -v hz="$TICKS" -v n="$requests" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }'), "
    done
    [[ -z ${LOADGEN_CPU[$key]:-} ]] || cpu+="loadgen ${LOADGEN_CPU[$key]}, "
    CPU[$key]=${cpu%, }
    info "round $round, $target: ${RATE[$key]} requests/s"
}

for ((round = 1; round <= ROUNDS; round++)); do
    for target in $TARGETS; do measure "$round" "$target"; done
done

# What follows prints the report; it is kept in .data/bench-gateway-report.txt and turned into
# docs/bench/gateway.json (deploy/scripts/bench-json.py) at the end.
report() {
    # share ROUND TARGET: the target's rate as a share of the round's hello-world, in percent.
    share() {
        local hello=${RATE[$1,hello]:-}
        [[ -n $hello ]] || { echo -; return; }
        awk -v r="${RATE[$1,$2]}" -v h="$hello" 'BEGIN { printf "%.0f", 100 * r / h }'
    }

    for ((round = 1; round <= ROUNDS; round++)); do
        printf '\n%s, round %s of %s, wrk -t%s -c%s -d%ss\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$round" "$ROUNDS" \
            "$WRK_THREADS" "$WRK_CONNECTIONS" "$WRK_S"
        printf '| target | requests/s | p50 | p99 | non-2xx | share of hello-world | CPU µs per request |\n'
        printf '|---|---:|---:|---:|---:|---:|---|\n'
        for target in $TARGETS; do
            printf '| %s | %s | %s | %s | %s | %s%% | %s |\n' "$target" "${RATE[$round,$target]}" "${P50[$round,$target]}" \
                "${P99[$round,$target]}" "${ERRORS[$round,$target]}" "$(share "$round" "$target")" "${CPU[$round,$target]}"
        done
    done
    if ((ROUNDS > 1)); then
        printf '\nmedian share of hello-world over %s rounds (each round against its own hello-world):\n\n' "$ROUNDS"
        printf '| target | median share | shares by round |\n|---|---:|---|\n'
        for target in $TARGETS; do
            [[ $target == hello ]] && continue
            shares=()
            for ((round = 1; round <= ROUNDS; round++)); do shares+=("$(share "$round" "$target")"); done
            median=$(printf '%s\n' "${shares[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
            printf '| %s | %s%% | %s |\n' "$target" "$median" "$(IFS=' '; echo "${shares[*]/%/%}")"
        done
    fi

    # The load generator against wrk on the same URL, round by round.
    if [[ " $TARGETS " == *" loadgen-healthz "* && " $TARGETS " == *" healthz "* ]]; then
        printf '\nload generator against wrk on /healthz, %s connections each:\n\n' "$WRK_CONNECTIONS"
        printf '| round | wrk requests/s | loadgen requests/s | loadgen / wrk | loadgen CPU µs per request |\n|---:|---:|---:|---:|---:|\n'
        for ((round = 1; round <= ROUNDS; round++)); do
            printf '| %s | %s | %s | %s%% | %s |\n' "$round" "${RATE[$round,healthz]}" "${RATE[$round,loadgen-healthz]}" \
                "$(awk -v l="${RATE[$round,loadgen-healthz]}" -v w="${RATE[$round,healthz]}" 'BEGIN { printf "%.0f", 100 * l / w }')" \
                "${LOADGEN_CPU[$round,loadgen-healthz]}"
        done
    fi

    # /v1/currencies open loop at half the median rate wrk reached on it: the p99 from when each
    # request was due.
    if [[ " $TARGETS " == *" currencies "* && -z ${SKIP_HALF_RATE:-} ]]; then
        half=$(for ((round = 1; round <= ROUNDS; round++)); do echo "${RATE[$round,currencies]}"; done | sort -n |
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
