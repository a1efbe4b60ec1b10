#!/usr/bin/env bash
# `make bench-printing`: the printing benchmark with its libvips comparison, reproducible on a fresh
# machine. Installs `libvips-tools` (apt, as root) when `vips` is missing, builds printing-bench in
# release mode and runs it: an 8-megapixel JPEG (generated, deterministic) with three edits, A6
# print PDF and preview p50/p95, the peak RSS of 50 consecutive edits in a child process, and the
# same operations by the `vips` command-line tool on the same file, as ratios.
#
# The figures go to docs/bench/printing.json.
#
# Environment:
#   SKIP_BUILD=1   use the release build as it is
#   RUNS           runs per figure (default 30)
#   BENCH_RESULTS  another folder for printing.json, or off
#   BENCH_COMMAND  the command printing.json names (default make bench-printing)
set -euo pipefail
LOG_TAG=bench-printing
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v vips >/dev/null 2>&1; then
    info "installing libvips-tools (apt)"
    as_root apt-get -o DPkg::Lock::Timeout=300 -q update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q \
        --no-install-recommends install libvips-tools >/dev/null
fi

cd "$REPO_ROOT"
if [[ "${SKIP_BUILD:-}" != 1 ]]; then
    swift build -c release --product printing-bench
fi
OUTPUT="$REPO_ROOT/.data/bench-printing.txt"
"$(swift build -c release --show-bin-path)/printing-bench" --runs "${RUNS:-30}" --dir "$REPO_ROOT/.data/printing-bench" |
    tee "$OUTPUT"
python3 "$SCRIPTS_DIR/bench-json.py" printing --input "$OUTPUT" --command "${BENCH_COMMAND:-make bench-printing}" ||
    warn "no docs/bench/printing.json from this run"
