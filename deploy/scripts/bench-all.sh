#!/usr/bin/env bash
# Reruns the benchmarks behind every figure in docs/benchmarks.md, one after another (run it on
# a quiet machine: each one measures CPU time or latency on the whole box).
#
#   make bench                          # everything, in the order below
#   make bench BENCHES="auth orders"    # or deploy/scripts/bench-all.sh auth orders
#
# Names: broker, auth, orders, navup, routing, notify, hydration, social, printing, fault. Each one's output is shown
# and kept in .data/bench/NAME.txt; at the end a table says which ran and which failed (the run
# goes on after a failure). One release build first; then SKIP_BUILD=1 for all of them.
#
# Environment:
#   BENCHES        the names to run (default: all; arguments win)
#   NAVUP_USERS    NavUP user counts, one run each (default "10000 50000"); NAVUP_SECONDS (30)
#   DATABASE_URL   used by notify's benchmark; unset: a throwaway PostgreSQL under .data/bench/pg
set -euo pipefail
LOG_TAG=bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL="broker auth flood orders navup routing notify hydration social printing fault"
if (($# > 0)); then BENCHES="$*"; fi
: "${BENCHES:=$ALL}" "${NAVUP_USERS:=10000 50000}" "${NAVUP_SECONDS:=30}"
for name in $BENCHES; do
    [[ " $ALL " == *" $name "* ]] || die "unknown benchmark '$name'; known: $ALL"
done

OUT="$REPO_ROOT/.data/bench"
mkdir -p "$OUT"
cd "$REPO_ROOT"
info "release build"
swift build -c release
BIN_DIR=$(swift build -c release --show-bin-path)
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
        broker) "$BIN_DIR/loadgen" broker --rounds 3 ;;
        auth) "$SCRIPTS_DIR/bench-system.sh" login --clients 1,2,4,8,16,32 --seconds 10 ;;
        flood) "$SCRIPTS_DIR/bench-system.sh" flood && "$SCRIPTS_DIR/bench-system.sh" stuffing ;;
        orders) "$SCRIPTS_DIR/bench-system.sh" orders --rate 200 --seconds 20 ;;
        navup)
            local users
            for users in $NAVUP_USERS; do
                SERVICES=routing "$SCRIPTS_DIR/bench-system.sh" navup --users "$users" --seconds "$NAVUP_SECONDS" ||
                    return 1
            done
            ;;
        routing) "$SCRIPTS_DIR/bench-routing.sh" ;;
        notify)
            notify_database
            swift build -c release --product notify-bench
            local what
            for what in mail push scheduler; do "$BIN_DIR/notify-bench" "$what" || return 1; done
            ;;
        hydration)
            notify_database
            local case
            for case in first-sync incremental; do "$BIN_DIR/hydration-bench" --only "$case" || return 1; done
            "$BIN_DIR/hydration-bench" --only reminders --compression 288
            ;;
        social)
            notify_database
            local case
            for case in directory catalog launch; do "$BIN_DIR/social-bench" --only "$case" || return 1; done
            # Gift purchases through the system, on up.sh's PostgreSQL (fsync on), as orders.
            env -u DATABASE_URL "$SCRIPTS_DIR/bench-system.sh" gifts --rate 100 --seconds 20
            ;;
        printing) make --no-print-directory bench-printing ;;
        fault) "$SCRIPTS_DIR/fault-run.sh" ;;
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
exit "$failed"
