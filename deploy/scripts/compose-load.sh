#!/usr/bin/env bash
# compose-test.sh's loads through the published port (HAProxy in front of the gateway):
#
#   deploy/scripts/compose-load.sh journeys   `loadgen mixed` on every app: each answer as expected
#   deploy/scripts/compose-load.sh scale      NavUP's load on 2 gateways and 3 routing replicas:
#                                             each replica does at least a sixth of its service's
#                                             work (by its process's CPU time)
#   deploy/scripts/compose-load.sh crash      orders' process SIGKILLed while postcards are ordered:
#                                             the restart policy brings it back, and every order
#                                             acknowledged to the client is in the database, paid
#
# Reads what compose-test.sh exports: IMAGE_BIN_DIR (its loadgen), GATEWAY_PORT, SCALE_USERS,
# HEALTHY_TIMEOUT, COMPOSE_PROJECT, DOCKER_HOST.
set -euo pipefail
LOG_TAG=containers
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT="$REPO_ROOT/.data/compose-test"
LOADGEN=$IMAGE_BIN_DIR/loadgen
URL="http://127.0.0.1:$GATEWAY_PORT"
project() { "$SCRIPTS_DIR/compose-project.sh" "$@"; }
check_report() { python3 "$REPO_ROOT/deploy/compose-test/check-report.py" "$@"; }

journeys() {
    info "journeys of every app through port $GATEWAY_PORT (loadgen mixed, 20 s)"
    "$LOADGEN" mixed --url "$URL" --seconds 20 --users 100 --login-rate 1 --postcard-rate 1 --gift-rate 1 \
        --tapwater-users 20 --drink-every 10 --sync-every 10 --politimap-users 20 --open-every 10 \
        --json "$OUT/journeys.json" >"$OUT/journeys.txt" 2>&1 || {
        cat "$OUT/journeys.txt" >&2
        die "loadgen mixed failed"
    }
    check_report "$OUT/journeys.json" postcard navup gifter tapwater politimap || die "a journey went wrong (above)"
}

# CPU seconds (utime + stime, in clock ticks) of the service process in a container: the child
# of its init (`init: true`).
service_cpu() {
    local init pid
    init=$(podman inspect "$1" --format '{{.State.Pid}}')
    pid=$(pgrep -P "$init" | head -n 1)
    awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/${pid:-$init}/stat"
}

scale() {
    info "scaling to 2 gateways (behind lb) and 3 routing replicas"
    project compose up -d --no-build --scale gateway=2 --scale routing=3 >>"$OUT/up.log" 2>&1 || die "scaling failed; see $OUT/up.log"
    project healthy "$HEALTHY_TIMEOUT"
    # HAProxy resolves the gateway's name every few seconds and checks a new server twice.
    sleep 8
    local replicas name service total share
    mapfile -t replicas < <(project containers | grep -E '_(routing|gateway)_[0-9]+$')
    ((${#replicas[@]} == 5)) || die "expected 2 gateway and 3 routing containers, found: ${replicas[*]}"
    local -A before=() used=()
    for name in "${replicas[@]}"; do before[$name]=$(service_cpu "$name"); done
    "$LOADGEN" navup --url "$URL" --seconds 15 --users "$SCALE_USERS" --json "$OUT/scale.json" >"$OUT/scale.txt" 2>&1 ||
        die "loadgen navup failed; see $OUT/scale.txt"
    check_report "$OUT/scale.json" navup || die "NavUP requests went wrong with 2 gateways and 3 routing replicas"
    for service in gateway routing; do
        total=0
        for name in "${replicas[@]}"; do
            [[ $name =~ _${service}_[0-9]+$ ]] || continue
            used[$name]=$(($(service_cpu "$name") - before[$name]))
            total=$((total + used[$name]))
        done
        ((total > 0)) || die "the $service replicas used no CPU"
        for name in "${replicas[@]}"; do
            [[ $name =~ _${service}_[0-9]+$ ]] || continue
            share=$((100 * used[$name] / total))
            info "  $name: $((used[$name] * 1000 / $(getconf CLK_TCK))) ms of CPU, $share% of $service's work"
            ((share * 6 >= 100)) || die "$name did $share% of $service's work: it was not spread"
        done
    done
}

crash() {
    local orders restarts init victim deadline acknowledged postgres ids stored
    orders=$(project containers | grep -E '_orders_[0-9]+$' | head -n 1)
    restarts=$(podman inspect "$orders" --format '{{.RestartCount}}')
    info "postcards ordered while orders' process in $orders is SIGKILLed"
    "$LOADGEN" postcard --url "$URL" --seconds 25 --postcard-rate 3 --acknowledged "$OUT/acknowledged.txt" \
        --json "$OUT/crash.json" >"$OUT/crash.txt" 2>&1 &
    local load_pid=$!
    sleep 8
    init=$(podman inspect "$orders" --format '{{.State.Pid}}')
    victim=$(pgrep -P "$init" | head -n 1)
    [[ -n $victim ]] || die "no process found in $orders"
    kill -KILL "$victim"
    info "  SIGKILL to pid $victim ($orders)"
    deadline=$((SECONDS + 60))
    until (($(podman inspect "$orders" --format '{{.RestartCount}}') > restarts)); do
        ((SECONDS < deadline)) || die "$orders was not restarted by its restart policy within 60 s"
        sleep 0.5
    done
    info "  $orders restarted by its restart policy after $((SECONDS - deadline + 60)) s"
    wait "$load_pid" || warn "loadgen postcard exited non-zero; see $OUT/crash.txt"
    project healthy "$HEALTHY_TIMEOUT"
    acknowledged=$(grep -c . "$OUT/acknowledged.txt" || true)
    ((acknowledged > 0)) || die "no order was acknowledged during the crash run"
    postgres=$(project containers | grep -E '_postgres_[0-9]+$' | head -n 1)
    ids=$(paste -sd, "$OUT/acknowledged.txt")
    stored=$(podman exec "$postgres" psql -U backplane -d backplane -qAt \
        -c "SELECT count(*) FROM orders.orders WHERE id = ANY('{$ids}'::uuid[]) AND state <> 'pending_payment'")
    info "  orders acknowledged: $acknowledged; in the database, past payment: $stored"
    ((stored == acknowledged)) || die "$((acknowledged - stored)) acknowledged orders are missing or unpaid"
}

case ${1:-} in
    journeys | scale | crash) "$1" ;;
    *) die "usage: compose-load.sh journeys | scale | crash" ;;
esac
