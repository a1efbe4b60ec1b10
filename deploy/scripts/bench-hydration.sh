#!/usr/bin/env bash
# `make bench-hydration`: TapWater's first sync of a year, incremental syncs at 500/s and
# reminders composed at fire time (hydration-bench; release build). The figures go to
# docs/bench/hydration.json.
#
# Environment:
#   DATABASE_URL   any PostgreSQL (required); hydration-bench migrates schemas hydration and events
#   SKIP_BUILD=1   use the release build as it is
#   BENCH_RESULTS  another folder for hydration.json, or off
#   BENCH_COMMAND  the command hydration.json names (default make bench-hydration)
set -euo pipefail
LOG_TAG=bench-hydration
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -n ${DATABASE_URL:-} ]] || die "set DATABASE_URL (any PostgreSQL)"

[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release --product hydration-bench)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
OUTPUT=$(mktemp)
trap 'rm -f "$OUTPUT"' EXIT
for case in first-sync incremental; do "$BIN_DIR/hydration-bench" --only "$case" | tee -a "$OUTPUT"; done
"$BIN_DIR/hydration-bench" --only reminders --compression 288 | tee -a "$OUTPUT"
python3 "$SCRIPTS_DIR/bench-json.py" hydration --input "$OUTPUT" --command "${BENCH_COMMAND:-make bench-hydration}" ||
    warn "no docs/bench/hydration.json from this run"
