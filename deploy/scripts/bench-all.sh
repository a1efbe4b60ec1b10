#!/usr/bin/env bash
# Reruns the benchmarks behind every figure in docs/benchmarks.md, one after another (run it on
# a quiet machine: each one measures CPU time or latency on the whole box).
#
#   make bench                          # everything, in the order below
#   make bench BENCHES="auth orders"    # or deploy/scripts/bench-all.sh auth orders
#
# Names: broker, auth, flood, orders, payments, gateway, navup, routing, notify, hydration, social,
# printing, civic, fault. Each one's output is shown and kept in .data/bench/NAME.txt, and its
# figures go to docs/bench/*.json (deploy/scripts/bench-report.py then writes them into
# docs/benchmarks.md); at the end a table says which ran and which failed (the run goes on after
# a failure). One release build first; then SKIP_BUILD=1 for all of them.
#
# Environment:
#   BENCHES        the names to run (default: all; arguments win)
#   DATABASE_URL   used by notify's, hydration's and social's benchmarks; unset: a throwaway
#                  PostgreSQL under .data/bench/pg
#   BENCH_RESULTS  another folder for the result files, or off
set -euo pipefail
LOG_TAG=bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL="broker auth flood orders payments gateway navup routing notify hydration social printing civic fault"
if (($# > 0)); then BENCHES="$*"; fi
: "${BENCHES:=$ALL}"
for name in $BENCHES; do
    [[ " $ALL " == *" $name "* ]] || die "unknown benchmark '$name'; known: $ALL"
done

OUT="$REPO_ROOT/.data/bench"
mkdir -p "$OUT"
cd "$REPO_ROOT"
info "release build"
swift build -c release
export SKIP_BUILD=1

# notify's benchmark works on a database of its own choosing.
notify_database() {
    if [[ -n ${DATABASE_URL:-} ]]; then return 0; fi
    local port
    port=$(free_port)
    PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$OUT/pg" "$port" >&2
    DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$OUT/pg" "$port")
    export DATABASE_URL
    trap '"$SCRIPTS_DIR/pg.sh" stop "$OUT/pg" >/dev/null 2>&1 || true' EXIT
}

run_bench() {
    case $1 in
        notify | hydration | social)
            notify_database
            "$SCRIPTS_DIR/bench-$1.sh"
            ;;
        navup) "$SCRIPTS_DIR/bench-navup.sh" ;;
        # The fault run's reconciliation, as counts (fault-run.sh prints them; it exits non-zero
        # when something was lost, and then no result file is written).
        fault)
            "$SCRIPTS_DIR/fault-run.sh" 2>&1 | tee "$OUT/fault-run.txt" || return 1
            python3 "$SCRIPTS_DIR/bench-json.py" fault --input "$OUT/fault-run.txt" --command "make fault-run"
            ;;
        *) "$SCRIPTS_DIR/bench-$1.sh" ;;
    esac
}

declare -A RESULT
for name in $BENCHES; do
    info "== $name ($(date -u +%H:%M:%S) UTC) =="
    if run_bench "$name" 2>&1 | tee "$OUT/$name.txt"; then
        RESULT[$name]="ok"
    else
        RESULT[$name]="FAILED"
    fi
done

echo
printf '%-10s %-8s %s\n' benchmark result output
failed=0
for name in $BENCHES; do
    printf '%-10s %-8s %s\n' "$name" "${RESULT[$name]}" ".data/bench/$name.txt"
    [[ ${RESULT[$name]} == ok ]] || failed=1
done
if [[ ${BENCH_RESULTS:-} != off ]]; then
    python3 "$SCRIPTS_DIR/bench-report.py" || warn "bench-report.py failed; see above"
fi
exit "$failed"
