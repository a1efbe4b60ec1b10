#!/usr/bin/env bash
# make test's alerts step: the alert rules of deploy/observability/alerts.yml, tested and checked
# against a running system.
#
#   deploy/scripts/alerts-test.sh
#
# promtool checks prometheus.yml and the rules, and runs alerts.test.yml (each rule fires when it
# should and stays quiet when it should not); alert-rules.py checks that every rule links an
# existing heading of docs/operating.md. It takes a backup of a small PostgreSQL of its own and
# scrapes the backup exporter (backup.sh metrics). Then it starts a system of its own (system-run.sh) with
# an admin port for every process and notify's METRICS_PORT, refuses one push for want of an
# APNs topic (so notify's configuration-error counter has a series), scrapes every /metrics into
# ALERTS_OUT, and alert-rules.py checks that every metric a rule names is in those scrapes.
#
# Environment:
#   ALERTS_OUT         folder for the system's log and the scrapes (default .data/alerts)
#   BACKPLANE_BIN_DIR  where the executables are (default: the debug build, swift build --show-bin-path)
#   DATABASE_URL       a PostgreSQL to create the run's own database in; unset: a throwaway
#                      PostgreSQL under ALERTS_OUT
set -euo pipefail
LOG_TAG=alerts
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OBS="$REPO_ROOT/deploy/observability"
: "${ALERTS_OUT:=$REPO_ROOT/.data/alerts}"

if [[ ${1:-} != live ]]; then
    require_cmd promtool "run deploy/scripts/bootstrap.sh (Debian's prometheus package has it)"
    require_cmd curl "run deploy/scripts/bootstrap.sh"
    require_cmd openssl "install openssl"
    promtool check config "$OBS/prometheus.yml" >/dev/null || die "promtool check config failed"
    promtool check rules "$OBS/alerts.yml" || die "promtool check rules failed"
    (cd "$OBS" && promtool test rules alerts.test.yml) || die "promtool test rules failed"
    python3 "$SCRIPTS_DIR/alert-rules.py" runbooks || exit 1
    rm -rf "$ALERTS_OUT"
    mkdir -p "$ALERTS_OUT"
    ALERTS_OUT=$(cd "$ALERTS_OUT" && pwd)
    BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build --show-bin-path)}
    [[ -x $BIN_DIR/gateway ]] || die "no gateway in $BIN_DIR: build first (swift build) or set BACKPLANE_BIN_DIR"
    # APNs with a throwaway key and no topic for devices registered without an app: the push the
    # live part asks for is refused as NoTopic before any connection is made.
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$ALERTS_OUT/apns.p8" 2>/dev/null ||
        die "could not make an APNs key with openssl"
    export APNS_TEAM_ID=TEAM123456 APNS_KEY_ID=KEY1234567 APNS_KEY_FILE="$ALERTS_OUT/apns.p8"
    export APNS_ENDPOINT=http://127.0.0.1:9 APNS_SANDBOX_ENDPOINT=http://127.0.0.1:9
    # The backup exporter on a real repository: a small cluster of its own, archived, backed up.
    export BACKUP_REPO="$ALERTS_OUT/repo" BACKUP_PG_DIR="$ALERTS_OUT/pg" BACKUP_FILES_DIR="$ALERTS_OUT/files" \
        BACKUP_ENCRYPTION_KEY="alerts-$RANDOM$RANDOM$RANDOM"
    mkdir -p "$BACKUP_FILES_DIR" && PG_ARCHIVE=1 "$SCRIPTS_DIR/pg.sh" start "$BACKUP_PG_DIR" "$(free_port)" >/dev/null
    "$SCRIPTS_DIR/backup.sh" backup >"$ALERTS_OUT/backup.log" 2>&1 || die "backup.sh failed; see $ALERTS_OUT/backup.log"
    port=$(free_port)
    "$SCRIPTS_DIR/backup.sh" metrics --port "$port" 2>>"$ALERTS_OUT/backup.log" &
    for _ in $(seq 100); do curl -fsS -o "$ALERTS_OUT/backup.prom" "http://127.0.0.1:$port/metrics" 2>/dev/null && break; sleep 0.2; done
    kill $! && "$SCRIPTS_DIR/pg.sh" stop "$BACKUP_PG_DIR" >/dev/null
    grep -q '^backplane_backup_last_success_timestamp_seconds{type="full"} [1-9]' "$ALERTS_OUT/backup.prom" ||
        die "backup-metrics does not report the backup just taken (see $ALERTS_OUT/backup.prom)"
    unset BACKUP_REPO BACKUP_PG_DIR BACKUP_FILES_DIR BACKUP_ENCRYPTION_KEY
    export METRICS_PORT=$(free_port) SYSTEM_ADMIN_PORTS=1 BACKPLANE_BIN_DIR=$BIN_DIR ALERTS_OUT LOG_TAG
    exec "$SCRIPTS_DIR/system-run.sh" alerts "$ALERTS_OUT" "$0" live
fi

# The live part, run by system-run.sh once the system is ready.
post() {
    curl -fsS -X POST -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} -d "$2" "$SYSTEM_URL$1"
}
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
# account NAME: "userId accessToken" of a new account.
account() {
    local name="$1-$RANDOM@example.org" password="Alerts-$RANDOM-Pw1" id
    id=$(post /v1/auth/register "{\"username\":\"$name\",\"password\":\"$password\"}" | field userId)
    echo "$id $(post /v1/auth/login "{\"username\":\"$name\",\"password\":\"$password\"}" | field accessToken)"
}

# A friend request pushes to the other user's iPhone, registered without an app: NoTopic.
read -r _ asker < <(account asker) || die "could not sign up a user"
read -r friend phone < <(account friend) || die "could not sign up a user"
post /v1/me/devices '{"token":"alerts-test-device","platform":"ios","osVersion":"17.4"}' "$phone" >/dev/null ||
    die "could not register a device"
post /v1/me/friend-requests "{\"userId\":\"$friend\"}" "$asker" >/dev/null || die "could not send a friend request"
push_metrics="http://127.0.0.1:$METRICS_PORT/metrics"
deadline=$((SECONDS + 60))
until curl -fsS "$push_metrics" 2>/dev/null | grep '^backplane_notify_push_config_errors_total{' >/dev/null; do
    ((SECONDS < deadline)) || die "no push configuration error counted at $push_metrics after 60 s"
    sleep 1
done

# Every process's admin port, in deploy/services.txt's order from ADMIN_PORT_BASE (system-run.sh).
scrapes=() index=0
for name in $(registry broker worker gateway) notify-push; do
    url="http://127.0.0.1:$((ADMIN_PORT_BASE + index))/metrics"
    [[ $name != notify-push ]] || url=$push_metrics
    curl -fsS --max-time 10 "$url" >"$ALERTS_OUT/$name.prom" || die "could not scrape $name at $url"
    scrapes+=("$ALERTS_OUT/$name.prom")
    index=$((index + 1))
done
scrapes+=("$ALERTS_OUT/backup.prom") # made with a real backup before the system started
info "scraped ${#scrapes[@]} endpoints into ${ALERTS_OUT#"$REPO_ROOT"/}"
python3 "$SCRIPTS_DIR/alert-rules.py" metrics "${scrapes[@]}"
