#!/usr/bin/env bash
# One measured run of `make bench-gateway` (bench-gateway.sh runs it for each round and target):
#
#   deploy/scripts/bench-gateway-measure.sh ROUND TARGET
#
# A short warm-up, then the measured run (wrk --latency, or `loadgen get` for loadgen-*), the
# output kept in .data/bench-gateway-TARGET.txt, and the CPU each process spent in the run per
# request (CPU time depends much less than rates on what else the machine runs). Prints one line,
# tab-separated: round, target, requests/s, p50, p99, non-2xx, CPU µs per request by process,
# loadgen's own CPU µs per request. Reads what bench-gateway.sh exports: DATABASE_URL, BIN_DIR,
# GATEWAY, HELLO_URL, TOKEN, WRK_THREADS, WRK_CONNECTIONS, WRK_S, PERF, DRINK_USERS.
set -euo pipefail
LOG_TAG=bench-gateway
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
round=$1
target=$2
case $target in
    hello) url=$HELLO_URL ;;
    healthz | loadgen-healthz) url="$GATEWAY/healthz" ;;
    currencies) url="$GATEWAY/v1/currencies" ;;
    me) url="$GATEWAY/v1/me" ;;
    orders) url="$GATEWAY/v1/orders" ;;
    drinks) url="$GATEWAY/v1/me/drinks" ;;
    *) die "unknown target '$target' (hello, healthz, currencies, me, orders, drinks, loadgen-healthz)" ;;
esac

# CPU time (utime + stime, clock ticks) of the newest process running executable $1.
ticks_of() {
    local pid
    pid=$(pgrep -n -f "^$BIN_DIR/$1( |\$)") || { echo 0; return; }
    awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0
}
PROCESSES="gateway broker auth orders hydration"

headers=() script=()
[[ $target == hello || $target == *healthz ]] || headers=(-H "Authorization: Bearer $TOKEN")
# A drink is logged under a new UUID per request (the script numbers them), at one moment, by
# DRINK_USERS accounts in turn (made on the first drinks run): TapWater's users each log their
# own, and one user's drinks take that user's change numbers one at a time.
drink_tokens() {
    local file=$REPO_ROOT/.data/bench-gateway-drink-tokens i name
    [[ -s $file ]] || for ((i = 0; i < ${DRINK_USERS:-64}; i++)); do
        name="{\"username\":\"bench-drinks-$i-$RANDOM$RANDOM@example.org\",\"password\":\"Drinks2026x-bench\"}"
        curl -fsS -o /dev/null -H 'Content-Type: application/json' -d "$name" "$GATEWAY/v1/auth/register" &&
            curl -fsS -H 'Content-Type: application/json' -d "$name" "$GATEWAY/v1/auth/login" |
            python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])' >>"$file" ||
            die "drinks: could not sign up user $i"
    done
    tr '\n' ' ' <"$file"
}
drink_args() { echo -- "$1" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(drink_tokens)"; }
drinks_stored() { psql "$DATABASE_URL" -qAt -c "SELECT count(*) FROM hydration.drinks"; }
if [[ $target == drinks ]]; then
    script=(-s "$SCRIPTS_DIR/bench-gateway-drink.lua")
    # shellcheck disable=SC2046
    wrk -t1 -c1 -d1s "${script[@]}" "$url" $(drink_args $((round * 10 + 1))) >/dev/null
    [[ $(drinks_stored) -gt 0 ]] || die "drinks: the warm-up stored no drink"
else
    curl -fsS -o /dev/null "${headers[@]}" "$url" || die "$target: $url does not answer 200"
fi
# shellcheck disable=SC2046
[[ $target == loadgen-* ]] || wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d2s "${headers[@]}" "${script[@]}" "$url" \
    $([[ $target != drinks ]] || drink_args $((round * 10 + 2))) >/dev/null
# Requests wrk cut off at the end of a run may still be writing: they land before the count.
stored_before=$([[ $target != drinks ]] || { sleep 1 && drinks_stored; })
declare -A before=()
for process in $PROCESSES gateway-hello; do before[$process]=$(ticks_of "$process"); done
perf_pids=()
for process in ${PERF:-}; do
    pid=$(pgrep -n -f "^$BIN_DIR/$process( |\$)") || continue
    perf record -q -g -F 999 -p "$pid" -o "$REPO_ROOT/.data/perf-$target-$process.data" -- sleep "$WRK_S" \
        >/dev/null 2>&1 &
    perf_pids+=($!)
done
loadgen_cpu=""
if [[ $target == loadgen-* ]]; then
    # One line of `key value` pairs; the warm-up second is not counted.
    out=$("$BIN_DIR/loadgen" get --url "$url" --connections "$WRK_CONNECTIONS" --seconds "$WRK_S") ||
        die "$target: loadgen get failed: $out"
    field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$out"; }
    requests=$(field requests)
    rate=$(field rate)
    p50="$(field p50_ms)ms"
    p99="$(field p99_ms)ms"
    errors=$(field non200)
    loadgen_cpu=$(field loadgen_cpu_us)
else
    # shellcheck disable=SC2046
    out=$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${WRK_S}s" --latency "${headers[@]}" "${script[@]}" "$url" \
        $([[ $target != drinks ]] || drink_args $((round * 10 + 3))))
    requests=$(awk '/requests in/ { print $1 }' <<<"$out")
    rate=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
    p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
    p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
    errors=$(awk '/Non-2xx or 3xx responses:/ { n += $NF } /Socket errors:/ { n += 1 } END { print n + 0 }' <<<"$out")
fi
((${#perf_pids[@]} == 0)) || wait "${perf_pids[@]}" || true
if [[ $target == drinks ]]; then
    # Every drink answered 2xx is a row; a few more may be stored for requests wrk cut off at the end.
    sleep 1
    added=$(($(drinks_stored) - stored_before)) acknowledged=$((requests - errors))
    ((added >= acknowledged && added <= acknowledged + WRK_CONNECTIONS)) ||
        die "drinks: $acknowledged acknowledged but $added rows added"
    out+=$'\n'"rows added: $added for $acknowledged acknowledged"
fi
echo "$out" >"$REPO_ROOT/.data/bench-gateway-$target.txt"
# CPU per request of each process that worked in the run (the hello-world's own for it).
cpu="" measured=$PROCESSES
[[ $target != hello ]] || measured=gateway-hello
for process in $measured; do
    spent=$(($(ticks_of "$process") - before[$process]))
    ((spent > 0)) || continue
    [[ $process == gateway-hello ]] && label=server || label=$process
    cpu+="$label $(awk -v t="$spent" -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }'), "
done
[[ -z $loadgen_cpu ]] || cpu+="loadgen $loadgen_cpu, "
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$target" "$rate" "$p50" "$p99" "$errors" "${cpu%, }" "$loadgen_cpu"
info "round $round, $target: $rate requests/s"
