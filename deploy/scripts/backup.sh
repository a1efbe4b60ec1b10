#!/usr/bin/env bash
# Encrypted backups of pg.sh's PostgreSQL (make up's .data/pg) with pgBackRest, and of printing's
# files beside them; restore.sh restores them to a point in time.
#
#   deploy/scripts/backup.sh backup [POINT]   a backup (full the first time, then incremental), a
#                                             tar of BACKUP_FILES_DIR; with POINT, then `point POINT`
#   deploy/scripts/backup.sh point NAME       a named restore point (pg_create_restore_point), archived
#   deploy/scripts/backup.sh info             what the repository holds
#   deploy/scripts/backup.sh metrics [--port P]  the repository's figures for Prometheus, 127.0.0.1:P (9188)
#   deploy/scripts/backup.sh archive-opts DIR (pg.sh) write DIR/pgbackrest.conf, print the options
#                                             that make PostgreSQL archive its WAL into BACKUP_REPO
#   deploy/scripts/backup.sh pgbackrest DIR ARGS...  (restore.sh) pgbackrest with DIR's configuration
#   deploy/scripts/backup.sh decrypt FILE     (restore.sh) a files tar, decrypted, to stdout
#
# The repository (stanza `backplane`) is encrypted with aes-256-cbc (repo1-cipher-type). Printing's
# files are one tar per backup, BACKUP_REPO/files/<UTC time>.tar.enc, encrypted by openssl
# (aes-256-cbc, PBKDF2) with the same key. pgBackRest runs as the cluster's OS user (PG_OS_USER
# as root); its logs are in DIR/log. A restore point is noted in BACKUP_REPO/points.txt with its
# time and the backup before it, which restore.sh starts from.
#
# Environment:
#   BACKUP_REPO           the pgBackRest repository (default .data/backup)
#   BACKUP_ENCRYPTION_KEY  the repository's key, a passphrase (a repository keeps its first key)
#   BACKUP_ENCRYPTION_KEY_FILE  a file holding it (default .data/secrets/backup_encryption_key,
#                         which make up makes)
#   BACKUP_KEEP_FULL      full backups kept (default 2; older ones and their WAL are expired)
#   BACKUP_PG_DIR         pg.sh's directory of the database backed up (default .data/pg)
#   BACKUP_FILES_DIR      printing's DATA_DIR, backed up with it (default DATA_DIR, else
#                         .data/printing)
set -euo pipefail
LOG_TAG=backup
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${BACKUP_REPO:=$REPO_ROOT/.data/backup}" "${BACKUP_PG_DIR:=$REPO_ROOT/.data/pg}" "${BACKUP_KEEP_FULL:=2}"
: "${BACKUP_FILES_DIR:=${DATA_DIR:-$REPO_ROOT/.data/printing}}" "${PG_OS_USER:=postgres}"
BACKUP_REPO=$(realpath -m -- "$BACKUP_REPO") PG_DIR=$(realpath -m -- "$BACKUP_PG_DIR")
[[ $BACKUP_REPO != *[[:space:]\'\"]* ]] || die "BACKUP_REPO must not hold spaces or quotes"
STANZA=backplane
umask 077 # what it writes holds or is encrypted with the key

key() {
    if [[ -n ${BACKUP_ENCRYPTION_KEY:-} ]]; then
        printf '%s' "$BACKUP_ENCRYPTION_KEY"
    else
        local file=${BACKUP_ENCRYPTION_KEY_FILE:-$REPO_ROOT/.data/secrets/backup_encryption_key}
        [[ -s $file ]] || die "no key: set BACKUP_ENCRYPTION_KEY or BACKUP_ENCRYPTION_KEY_FILE ($file is missing)"
        tr -d '\n' <"$file"
    fi
}
# configure DIR: DIR/pgbackrest.conf (the key inside: readable by the cluster's owner alone), and
# the repository, owned by that user.
configure() {
    local dir=$1 k
    k=$(key)
    mkdir -p "$BACKUP_REPO" "$dir/log"
    [[ $EUID -ne 0 ]] || chown "$PG_OS_USER:" "$BACKUP_REPO" "$dir/log"
    (umask 077 && cat >"$dir/pgbackrest.conf") <<EOF
[global]
repo1-path=$BACKUP_REPO
repo1-cipher-type=aes-256-cbc
repo1-cipher-pass=$k
repo1-retention-full=$BACKUP_KEEP_FULL
log-path=$dir/log
lock-path=$dir/run
start-fast=y
[$STANZA]
pg1-path=$dir/data
pg1-socket-path=$dir/run
EOF
    [[ $EUID -ne 0 ]] || chown "$PG_OS_USER:" "$dir/pgbackrest.conf"
}
# br DIR ARGS...: pgbackrest as the cluster's owner, with DIR's configuration.
br() { "$SCRIPTS_DIR/pg-cluster.sh" run "$1" pgbackrest --config="$1/pgbackrest.conf" --stanza=$STANZA "${@:2}"; }
live_port() {
    local port
    port=$("$SCRIPTS_DIR/pg.sh" status "$PG_DIR" 2>/dev/null) || die "PostgreSQL in $PG_DIR is not running"
    configure "$PG_DIR"
    [[ $(psql "$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$port")" -XAtc 'SHOW archive_mode') == on ]] ||
        die "PostgreSQL in $PG_DIR does not archive its WAL: restart it with PG_ARCHIVE=1 (make up does)"
    echo "$port"
}
sql() { psql -XAtq -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -d postgres -c "$2"; }
encrypt() { K=$(key) openssl enc -aes-256-cbc -pbkdf2 -salt -pass env:K "$@"; }

cmd_point() {
    local name=$1 port time label
    port=$(live_port)
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || die "a restore point's name: letters, digits, . _ - (got '$name')"
    label=$(br "$PG_DIR" info --output=json | python3 -c 'import json,sys; b=json.load(sys.stdin)[0]["backup"]; print(b[-1]["label"] if b else "")')
    [[ -n $label ]] || die "no backup yet: a restore point needs one before it (run backup first)"
    sql "$port" "SELECT pg_create_restore_point('$name')" >/dev/null
    time=$(sql "$port" "SELECT clock_timestamp()")
    br "$PG_DIR" --pg1-port="$port" check >/dev/null # switches WAL and waits until it is archived
    printf '%s\t%s\t%s\n' "$name" "$time" "$label" >>"$BACKUP_REPO/points.txt"
    info "restore point $name at $time (archived; backup before it: $label)"
}

cmd_backup() {
    local port start=$SECONDS stamp
    port=$(live_port)
    br "$PG_DIR" --pg1-port="$port" stanza-create >/dev/null
    br "$PG_DIR" --pg1-port="$port" --type=incr backup # full when there is none yet
    stamp=$(date -u +%Y%m%dT%H%M%SZ) && mkdir -p "$BACKUP_REPO/files"
    [[ -d $BACKUP_FILES_DIR ]] || warn "$BACKUP_FILES_DIR (BACKUP_FILES_DIR) does not exist: no files saved"
    # tar's status 1: a file changed or went away while it was read (printing keeps working).
    [[ ! -d $BACKUP_FILES_DIR ]] || { tar -C "$BACKUP_FILES_DIR" --warning=no-file-changed --warning=no-file-removed -cf - . || (($? == 1)); } |
        encrypt -out "$BACKUP_REPO/files/$stamp.tar.enc"
    info "backup done in $((SECONDS - start)) s; repository $(du -sh "$BACKUP_REPO" | cut -f1)B ($BACKUP_REPO)"
    [[ -z ${1:-} ]] || cmd_point "$1"
}

case ${1:-} in
    backup) cmd_backup "${2:-}" ;;
    point) cmd_point "${2:?usage: backup.sh point NAME}" ;;
    info) configure "$PG_DIR" && br "$PG_DIR" info ;;
    metrics) exec python3 "$REPO_ROOT/deploy/postgres/backup-metrics.py" --host 127.0.0.1 "${@:2}" -- "$0" pgbackrest "$PG_DIR" --output=json info ;;
    pgbackrest) configure "$(realpath -m -- "${2:?}")" && br "$(realpath -m -- "$2")" "${@:3}" ;;
    decrypt) encrypt -d -in "${2:?usage: backup.sh decrypt FILE}" ;;
    archive-opts)
        configure "$(realpath -m -- "${2:?usage: backup.sh archive-opts DIR}")"
        echo "-c archive_mode=on -c archive_command='pgbackrest --config=$(realpath -m -- "$2")/pgbackrest.conf --stanza=$STANZA archive-push %p'"
        ;;
    *) sed -n '5,14p' "$0" | sed 's/^# \{0,1\}//' >&2 && exit 2 ;;
esac
