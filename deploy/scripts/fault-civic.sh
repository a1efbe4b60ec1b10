#!/usr/bin/env bash
# The fault run's civic parts (fault-run.sh runs them when civic is among the services):
#
#   deploy/scripts/fault-civic.sh subscribe   PolitiMap devices subscribed to new bills (one per
#                                             level, one by subject), so that the kills cut into
#                                             new-bill pushes too
#   deploy/scripts/fault-civic.sh feed        after the load: waits (90 s at most) for one more
#                                             import, uncut, so that civic holds the whole feed,
#                                             and prints the number of bills the feed serves
#
# Reads what fault-run.sh exports: HTTP_PORT, CIVIC_STANDIN_PORT, DATABASE_URL.
set -euo pipefail
LOG_TAG=fault
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# subscribe NAME JURISDICTIONS [SUBJECTS]: one device (JSON lists without their brackets).
subscribe() {
    curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' \
        -d "{\"deviceToken\": \"fault-$RANDOM$RANDOM-$1\", \"platform\": \"android\", \"app\": \"politimap\", \"jurisdictions\": [$2]${3:+, \"subjects\": [$3]}}" \
        "http://127.0.0.1:$HTTP_PORT/v1/civic/subscriptions"
}

case ${1:-} in
    subscribe)
        for jurisdiction in country:us/state:ca/place:san_luis_obispo country:us/state:ca/county:san_luis_obispo \
            country:us/state:ca country:us; do
            subscribe "${jurisdiction//[:\/]/-}" "\"ocd-jurisdiction/$jurisdiction/government\"" ||
                warn "could not subscribe a device to $jurisdiction"
        done
        subscribe subjects '"ocd-jurisdiction/country:us/state:ca/government", "ocd-jurisdiction/country:us/government"' \
            '"Immigration", "Education"' || warn "could not subscribe a device by subject"
        ;;
    feed)
        bills=$(curl -fsS "http://127.0.0.1:$CIVIC_STANDIN_PORT/_standin/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bills"])')
        deadline=$((SECONDS + 90))
        until [[ $(psql "$DATABASE_URL" -qAt -c "SELECT count(*) FROM civic.bills WHERE source_id NOT LIKE 'local:%'") == "$bills" ]] ||
            ((SECONDS > deadline)); do
            sleep 1
        done
        echo "$bills"
        ;;
    *) die "usage: fault-civic.sh subscribe | feed" ;;
esac
