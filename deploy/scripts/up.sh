#!/usr/bin/env bash
# `make up`: runs the whole of Backplane on this machine, in the foreground.
#
# Installs what is missing (bootstrap.sh), starts a throwaway PostgreSQL in .data/pg unless
# DATABASE_URL is set, builds the release executables, then runs backplane-up (tools/up): it
# starts the broker, the services, the local stand-ins and the gateway, each one's output prefixed
# by its name, waits for GET /readyz, restarts (RESTART=always) or reports a process that dies,
# and on Ctrl-C / SIGTERM / SIGHUP stops them all (SIGTERM, SIGKILL after STOP_TIMEOUT or at a
# second Ctrl-C) and checks that none is left. Then PostgreSQL stops.
# The processes are deploy/services.txt's: the broker; the services auth, orders, printing,
# routing, notify, hydration, civic and social (SERVICES="..." runs some); the gateway.
#
# Environment (backplane-up's own settings: `backplane-up --help`, docs/settings.md):
#   DATABASE_URL          use this database instead of the throwaway one
#   PG_PORT               port for the throwaway PostgreSQL (default 5432, or a free one if taken)
#   PG_KEEP=1             leave the throwaway PostgreSQL running on exit
#   PG_ARCHIVE            1 (default): the throwaway PostgreSQL archives its WAL for backup.sh, with
#                         a key made once in .data/secrets/backup_encryption_key; 0: it does not
#   API_DOCS_DIR          the gateway's setting (Swagger UI's files for /docs); unset, make up
#                         sets it to the folder of pip's swagger-ui-bundle-v2 (bootstrap.sh
#                         installs it); set it empty for a gateway without the rendered reference
#   UP_ADMIN=1            (make up sets it) the admin `admin`, with a password made once in
#                         .data/secrets/admin_password, unless auth's ADMIN_* settings name one
#   ADMIN_PASSWORD_FILE   auth's ADMIN_PASSWORD read from this file (any secret takes NAME_FILE)
#   SKIP_BUILD=1          do not run `swift build -c release`
#   SKIP_BOOTSTRAP=1      do not run bootstrap.sh
#   BACKPLANE_BIN_DIR     where the executables are (default: swift build -c release --show-bin-path)
#   BACKPLANE_COMMIT      the commit every process reports with --version and in its first log
#                         line (default: git rev-parse --short=12 HEAD, or unknown)
set -euo pipefail
LOG_TAG=up
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PG_DIR="$REPO_ROOT/.data/pg"
PG_OWNED="" SUPERVISOR=""

# at_exit: the supervisor has stopped every process by now (or never ran); the database goes last.
at_exit() {
    [[ -n $PG_OWNED ]] || return 0
    [[ -z ${PG_KEEP:-} ]] || { info "PG_KEEP is set: PostgreSQL in .data/pg keeps running"; return 0; }
    "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" || warn "could not stop PostgreSQL in $PG_DIR"
}
# on_signal NAME: passed on to the supervisor, once (it leads a process group of its own, so a
# terminal's Ctrl-C reaches this script alone); before the supervisor runs, it ends the script.
on_signal() {
    [[ -z $SUPERVISOR ]] || { kill -s "$1" "$SUPERVISOR" 2>/dev/null || true; return 0; }
    info "received SIG$1: shutting down"
    exit $((128 + $(kill -l "$1")))
}
# `make up | tee log` and Ctrl-C: the terminal's SIGINT ends tee too; a message written to it
# must then fail, not kill this script with SIGPIPE before PostgreSQL is stopped.
trap '' PIPE
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP
trap at_exit EXIT

[[ -n ${SKIP_BOOTSTRAP:-} ]] || "$SCRIPTS_DIR/bootstrap.sh"
# Before the database: a second make up must not adopt, then stop, the first one's PostgreSQL.
! port_in_use "${HTTP_PORT:-8080}" ||
    die "port ${HTTP_PORT:-8080} (HTTP_PORT) is already in use: is Backplane already running? Stop it or set HTTP_PORT"
# Swagger UI's files for the gateway's /docs (backplane-up says when they are missing).
if [[ -z ${API_DOCS_DIR+set} ]]; then
    API_DOCS_DIR=$(python3 -c 'import swagger_ui_bundle; print(swagger_ui_bundle.swagger_ui_path)' 2>/dev/null) ||
        API_DOCS_DIR=""
fi
export API_DOCS_DIR
# `make up`'s first admin, the console's sign-in: its password is made once, in .data/secrets.
if [[ -n ${UP_ADMIN:-} && -z ${ADMIN_USERNAME:-}${ADMIN_PASSWORD:-}${ADMIN_PASSWORD_FILE:-} ]]; then
    secret="$REPO_ROOT/.data/secrets/admin_password"
    mkdir -p "${secret%/*}" && chmod 700 "${secret%/*}"
    # The password rules want a capital letter and a digit; the random part is 24 characters.
    [[ -s $secret ]] || (umask 077 && python3 -c 'import secrets; print("Bp1-" + secrets.token_urlsafe(18))' >"$secret")
    export ADMIN_USERNAME=admin ADMIN_PASSWORD_FILE=$secret
    info "console sign-in: admin, with the password in .data/secrets/admin_password"
fi

if [[ -n ${DATABASE_URL:-} ]]; then
    info "using DATABASE_URL from the environment"
else
    PG_OWNED=1 # from here on, even if the start below is interrupted half-way
    export PG_ARCHIVE=${PG_ARCHIVE:-1} # make backup, make restore (backup.sh, restore.sh)
    if [[ $PG_ARCHIVE == 1 && -z ${BACKUP_ENCRYPTION_KEY:-}${BACKUP_ENCRYPTION_KEY_FILE:-} ]]; then
        key="$REPO_ROOT/.data/secrets/backup_encryption_key"
        [[ -s $key ]] || (umask 077 && mkdir -p "${key%/*}" && python3 -c 'import secrets; print(secrets.token_urlsafe(48))' >"$key")
    fi
    if port=$("$SCRIPTS_DIR/pg.sh" status "$PG_DIR" 2>/dev/null); then
        # Most likely left over from a run that was killed: adopt it.
        info "PostgreSQL in .data/pg is already running on port $port; using it"
    else
        port=${PG_PORT:-5432}
        if port_in_use "$port"; then
            [[ -z ${PG_PORT:-} ]] || die "PG_PORT=$port is already in use"
            port=$(free_port)
            info "port 5432 is taken (another PostgreSQL?); the throwaway PostgreSQL uses port $port instead"
        fi
        "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$port"
    fi
    DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$port")
    export DATABASE_URL
    info "DATABASE_URL=$DATABASE_URL"
fi

if [[ -n ${SKIP_BUILD:-} ]]; then
    info "SKIP_BUILD is set: not building"
else
    require_cmd swift "install a Swift 6 toolchain (https://www.swift.org/install/)"
    info "building release executables (swift build -c release)"
    (cd "$REPO_ROOT" && swift build -c release) || die "swift build -c release failed"
fi
: "${BACKPLANE_BIN_DIR:=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path 2>/dev/null || echo "$REPO_ROOT/.build/release")}"
[[ -x $BACKPLANE_BIN_DIR/backplane-up ]] ||
    die "executable $BACKPLANE_BIN_DIR/backplane-up not found (build first, or set BACKPLANE_BIN_DIR)"
: "${BACKPLANE_COMMIT:=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"
export BACKPLANE_BIN_DIR BACKPLANE_COMMIT REPO_ROOT
"$BACKPLANE_BIN_DIR/backplane-up" &
SUPERVISOR=$!
# wait returns early when a trap has run; the status is the supervisor's once it has ended.
while :; do
    wait "$SUPERVISOR" && status=0 || status=$?
    pid_alive "$SUPERVISOR" || exit "$status"
done
