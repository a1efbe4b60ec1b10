#!/usr/bin/env bash
# A throwaway PostgreSQL under one directory, for `make up` and `make test`.
#
#   deploy/scripts/pg.sh start  DIR [PORT]   init on first use, start, wait until ready (PORT 5432)
#   deploy/scripts/pg.sh stop   DIR          fast shutdown (no error when it is not running)
#   deploy/scripts/pg.sh url    DIR [PORT]   print the DATABASE_URL (PORT: the running server's)
#   deploy/scripts/pg.sh status DIR          exit 0 and print the port when it is running
#
# Layout: DIR/data (the cluster), DIR/run (its unix socket), DIR/postgres.log.
# It listens on 127.0.0.1 only, trusts every local connection (it is a development database),
# and has role `backplane` (password `backplane`) owning database `backplane`; both are
# (re)created when missing, so a DIR is reused across runs with its data.
#
# As root the server runs as the `postgres` user (initdb refuses root), so DIR and every
# directory above it must be traversable by that user. As another user it runs as that user.
#
# Environment:
#   PG_BINDIR             PostgreSQL's bin directory (default: pg_config --bindir, else the newest
#                         /usr/lib/postgresql/*/bin)
#   PG_OS_USER            OS user that runs the server when we are root (default postgres)
#   PG_START_TIMEOUT      seconds to wait for readiness (default 30)
#   PG_MAX_CONNECTIONS    max_connections (default 200: test suites open many pools)
#   PG_FAST=1             fsync/synchronous_commit/full_page_writes off: faster, and only unsafe if
#                         the machine itself crashes (a killed process loses nothing). test.sh sets it.
set -euo pipefail
LOG_TAG=pg
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DB_NAME=backplane
DB_USER=backplane
DB_PASSWORD=backplane
: "${PG_OS_USER:=postgres}"
: "${PG_START_TIMEOUT:=30}"
: "${PG_MAX_CONNECTIONS:=200}"

usage() {
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# find_bindir: PostgreSQL's server binaries are not on PATH on Debian, only the client wrappers.
find_bindir() {
    if [[ -n ${PG_BINDIR:-} ]]; then
        echo "$PG_BINDIR"
        return
    fi
    local dir
    if command -v pg_config >/dev/null 2>&1; then
        dir=$(pg_config --bindir 2>/dev/null || true)
        [[ -x $dir/initdb ]] && { echo "$dir"; return; }
    fi
    dir=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    [[ -x $dir/initdb ]] && { echo "$dir"; return; }
    dir=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
    [[ -x $dir/initdb ]] && { echo "$dir"; return; }
    die "PostgreSQL server binaries not found: run deploy/scripts/bootstrap.sh (apt-get install postgresql postgresql-contrib)"
}

# as_pg CMD...: runs CMD as the user that owns the cluster, from inside DIR (a cwd the postgres
# user cannot read, like /root, makes initdb and pg_ctl complain).
as_pg() {
    if [[ $EUID -eq 0 ]]; then
        (cd "$DIR" && runuser -u "$PG_OS_USER" -- "$@")
    else
        (cd "$DIR" && "$@")
    fi
}

# check_reachable: the postgres user needs execute permission on every directory down to DIR.
# Fail with the exact directory to fix rather than initdb's "Permission denied".
check_reachable() {
    [[ $EUID -eq 0 ]] || return 0
    id -u "$PG_OS_USER" >/dev/null 2>&1 || die "user '$PG_OS_USER' does not exist (install postgresql, or set PG_OS_USER)"
    local path="" part
    IFS=/ read -ra parts <<<"${DIR#/}"
    for part in "${parts[@]}"; do
        path+="/$part"
        [[ -d $path ]] || break
        if ! runuser -u "$PG_OS_USER" -- test -x "$path"; then
            die "user '$PG_OS_USER' cannot traverse $path (mode $(stat -c %A "$path")), so PostgreSQL cannot use $DIR. Use a directory outside it, or: chmod o+x $path"
        fi
    done
}

prepare_dir() {
    mkdir -p "$DIR"
    if [[ $EUID -eq 0 ]]; then
        chown "$PG_OS_USER:" "$DIR"
        chmod 755 "$DIR"
    fi
    check_reachable
    # A unix socket path is limited to 107 bytes; fail clearly instead of a cryptic postmaster error.
    local sock="$DIR/run/.s.PGSQL.65535"
    ((${#sock} < 108)) || die "DIR is too long for a unix socket path ($sock): use a shorter one"
    as_pg mkdir -p "$DIR/run"
}

init_cluster() {
    [[ -f $DIR/data/PG_VERSION ]] && return 0
    info "initialising a new cluster in $DIR/data"
    if ! as_pg "$BINDIR/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C \
        >"$DIR/initdb.log" 2>&1; then
        cat "$DIR/initdb.log" >&2
        die "initdb failed"
    fi
    # Settings that never change for this DIR; the port is given at each start.
    as_pg tee -a "$DIR/data/postgresql.conf" >/dev/null <<EOF

# --- added by deploy/scripts/pg.sh ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR/run'
max_connections = $PG_MAX_CONNECTIONS
EOF
}

# running_port: prints the port of the server running on DIR/data, or fails when none runs.
# pg_ctl status alone would take a killed postmaster that is not yet reaped for a live one.
running_port() {
    [[ -f $DIR/data/postmaster.pid ]] || return 1
    as_pg "$BINDIR/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1 || return 1
    pid_alive "$(head -n 1 "$DIR/data/postmaster.pid")" || return 1
    sed -n 4p "$DIR/data/postmaster.pid"
}

wait_ready() {
    local port=$1 deadline=$((SECONDS + PG_START_TIMEOUT))
    until "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$port" -d postgres; do
        if ! as_pg "$BINDIR/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
            tail -n 20 "$DIR/postgres.log" >&2
            die "PostgreSQL exited while starting (log: $DIR/postgres.log)"
        fi
        if ((SECONDS >= deadline)); then
            tail -n 20 "$DIR/postgres.log" >&2
            die "PostgreSQL not ready on port $port after ${PG_START_TIMEOUT}s (log: $DIR/postgres.log)"
        fi
        sleep 0.2
    done
}

# ensure_role_and_db: idempotent, so a DIR whose first start was interrupted heals itself.
ensure_role_and_db() {
    local port=$1
    "$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres >/dev/null <<EOF
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER') THEN
    CREATE ROLE $DB_USER LOGIN CREATEDB PASSWORD '$DB_PASSWORD';
  END IF;
END \$\$;
SELECT 'CREATE DATABASE $DB_NAME OWNER $DB_USER'
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB_NAME') \gexec
EOF
    local trgm
    trgm=$("$BINDIR/psql" -X -At -h 127.0.0.1 -p "$port" -U postgres -d postgres \
        -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm'")
    # pg_trgm is a trusted extension: the backplane role can CREATE EXTENSION it in a migration.
    [[ $trgm == 1 ]] || warn "extension pg_trgm is not available: apt-get install postgresql-contrib"
}

cmd_start() {
    local port=${1:-5432} current
    [[ $port =~ ^[0-9]+$ ]] || die "PORT must be a number, got '$port'"
    prepare_dir
    init_cluster
    if current=$(running_port); then
        if [[ $current == "$port" ]]; then
            info "already running on port $port ($DIR)"
            wait_ready "$port"
            ensure_role_and_db "$port"
            return 0
        fi
        info "running on port $current; restarting on port $port"
        cmd_stop
    fi
    port_in_use "$port" && die "port $port is already in use by another program"
    local opts="-p $port"
    [[ -n ${PG_FAST:-} ]] && opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    # No -w: readiness is checked with pg_isready below, which also notices an early exit.
    as_pg "$BINDIR/pg_ctl" -D "$DIR/data" -l "$DIR/postgres.log" -o "$opts" start >/dev/null ||
        die "pg_ctl start failed (log: $DIR/postgres.log)"
    wait_ready "$port"
    ensure_role_and_db "$port"
    info "ready on 127.0.0.1:$port ($DIR)"
}

cmd_stop() {
    if ! running_port >/dev/null; then
        info "not running ($DIR)"
        return 0
    fi
    as_pg "$BINDIR/pg_ctl" -D "$DIR/data" stop -m fast -w -t 30 >/dev/null ||
        die "pg_ctl stop failed (log: $DIR/postgres.log)"
    info "stopped ($DIR)"
}

cmd_url() {
    local port=${1:-}
    [[ -n $port ]] || port=$(running_port) || port=5432
    echo "postgres://$DB_USER:$DB_PASSWORD@127.0.0.1:$port/$DB_NAME"
}

cmd_status() {
    local port
    port=$(running_port) || { info "not running ($DIR)"; return 1; }
    echo "$port"
}

main() {
    (($# >= 2)) || usage
    local cmd=$1
    DIR=$(realpath -m -- "$2")
    shift 2
    BINDIR=$(find_bindir)
    case $cmd in
        start) cmd_start "$@" ;;
        stop) cmd_stop ;;
        url) cmd_url "$@" ;;
        status) cmd_status ;;
        *) usage ;;
    esac
}

main "$@"
