#!/usr/bin/env bash
# The fault run: the `mixed` load for DURATION seconds while, every KILL_EVERY seconds, one
# process gets SIGKILL (fault-kills.sh: each service, civic mid-import, the gateway, the broker,
# PostgreSQL), brought back by up.sh's RESTART=always. Once the system has settled,
# fault-reconcile.sh reconciles the database against what the load generator was told
# (Tests/ReconcileTests). Exit 0 only when nothing was lost, charged twice or left stuck.
#
#   make fault-run                      # or: deploy/scripts/fault-run.sh
#
# Environment:
#   DURATION        seconds of load (default 300)
#   KILL_EVERY      seconds between kills (default 20)
#   SERVICES        services to run (default: every worker of deploy/services.txt)
#   USERS           NavUP users of the load (default 500)
#   LOGIN_RATE      logins per second (default 5)
#   POSTCARD_RATE   postcard journeys per second (default 3)
#   ECARD_RATE      free e-cards per second, from accounts with no card (default 1): no money moves
#   TAPWATER_USERS  TapWater users (default 300: a drink each every 60 s, a sync every 30 s)
#   GIFT_RATE       Gifter gift journeys per second (default 2), acknowledged orders as well
#   SETTLE_S        seconds the system gets after the load to finish its work (default 120: a job
#                   a killed process held is taken again when its lease runs out). Formerly SETTLE_SECONDS
#   STUCK_S         work older than this at the reconciliation is stuck (default half of
#                   SETTLE_S). Formerly STUCK_SECONDS
#   PAYMENT_PROVIDER  sandbox (default) or stripe: orders pays through the Stripe stand-in (never
#                   killed), which stalls or loses its answers every third round, and our ledger
#                   is compared with its record of charges. With stripe: STRIPE_TIMEOUT_MS 3000,
#                   STRIPE_RETRIES 1 and PAYMENT_RECOVERY_AFTER_MS 15000 unless set.
#   STRIPE_STANDIN_PORT  the Stripe stand-in's port (default: a free one)
#   CIVIC_STANDIN_PORT   the Open States stand-in's port (default: a free one)
#   SKIP_BUILD=1    use the executables and the test build as they are
#   BACKPLANE_BIN_DIR  run the executables in this folder instead of the release build (e.g. a
#                   debug build); the reconciliation always runs from the debug test build
# Output: .data/fault-run/ (system log, loadgen report, acknowledged order ids, kill log).
set -euo pipefail
LOG_TAG=fault
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
renamed_variable SETTLE_SECONDS SETTLE_S
renamed_variable STUCK_SECONDS STUCK_S
: "${DURATION:=300}" "${KILL_EVERY:=20}" "${USERS:=500}" "${LOGIN_RATE:=5}" "${POSTCARD_RATE:=3}"
: "${TAPWATER_USERS:=300}" "${GIFT_RATE:=2}" "${ECARD_RATE:=1}" "${SETTLE_S:=120}" "${SERVICES:=$(registry worker)}"
: "${STUCK_S:=$((SETTLE_S / 2))}"
for var in DURATION KILL_EVERY USERS TAPWATER_USERS SETTLE_S STUCK_S; do
    [[ ${!var} =~ ^[0-9]+$ ]] || die "$var must be a whole number, not '${!var}'"
done
((KILL_EVERY > 0)) || die "KILL_EVERY must be more than 0"
for cmd in curl psql; do require_cmd "$cmd" "run deploy/scripts/bootstrap.sh"; done

OUT="$REPO_ROOT/.data/fault-run" PG_DIR="$REPO_ROOT/.data/fault-run/pg"
mkdir -p "$OUT"
rm -rf "$OUT/acknowledged.txt" "$OUT/acknowledged-drinks.txt" "$OUT/kills.log" "$OUT/report.json" "$OUT/mail" "$OUT/data"
# The reconciliation is a Swift test: its build comes first, so that nothing is built after the load.
if [[ -z ${SKIP_BUILD:-} ]]; then
    (cd "$REPO_ROOT" && swift build --build-tests && { [[ -n ${BACKPLANE_BIN_DIR:-} ]] || swift build -c release; })
fi
BACKPLANE_BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}

# A fresh PostgreSQL of our own each run, to kill (fsync on: the point is what survives a kill).
"$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
rm -rf "$PG_DIR"
PG_PORT=$(free_port)
"$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT"
DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$PG_PORT")

HTTP_PORT=$(free_port) BROKER_PORT=$(free_port) XSUB_PORT=$(free_port) XPUB_PORT=$(free_port)
export DATABASE_URL HTTP_PORT SKIP_BUILD=1 SKIP_BOOTSTRAP=1 BACKPLANE_BIN_DIR BIN_DIR=$BACKPLANE_BIN_DIR LOG_LEVEL=${LOG_LEVEL:-warning}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export SERVICES RESTART=always READINESS_SERVICES=${SERVICES// /,} OUT PG_DIR PG_PORT DURATION KILL_EVERY SETTLE_S STUCK_S
# An import a minute, for kills to cut short; new-bill pushes decided 5 s after their bills.
export CIVIC_IMPORT_INTERVAL_S=${CIVIC_IMPORT_INTERVAL_S:-60} CIVIC_PUSH_GATHER_S=${CIVIC_PUSH_GATHER_S:-5}
export PAYMENT_PROVIDER=${PAYMENT_PROVIDER:-sandbox}
[[ $PAYMENT_PROVIDER =~ ^(sandbox|stripe)$ ]] || die "PAYMENT_PROVIDER must be sandbox or stripe, not '$PAYMENT_PROVIDER'"
if [[ $PAYMENT_PROVIDER == stripe ]]; then
    unset STRIPE_BASE_URL # up.sh starts the stand-in
    export STRIPE_STANDIN_PORT=${STRIPE_STANDIN_PORT:-$(free_port)} STRIPE_API_KEY=${STRIPE_API_KEY:-sk_test_standin}
    export STRIPE_TIMEOUT_MS=${STRIPE_TIMEOUT_MS:-3000} STRIPE_RETRIES=${STRIPE_RETRIES:-1}
    export PAYMENT_RECOVERY_AFTER_MS=${PAYMENT_RECOVERY_AFTER_MS:-15000}
fi
export SMTP_PORT=${SMTP_PORT:-$(free_port)} SMTP_SINK_DIR="$OUT/mail" DATA_DIR="$OUT/data" CIVIC_STANDIN_PORT=${CIVIC_STANDIN_PORT:-$(free_port)}

info "starting the system (services: $SERVICES; log in $OUT/system.log)"
"$SCRIPTS_DIR/up.sh" >"$OUT/system.log" 2>&1 &
UP_PID=$!
LOAD_PID=""
finish() {
    [[ -z $LOAD_PID ]] || kill -TERM "$LOAD_PID" 2>/dev/null || true
    kill -TERM "$UP_PID" 2>/dev/null || true
    wait "$UP_PID" 2>/dev/null || true
    "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
}
trap finish EXIT
wait_ready() {
    local deadline=$((SECONDS + $1))
    until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$HTTP_PORT/readyz" 2>/dev/null; do
        pid_alive "$UP_PID" || die "the system stopped; see $OUT/system.log"
        ((SECONDS < deadline)) || return 1
        sleep 0.5
    done
}
wait_ready 120 || die "not ready after 120 s; see $OUT/system.log"
[[ " $SERVICES " != *" civic "* ]] || "$SCRIPTS_DIR/fault-civic.sh" subscribe

info "load: mixed for ${DURATION}s (users $USERS, logins $LOGIN_RATE/s, postcards $POSTCARD_RATE/s, free e-cards $ECARD_RATE/s, gifts $GIFT_RATE/s)"
"$BIN_DIR/loadgen" mixed --url "http://127.0.0.1:$HTTP_PORT" --seconds "$DURATION" --users "$USERS" \
    --login-rate "$LOGIN_RATE" --postcard-rate "$POSTCARD_RATE" --gift-rate "$GIFT_RATE" --ecard-rate "$ECARD_RATE" \
    --acknowledged "$OUT/acknowledged.txt" --tapwater-users "$TAPWATER_USERS" --drink-every 60 --sync-every 30 \
    --acknowledged-drinks "$OUT/acknowledged-drinks.txt" \
    --json "$OUT/report.json" >"$OUT/loadgen.txt" 2>"$OUT/loadgen-progress.txt" &
export LOAD_PID=$!
"$SCRIPTS_DIR/fault-kills.sh" || die "the kill plan failed"
load_rc=0
wait "$LOAD_PID" || load_rc=$?
LOAD_PID=""
cat "$OUT/loadgen.txt"
((load_rc == 0)) || warn "loadgen exited with $load_rc; see $OUT/loadgen-progress.txt"

info "load over; giving the system up to ${SETTLE_S}s to finish its work"
wait_ready "$SETTLE_S" || warn "not ready again within ${SETTLE_S}s"
sleep "$((SETTLE_S / 2))"
"$SCRIPTS_DIR/fault-reconcile.sh"
