#!/usr/bin/env bash
# `make bench-routing`: the route query benchmark with its pgRouting comparison, reproducible on a
# fresh machine. Installs PostgreSQL's pgRouting package when it is missing (apt, as root), starts
# a throwaway PostgreSQL in .data/bench-routing-pg on a free port, enables the extension there as
# the superuser (the service's own role is not one), and runs `routing-bench` from the release
# build against it: in-process A* on the sample campus, the same pairs with pgr_dijkstra, and the
# 1,000,000-node grid.
#
# The figures go to docs/bench/routing.json (the route queries) and docs/bench/timetable.json
# (the timetable reads and next-class routing that follow them).
#
# Environment:
#   SKIP_BUILD=1   use the release build as it is
#   PG_BINDIR      as for pg.sh
#   BENCH_RESULTS  another folder for the result files, or off (also off by default when options
#                  are given to routing-bench: a partial run)
#   BENCH_COMMAND  the command the result files name (default make bench-routing)
set -euo pipefail
LOG_TAG=bench-routing
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_cmd psql "run deploy/scripts/bootstrap.sh"
PG_MAJOR=$(psql --version | sed -E 's/[^0-9]*([0-9]+).*/\1/')
PACKAGE="postgresql-$PG_MAJOR-pgrouting"
if ! dpkg-query -W -f='${Status}' "$PACKAGE" 2>/dev/null | grep -q "install ok installed"; then
    info "installing $PACKAGE (apt)"
    as_root apt-get -o DPkg::Lock::Timeout=300 -q update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q \
        --no-install-recommends install "$PACKAGE" >/dev/null
fi

DIR="$REPO_ROOT/.data/bench-routing-pg"
PORT=$(free_port)
"$SCRIPTS_DIR/pg.sh" start "$DIR" "$PORT"
trap '"$SCRIPTS_DIR/pg.sh" stop "$DIR" >/dev/null 2>&1 || true' EXIT
# Local connections are trusted in this throwaway cluster; the superuser enables the extension.
psql "postgres://postgres@127.0.0.1:$PORT/backplane" -qc "CREATE EXTENSION IF NOT EXISTS pgrouting CASCADE"

[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release --product routing-bench)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
(($# == 0)) || export BENCH_RESULTS=${BENCH_RESULTS:-off}
OUTPUT="$REPO_ROOT/.data/bench-routing.txt"
DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$DIR" "$PORT") "$BIN_DIR/routing-bench" "$@" | tee "$OUTPUT"
for name in routing timetable; do
    python3 "$SCRIPTS_DIR/bench-json.py" "$name" --input "$OUTPUT" --command "${BENCH_COMMAND:-make bench-routing}" ||
        warn "no docs/bench/$name.json from this run"
done
