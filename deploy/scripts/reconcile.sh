#!/usr/bin/env bash
# Reconciles the database against what the load generator was told (the fault run's last step):
#
#   deploy/scripts/reconcile.sh ACKNOWLEDGED_FILE
#
# ACKNOWLEDGED_FILE holds the id of every order the system answered 201, one per line
# (`loadgen postcard|mixed --acknowledged FILE`). Prints one line per count and exits 1 when an
# order was lost, charged twice or not at all, a ledger does not add up, an order or an event is
# stuck; 0 otherwise. Needs psql and DATABASE_URL.
#
# Environment:
#   DATABASE_URL     the database (required)
#   STUCK_SECONDS    an order still pending_payment, or an event not yet handled by a consumer
#                    that handles its topic, this long after it was written is stuck (default 60)
set -euo pipefail
LOG_TAG=reconcile
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ACKED=${1:?usage: reconcile.sh ACKNOWLEDGED_FILE}
[[ -r $ACKED ]] || die "cannot read $ACKED"
[[ -n ${DATABASE_URL:-} ]] || die "DATABASE_URL is not set"
require_cmd psql "install postgresql-client"
: "${STUCK_SECONDS:=60}"
[[ $STUCK_SECONDS =~ ^[0-9]+$ ]] || die "STUCK_SECONDS must be a whole number of seconds"

# One row per check: name|count|bad (bad: 1 when a count above zero is a failure).
report=$(psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -qAt -F '|' <<SQL
CREATE TEMP TABLE acked (id uuid);
\copy acked FROM '$ACKED'
SELECT 'orders acknowledged to the client', count(*), 0 FROM acked;
SELECT 'acknowledged twice (same id)', count(*) - count(DISTINCT id), 1 FROM acked;
SELECT 'acknowledged but not in the database (lost)', count(*), 1
  FROM acked a WHERE NOT EXISTS (SELECT 1 FROM orders.orders o WHERE o.id = a.id);
SELECT 'acknowledged without an authorization', count(*), 1
  FROM acked a WHERE NOT EXISTS (SELECT 1 FROM orders.ledger l WHERE l.order_id = a.id AND l.movement = 'authorize');
-- A capture or refund is two ledger rows (one per account) with one provider reference.
SELECT 'orders authorized more than once (double charge)', count(*), 1 FROM (
  SELECT order_id FROM orders.ledger WHERE movement = 'authorize' GROUP BY order_id HAVING count(DISTINCT provider_ref) > 1) twice;
SELECT 'orders captured more than once', count(*), 1 FROM (
  SELECT order_id FROM orders.ledger WHERE movement = 'capture' GROUP BY order_id HAVING count(DISTINCT provider_ref) > 1) twice;
SELECT 'failed, canceled or refunded orders whose charge account is not zero', count(*), 1 FROM (
  SELECT o.id FROM orders.orders o JOIN orders.ledger l ON l.order_id = o.id AND l.account = 'charge'
  WHERE o.state IN ('failed', 'canceled', 'refunded') GROUP BY o.id HAVING sum(l.amount) <> 0) off;
SELECT 'orders pending_payment for more than ${STUCK_SECONDS} s (stuck)', count(*), 1
  FROM orders.orders WHERE state = 'pending_payment' AND created_at < now() - interval '${STUCK_SECONDS} seconds';
SELECT 'orders now ' || state, count(*), 0 FROM orders.orders o JOIN acked a ON a.id = o.id GROUP BY state ORDER BY state;
-- A consumer handles the topics it has handled before; an event of such a topic written after
-- its cursor and older than STUCK_SECONDS waits for nobody.
SELECT 'events not handled by ' || c.name || ' (stuck)', count(l.seq), 1
  FROM events.consumers c
  LEFT JOIN events.log l ON (l.xid, l.seq) > (c.last_xid, c.last_seq)
   AND l.created_at < now() - interval '${STUCK_SECONDS} seconds'
   AND l.topic IN (SELECT DISTINCT e.topic FROM events.handled h JOIN events.log e ON e.id = h.event_id WHERE h.consumer = c.name)
  GROUP BY c.name ORDER BY c.name;
SQL
)
failed=0
while IFS='|' read -r name count bad; do
    [[ -n $name ]] || continue
    mark="  "
    if ((bad == 1 && count > 0)); then
        mark="!!"
        failed=1
    fi
    printf '%s %-72s %8s\n' "$mark" "$name" "$count"
done <<<"$report"
if ((failed)); then
    warn "reconciliation found losses, duplicates or stuck work (marked !!)"
    exit 1
fi
info "reconciled: nothing lost, nothing charged twice, nothing stuck"
