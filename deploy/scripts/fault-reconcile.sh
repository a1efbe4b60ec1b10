#!/usr/bin/env bash
# The fault run's last step (fault-run.sh runs it once the system has settled): the last waits,
# then the reconciliation of the database against what the load generator was told:
# Tests/ReconcileTests (`swift test --skip-build`, from the test build fault-run.sh made), which
# prints one line per count and fails when an order was lost, charged twice or not at all, a
# ledger does not add up, or work is stuck. Exits with its status.
#
# Reads what fault-run.sh exports: OUT, SERVICES, DATABASE_URL, SETTLE_S, STUCK_S,
# PAYMENT_PROVIDER, STRIPE_STANDIN_PORT, and what fault-civic.sh reads.
set -euo pipefail
LOG_TAG=fault
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

info "kills: $(grep -c SIGKILL "$OUT/kills.log" || true) (log in $OUT/kills.log)"
CIVIC_FEED_BILLS=""
[[ " $SERVICES " != *" civic "* ]] || CIVIC_FEED_BILLS=$("$SCRIPTS_DIR/fault-civic.sh" feed)
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
info "reconciling the database against what the load generator was told (Tests/ReconcileTests)"
cd "$REPO_ROOT"
export ACKNOWLEDGED_FILE="$OUT/acknowledged.txt" ACKNOWLEDGED_DRINKS="$OUT/acknowledged-drinks.txt" MAIL_DIR="$OUT/mail"
export STUCK_S CIVIC_FEED_BILLS STRIPE_CHARGES_URL
swift test --skip-build --filter '^ReconcileTests\.FaultRunReconciliation/' ||
    die "the reconciliation found losses, duplicates or stuck work (marked !! above), or could not run"
info "reconciled: nothing lost, nothing charged twice, nothing stuck"
