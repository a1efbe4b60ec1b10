#!/usr/bin/env bash
# compose-test.sh's project, through podman's Docker-compatible API (DOCKER_HOST):
#
#   deploy/scripts/compose-project.sh compose ARGS...   docker-compose with the shipped file and
#                                                       deploy/compose-test/compose.override.yml
#   deploy/scripts/compose-project.sh containers        the project's containers, sorted
#   deploy/scripts/compose-project.sh healthy SECONDS   wait until every container runs, healthy
#                                                       where it has a health check; fail at once
#                                                       on one that exited or is unhealthy
#   deploy/scripts/compose-project.sh backup-reported SECONDS   wait until backup-metrics reports
#                                                       a full backup (the backup service's first)
#   deploy/scripts/compose-project.sh logs              each container's log tail to OUT/NAME.log
#   deploy/scripts/compose-project.sh down              `down -v`; fail if anything is left
#
# Reads what compose-test.sh exports: COMPOSE_PROJECT, DOCKER_HOST, GATEWAY_PORT and the secrets.
set -euo pipefail
LOG_TAG=containers
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT="$REPO_ROOT/.data/compose-test"

compose() {
    docker-compose -p "$COMPOSE_PROJECT" -f "$REPO_ROOT/docker-compose.yml" \
        -f "$REPO_ROOT/deploy/compose-test/compose.override.yml" "$@"
}
containers() {
    podman ps -a --filter "label=com.docker.compose.project=$COMPOSE_PROJECT" --format '{{.Names}}' | sort
}

healthy() {
    local deadline=$((SECONDS + $1)) name state waiting
    while :; do
        waiting=""
        for name in $(containers); do
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

backup_reported() {
    local deadline=$((SECONDS + $1))
    until compose exec -T backup-metrics python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:9188/metrics").read().decode())' 2>/dev/null |
        grep -q '^backplane_backup_last_success_timestamp_seconds{type="full"} [1-9]'; do
        ((SECONDS < deadline)) || die "backup-metrics reports no full backup after $1 s"
        sleep 3
    done
    info "backup-metrics reports the first full backup"
}

down() {
    compose down -v --remove-orphans >"$OUT/down.log" 2>&1 || die "docker-compose down failed; see $OUT/down.log"
    local left volumes networks
    left=$(containers | wc -l)
    volumes=$(podman volume ls --filter "label=com.docker.compose.project=$COMPOSE_PROJECT" --format '{{.Name}}' | wc -l)
    networks=$(podman network ls --format '{{.Name}}' | grep -c "^${COMPOSE_PROJECT}_" || true)
    ((left == 0 && volumes == 0 && networks == 0)) ||
        die "down -v left $left containers, $volumes volumes, $networks networks"
    info "down -v: nothing left"
}

command=${1:-}
shift || true
case $command in
    compose) compose "$@" ;;
    containers) containers ;;
    healthy) healthy "$1" ;;
    backup-reported) backup_reported "$1" ;;
    logs) for name in $(containers 2>/dev/null); do podman logs --tail 200 "$name" >"$OUT/$name.log" 2>&1 || true; done ;;
    down) down ;;
    *) die "usage: compose-project.sh compose ARGS... | containers | healthy SECONDS | backup-reported SECONDS | logs | down" ;;
esac
