#!/usr/bin/env bash
# `make bench-notify`: mails/s through the SMTP sink, pushes/s through an FCM-like server, and
# the scheduler's lateness (notify-bench mail, push, scheduler; release build). The figures go
# to docs/bench/notify.json.
#
# Environment:
#   DATABASE_URL   any PostgreSQL (required); notify-bench makes and drops a schema of its own
#   SKIP_BUILD=1   use the release build as it is
#   BENCH_RESULTS  another folder for notify.json, or off
#   BENCH_COMMAND  the command notify.json names (default make bench-notify)
set -euo pipefail
LOG_TAG=bench-notify
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -n ${DATABASE_URL:-} ]] || die "set DATABASE_URL (any PostgreSQL)"

[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release --product notify-bench)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
OUTPUT=$(mktemp)
trap 'rm -f "$OUTPUT"' EXIT
for what in mail push scheduler; do "$BIN_DIR/notify-bench" "$what" | tee -a "$OUTPUT"; done
python3 "$SCRIPTS_DIR/bench-json.py" notify --input "$OUTPUT" --command "${BENCH_COMMAND:-make bench-notify}" ||
    warn "no docs/bench/notify.json from this run"
