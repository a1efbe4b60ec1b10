#!/usr/bin/env bash
# The fault run: the `mixed` load for DURATION seconds while, every KILL_EVERY seconds, one
# process gets SIGKILL (auth, orders, printing, routing, notify, hydration, civic mid-import, social, gateway in turn; the broker
# once; PostgreSQL once). up.sh runs with RESTART=always, so each comes back after a second,
# as it would under compose's restart policy; PostgreSQL is started again by this script.
# Afterwards it waits for the system to settle and reconciles the database against the orders
# the load generator was told about (deploy/scripts/reconcile.sh). Exit 0 only when nothing was
# lost, charged twice or left stuck.
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
#   ECARD_RATE      free e-cards per second, sent by accounts with no card (default 1); acknowledged
#                   orders like the postcards, which reconcile.sh checks moved no money
#   TAPWATER_USERS  TapWater users (default 300: a drink each every 60 s and a sync every 30 s,
#                   so that kills land among them)
#   GIFT_RATE       Gifter gift journeys per second (default 2), whose purchases are
#                   acknowledged orders like the postcards
#   SETTLE_S        seconds the system gets after the load to finish its work (default 120: a
#                   job claimed by a process killed near the end is taken again when its lease,
#                   60 s for renders, runs out); reconcile.sh's STUCK_S is half of it.
#                   Formerly SETTLE_SECONDS
#   PAYMENT_PROVIDER  sandbox (default) or stripe: orders pays through the Stripe stand-in
#                   (deploy/stripe-standin, started by up.sh on a free port; it is never killed,
#                   as Stripe would not be), which also stalls (two POSTs hang past orders'
#                   timeout) or loses its answers (two 500s after doing the work) every third
#                   round; reconcile.sh then also compares our ledger with the stand-in's record
#                   of charges. With stripe: STRIPE_TIMEOUT_MS 3000, STRIPE_RETRIES 1 and
#                   PAYMENT_RECOVERY_AFTER_MS 15000 unless set, so that recoveries finish while
#                   the system settles.
#   STRIPE_STANDIN_PORT  the Stripe stand-in's port (default: a free one)
#   CIVIC_STANDIN_PORT   the Open States stand-in's port (default: a free one)
#   SKIP_BUILD=1    use the release executables as they are
#   BACKPLANE_BIN_DIR  run the executables in this folder instead (e.g. a debug build)
# Output: .data/fault-run/ (system log, loadgen report, acknowledged order ids, kill log).
set -euo pipefail
LOG_TAG=fault
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
renamed_variable SETTLE_SECONDS SETTLE_S

: "${DURATION:=300}" "${KILL_EVERY:=20}" "${USERS:=500}" "${LOGIN_RATE:=5}" "${POSTCARD_RATE:=3}"
: "${TAPWATER_USERS:=300}" "${GIFT_RATE:=2}" "${ECARD_RATE:=1}"
: "${SETTLE_S:=120}" "${SERVICES:=$(registry worker)}"
for var in DURATION KILL_EVERY USERS TAPWATER_USERS SETTLE_S; do
    [[ ${!var} =~ ^[0-9]+$ ]] || die "$var must be a whole number, not '${!var}'"
done
((KILL_EVERY > 0)) || die "KILL_EVERY must be more than 0"
require_cmd curl "run deploy/scripts/bootstrap.sh"
require_cmd psql "run deploy/scripts/bootstrap.sh"

OUT="$REPO_ROOT/.data/fault-run"
PG_DIR="$OUT/pg"
mkdir -p "$OUT"
rm -f "$OUT/acknowledged.txt" "$OUT/acknowledged-drinks.txt" "$OUT/kills.log" "$OUT/report.json"
rm -rf "$OUT/mail" "$OUT/data"

# Our own PostgreSQL (fsync on: the point is what survives a kill), so that we may kill it;
# a fresh one each run, so the reconciliation sees this run's work only.
"$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
rm -rf "$PG_DIR"
PG_PORT=$(free_port)
"$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT"
DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$PG_PORT")
export DATABASE_URL

if [[ -n ${BACKPLANE_BIN_DIR:-} ]]; then
    BIN_DIR=$BACKPLANE_BIN_DIR
else
    if [[ -z ${SKIP_BUILD:-} ]]; then (cd "$REPO_ROOT" && swift build -c release); fi
    BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
fi
HTTP_PORT=$(free_port)
BROKER_PORT=$(free_port)
XSUB_PORT=$(free_port)
XPUB_PORT=$(free_port)
export HTTP_PORT SKIP_BUILD=1 SKIP_BOOTSTRAP=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-warning}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export SERVICES RESTART=always READINESS_SERVICES=${SERVICES// /,}
# civic imports every minute, and the stand-in's feed changes every round (new and changed
# bills), so that there is an import to cut short when civic is killed.
export CIVIC_IMPORT_INTERVAL_S=${CIVIC_IMPORT_INTERVAL_S:-60}
# New-bill pushes are decided 5 s after their bills arrive (not 60), so they settle in the run.
export CIVIC_PUSH_GATHER_S=${CIVIC_PUSH_GATHER_S:-5}
export PAYMENT_PROVIDER=${PAYMENT_PROVIDER:-sandbox}
case $PAYMENT_PROVIDER in
    sandbox) ;;
    stripe)
        unset STRIPE_BASE_URL # up.sh starts the stand-in
        export STRIPE_STANDIN_PORT=${STRIPE_STANDIN_PORT:-$(free_port)} STRIPE_API_KEY=${STRIPE_API_KEY:-sk_test_standin}
        export STRIPE_TIMEOUT_MS=${STRIPE_TIMEOUT_MS:-3000} STRIPE_RETRIES=${STRIPE_RETRIES:-1}
        export PAYMENT_RECOVERY_AFTER_MS=${PAYMENT_RECOVERY_AFTER_MS:-15000}
        ;;
    *) die "PAYMENT_PROVIDER must be sandbox or stripe, not '$PAYMENT_PROVIDER'" ;;
esac
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

# PolitiMap devices subscribed to new bills (one per level, one by subject), so that the kills
# cut into new-bill pushes too; reconcile.sh checks none was lost or doubled.
if [[ " $SERVICES " == *" civic "* ]]; then
    for jurisdiction in country:us/state:ca/place:san_luis_obispo country:us/state:ca/county:san_luis_obispo \
        country:us/state:ca country:us; do
        curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' \
            -d "{\"deviceToken\": \"fault-$RANDOM$RANDOM-${jurisdiction//[:\/]/-}\", \"platform\": \"android\", \"app\": \"politimap\", \"jurisdictions\": [\"ocd-jurisdiction/$jurisdiction/government\"]}" \
            "http://127.0.0.1:$HTTP_PORT/v1/civic/subscriptions" || warn "could not subscribe a device to $jurisdiction"
    done
    curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d "{\"deviceToken\": \"fault-$RANDOM$RANDOM-subjects\", \"platform\": \"android\", \"app\": \"politimap\", \"jurisdictions\": [\"ocd-jurisdiction/country:us/state:ca/government\", \"ocd-jurisdiction/country:us/government\"], \"subjects\": [\"Immigration\", \"Education\"]}" \
        "http://127.0.0.1:$HTTP_PORT/v1/civic/subscriptions" || warn "could not subscribe a device by subject"
fi

info "load: mixed for ${DURATION}s (users $USERS, logins $LOGIN_RATE/s, postcards $POSTCARD_RATE/s, free e-cards $ECARD_RATE/s, gifts $GIFT_RATE/s)"
"$BIN_DIR/loadgen" mixed --url "http://127.0.0.1:$HTTP_PORT" --seconds "$DURATION" --users "$USERS" \
    --login-rate "$LOGIN_RATE" --postcard-rate "$POSTCARD_RATE" --gift-rate "$GIFT_RATE" --ecard-rate "$ECARD_RATE" \
    --acknowledged "$OUT/acknowledged.txt" \
    --tapwater-users "$TAPWATER_USERS" --drink-every 60 --sync-every 30 \
    --acknowledged-drinks "$OUT/acknowledged-drinks.txt" \
    --json "$OUT/report.json" >"$OUT/loadgen.txt" 2>"$OUT/loadgen-progress.txt" &
LOAD_PID=$!

# The kill plan: services and the gateway in turn; the broker at a third of the run and
# PostgreSQL at two thirds.
read -r -a victims <<<"$SERVICES gateway"
rounds=$((DURATION / KILL_EVERY))
broker_round=$((rounds / 3))
pg_round=$((2 * rounds / 3))
kill_one() {
    local name=$1 pid
    pid=$(pgrep -f -n "^$BIN_DIR/$name\$" || true)
    if [[ -z $pid ]]; then
        echo "$(date +%T) $name: not running (still restarting?)" | tee -a "$OUT/kills.log" >&2
        return 0
    fi
    kill -KILL "$pid"
    echo "$(date +%T) SIGKILL $name (pid $pid)" | tee -a "$OUT/kills.log" >&2
}
# kill_civic: waits (up to 70 s) until civic is running an import, then kills it mid-import.
kill_civic() {
    local waited=0
    until [[ $(psql "$DATABASE_URL" -qAt -c "SELECT count(*) FROM civic.jobs WHERE state = 'running'" 2>/dev/null) == 1 ]]; do
        ((++waited < 350)) || break
        sleep 0.2
    done
    kill_one civic
}
# feed_changes: the stand-in gets new bills and changes to old ones.
feed_changes() {
    [[ " $SERVICES " == *" civic "* ]] || return 0
    curl -fsS -o /dev/null -X POST -d '{"count": 200}' "http://127.0.0.1:$CIVIC_STANDIN_PORT/_standin/introduce" || true
    curl -fsS -o /dev/null -X POST -d '{"count": 200}' "http://127.0.0.1:$CIVIC_STANDIN_PORT/_standin/touch" || true
}
# stripe_faults ROUND: with the Stripe stand-in, every third round two POSTs hang past orders'
# timeout (retried with the same key), the round after two answers are lost after the work.
stripe_faults() {
    [[ $PAYMENT_PROVIDER == stripe ]] || return 0
    local body
    case $(($1 % 3)) in
        0) body="{\"timeout\": 2, \"timeout_s\": $(((STRIPE_TIMEOUT_MS + 999) / 1000 + 2))}" ;;
        1) body='{"fail_5xx": 2, "fail_after": true}' ;;
        *) return 0 ;;
    esac
    curl -fsS -o /dev/null -X POST -d "$body" "http://127.0.0.1:$STRIPE_STANDIN_PORT/_standin/faults" &&
        echo "$(date +%T) stripe stand-in faults $body" | tee -a "$OUT/kills.log" >&2 || true
}
kill_database() {
    local pid
    pid=$(head -n 1 "$PG_DIR/data/postmaster.pid")
    kill -KILL "$pid"
    echo "$(date +%T) SIGKILL postgres (postmaster pid $pid)" | tee -a "$OUT/kills.log" >&2
    sleep 2
    local tries=0
    until "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT" >>"$OUT/kills.log" 2>&1; do
        ((++tries < 15)) || die "PostgreSQL does not come back; see $PG_DIR/postgres.log"
        sleep 1
    done
    echo "$(date +%T) postgres started again" | tee -a "$OUT/kills.log" >&2
}
for ((round = 1; round < rounds; round++)); do
    sleep "$KILL_EVERY"
    pid_alive "$LOAD_PID" || break
    feed_changes
    stripe_faults "$round"
    if ((round == broker_round)); then
        kill_one broker
    elif ((round == pg_round)); then
        kill_database
    elif [[ ${victims[$(((round - 1) % ${#victims[@]}))]} == civic ]]; then
        kill_civic
    else
        kill_one "${victims[$(((round - 1) % ${#victims[@]}))]}"
    fi
done
load_rc=0
wait "$LOAD_PID" || load_rc=$?
LOAD_PID=""
cat "$OUT/loadgen.txt"
((load_rc == 0)) || warn "loadgen exited with $load_rc; see $OUT/loadgen-progress.txt"

info "load over; giving the system up to ${SETTLE_S}s to finish its work"
wait_ready "$SETTLE_S" || warn "not ready again within ${SETTLE_S}s"
sleep "$((SETTLE_S / 2))"
info "kills: $(grep -c SIGKILL "$OUT/kills.log" || true) (log in $OUT/kills.log)"
CIVIC_FEED_BILLS=""
if [[ " $SERVICES " == *" civic "* ]]; then
    # One more import after the load, uncut, so that civic holds the whole feed.
    CIVIC_FEED_BILLS=$(curl -fsS "http://127.0.0.1:$CIVIC_STANDIN_PORT/_standin/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bills"])')
    deadline=$((SECONDS + 90))
    until [[ $(psql "$DATABASE_URL" -qAt -c "SELECT count(*) FROM civic.bills WHERE source_id NOT LIKE 'local:%'") == "$CIVIC_FEED_BILLS" ]] || ((SECONDS > deadline)); do
        sleep 1
    done
fi
export CIVIC_FEED_BILLS
if [[ " $SERVICES " == *" notify "* ]]; then
    # A notify killed right after it claimed deliveries leaves them leased to the dead process
    # (the deliverer's lease, 120 s) until a claim takes them over; wait for that (150 s at most)
    # rather than call them stuck while the lease still runs.
    deadline=$((SECONDS + 150))
    until [[ $(psql "$DATABASE_URL" -qAt -c "SELECT count(*) FROM notify.jobs WHERE state IN ('queued', 'running')
            AND run_at < now() - interval '$((SETTLE_S / 2)) seconds'") == 0 ]] || ((SECONDS > deadline)); do
        sleep 1
    done
fi
STRIPE_CHARGES_URL=""
[[ $PAYMENT_PROVIDER != stripe ]] || STRIPE_CHARGES_URL="http://127.0.0.1:$STRIPE_STANDIN_PORT/_standin/charges"
export STRIPE_CHARGES_URL
ACKNOWLEDGED_DRINKS="$OUT/acknowledged-drinks.txt" MAIL_DIR="$OUT/mail" STUCK_S=$((SETTLE_S / 2)) "$SCRIPTS_DIR/reconcile.sh" "$OUT/acknowledged.txt"
