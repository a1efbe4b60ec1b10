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
# 1. Images: a Debian bookworm base made with debootstrap (cached in .data/containers); the
#    project's image from deploy/Dockerfile with STAGING=prebuilt (release executables built
#    here, staged by stage-prebuilt.sh); PostgreSQL 15, Python and HAProxy images from Debian's
#    packages in place of postgres:15, python:3.12-slim and haproxy:2.8 (compose.override.yml in
#    deploy/compose-test swaps only those `image:` lines).
# 2. `up -d`: every container must be running, and healthy where it has a health check, within
#    HEALTHY_TIMEOUT seconds (the time taken is printed; the goal is under 60 s). A container that
#    exits or turns unhealthy fails the test at once, with its log.
# 3. Journeys through the published port (HAProxy in front of the gateway): `loadgen mixed`
#    registers and logs in on every app and makes its core requests (a postcard ordered and paid,
#    locate/route/search, a gift bought from a friend's wish list, drinks logged and synced, bills
#    read); every answer must be the expected one.
# 4. `--scale gateway=2 --scale routing=3`: NavUP's load through the one port; each replica's own
#    CPU time shows HAProxy spreading connections over the gateways and the broker spreading
#    requests over routing (each must do at least a sixth of its service's work).
# 5. A crash: orders' process is SIGKILLed inside its container while postcards are ordered; the
#    restart policy brings the container back, and every order acknowledged to the client is in
#    the database.
# 6. `down -v`: no container, volume or network of the project is left.
#
# Environment:
#   SKIP_BUILD=1        use the release executables as they are (no swift build -c release)
#   IMAGE_BIN_DIR=DIR   put the executables of DIR in the image, and drive it with DIR's loadgen,
#                       instead of the release build (no build either). `make test` passes its
#                       debug build here: the step then tests the compose file, the Dockerfile and
#                       the image's wiring without a second, release, build of the whole package,
#                       which took 20-25 of a fresh CI run's 86 minutes. The loads below are
#                       sized so that debug executables carry them on two cores (SCALE_USERS).
#   SCALE_USERS         NavUP users of the scale step (default 4000, about 500 requests/s; make
#                       test passes 600 with its debug executables, which shed part of 4000's
#                       load with 503s on two cores). The step checks that the work is spread, not
#                       how much of it one machine carries (that is make bench-scaleout).
#   HEALTHY_TIMEOUT     seconds for every container to be healthy (default 180)
#   COMPOSE_PROJECT     compose project name (default bptest)
#   KEEP=1              leave the containers running at the end (for a look around)
# Output: .data/compose-test/ (loadgen reports, container logs of a failure).
set -euo pipefail
LOG_TAG=containers
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${HEALTHY_TIMEOUT:=180}" "${COMPOSE_PROJECT:=bptest}" "${SCALE_USERS:=4000}"
OUT="$REPO_ROOT/.data/compose-test"
CACHE="$REPO_ROOT/.data/containers"
TEST_DIR="$REPO_ROOT/deploy/compose-test"
mkdir -p "$OUT" "$CACHE"
export CONTAINERS_CONF="$TEST_DIR/containers.conf"
PHASE=${1:-all}
[[ $PHASE =~ ^(all|images|run)$ ]] || die "usage: $0 [images|run]"

# ---------------------------------------------------------------------------- tools
missing=()
for tool in podman:podman runc:runc debootstrap:debootstrap docker-compose:docker-compose; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
[[ -e /usr/lib/cni/bridge || -e /usr/libexec/cni/bridge ]] || missing+=(containernetworking-plugins)
# Service names resolve on a compose network through CNI's dnsname plugin.
[[ -e /usr/lib/cni/dnsname ]] || missing+=(golang-github-containernetworking-plugin-dnsname)
# `init: true` in docker-compose.yml: podman's init process.
[[ -x /usr/libexec/podman/catatonit ]] || missing+=(catatonit)
if ((${#missing[@]} > 0)); then
    info "installing ${missing[*]} (apt)"
    as_root apt-get -q update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
        "${missing[@]}" uidmap slirp4netns fuse-overlayfs >/dev/null
fi
require_cmd podman
require_cmd docker-compose

# ---------------------------------------------------------------------------- images
started=$SECONDS
if ! podman image exists localhost/debian:bookworm; then
    if [[ ! -s $CACHE/debian-bookworm.tar ]]; then
        # The mirror apt already uses, so the test needs no other network.
        mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
        mirror=${mirror:-$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)}
        mirror=${mirror:-http://deb.debian.org/debian}
        info "building the Debian bookworm base with debootstrap from $mirror"
        rm -rf "$CACHE/rootfs"
        as_root debootstrap --variant=minbase bookworm "$CACHE/rootfs" "$mirror" >"$OUT/debootstrap.log" 2>&1 ||
            die "debootstrap failed; see $OUT/debootstrap.log"
        tar -C "$CACHE/rootfs" -cf "$CACHE/debian-bookworm.tar.partial" .
        mv "$CACHE/debian-bookworm.tar.partial" "$CACHE/debian-bookworm.tar"
        rm -rf "$CACHE/rootfs"
    fi
    podman import -q "$CACHE/debian-bookworm.tar" localhost/debian:bookworm >/dev/null
fi
for image in postgres:15 python:3 haproxy:2; do
    name=${image%%:*}
    [[ $PHASE == run ]] && podman image exists "localhost/backplane-test/$image" && continue
    podman build -q -f "$TEST_DIR/$name.Containerfile" -t "localhost/backplane-test/$image" "$TEST_DIR" >/dev/null ||
        die "building the $name test image failed"
done
if [[ -n ${IMAGE_BIN_DIR:-} ]]; then
    [[ -x $IMAGE_BIN_DIR/gateway ]] || die "IMAGE_BIN_DIR=$IMAGE_BIN_DIR has no gateway executable"
    info "the image's executables: $IMAGE_BIN_DIR (no release build)"
else
    if [[ -z ${SKIP_BUILD:-} ]]; then
        info "swift build -c release"
        (cd "$REPO_ROOT" && swift build -c release 2>&1 | tail -n 3) || die "the release build failed"
    fi
    IMAGE_BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
fi
if [[ $PHASE != run ]] || ! podman image exists localhost/backplane:latest; then
    "$SCRIPTS_DIR/stage-prebuilt.sh" "$IMAGE_BIN_DIR"
    info "building localhost/backplane:latest (deploy/Dockerfile, STAGING=prebuilt)"
    commit=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    (cd "$REPO_ROOT" && podman build -q -f deploy/Dockerfile --build-arg STAGING=prebuilt \
        --build-arg RUNTIME_IMAGE=localhost/debian:bookworm --build-arg "BACKPLANE_COMMIT=$commit" \
        -t localhost/backplane:latest . >/dev/null) ||
        die "building the image failed"
fi
image_size=$(podman image inspect localhost/backplane:latest --format '{{.Size}}')
info "images ready in $((SECONDS - started)) s; backplane:latest is $((image_size / 1000000)) MB"
[[ $PHASE == images ]] && exit 0

# ---------------------------------------------------------------------------- engine
# podman's Docker-compatible API on a socket of our own; docker-compose talks to it.
SOCKET="$OUT/podman.sock"
rm -f "$SOCKET"
podman system service --time=0 "unix://$SOCKET" >"$OUT/podman-service.log" 2>&1 &
SERVICE_PID=$!
export DOCKER_HOST="unix://$SOCKET"
for _ in $(seq 100); do [[ -S $SOCKET ]] && break; sleep 0.1; done
[[ -S $SOCKET ]] || die "podman's API socket did not appear; see $OUT/podman-service.log"

GATEWAY_PORT=$(free_port)
export GATEWAY_PORT COMPOSE_HTTP_TIMEOUT=300
compose() {
    docker-compose -p "$COMPOSE_PROJECT" -f "$REPO_ROOT/docker-compose.yml" -f "$TEST_DIR/compose.override.yml" "$@"
}
project_containers() {
    podman ps -a --filter "label=com.docker.compose.project=$COMPOSE_PROJECT" --format '{{.Names}}' | sort
}

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
        for name in $(project_containers 2>/dev/null); do
            podman logs --tail 200 "$name" >"$OUT/$name.log" 2>&1 || true
        done
        warn "failed; container logs are in $OUT"
    fi
    kill "$TICKER_PID" 2>/dev/null || true
    if [[ -z ${KEEP:-} ]]; then
        compose down -v --remove-orphans >/dev/null 2>&1 || true
        kill "$SERVICE_PID" 2>/dev/null || true
    else
        info "KEEP=1: the containers keep running (DOCKER_HOST=$DOCKER_HOST; podman service pid $SERVICE_PID)"
    fi
    return "$rc"
}
trap cleanup EXIT
compose down -v --remove-orphans >/dev/null 2>&1 || true

# wait_healthy SECONDS: every container of the project running, and healthy where it has a health
# check; fails at once on one that exited or is unhealthy.
wait_healthy() {
    local deadline=$((SECONDS + $1)) name state waiting
    while :; do
        waiting=""
        for name in $(project_containers); do
            state=$(podman inspect "$name" --format '{{.State.Status}} {{if .Config.Healthcheck}}{{.State.Health.Status}}{{else}}none{{end}}')
            case $state in
                "running healthy" | "running none") ;;
                "running starting" | "running " | created* | "configured"*) waiting+=" $name" ;;
                *"unhealthy"*)
                    podman logs --tail 50 "$name" >&2 || true
                    die "$name is unhealthy"
                    ;;
                *)
                    podman logs --tail 50 "$name" >&2 || true
                    die "$name is not running ($state)"
                    ;;
            esac
        done
        [[ -z $waiting ]] && return 0
        ((SECONDS < deadline)) || die "not healthy within $1 s:$waiting"
        sleep 1
    done
}

# ---------------------------------------------------------------------------- up
info "docker-compose up -d (project $COMPOSE_PROJECT, published port $GATEWAY_PORT)"
up_started=$SECONDS
compose up -d --no-build >"$OUT/up.log" 2>&1 || {
    cat "$OUT/up.log" >&2
    die "docker-compose up failed"
}
wait_healthy "$HEALTHY_TIMEOUT"
healthy_after=$((SECONDS - up_started))
containers=$(project_containers | wc -l)
info "all $containers containers healthy $healthy_after s after up"
curl -fsS -o /dev/null "http://127.0.0.1:$GATEWAY_PORT/readyz" || die "/readyz through the published port is not 200"

LOADGEN=$IMAGE_BIN_DIR/loadgen
URL="http://127.0.0.1:$GATEWAY_PORT"

# check_report FILE: every request kind of a loadgen report answered as expected, and some of
# each of the apps named after FILE.
check_report() {
    local file=$1
    shift
    python3 - "$file" "$@" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
kinds = {r["name"]: r for r in report["requests"]}
bad = [f'{name}: {r["errors"]} of {r["count"]} not as expected {r["statuses"]}' for name, r in kinds.items() if r["errors"]]
for app in sys.argv[2:]:
    if not any(name.startswith(app) and r["count"] > 0 for name, r in kinds.items()):
        bad.append(f"no {app} request was made")
for name, r in sorted(kinds.items()):
    print(f'  {name:<36} {r["count"]:>6}  {r["statuses"]}')
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
}

# ---------------------------------------------------------------------------- journeys
info "journeys of every app through port $GATEWAY_PORT (loadgen mixed, 20 s)"
"$LOADGEN" mixed --url "$URL" --seconds 20 --users 100 --login-rate 1 --postcard-rate 1 --gift-rate 1 \
    --tapwater-users 20 --drink-every 10 --sync-every 10 --politimap-users 20 --open-every 10 \
    --json "$OUT/journeys.json" >"$OUT/journeys.txt" 2>&1 || {
    cat "$OUT/journeys.txt" >&2
    die "loadgen mixed failed"
}
check_report "$OUT/journeys.json" postcard navup gifter tapwater politimap || die "a journey went wrong (above)"

# ---------------------------------------------------------------------------- scale
info "scaling to 2 gateways (behind lb) and 3 routing replicas"
compose up -d --no-build --scale gateway=2 --scale routing=3 >>"$OUT/up.log" 2>&1 || die "scaling failed; see $OUT/up.log"
wait_healthy "$HEALTHY_TIMEOUT"
# HAProxy resolves the gateway's name every few seconds and checks a new server twice.
sleep 8
# CPU seconds (utime + stime, in clock ticks) of the service process in a container: the child
# of its init (`init: true`).
service_cpu() {
    local init pid
    init=$(podman inspect "$1" --format '{{.State.Pid}}')
    pid=$(pgrep -P "$init" | head -n 1)
    awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/${pid:-$init}/stat"
}
mapfile -t replicas < <(project_containers | grep -E '_(routing|gateway)_[0-9]+$')
((${#replicas[@]} == 5)) || die "expected 2 gateway and 3 routing containers, found: ${replicas[*]}"
declare -A before=()
for name in "${replicas[@]}"; do before[$name]=$(service_cpu "$name"); done
"$LOADGEN" navup --url "$URL" --seconds 15 --users "$SCALE_USERS" --json "$OUT/scale.json" >"$OUT/scale.txt" 2>&1 ||
    die "loadgen navup failed; see $OUT/scale.txt"
check_report "$OUT/scale.json" navup || die "NavUP requests went wrong with 2 gateways and 3 routing replicas"
# spread SERVICE: each replica of SERVICE did at least a sixth of the work (by its CPU time).
spread() {
    local service=$1 name total=0 share
    local -A used=()
    for name in "${replicas[@]}"; do
        [[ $name =~ _${service}_[0-9]+$ ]] || continue
        used[$name]=$(($(service_cpu "$name") - before[$name]))
        total=$((total + used[$name]))
    done
    ((total > 0)) || die "the $service replicas used no CPU"
    for name in "${!used[@]}"; do
        share=$((100 * used[$name] / total))
        info "  $name: $((used[$name] * 1000 / $(getconf CLK_TCK))) ms of CPU, $share% of $service's work"
        ((share * 6 >= 100)) || die "$name did $share% of $service's work: it was not spread"
    done
}
spread gateway
spread routing

# ---------------------------------------------------------------------------- a crash
orders=$(project_containers | grep -E '_orders_[0-9]+$' | head -n 1)
restarts=$(podman inspect "$orders" --format '{{.RestartCount}}')
info "postcards ordered while orders' process in $orders is SIGKILLed"
"$LOADGEN" postcard --url "$URL" --seconds 25 --postcard-rate 3 --acknowledged "$OUT/acknowledged.txt" \
    --json "$OUT/crash.json" >"$OUT/crash.txt" 2>&1 &
LOAD_PID=$!
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
wait "$LOAD_PID" || warn "loadgen postcard exited non-zero; see $OUT/crash.txt"
wait_healthy "$HEALTHY_TIMEOUT"
acknowledged=$(grep -c . "$OUT/acknowledged.txt" || true)
((acknowledged > 0)) || die "no order was acknowledged during the crash run"
postgres=$(project_containers | grep -E '_postgres_[0-9]+$' | head -n 1)
ids=$(paste -sd, "$OUT/acknowledged.txt")
stored=$(podman exec "$postgres" psql -U backplane -d backplane -qAt \
    -c "SELECT count(*) FROM orders.orders WHERE id = ANY('{$ids}'::uuid[]) AND state <> 'pending_payment'")
info "  orders acknowledged: $acknowledged; in the database, past payment: $stored"
((stored == acknowledged)) || die "$((acknowledged - stored)) acknowledged orders are missing or unpaid"

# ---------------------------------------------------------------------------- down
if [[ -n ${KEEP:-} ]]; then
    info "KEEP=1: not running down -v"
    exit 0
fi
compose down -v --remove-orphans >"$OUT/down.log" 2>&1 || die "docker-compose down failed; see $OUT/down.log"
left=$(project_containers | wc -l)
volumes=$(podman volume ls --filter "label=com.docker.compose.project=$COMPOSE_PROJECT" --format '{{.Name}}' | wc -l)
networks=$(podman network ls --format '{{.Name}}' | grep -c "^${COMPOSE_PROJECT}_" || true)
((left == 0 && volumes == 0 && networks == 0)) ||
    die "down -v left $left containers, $volumes volumes, $networks networks"
info "down -v: nothing left"
info "passed: $containers containers healthy in $healthy_after s; image $((image_size / 1000000)) MB; $((SECONDS - started)) s in all"
