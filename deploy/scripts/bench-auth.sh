#!/usr/bin/env bash
# `make bench-auth`: logins through the system against the Argon2id bound, and token verification
# (deploy/scripts/bench-system.sh login); the figures go to docs/bench/auth.json.
#
#   deploy/scripts/bench-auth.sh [loadgen login options]   default: --clients 1,2,4,8,16,32 --seconds 10
#
# Environment (and bench-system.sh's):
#   BENCH_RESULTS  another folder for auth.json, or off
set -euo pipefail
ARGS=("$@")
((${#ARGS[@]})) || ARGS=(--clients 1,2,4,8,16,32 --seconds 10)
BENCH_NAME=auth exec "$(dirname "${BASH_SOURCE[0]}")/bench-system.sh" login "${ARGS[@]}"
