#!/usr/bin/env bash
# The fault run's kill plan (fault-run.sh runs it beside the load): every KILL_EVERY seconds, one
# process gets SIGKILL, the services and the gateway in turn (civic only while it runs an
# import), the broker once at a third of the run and PostgreSQL once at two thirds (started
# again here). Each round also gives the Open States stand-in new and changed bills and, with
# the Stripe stand-in, stalls or loses its answers every third round. Stops when the load
# (LOAD_PID) ends. Each kill is logged in OUT/kills.log.
#
# Reads what fault-run.sh exports: DURATION, KILL_EVERY, SERVICES, BIN_DIR, OUT, PG_DIR, PG_PORT,
# DATABASE_URL, LOAD_PID, PAYMENT_PROVIDER, STRIPE_TIMEOUT_MS, STRIPE_STANDIN_PORT,
# CIVIC_STANDIN_PORT.
set -euo pipefail
LOG_TAG=fault
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

log() { echo "$(date +%T) $*" | tee -a "$OUT/kills.log" >&2; }

kill_one() {
    local name=$1 pid
    pid=$(pgrep -f -n "^$BIN_DIR/$name\$" || true)
    if [[ -z $pid ]]; then
        log "$name: not running (still restarting?)"
        return 0
    fi
    kill -KILL "$pid"
    log "SIGKILL $name (pid $pid)"
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
        log "stripe stand-in faults $body" || true
}

kill_database() {
    local pid tries=0
    pid=$(head -n 1 "$PG_DIR/data/postmaster.pid")
    kill -KILL "$pid"
    log "SIGKILL postgres (postmaster pid $pid)"
    sleep 2
    until "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT" >>"$OUT/kills.log" 2>&1; do
        ((++tries < 15)) || die "PostgreSQL does not come back; see $PG_DIR/postgres.log"
        sleep 1
    done
    log "postgres started again"
}

read -r -a victims <<<"$SERVICES gateway"
rounds=$((DURATION / KILL_EVERY))
broker_round=$((rounds / 3))
pg_round=$((2 * rounds / 3))
for ((round = 1; round < rounds; round++)); do
    sleep "$KILL_EVERY"
    pid_alive "$LOAD_PID" || break
    feed_changes
    stripe_faults "$round"
    victim=${victims[$(((round - 1) % ${#victims[@]}))]}
    if ((round == broker_round)); then
        kill_one broker
    elif ((round == pg_round)); then
        kill_database
    elif [[ $victim == civic ]]; then
        kill_civic
    else
        kill_one "$victim"
    fi
done
