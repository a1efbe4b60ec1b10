#!/usr/bin/env bash
# CPU cost per request of each process during a `navup` run at a fixed (open-loop) rate, or
# during another loadgen scenario.
#
#   deploy/scripts/cpu-per-request.sh [USERS] [WINDOW_S]           (defaults 8000, 15)
#   SERVICES=auth SCENARIO=login SCENARIO_ARGS="--clients 16" \
#       PROCESSES="broker gateway auth loadgen postgres" deploy/scripts/cpu-per-request.sh 0 20
#
# Starts the system and the load with bench-system.sh and, after WARMUP seconds, prints each of
# PROCESSES' CPU seconds in a window of WINDOW_S seconds (utime+stime from /proc/<pid>/stat) and
# CPU microseconds per HTTP request (the gateway's /metrics), and its resident memory at the
# window's start, middle and end; the loadgen summary follows when the run ends. CPU time, unlike
# latency, depends little on what else the machine does: a shared machine's figures stay usable.
#
# Environment:
#   SCENARIO       the loadgen scenario (default navup; USERS is its --users)
#   SCENARIO_ARGS  its options (for navup default "--in-flight 256": at most 256 requests and
#                  connections open at once, where without a cap the first second opens
#                  thousands; set it empty for none)
#   PROCESSES      the processes measured (default "broker gateway routing loadgen"; `postgres`
#                  sums every process of the PostgreSQL in .data/pg that the system runs on)
#   SERVICES       services to start (default "auth routing")
#   WARMUP         seconds of load before the window starts (default 10)
#   SKIP_BUILD=1   use the release executables as they are
#   BACKPLANE_BIN_DIR  run the executables of another folder (two builds compared)
#   BENCH_NAME=navup  also turn the CPU table and the load generator's table into
#                  docs/bench/navup.json (deploy/scripts/bench-json.py; bench-navup.sh sets it)
#   BENCH_RESULTS  another folder for that file, or off
#   BENCH_COMMAND  the command that file names (default make bench-BENCH_NAME)
set -euo pipefail
LOG_TAG=cpu
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

USERS=${1:-8000}
WINDOW=${2:-15}
: "${WARMUP:=10}"
: "${SERVICES:=auth routing}"  # navup signs students in for "take me to my next class"
export SERVICES
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
: "${PROCESSES:=broker gateway routing loadgen}" "${SCENARIO:=navup}"
[[ $SCENARIO != navup ]] || : "${SCENARIO_ARGS=--in-flight 256}"
: "${SCENARIO_ARGS:=}"
TICKS=$(getconf CLK_TCK)

load_args=(--seconds $((WARMUP + WINDOW + 5)))
[[ $SCENARIO != navup ]] || load_args+=(--users "$USERS")
# shellcheck disable=SC2086 # SCENARIO_ARGS is a list of options
# Its output is shown and kept, so the window starts only once the load itself runs (the
# scenario's set-up, such as signing students in, is not what is measured).
PROGRESS=$(mktemp)
BENCH_NAME="" "$SCRIPTS_DIR/bench-system.sh" "$SCENARIO" "${load_args[@]}" $SCENARIO_ARGS > >(tee "$PROGRESS") &
BENCH_PID=$!

pid_of() { pgrep -n -f "^$BIN_DIR/$1( |\$)" || true; }
# summed PIDS FILE PROGRAM: the sum over PIDS of what awk PROGRAM prints from /proc/<pid>/FILE.
summed() {
    local pid total=0
    for pid in $1; do total=$((total + $(awk "$3" "/proc/$pid/$2" 2>/dev/null || echo 0))); done
    echo "$total"
}
# utime + stime in clock ticks (fields 14 and 15, counted after the command name, which may hold
# spaces); resident memory in KiB.
ticks_of() { summed "$1" stat '{ sub(/.*\) /, ""); print $12 + $13 }'; }
rss_of() { summed "$1" status '/^VmRSS:/ { print $2 }'; }

deadline=$((SECONDS + 180))
until [[ -n $(pid_of loadgen) ]]; do
    pid_alive "$BENCH_PID" || die "bench-system.sh ended before loadgen started"
    ((SECONDS < deadline)) || die "loadgen did not start within 180 s"
    sleep 0.5
done
# The app scenarios (navup, mixed, ...) say "open loop" when their set-up is done.
until [[ $SCENARIO == login || $SCENARIO == orders ]] || grep -q " s open loop (" "$PROGRESS"; do
    pid_alive "$BENCH_PID" || die "bench-system.sh ended before the load started"
    ((SECONDS < deadline)) || die "the load did not start within 180 s"
    sleep 0.5
done
GATEWAY_PID=$(pid_of gateway)
HTTP_PORT=$(tr '\0' '\n' <"/proc/$GATEWAY_PID/environ" | sed -n 's/^HTTP_PORT=//p')
sleep "$WARMUP"

declare -A PID_OF=() BEFORE=() RSS_START=() RSS_MIDDLE=()
for name in $PROCESSES; do
    if [[ $name == postgres ]]; then
        # Every process of the PostgreSQL serving the system (postmaster and its children).
        postmaster=$(head -n 1 "$REPO_ROOT/.data/pg/data/postmaster.pid")
        PID_OF[$name]="$postmaster $(pgrep -P "$postmaster" | tr '\n' ' ')"
    else
        PID_OF[$name]=$(pid_of "$name")
    fi
    BEFORE[$name]=$(ticks_of "${PID_OF[$name]}")
    RSS_START[$name]=$(rss_of "${PID_OF[$name]}")
done
requests_before=$("$SCRIPTS_DIR/gateway-requests.sh" "$HTTP_PORT")
sleep $((WINDOW / 2))
for name in $PROCESSES; do RSS_MIDDLE[$name]=$(rss_of "${PID_OF[$name]}"); done
sleep $((WINDOW - WINDOW / 2))
requests=$(($("$SCRIPTS_DIR/gateway-requests.sh" "$HTTP_PORT") - requests_before))
CPU_TABLE=$(mktemp)
{
    printf '\n%-8s %10s %14s %24s   (%s %s, %d requests in %d s = %d/s)\n' process "CPU s" "CPU µs/req" \
        "RSS MiB start/mid/end" "$SCENARIO" "${SCENARIO_ARGS:-$USERS users}" "$requests" "$WINDOW" $((requests / WINDOW))
    for name in $PROCESSES; do
        used=$(($(ticks_of "${PID_OF[$name]}") - BEFORE[$name]))
        awk -v t="$used" -v hz="$TICKS" -v n="$requests" -v name="$name" -v a="${RSS_START[$name]}" \
            -v b="${RSS_MIDDLE[$name]}" -v c="$(rss_of "${PID_OF[$name]}")" \
            'BEGIN { printf "%-8s %10.2f %14.0f %24s\n", name, t / hz, n ? t / hz / n * 1e6 : 0,
                     sprintf("%.0f / %.0f / %.0f", a / 1024, b / 1024, c / 1024) }'
    done
    echo
} | tee "$CPU_TABLE"
wait "$BENCH_PID"
if [[ -n ${BENCH_NAME:-} ]]; then
    python3 "$SCRIPTS_DIR/bench-json.py" "$BENCH_NAME" --input "$CPU_TABLE" --input "$PROGRESS" --set "users=$USERS" \
        --command "${BENCH_COMMAND:-make bench-$BENCH_NAME}" || warn "no docs/bench/$BENCH_NAME.json from this run"
fi
rm -f "$PROGRESS" "$CPU_TABLE"
