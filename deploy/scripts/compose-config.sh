#!/usr/bin/env bash
# docker-compose.yml is valid, and refuses to start without its required secrets:
#
#   deploy/scripts/compose-config.sh        (make compose-config; make test's compose step)
#
# `config -q` with every required secret set must pass; with each one left out it must fail
# with a message naming that variable, so `docker compose up` never starts on a default password.
set -euo pipefail
LOG_TAG=compose-config
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REQUIRED="POSTGRES_PASSWORD ADMIN_PASSWORD BACKUP_ENCRYPTION_KEY"

if command -v docker-compose >/dev/null 2>&1; then
    compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
else
    die "docker-compose not found: run deploy/scripts/bootstrap.sh"
fi
cd "$REPO_ROOT"
given=()
for name in $REQUIRED; do given+=("$name=compose-config-check"); done
env "${given[@]}" "${compose[@]}" -f docker-compose.yml config -q || die "docker-compose.yml is not valid"
for name in $REQUIRED; do
    if out=$(env "${given[@]}" env -u "$name" "${compose[@]}" -f docker-compose.yml config -q 2>&1); then
        die "docker-compose.yml starts without $name"
    fi
    [[ $out == *"set $name"* ]] || die "without $name, the refusal does not name it: $out"
done
info "docker-compose.yml is valid and refuses to start without $REQUIRED"
