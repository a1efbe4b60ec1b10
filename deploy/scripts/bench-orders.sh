#!/usr/bin/env bash
# `make bench-orders`: quotes, then postcard orders, at a fixed rate through the gateway
# (deploy/scripts/bench-system.sh orders); the figures go to docs/bench/orders.json.
#
#   deploy/scripts/bench-orders.sh [loadgen orders options]   default: --rate 200 --seconds 20
#
# Environment (and bench-system.sh's):
#   BENCH_RESULTS  another folder for orders.json, or off
set -euo pipefail
ARGS=("$@")
((${#ARGS[@]})) || ARGS=(--rate 200 --seconds 20)
BENCH_NAME=orders exec "$(dirname "${BASH_SOURCE[0]}")/bench-system.sh" orders "${ARGS[@]}"
