#!/usr/bin/env bash
# `make bench-flood`: the login rate limit under a flood from one address beside other users'
# logins, then credential stuffing (deploy/scripts/bench-system.sh flood, then stuffing); the
# figures of both go to docs/bench/flood.json.
#
#   deploy/scripts/bench-flood.sh [loadgen flood options]    default: loadgen's (60 s, 20 flooders)
#
# Environment (and bench-system.sh's):
#   BENCH_RESULTS  another folder for flood.json, or off
#   BENCH_COMMAND  the command flood.json names (default make bench-flood)
set -euo pipefail
LOG_TAG=bench-flood
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OUTPUT=$(mktemp)
trap 'rm -f "$OUTPUT"' EXIT
BENCH_NAME="" "$SCRIPTS_DIR/bench-system.sh" flood "$@" | tee "$OUTPUT"
BENCH_NAME="" SKIP_BUILD=1 "$SCRIPTS_DIR/bench-system.sh" stuffing | tee -a "$OUTPUT"
python3 "$SCRIPTS_DIR/bench-json.py" flood --input "$OUTPUT" --command "${BENCH_COMMAND:-make bench-flood}" ||
    warn "no docs/bench/flood.json from this run"
