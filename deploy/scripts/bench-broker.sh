#!/usr/bin/env bash
# `make bench-broker`: MDP round trips in one process (raw DEALER-ROUTER, through the broker
# with our workers and client, the broker's rules alone), 3 rounds, each share of the raw rate
# taken within its round; the figures go to docs/bench/broker.json.
#
#   deploy/scripts/bench-broker.sh [loadgen broker options]     default: --rounds 3
#
# Environment:
#   SKIP_BUILD=1   use the release build as it is
#   BENCH_RESULTS  another folder for broker.json, or off (also off by default when options are
#                  given: a partial run)
#   BENCH_COMMAND  the command broker.json names (default make bench-broker)
set -euo pipefail
LOG_TAG=bench-broker
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARGS=("$@")
if ((${#ARGS[@]})); then : "${BENCH_RESULTS:=off}"; else ARGS=(--rounds 3); fi
export BENCH_RESULTS
[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release --product loadgen)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"' EXIT
"$BIN_DIR/loadgen" broker "${ARGS[@]}" --json "$RESULTS"
python3 "$SCRIPTS_DIR/bench-json.py" broker --loadgen-json "$RESULTS" --input /dev/null \
    --command "${BENCH_COMMAND:-make bench-broker}" || warn "no docs/bench/broker.json from this run"
