#!/usr/bin/env bash
# The restore drill. PostgreSQL (fsync on) archives its WAL into a repository of the drill's own
# under the `mixed` load; `backplane-admin backup` (backup.sh) takes a base backup, then after
# DRILL_BEFORE_S s of load backup.sh makes the restore point `drill`; DRILL_AFTER_S s later all
# stops. `backplane-admin restore` (restore.sh) restores to the point into
# a fresh directory, the system starts on it (GET /readyz), and the restored database is checked
# against what the load generator was told: every order and drink acknowledged before the point
# is there; no order created after the point's time is (acknowledged or not); orders in flight
# (acknowledged after the point, created before it) are counted apart. Prints the backup's size
# and time, the restore's time and the counts; exits 0 only when all of that holds.
#
#   make restore-drill                  # or: deploy/scripts/restore-drill.sh (make test-slow runs it)
#
# Environment:
#   DRILL_BEFORE_S  seconds of load between the base backup and the restore point (default 30)
#   DRILL_AFTER_S   seconds of load after the restore point (default 20)
#   USERS           NavUP users of the load (default 200); LOGIN_RATE, POSTCARD_RATE, GIFT_RATE,
#                   ECARD_RATE, TAPWATER_USERS as in fault-run.sh (defaults 2, 2, 1, 1, 100)
#   SERVICES        services to run (default: every worker of deploy/services.txt)
#   BACKPLANE_BIN_DIR  the executables (default: the release build)
# Output: .data/restore-drill/ (system logs, loadgen report, acknowledged ids, the repository).
set -euo pipefail
LOG_TAG=drill
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${DRILL_BEFORE_S:=30}" "${DRILL_AFTER_S:=20}" "${USERS:=200}" "${LOGIN_RATE:=2}" "${POSTCARD_RATE:=2}"
: "${GIFT_RATE:=1}" "${ECARD_RATE:=1}" "${TAPWATER_USERS:=100}" "${SERVICES:=$(registry worker)}"
for cmd in curl psql pgbackrest; do require_cmd "$cmd" "run deploy/scripts/bootstrap.sh"; done
BACKPLANE_BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
OUT="$REPO_ROOT/.data/restore-drill" PG_DIR="$REPO_ROOT/.data/restore-drill/pg" RESTORED="$REPO_ROOT/.data/restore-drill/restored"
UP_PID="" LOAD_PID=""
stop_system() {
    [[ -z $LOAD_PID ]] || { kill -TERM "$LOAD_PID" 2>/dev/null || true; wait "$LOAD_PID" 2>/dev/null || true; }
    [[ -z $UP_PID ]] || { kill -TERM "$UP_PID" 2>/dev/null || true; wait "$UP_PID" 2>/dev/null || true; }
    LOAD_PID="" UP_PID=""
}
finish() { stop_system && for dir in "$PG_DIR" "$RESTORED"; do "$SCRIPTS_DIR/pg.sh" stop "$dir" >/dev/null 2>&1 || true; done; }
finish && rm -rf "$OUT" && mkdir -p "$OUT"
trap finish EXIT && trap 'exit 130' INT && trap 'exit 143' TERM
(umask 077 && python3 -c 'import secrets; print(secrets.token_urlsafe(48))' >"$OUT/key")
export BACKUP_REPO="$OUT/repo" BACKUP_ENCRYPTION_KEY_FILE="$OUT/key" BACKUP_PG_DIR=$PG_DIR BACKUP_FILES_DIR="$OUT/data"
PG_ARCHIVE=1 "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$(free_port)"
export DATABASE_URL HTTP_PORT SKIP_BUILD=1 SKIP_BOOTSTRAP=1 BACKPLANE_BIN_DIR LOG_LEVEL=${LOG_LEVEL:-warning}
export SERVICES READINESS_SERVICES=${SERVICES// /,} SMTP_SINK_DIR="$OUT/mail" ADMIN_PORT_BASE=off

DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR")
# system NAME DATA_DIR: up.sh on DATABASE_URL, with free ports, until GET /readyz answers.
system() {
    local b x p deadline=$((SECONDS + 120))
    HTTP_PORT=$(free_port) b=$(free_port) x=$(free_port) p=$(free_port)
    BROKER_BIND="tcp://127.0.0.1:$b" BROKER_URL="tcp://127.0.0.1:$b" EVENTS_XSUB_BIND="tcp://127.0.0.1:$x" \
        EVENTS_PUB_URL="tcp://127.0.0.1:$x" EVENTS_XPUB_BIND="tcp://127.0.0.1:$p" EVENTS_SUB_URL="tcp://127.0.0.1:$p" \
        SMTP_PORT=$(free_port) CIVIC_STANDIN_PORT=$(free_port) DATA_DIR=$2 "$SCRIPTS_DIR/up.sh" >"$OUT/$1.log" 2>&1 &
    UP_PID=$!
    until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$HTTP_PORT/readyz" 2>/dev/null; do
        pid_alive "$UP_PID" || die "the system stopped; see $OUT/$1.log"
        ((SECONDS < deadline)) || die "not ready after 120 s; see $OUT/$1.log"
        sleep 0.5
    done
}
info "starting the system (services: $SERVICES; log in $OUT/system.log)"
system system "$OUT/data"
info "load: mixed (users $USERS, logins $LOGIN_RATE/s, postcards $POSTCARD_RATE/s, gifts $GIFT_RATE/s, e-cards $ECARD_RATE/s)"
load() {
    "$BACKPLANE_BIN_DIR/loadgen" mixed --url "http://127.0.0.1:$HTTP_PORT" --seconds 3600 --users "$USERS" \
        --login-rate "$LOGIN_RATE" --postcard-rate "$POSTCARD_RATE" --gift-rate "$GIFT_RATE" --ecard-rate "$ECARD_RATE" \
        --acknowledged "$OUT/acknowledged.txt" --tapwater-users "$TAPWATER_USERS" --drink-every 30 --sync-every 30 \
        --acknowledged-drinks "$OUT/acknowledged-drinks.txt" >"$OUT/loadgen.txt" 2>>"$OUT/loadgen-progress.txt" & LOAD_PID=$!
}
load && starts=1
until [[ -s $OUT/acknowledged.txt ]]; do
    pid_alive "$LOAD_PID" || { ((starts++ < 3)) || die "loadgen stopped; see $OUT/loadgen-progress.txt"; warn "loadgen's setup failed (a race of its own): again"; load; }
    sleep 1
done
start=$SECONDS && "$BACKPLANE_BIN_DIR/backplane-admin" backup --scripts "$SCRIPTS_DIR"
backup_s=$((SECONDS - start)) backup_size=$(du -sb "$BACKUP_REPO" | cut -f1)
info "base backup: $backup_s s, repository $backup_size bytes; ${DRILL_BEFORE_S}s more load"
sleep "$DRILL_BEFORE_S"
# Copied before the point is made: every id in them was committed before it.
cp "$OUT/acknowledged.txt" "$OUT/before.txt" && cp "$OUT/acknowledged-drinks.txt" "$OUT/drinks-before.txt"
"$SCRIPTS_DIR/backup.sh" point drill
point_time=$(awk -F'\t' '$1 == "drill" { print $2 }' "$BACKUP_REPO/points.txt")
sleep "$DRILL_AFTER_S"
stop_system
pid_alive "$(head -n 1 "$PG_DIR/data/postmaster.pid")" || die "PostgreSQL stopped during the load"
psql "$DATABASE_URL" -qc "\\copy (SELECT id, created_at > '$point_time' FROM orders.orders) TO '$OUT/live-orders.csv' CSV"
"$SCRIPTS_DIR/pg.sh" stop "$PG_DIR"

info "restoring to the point drill ($point_time) into ${RESTORED#"$REPO_ROOT"/}"
start=$SECONDS && line=$(RESTORE_DIR=$RESTORED "$BACKPLANE_BIN_DIR/backplane-admin" restore --target drill --scripts "$SCRIPTS_DIR" | tail -n 1)
restore_s=$((SECONDS - start)) DATABASE_URL=$(sed -n 's/^DATABASE_URL=\([^ ]*\) .*/\1/p' <<<"$line")
system restored "$RESTORED/files"
counts=$(psql "$DATABASE_URL" -qAtF ' ' -v ON_ERROR_STOP=1 <<EOF
CREATE TEMP TABLE live (id uuid, after boolean); CREATE TEMP TABLE acked (id uuid); CREATE TEMP TABLE before (id uuid); CREATE TEMP TABLE drinks (id uuid);
\\copy live FROM '$OUT/live-orders.csv' CSV
\\copy acked FROM '$OUT/acknowledged.txt'
\\copy before FROM '$OUT/before.txt'
\\copy drinks FROM '$OUT/drinks-before.txt'
CREATE TEMP TABLE inflight AS SELECT a.id, EXISTS (SELECT FROM orders.orders o WHERE o.id = a.id) AS found
  FROM acked a JOIN live l USING (id) WHERE NOT l.after AND a.id NOT IN (SELECT id FROM before);
\\copy inflight TO '$OUT/in-flight.csv' CSV
SELECT (SELECT count(*) FROM before),
  (SELECT count(*) FROM before b WHERE NOT EXISTS (SELECT FROM orders.orders o WHERE o.id = b.id)),
  (SELECT count(*) FROM drinks),
  (SELECT count(*) FROM drinks d WHERE NOT EXISTS (SELECT FROM hydration.drinks h WHERE h.uuid = d.id)),
  (SELECT count(*) FROM acked a JOIN live l USING (id) WHERE l.after AND a.id NOT IN (SELECT id FROM before)),
  (SELECT count(*) FROM inflight), (SELECT count(*) FROM inflight WHERE found),
  (SELECT count(*) FROM orders.orders WHERE created_at > '$point_time');
EOF
)
read -r before lost drinks lost_drinks after_acked inflight inflight_found late <<<"$counts" && files=$(find "$RESTORED/files" -type f 2>/dev/null | wc -l || true)
cat <<EOF
restore drill: point 'drill' at $point_time
  base backup               $backup_s s, repository $backup_size bytes after it ($(du -sb "$BACKUP_REPO" | cut -f1) bytes at the end, WAL included)
  restore                   $restore_s s (restore, WAL replay to the point, start); files of printing's restored: $files
  orders acknowledged before the point   $before, missing after the restore: $lost
  drinks acknowledged before the point   $drinks, missing after the restore: $lost_drinks
  orders acknowledged, created after it  $after_acked; orders created after it (any), found: $late
  orders in flight at the point          $inflight (acknowledged after it, created before it), found: $inflight_found (in-flight.csv)
EOF
((before > 0 && files > 0)) || die "no order acknowledged before the point, or no file of printing's restored: the drill tested nothing"
((lost == 0 && lost_drinks == 0 && late == 0)) || die "not restored to the point: work acknowledged before it is missing, or orders after it are there"
info "restored to the point: nothing acknowledged before it is missing, nothing after it is there"
