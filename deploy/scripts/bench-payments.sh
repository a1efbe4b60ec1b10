#!/usr/bin/env bash
# `make bench-payments`: orders through the gateway while orders pays through the Stripe
# stand-in (deploy/stripe-standin), which answers every call after STRIPE_STANDIN_DELAY_MS
# (300 ms, a real processor's pace). Runs bench-system.sh's `orders` scenario (quotes, then
# postcard orders, each at --rate for --seconds: loadgen prints p50/p99 from when each request
# was due) and, all the while, samples PostgreSQL's connections every 100 ms: a pool is
# exhausted when all its connections are busy at once, so the most busy connections seen is
# printed against the pool's size (PostgresNIO's 20 per process).
#
#   deploy/scripts/bench-payments.sh [loadgen options...]     default: --rate 200 --seconds 30
#   e.g. smoke run on the debug build:
#   SKIP_BUILD=1 BACKPLANE_BIN_DIR=$(swift build --show-bin-path) deploy/scripts/bench-payments.sh --rate 20 --seconds 3
#
# Environment:
#   STRIPE_STANDIN_DELAY_MS  the stand-in's answer time (default 300)
#   WORKER_CONCURRENCY       requests one process handles at once (default here 128: an order
#                            holds its MDP slot through the processor's 300 ms, so 200/s needs
#                            at least 60 slots; the service's own default of 8 tops out at
#                            about 8 / 0.3 s = 26 orders/s)
#   SKIP_BUILD=1   as for bench-system.sh (release build by default)
#   BACKPLANE_BIN_DIR  as for bench-system.sh
#   BENCH_RESULTS  the folder for payments.json (default docs/bench); off: none (also off by
#                  default with BACKPLANE_BIN_DIR)
#   BENCH_COMMAND  the command payments.json names (default make bench-payments)
# Target: p99 < 400 ms at 200 orders/s, no pool exhaustion.
set -euo pipefail
LOG_TAG=bench-payments
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_cmd psql "install the PostgreSQL client (apt-get install postgresql-client)"

if [[ -n ${BACKPLANE_BIN_DIR:-} && -z ${BENCH_RESULTS:-} ]]; then export BENCH_RESULTS=off; fi
ARGS=("$@")
((${#ARGS[@]})) || ARGS=(--rate 200 --seconds 30)
POOL_SIZE=20

# Our own PostgreSQL (fsync on, as in production), fresh each run.
PG_DIR="$REPO_ROOT/.data/pg-bench-payments"
"$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
rm -rf "$PG_DIR"
PG_PORT=$(free_port)
"$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT"
DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$PG_PORT")
export DATABASE_URL

export PAYMENT_PROVIDER=stripe STRIPE_STANDIN_PORT=$(free_port)
export STRIPE_STANDIN_DELAY_MS=${STRIPE_STANDIN_DELAY_MS:-300}
export WORKER_CONCURRENCY=${WORKER_CONCURRENCY:-128}
unset STRIPE_BASE_URL
SAMPLES="$REPO_ROOT/.data/bench-payments-connections.txt"
: >"$SAMPLES"

# busy total, every 100 ms: connections in a statement or a transaction, and all open ones, of
# every process but this sampler.
sample() {
    while :; do
        psql "$DATABASE_URL" -qAt -F ' ' -c "SELECT count(*) FILTER (WHERE state <> 'idle'), count(*)
            FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND backend_type = 'client backend'" >>"$SAMPLES" 2>/dev/null || true
        sleep 0.1
    done
}
sample &
SAMPLER=$!
finish() {
    kill "$SAMPLER" 2>/dev/null || true
    wait "$SAMPLER" 2>/dev/null || true
    "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
}
trap finish EXIT

info "orders pay through the Stripe stand-in answering in ${STRIPE_STANDIN_DELAY_MS} ms; WORKER_CONCURRENCY=$WORKER_CONCURRENCY"
REPORT="$REPO_ROOT/.data/bench-payments.txt"
BENCH_NAME="" "$SCRIPTS_DIR/bench-system.sh" orders "${ARGS[@]}" | tee "$REPORT"
kill "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" 2>/dev/null || true

read -r busy open samples < <(awk '{ if ($1 > b) b = $1; if ($2 > o) o = $2; n++ } END { print b + 0, o + 0, n + 0 }' "$SAMPLES")
{
    echo "PostgreSQL connections (every process, $samples samples 100 ms apart): at most $busy busy at once, $open open; pool size $POOL_SIZE per process"
    if ((busy >= POOL_SIZE)); then
        echo "pool: EXHAUSTED at least once (all $POOL_SIZE connections of a process may have been busy)"
    else
        echo "pool: not exhausted (at most $busy of $POOL_SIZE busy)"
    fi
} | tee -a "$REPORT"
python3 "$SCRIPTS_DIR/bench-json.py" payments --input "$REPORT" --command "${BENCH_COMMAND:-make bench-payments}" ||
    warn "no docs/bench/payments.json from this run"
