#!/usr/bin/env bash
# `make bench-social`: Gifter's directory search over 100,000 users, catalogue search and the
# launch pull-down, each at 500/s through social's operation table (social-bench, release
# build, on DATABASE_URL), then gift purchases at 100/s through the system
# (deploy/scripts/bench-system.sh gifts, on up.sh's own PostgreSQL with fsync on). The figures
# go to docs/bench/social.json and docs/bench/gifts.json.
#
# Environment:
#   DATABASE_URL   any PostgreSQL, for social-bench (required); it migrates schemas social and
#                  events
#   SKIP_BUILD=1   use the release build as it is
#   BENCH_RESULTS  another folder for social.json and gifts.json, or off
#   BENCH_COMMAND  the command social.json names (default make bench-social)
set -euo pipefail
LOG_TAG=bench-social
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ -n ${DATABASE_URL:-} ]] || die "set DATABASE_URL (any PostgreSQL)"

[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
OUTPUT=$(mktemp)
trap 'rm -f "$OUTPUT"' EXIT
for case in directory catalog launch; do "$BIN_DIR/social-bench" --only "$case" | tee -a "$OUTPUT"; done
python3 "$SCRIPTS_DIR/bench-json.py" social --input "$OUTPUT" --command "${BENCH_COMMAND:-make bench-social}" ||
    warn "no docs/bench/social.json from this run"
env -u DATABASE_URL SKIP_BUILD=1 BENCH_NAME=gifts \
    BENCH_COMMAND="deploy/scripts/bench-system.sh gifts --rate 100 --seconds 20" \
    "$SCRIPTS_DIR/bench-system.sh" gifts --rate 100 --seconds 20
