#!/usr/bin/env bash
# Two or more builds of the load generator taking turns on one `loadgen broker` case, to tell a
# change from the VM's noise (the raw rate can swing by a quarter within minutes).
#
#   deploy/scripts/broker-ab.sh RUNS CASE DIR...
#   deploy/scripts/broker-ab.sh 4 broker-1w-100 /tmp/before /tmp/after
#
# Each DIR holds a `loadgen` executable (copy `.build/release/loadgen` there after each build).
# Every run is `loadgen broker --only CASE --rounds 2 --seconds 3` (so each round measures the
# raw case too); one line per run: the build, the case's share of raw in each round, the broker
# thread's CPU µs per round trip, and the hypervisor's steal time during the run (from
# /proc/stat: runs with steal above a few per cent say more about the neighbours than the build).
# Nothing else may run meanwhile: no build, test run or other benchmark.
set -euo pipefail
if [[ $# -lt 3 ]]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
runs=$1 case=$2
shift 2
for dir in "$@"; do
    [[ -x "$dir/loadgen" ]] || { echo "no executable $dir/loadgen" >&2; exit 2; }
done
steal() { awk '/^cpu /{ print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
for _ in $(seq 1 "$runs"); do
    for dir in "$@"; do
        read -r steal1 total1 < <(steal)
        out=$("$dir/loadgen" broker --only "$case" --rounds 2 --seconds 3 2>&1)
        read -r steal2 total2 < <(steal)
        shares=$(grep 'of the raw' <<<"$out" | head -1 | sed 's/.*rounds: //; s/)//')
        cpu=$(grep -E ' in flight  ' <<<"$out" | grep -v '^raw' | awk '{ print $NF }' | tr '\n' ' ')
        echo "$dir: shares $shares; broker µs/trip $cpu; steal $((100 * (steal2 - steal1) / (total2 - total1)))%"
    done
done
