#!/usr/bin/env bash
# The upgrade drill: the previous release and this tree side by side on one database under
# load, then rolled back (docs/operating.md, "Upgrades"). A fresh PostgreSQL, the previous
# release's broker and services (one replica each), two of its gateways behind HAProxy, `mixed`
# load through HAProxy all along. The upgrade: this tree's services start beside the old ones
# (applying their migrations), the old ones drain on SIGTERM, then each gateway is replaced. The
# rollback: the same way back. The broker stays the previous release's. Exit 0 only when loadgen
# saw no failed request (no unexpected answer, nothing it had to send again); prints each phase's.
#
#   make upgrade-drill                  # or: deploy/scripts/upgrade-drill.sh
#
# Environment:
#   PREVIOUS_BIN_DIR  the previous release's executables (with their *.resources bundles); unset:
#                   PREVIOUS_REF is built (BUILD_CONFIG) in a git worktree in .data/upgrade-drill/previous
#   BUILD_CONFIG    release (default) or debug: the builds the drill makes
#   PREVIOUS_REF    the commit to build (default: the newest commit that changed
#                   deploy/released-migrations.txt, which the release procedure writes)
#   CURRENT_BIN_DIR  this tree's executables (default BACKPLANE_BIN_DIR, else this tree built)
#   SKIP_BUILD=1    do not build this tree's executables
#   SERVICES        services to run (default: every worker of deploy/services.txt); the load
#                   leaves out the apps whose services are not run
#   LOAD_S          seconds of load (default 300); the drill fails if its phases take longer
#   STEADY_S        seconds of load before, between and after the two phases (default 20)
#   STOP_TIMEOUT    seconds a process gets to drain after SIGTERM (default 45)
#   LOG_LEVEL       the processes' (default warning)
# The load: 300 NavUP students, 300 TapWater users, logins and postcards 2/s, gifts 1/s, e-cards
# 0.5/s, 2000 PolitiMap users. Each phase's figures come from loadgen's progress lines (to the
# second): requests answered, unexpected answers, sent again. Output: .data/upgrade-drill/run/
# (processes' logs, HAProxy's config, loadgen's report, the migrations crossed).
set -euo pipefail
LOG_TAG=upgrade-drill
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${SERVICES:=$(registry worker)}" "${LOAD_S:=300}" "${STEADY_S:=20}" "${STOP_TIMEOUT:=45}" "${BUILD_CONFIG:=release}"
[[ $BUILD_CONFIG =~ ^(release|debug)$ ]] || die "BUILD_CONFIG is release or debug, not '$BUILD_CONFIG'"
for cmd in curl psql git; do require_cmd "$cmd" "run deploy/scripts/bootstrap.sh"; done
HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy) && [[ -x $HAPROXY ]] || die "haproxy not found (apt-get install haproxy)"
DRILL="$REPO_ROOT/.data/upgrade-drill" OUT="$REPO_ROOT/.data/upgrade-drill/run" STEPS="$SCRIPTS_DIR/upgrade-drill-steps.sh"

if [[ -z ${PREVIOUS_BIN_DIR:-} ]]; then
    : "${PREVIOUS_REF:=$(git -C "$REPO_ROOT" log -1 --format=%H -- deploy/released-migrations.txt)}"
    [[ -d $DRILL/previous ]] || git -C "$REPO_ROOT" worktree add --detach "$DRILL/previous" "$PREVIOUS_REF"
    git -C "$DRILL/previous" checkout -q --detach "$PREVIOUS_REF"
    info "building $PREVIOUS_REF ($BUILD_CONFIG) in ${DRILL#"$REPO_ROOT"/}/previous"
    (cd "$DRILL/previous" && swift build -c "$BUILD_CONFIG" --scratch-path "$DRILL/build-$BUILD_CONFIG") || die "the previous release did not build"
    PREVIOUS_BIN_DIR=$(cd "$DRILL/previous" && swift build -c "$BUILD_CONFIG" --scratch-path "$DRILL/build-$BUILD_CONFIG" --show-bin-path)
fi
: "${CURRENT_BIN_DIR:=${BACKPLANE_BIN_DIR:-}}"
if [[ -z $CURRENT_BIN_DIR ]]; then
    [[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c "$BUILD_CONFIG") || die "swift build -c $BUILD_CONFIG failed"
    CURRENT_BIN_DIR=$(cd "$REPO_ROOT" && swift build -c "$BUILD_CONFIG" --show-bin-path)
fi
for exe in broker gateway $SERVICES; do
    for dir in "$PREVIOUS_BIN_DIR" "$CURRENT_BIN_DIR"; do [[ -x $dir/$exe ]] || die "$dir/$exe not found"; done
done

rm -rf "$OUT" && mkdir -p "$OUT/run" "$OUT/logs"
PG_DIR="$OUT/pg" PG_PORT=$(free_port)
cleanup() {
    trap '' PIPE
    local file
    for file in "$OUT"/run/*.pid; do kill -TERM "$(cat "$file" 2>/dev/null)" 2>/dev/null || true; done
    sleep 1
    for file in "$OUT"/run/*.pid; do kill -KILL "$(cat "$file" 2>/dev/null)" 2>/dev/null || true; done
    "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
}
trap cleanup EXIT && trap 'exit 130' INT && trap 'exit 143' TERM
PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT" >/dev/null
DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$PG_PORT")

# What backplane-up would give every process (tools/up/UpKit/UpPlan.swift), on free ports.
BROKER_PORT=$(free_port) XSUB_PORT=$(free_port) XPUB_PORT=$(free_port) BALANCER_PORT=$(free_port)
GATEWAY_PORTS="$(free_port) $(free_port) $(free_port) $(free_port)" HAPROXY_ADMIN_PORT=$(free_port)
export OUT SERVICES PREVIOUS_BIN_DIR CURRENT_BIN_DIR GATEWAY_PORTS HAPROXY HAPROXY_ADMIN_PORT BALANCER_PORT STOP_TIMEOUT DATABASE_URL
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT" LOG_LEVEL=${LOG_LEVEL:-warning}
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export READINESS_SERVICES=${SERVICES// /,} TRUSTED_PROXIES=127.0.0.1,::1 DATA_DIR="$OUT/data"
SMTP_PORT=$(free_port) CIVIC_STANDIN_PORT=$(free_port)
export SMTP_PORT CIVIC_STANDIN_PORT CIVIC_FEED_URL="http://127.0.0.1:$CIVIC_STANDIN_PORT"
export CIVIC_LOCAL_FILES="$REPO_ROOT/deploy/civic/san_luis_obispo_city_council.sample.json"
export POSTAGE_FILE="$REPO_ROOT/services/printing/PrintingService/Resources/postage-sample.xml"
export GAZETTEER_FILE="$REPO_ROOT/.data/gazetteer/cities15000.tsv"
has() { [[ " $SERVICES " == *" $1 "* ]]; }
! has printing || "$SCRIPTS_DIR/gazetteer.sh" "$GAZETTEER_FILE"
! has notify || "$STEPS" start smtp prev
! has civic || "$STEPS" start openstates prev

"$STEPS" boot
deadline=$((SECONDS + 60))
until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$BALANCER_PORT/readyz" 2>/dev/null; do
    ((SECONDS < deadline)) || die "not ready through HAProxy after 60 s; see $OUT/logs"
    sleep 0.5
done

rate() { if has "$1" && { [[ -z ${3:-} ]] || has "$3"; }; then echo "$2"; else echo 0; fi; }
info "load: mixed for ${LOAD_S}s through HAProxy (services: $SERVICES)"
"$CURRENT_BIN_DIR/loadgen" mixed --url "http://127.0.0.1:$BALANCER_PORT" --seconds "$LOAD_S" \
    --users "$(rate routing 300)" --login-rate "$(rate auth 2)" --gift-rate "$(rate social 1 orders)" \
    --postcard-rate "$(rate orders 2)" --ecard-rate "$(rate notify 0.5 orders)" \
    --tapwater-users "$(rate hydration 300)" --politimap-users "$(rate civic 2000)" \
    --drink-every 60 --sync-every 30 --json "$OUT/report.json" >"$OUT/loadgen.txt" 2>"$OUT/loadgen-progress.txt" &
LOAD_PID=$!
echo "$LOAD_PID" >"$OUT/run/loadgen.cur.pid"
until grep -q ' answered ' "$OUT/loadgen-progress.txt" 2>/dev/null; do
    pid_alive "$LOAD_PID" || die "loadgen stopped before its load; see $OUT/loadgen-progress.txt"
    sleep 0.5
done
# mark PHASE: the phase starts now; loadgen's last progress line says what was sent so far.
mark() { echo "$1 $(date +%s.%N) $(grep ' answered ' "$OUT/loadgen-progress.txt" | tail -n 1)" >>"$OUT/phases.txt"; }
mark "previous" && sleep "$STEADY_S"
"$CURRENT_BIN_DIR/backplane-admin" migrate --dry-run | grep -v ': 0 pending' >"$OUT/migrations-crossed.txt"
info "migrations the upgrade applies under load (this tree's, not yet applied): $(paste -sd ';' "$OUT/migrations-crossed.txt")"
mark "upgrade"
"$STEPS" roll prev cur || die "the upgrade failed"
mark "current" && sleep "$STEADY_S" && mark "rollback"
"$STEPS" roll cur prev || die "the rollback failed"
mark "previous-again" && pid_alive "$LOAD_PID" || die "the load ended before the rollback did; raise LOAD_S"
wait "$LOAD_PID" && load_rc=0 || load_rc=$?
mark "end" && cat "$OUT/loadgen.txt"
((load_rc == 0)) || warn "loadgen exited with $load_rc; see $OUT/loadgen-progress.txt"
[[ -s $OUT/report.json ]] || die "loadgen wrote no report"

"$STEPS" phases | tee "$OUT/phases-report.txt"
read -r sent errors retries < <(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(sum(k["count"] for k in r["requests"]), sum(k["errors"] for k in r["requests"]), r["orderRetries"])' "$OUT/report.json")
info "requests: $sent; unexpected answers: $errors; sent again after no answer or 502/503/504: $retries"
((sent > 0 && errors == 0 && retries == 0)) || die "the drill failed: requests failed (see $OUT/loadgen.txt and $OUT/logs)"
info "passed: the upgrade and the rollback under load with no failed request"
