#!/usr/bin/env bash
# Restores backup.sh's backups to a point in time: the database into a fresh directory (pg.sh's
# layout), started there, and printing's files beside it.
#
#   deploy/scripts/restore.sh TARGET          (make restore TARGET=...)
#
# TARGET: a restore point's name (backup.sh point), a time such as `2026-12-07 17:00:00+00` (read
# by PostgreSQL; the backup set is the last one finished before it), or `latest` (every archived
# change). A point noted in BACKUP_REPO/points.txt starts from the backup made before it; another
# name, from the latest backup. Recovery stops at the target and the server is promoted. The
# files come from the first files tar made at or after the target (the latest one for `latest`).
# The restored PostgreSQL does not archive its WAL (it would mix with the live one's) unless it
# replaces the live database. It prints the DATABASE_URL and DATA_DIR to start the system with.
# Reads backup.sh's settings (BACKUP_REPO, the key, BACKUP_PG_DIR, BACKUP_FILES_DIR).
#
# Environment:
#   RESTORE_DIR           where the database goes (DIR/data, as pg.sh's DIR) and the files
#                         (DIR/files); it must not exist (default .data/restore-<UTC time>)
#   RESTORE_IN_PLACE=1    RESTORE_DIR may be BACKUP_PG_DIR: the live database (stopped first) is
#                         replaced, and the files go back to BACKUP_FILES_DIR
#   RESTORE_PORT          the port the restored PostgreSQL listens on (default: a free one)
#   PG_START_TIMEOUT      seconds the replay of the WAL may take before the server is ready
#                         (default 600)
set -euo pipefail
LOG_TAG=restore
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${BACKUP_REPO:=$REPO_ROOT/.data/backup}" "${BACKUP_PG_DIR:=$REPO_ROOT/.data/pg}" "${PG_OS_USER:=postgres}"
: "${BACKUP_FILES_DIR:=${DATA_DIR:-$REPO_ROOT/.data/printing}}" "${PG_START_TIMEOUT:=600}"
export PG_START_TIMEOUT
target=${1:?usage: restore.sh TARGET (a restore point, a time, or latest)}
start=$SECONDS
BACKUP_REPO=$(realpath -m -- "$BACKUP_REPO") PG_DIR=$(realpath -m -- "$BACKUP_PG_DIR")
dir=$(realpath -m -- "${RESTORE_DIR:-$REPO_ROOT/.data/restore-$(date -u +%Y%m%dT%H%M%SZ)}")
files=$dir/files args=() archiving=0
if [[ $dir == "$PG_DIR" ]]; then
    [[ -n ${RESTORE_IN_PLACE:-} ]] || die "RESTORE_DIR is the live database's: set RESTORE_IN_PLACE=1 to replace it"
    ! "$SCRIPTS_DIR/pg.sh" status "$dir" >/dev/null 2>&1 || die "stop PostgreSQL in $dir first"
    args+=(--delta) files=$BACKUP_FILES_DIR archiving=1
else
    [[ ! -e $dir ]] || die "RESTORE_DIR $dir exists: a restore goes into a fresh directory"
fi

when=""
line=$(awk -F'\t' -v n="$target" '$1 == n' "$BACKUP_REPO/points.txt" 2>/dev/null | tail -n 1)
if [[ $target == latest ]]; then
    :
elif [[ -n $line ]]; then
    IFS=$'\t' read -r _ when label <<<"$line"
    args+=(--type=name "--target=$target" "--set=$label" --target-action=promote)
elif [[ $target =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2} ]]; then
    when=$target args+=(--type=time "--target=$target" --target-action=promote)
else
    warn "restore point $target is not in $BACKUP_REPO/points.txt: recovering from the latest backup"
    args+=(--type=name "--target=$target" --target-action=promote)
fi

# A live server's current WAL segment holds its latest changes: archived first, when it runs.
if live=$("$SCRIPTS_DIR/pg.sh" status "$PG_DIR" 2>/dev/null); then
    "$SCRIPTS_DIR/backup.sh" pgbackrest "$PG_DIR" --pg1-port="$live" check >/dev/null ||
        warn "could not archive the live server's current WAL: changes after the last archived one are not restored"
fi
mkdir -p "$dir"
[[ $EUID -ne 0 ]] || chown "$PG_OS_USER:" "$dir"
chmod 755 "$dir"
"$SCRIPTS_DIR/pg-cluster.sh" run "$dir" install -d -m 700 "$dir/data" "$dir/run"
info "restoring to $target into $dir/data"
"$SCRIPTS_DIR/backup.sh" pgbackrest "$dir" "${args[@]}" restore
# The restored postgresql.conf names the live directory's socket folder; this one's wins. No
# connections while the WAL is replayed: pg.sh's readiness then means promoted, and a server that
# cannot reach the target stops with its reason in DIR/postgres.log, which pg.sh shows.
printf "\n# --- added by deploy/scripts/restore.sh ---\nunix_socket_directories = '%s'\nhot_standby = off\n" "$dir/run" |
    "$SCRIPTS_DIR/pg-cluster.sh" run "$dir" tee -a "$dir/data/postgresql.conf" >/dev/null

# Printing's files: the first tar made at or after the target (the names sort as times).
after=$(date -u -d "${when:-2999-01-01}" +%Y%m%dT%H%M%SZ) archive=""
for f in "$BACKUP_REPO"/files/*.tar.enc; do
    [[ -e $f ]] || continue
    archive=$f
    [[ $(basename "$f" .tar.enc) < "$after" ]] || break
done
if [[ -n $archive ]]; then
    mkdir -p "$files"
    "$SCRIPTS_DIR/backup.sh" decrypt "$archive" | tar -C "$files" -xf -
    info "printing's files from $(basename "$archive") into $files"
else
    warn "no files tar in $BACKUP_REPO/files: printing's files are not restored"
fi

port=${RESTORE_PORT:-$(free_port)}
PG_ARCHIVE=$archiving "$SCRIPTS_DIR/pg.sh" start "$dir" "$port"
info "restored in $((SECONDS - start)) s; stop it with deploy/scripts/pg.sh stop ${dir#"$REPO_ROOT"/}; start the system on it with:"
echo "DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$dir" "$port") DATA_DIR=$files"
