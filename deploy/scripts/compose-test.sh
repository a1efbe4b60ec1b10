#!/usr/bin/env bash
# The shipped docker-compose.yml and deploy/Dockerfile, run for real: podman (runc) behind its
# Docker-compatible API socket, driven by docker-compose, on a machine with no Docker engine and
# no registry.
#
#   make compose-test          # or: deploy/scripts/compose-test.sh [images|run]
#
# `images` does step 1 only and `run` the rest with the images already made (make test makes
# the images beside the Swift tests, then runs the containers); no argument does both.
#
# 1. Images (compose-images.sh): a Debian bookworm base made with debootstrap, the project's
#    image from deploy/Dockerfile, and Debian-made stand-ins for postgres, python and haproxy.
# 2. `up -d` with generated secrets: every container running, and healthy where it has a health
#    check, within HEALTHY_TIMEOUT seconds (the goal: under 60 s); one that exits or turns unhealthy
#    fails the test at once, with its log. The admin signs in; /metrics and the console answer 404
#    on the public port and the console answers on the operator port; backup-metrics reports the
#    backup service's first full backup.
# 3-5. The loads through the published port (compose-load.sh): every app's journeys (`loadgen
#    mixed`: a postcard ordered and paid, locate/route/search, a gift, drinks, bills); `--scale
#    gateway=2 --scale routing=3` with NavUP's load, each replica doing its share (HAProxy spreads
#    connections over the gateways, the broker requests over routing); orders' process SIGKILLed
#    while postcards are ordered, brought back by the restart policy, no acknowledged order lost.
# 6. `down -v`: no container, volume or network of the project is left.
#
# Environment:
#   SKIP_BUILD=1        use the release executables as they are (no swift build -c release)
#   IMAGE_BIN_DIR=DIR   put the executables of DIR in the image, and drive it with DIR's loadgen,
#                       instead of the release build (no build either). `make test` passes its
#                       debug build: no second, release, build of the whole package (20-25 of a
#                       fresh CI run's 86 minutes)
#   SCALE_USERS         NavUP users of the scale step (default 4000, about 500 requests/s; make
#                       test passes 600 with its debug executables, which shed part of 4000's load
#                       on two cores). The step checks that the work is spread, not how much of it
#                       one machine carries (that is make bench-scaleout)
#   HEALTHY_TIMEOUT     seconds for every container to be healthy (default 180)
#   COMPOSE_PROJECT     compose project name (default bptest)
#   KEEP=1              leave the containers running at the end (for a look around)
# Output: .data/compose-test/ (loadgen reports, container logs of a failure).
set -euo pipefail
LOG_TAG=containers
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${HEALTHY_TIMEOUT:=180}" "${COMPOSE_PROJECT:=bptest}" "${SCALE_USERS:=4000}"
OUT="$REPO_ROOT/.data/compose-test"
PHASE=${1:-all}
[[ $PHASE =~ ^(all|images|run)$ ]] || die "usage: $0 [images|run]"
started=$SECONDS
"$SCRIPTS_DIR/compose-images.sh" "$PHASE"
[[ $PHASE == images ]] && exit 0
IMAGE_BIN_DIR=${IMAGE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
export CONTAINERS_CONF="$REPO_ROOT/deploy/compose-test/containers.conf" IMAGE_BIN_DIR HEALTHY_TIMEOUT COMPOSE_PROJECT SCALE_USERS
project() { "$SCRIPTS_DIR/compose-project.sh" "$@"; }

# podman's Docker-compatible API on a socket of our own; docker-compose talks to it.
SOCKET="$OUT/podman.sock"
rm -f "$SOCKET"
podman system service --time=0 "unix://$SOCKET" >"$OUT/podman-service.log" 2>&1 &
SERVICE_PID=$!
export DOCKER_HOST="unix://$SOCKET"
for _ in $(seq 100); do [[ -S $SOCKET ]] && break; sleep 0.1; done
[[ -S $SOCKET ]] || die "podman's API socket did not appear; see $OUT/podman-service.log"
GATEWAY_PORT=$(free_port) OPERATOR_PORT=$(free_port)
POSTGRES_PASSWORD="pg-$RANDOM$RANDOM" ADMIN_PASSWORD="Admin-$RANDOM$RANDOM-x" BACKUP_ENCRYPTION_KEY="bk-$RANDOM$RANDOM$RANDOM"
export GATEWAY_PORT OPERATOR_PORT COMPOSE_HTTP_TIMEOUT=300 POSTGRES_PASSWORD ADMIN_PASSWORD BACKUP_ENCRYPTION_KEY

# Docker runs health checks on its own schedule; podman leaves that to systemd timers, which
# these machines do not run. This loop is the schedule: each container's check every 2 s.
(
    while :; do
        for name in $(podman ps --filter "label=com.docker.compose.project=$COMPOSE_PROJECT" --format '{{.Names}}'); do
            podman healthcheck run "$name" >/dev/null 2>&1 || true
        done
        sleep 2
    done
) &
TICKER_PID=$!

cleanup() {
    local rc=$?
    if ((rc != 0)); then
        project logs
        warn "failed; container logs are in $OUT"
    fi
    kill "$TICKER_PID" 2>/dev/null || true
    if [[ -z ${KEEP:-} ]]; then
        project compose down -v --remove-orphans >/dev/null 2>&1 || true
        kill "$SERVICE_PID" 2>/dev/null || true
    else
        info "KEEP=1: the containers keep running (DOCKER_HOST=$DOCKER_HOST; podman service pid $SERVICE_PID)"
    fi
    return "$rc"
}
trap cleanup EXIT
project compose down -v --remove-orphans >/dev/null 2>&1 || true

info "docker-compose up -d (project $COMPOSE_PROJECT, published port $GATEWAY_PORT)"
up_started=$SECONDS
project compose up -d --no-build >"$OUT/up.log" 2>&1 || {
    cat "$OUT/up.log" >&2
    die "docker-compose up failed"
}
project healthy "$HEALTHY_TIMEOUT"
healthy_after=$((SECONDS - up_started))
containers=$(project containers | wc -l)
info "all $containers containers healthy $healthy_after s after up"
curl -fsS -o /dev/null "http://127.0.0.1:$GATEWAY_PORT/readyz" || die "/readyz through the published port is not 200"
curl -fsS -o /dev/null -H 'Content-Type: application/json' "http://127.0.0.1:$GATEWAY_PORT/v1/auth/login" \
    -d "{\"username\":\"admin\",\"password\":\"$ADMIN_PASSWORD\"}" || die "the admin from ADMIN_PASSWORD cannot sign in"
for path in /metrics //metrics /metrics/ /console /console/console.js; do
    status=$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "http://127.0.0.1:$GATEWAY_PORT$path")
    [[ $status == 404 ]] || die "$path answers $status on the public port, not 404"
done
curl -fsS -o /dev/null "http://127.0.0.1:$OPERATOR_PORT/console" || die "the console does not answer on the operator port"
project backup-reported 120
for load in journeys scale crash; do "$SCRIPTS_DIR/compose-load.sh" "$load"; done

if [[ -n ${KEEP:-} ]]; then
    info "KEEP=1: not running down -v"
    exit 0
fi
project down
image_size=$(podman image inspect localhost/backplane:latest --format '{{.Size}}')
info "passed: $containers containers healthy in $healthy_after s; image $((image_size / 1000000)) MB; $((SECONDS - started)) s in all"
