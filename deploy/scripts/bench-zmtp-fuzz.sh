#!/usr/bin/env bash
# The broker's ZMTP decoder under 10,000,000 seeded hostile streams (`loadgen zmtp-fuzz`,
# release build): cases/s, rules broken (none, or the exit status is 1), the most bytes one
# decoder held, resident memory. The figures go to docs/bench/zmtp-fuzz.json.
#
#   deploy/scripts/bench-zmtp-fuzz.sh [loadgen zmtp-fuzz options]   default: --cases 10000000 --seed 20
#
# Environment:
#   SKIP_BUILD=1   use the release build as it is
#   BENCH_RESULTS  another folder for zmtp-fuzz.json, or off
#   BENCH_COMMAND  the command zmtp-fuzz.json names (default deploy/scripts/bench-zmtp-fuzz.sh)
set -euo pipefail
LOG_TAG=bench-zmtp-fuzz
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARGS=("$@")
((${#ARGS[@]})) || ARGS=(--cases 10000000 --seed 20)
[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release --product loadgen)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
OUTPUT=$(mktemp)
trap 'rm -f "$OUTPUT"' EXIT
"$BIN_DIR/loadgen" zmtp-fuzz "${ARGS[@]}" | tee "$OUTPUT"
python3 "$SCRIPTS_DIR/bench-json.py" zmtp-fuzz --input "$OUTPUT" \
    --command "${BENCH_COMMAND:-deploy/scripts/bench-zmtp-fuzz.sh}" || warn "no docs/bench/zmtp-fuzz.json from this run"
