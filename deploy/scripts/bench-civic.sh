#!/usr/bin/env bash
# PolitiMap's figures (make bench-civic): civic and the gateway (release build) on a fresh
# PostgreSQL, importing from the Open States stand-in at STANDIN_SCALE, then:
#
#   1. the first import (every bill new): its run time, from civic.import_runs;
#   2. CHANGED bills changed in the feed at once: the time of the import run that takes them in;
#   3. freshness: one bill changed in the feed, timed until GET /v1/civic/bills/{id} serves the
#      change (the wait for the next scheduled import included: at most CIVIC_IMPORT_INTERVAL_S);
#   4. reads: loadgen politimap (highlights, a page of bills, two bills, one lookup in four opens)
#      at READ_USERS users opening the app every OPEN_EVERY seconds, for LOAD_S seconds.
#
# The figures go to docs/bench/civic.json.
#
# Environment:
#   STANDIN_SCALE  the stand-in's feed size (default 45: 99,900 bills)
#   CHANGED        bills changed at once in step 2 (default 10000)
#   CIVIC_IMPORT_INTERVAL_S  civic's setting, seconds between imports (default here 60)
#   CIVIC_FEED_PAGE_SIZE     civic's setting, bills per feed page (default here 100)
#   READ_USERS     users of the reads in step 4 (default 25000)
#   OPEN_EVERY     seconds between one user's opens (default 100: 250 opens/s, about 1,060
#                  requests/s)
#   LOAD_S         seconds of reads (default 60; formerly LOAD_SECONDS)
#   SKIP_BUILD=1   use the release build as it is
#   BACKPLANE_BIN_DIR  run the executables in this folder instead
#   OUT            the run's folder, emptied first (default .data/bench-civic)
#   BENCH_RESULTS  another folder for civic.json, or off (also off by default with
#                  BACKPLANE_BIN_DIR or a STANDIN_SCALE other than 45: a debug or smaller run)
#   BENCH_COMMAND  the command civic.json names (default make bench-civic)
set -euo pipefail
LOG_TAG=bench-civic
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
renamed_variable LOAD_SECONDS LOAD_S

: "${STANDIN_SCALE:=45}" "${CHANGED:=10000}" "${CIVIC_IMPORT_INTERVAL_S:=60}" "${CIVIC_FEED_PAGE_SIZE:=100}"
: "${READ_USERS:=25000}" "${OPEN_EVERY:=100}" "${LOAD_S:=60}"
: "${OUT:=$REPO_ROOT/.data/bench-civic}"
export STANDIN_SCALE CIVIC_IMPORT_INTERVAL_S CIVIC_FEED_PAGE_SIZE
require_cmd psql "run deploy/scripts/bootstrap.sh"
rm -rf "$OUT" && mkdir -p "$OUT"
if [[ (-n ${BACKPLANE_BIN_DIR:-} || $STANDIN_SCALE != 45) && -z ${BENCH_RESULTS:-} ]]; then export BENCH_RESULTS=off; fi
FIGURES="$OUT/figures.txt"
# say TEXT: a figure, shown and kept for civic.json.
say() {
    info "$*"
    echo "$*" >>"$FIGURES"
}

[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release --product civic --product gateway \
    --product broker --product loadgen --product backplane-up)
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}

PG_DIR="$OUT/pg"
PG_PORT=$(free_port)
PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$PG_PORT" >/dev/null
DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$PG_PORT")
HTTP_PORT=$(free_port)
BROKER_PORT=$(free_port)
XSUB_PORT=$(free_port)
XPUB_PORT=$(free_port)
export DATABASE_URL HTTP_PORT SKIP_BUILD=1 SKIP_BOOTSTRAP=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-warning}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export SERVICES=civic READINESS_SERVICES=civic RATE_LIMIT_READ=off RATE_LIMIT_WRITE=off
export CIVIC_STANDIN_PORT=$(free_port)
FEED="http://127.0.0.1:$CIVIC_STANDIN_PORT"
sql() { psql "$DATABASE_URL" -qAt -c "$1"; }

info "starting civic, the gateway and the stand-in at scale $STANDIN_SCALE (log in $OUT/system.log)"
"$SCRIPTS_DIR/up.sh" >"$OUT/system.log" 2>&1 &
UP_PID=$!
finish() {
    kill -TERM "$UP_PID" 2>/dev/null || true
    wait "$UP_PID" 2>/dev/null || true
    "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
}
trap finish EXIT
deadline=$((SECONDS + 300))
until curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/readyz" 2>/dev/null; do
    pid_alive "$UP_PID" || die "the system stopped; see $OUT/system.log"
    ((SECONDS < deadline)) || die "not ready; see $OUT/system.log"
    sleep 1
done
# The stand-in builds its feed before it listens (seconds at scale 45): wait for it too.
until curl -fsS -o /dev/null "$FEED/_standin/stats" 2>/dev/null; do
    pid_alive "$UP_PID" || die "the system stopped; see $OUT/system.log"
    ((SECONDS < deadline)) || die "the Open States stand-in did not start; see $OUT/system.log"
    sleep 1
done
feed_bills=$(curl -fsS "$FEED/_standin/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bills"])')

# runs_done N: waits until N import runs have finished; prints the last one's figures.
runs_done() {
    local deadline=$((SECONDS + 1800))
    until (($(sql "SELECT count(*) FROM civic.import_runs WHERE finished_at IS NOT NULL AND error IS NULL" 2>/dev/null || echo 0) >= $1)); do
        ((SECONDS < deadline)) || die "import run $1 did not finish; see $OUT/system.log"
        sleep 1
    done
    sql "SELECT round(extract(epoch FROM finished_at - started_at)::numeric, 1) || ' s, ' || pages || ' pages, '
         || bills_new || ' new, ' || bills_changed || ' changed' FROM civic.import_runs
         WHERE finished_at IS NOT NULL AND error IS NULL ORDER BY finished_at DESC LIMIT 1"
}
say "1. first import of $feed_bills bills: $(runs_done 1)"
curl -fsS -o /dev/null -X POST -d "{\"jurisdiction\": \"*\", \"count\": $CHANGED}" "$FEED/_standin/touch"
say "2. $CHANGED changed bills: $(runs_done 2)"
source_id=$(curl -fsS -X POST -d '{"jurisdiction": "*", "count": 1}' "$FEED/_standin/touch" \
    | python3 -c 'import json,sys; t=json.load(sys.stdin)["touched"][0]; print(t["id"] + "\t" + t["title"])')
changed_at=$(date +%s.%N)
id=$(sql "SELECT id FROM civic.bills WHERE source_id = '${source_id%%$'\t'*}'")
title=${source_id#*$'\t'}
until curl -fsS "http://127.0.0.1:$HTTP_PORT/v1/civic/bills/$id" | grep -qF "${title##* [}"; do sleep 0.2; done
served_at=$(date +%s.%N)
say "3. freshness: a change in the feed served after $(python3 -c "print(round($served_at - $changed_at, 1))") s (import every ${CIVIC_IMPORT_INTERVAL_S} s)"
info "4. reads: loadgen politimap, $READ_USERS users opening every ${OPEN_EVERY} s, ${LOAD_S} s"
"$BIN_DIR/loadgen" politimap --url "http://127.0.0.1:$HTTP_PORT" --seconds "$LOAD_S" \
    --politimap-users "$READ_USERS" --open-every "$OPEN_EVERY" --json "$OUT/reads.json" | tee "$OUT/reads.txt"
python3 "$SCRIPTS_DIR/bench-json.py" civic --input "$FIGURES" --loadgen-json "$OUT/reads.json" \
    --command "${BENCH_COMMAND:-make bench-civic}" || warn "no docs/bench/civic.json from this run"
