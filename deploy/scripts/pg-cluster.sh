#!/usr/bin/env bash
# The directory of pg.sh's PostgreSQL and the OS user that owns its cluster.
#
#   deploy/scripts/pg-cluster.sh init DIR BINDIR   make DIR usable, initdb DIR/data on first use
#   deploy/scripts/pg-cluster.sh run  DIR CMD...   run CMD as the cluster's owner, from inside DIR
#
# As root the server runs as PG_OS_USER (initdb refuses root), so DIR and every directory above it
# must be traversable by that user; as another user it runs as that user. A cwd the owner cannot
# read, like /root, makes initdb and pg_ctl complain: hence "from inside DIR".
set -euo pipefail
LOG_TAG=pg
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${PG_OS_USER:=postgres}" "${PG_MAX_CONNECTIONS:=200}"

as_owner() {
    if [[ $EUID -eq 0 ]]; then
        (cd "$DIR" && runuser -u "$PG_OS_USER" -- "$@")
    else
        (cd "$DIR" && "$@")
    fi
}

# check_reachable: fail with the exact directory to fix rather than initdb's "Permission denied".
check_reachable() {
    [[ $EUID -eq 0 ]] || return 0
    id -u "$PG_OS_USER" >/dev/null 2>&1 || die "user '$PG_OS_USER' does not exist (install postgresql, or set PG_OS_USER)"
    local path="" part parts
    IFS=/ read -ra parts <<<"${DIR#/}"
    for part in "${parts[@]}"; do
        path+="/$part"
        [[ -d $path ]] || break
        runuser -u "$PG_OS_USER" -- test -x "$path" ||
            die "user '$PG_OS_USER' cannot traverse $path (mode $(stat -c %A "$path")), so PostgreSQL cannot use $DIR. Use a directory outside it, or: chmod o+x $path"
    done
}

init() {
    local bindir=$1
    mkdir -p "$DIR"
    if [[ $EUID -eq 0 ]]; then
        chown "$PG_OS_USER:" "$DIR"
        chmod 755 "$DIR"
    fi
    check_reachable
    # A unix socket path is limited to 107 bytes; fail clearly instead of a cryptic postmaster error.
    local sock="$DIR/run/.s.PGSQL.65535"
    ((${#sock} < 108)) || die "DIR is too long for a unix socket path ($sock): use a shorter one"
    as_owner mkdir -p "$DIR/run"
    [[ -f $DIR/data/PG_VERSION ]] && return 0
    info "initialising a new cluster in $DIR/data"
    if ! as_owner "$bindir/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1; then
        cat "$DIR/initdb.log" >&2
        die "initdb failed"
    fi
    # Settings that never change for this DIR; the port is given at each start.
    as_owner tee -a "$DIR/data/postgresql.conf" >/dev/null <<EOF

# --- added by deploy/scripts/pg.sh ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR/run'
max_connections = $PG_MAX_CONNECTIONS
EOF
}

(($# >= 3)) || die "usage: pg-cluster.sh init DIR BINDIR | run DIR CMD..."
command=$1
DIR=$2
shift 2
case $command in
    init) init "$1" ;;
    run) as_owner "$@" ;;
    *) die "usage: pg-cluster.sh init DIR BINDIR | run DIR CMD..." ;;
esac
