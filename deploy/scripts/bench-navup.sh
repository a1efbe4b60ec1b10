#!/usr/bin/env bash
# `make bench-navup`: NavUP's students at a fixed rate through the system, with the CPU each
# process spends per request (deploy/scripts/cpu-per-request.sh); the figures go to
# docs/bench/navup.json.
#
#   deploy/scripts/bench-navup.sh [USERS] [SECONDS]      default 50000 students for 300 s
#
# Environment (and cpu-per-request.sh's):
#   BENCH_RESULTS  another folder for navup.json, or off
set -euo pipefail
BENCH_NAME=navup exec "$(dirname "${BASH_SOURCE[0]}")/cpu-per-request.sh" "${1:-50000}" "${2:-300}"
