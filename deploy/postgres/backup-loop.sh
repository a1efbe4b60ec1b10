#!/usr/bin/env bash
# docker-compose.yml's `backup` service: pgBackRest backups of the `postgres` service, one every
# BACKUP_EVERY_S seconds, into the encrypted repository on the `backups` volume
# (/var/lib/pgbackrest, which the server's archive_command also writes its WAL into). A backup is
# full when none is younger than BACKUP_FULL_EVERY_S, incremental otherwise; pgBackRest keeps
# BACKUP_KEEP_FULL full backups (PGBACKREST_REPO1_RETENTION_FULL) and expires older ones and their
# WAL. After each backup, printing's files (PRINTING_DIR, mounted read-only) go into
# files/<UTC time>.tar.enc beside it, encrypted by openssl (aes-256-cbc, PBKDF2) with the
# repository's key; the time of the last good backup is written to last-backup.
#
#   backup-loop.sh            the loop (as root: it gives the repository to postgres, then runs
#                             pgBackRest as postgres)
#   backup-loop.sh --probe    the health check: the last backup is younger than twice BACKUP_EVERY_S
#
# pgBackRest's own settings come from the PGBACKREST_* variables the compose file sets (stanza,
# repository path, cipher, key, data directory, socket, user).
set -euo pipefail
: "${BACKUP_EVERY_S:=3600}" "${BACKUP_FULL_EVERY_S:=604800}" "${PRINTING_DIR:=/var/lib/backplane/printing}"
REPO=${PGBACKREST_REPO1_PATH:?set PGBACKREST_REPO1_PATH}
: "${PGBACKREST_REPO1_CIPHER_PASS:?set BACKUP_ENCRYPTION_KEY}"

if [[ ${1:-} == --probe ]]; then
    last=$(stat -c %Y "$REPO/last-backup" 2>/dev/null) || exit 1
    (($(date +%s) - last < 2 * BACKUP_EVERY_S)) && exit 0
    exit 1
fi
as_pg() { runuser -u postgres -- "$@"; }
log() { echo "[backup] $(date -u +%FT%TZ) $*"; }
chown postgres: "$REPO" && chmod 750 "$REPO"
until as_pg pgbackrest stanza-create >/dev/null 2>&1; do
    log "waiting for PostgreSQL (pgbackrest stanza-create)"
    sleep 5
done
while :; do
    type=incr
    full=$(stat -c %Y "$REPO/last-full" 2>/dev/null || echo 0)
    (($(date +%s) - full < BACKUP_FULL_EVERY_S)) || type=full
    started=$(date +%s)
    if as_pg pgbackrest --type="$type" backup; then
        [[ $type != full ]] || touch "$REPO/last-full"
        stamp=$(date -u +%Y%m%dT%H%M%SZ)
        mkdir -p "$REPO/files"
        # tar's status 1: a file changed or went away while it was read (printing keeps working).
        { tar -C "$PRINTING_DIR" --warning=no-file-changed --warning=no-file-removed -cf - . || (($? == 1)); } |
            openssl enc -aes-256-cbc -pbkdf2 -salt -pass env:PGBACKREST_REPO1_CIPHER_PASS -out "$REPO/files/$stamp.tar.enc"
        # The files tars of backups pgBackRest has expired go too: keep as many as it has backups.
        keep=$(as_pg pgbackrest info --output=json | grep -o '"label":"[^"]*"' | wc -l)
        printf "%s\n" "$REPO/files"/*.tar.enc | head -n "-$keep" | xargs -r rm -f
        touch "$REPO/last-backup"
        log "$type backup done in $(($(date +%s) - started)) s; repository $(du -sh "$REPO" | cut -f1)"
    else
        log "the $type backup failed; next try in $BACKUP_EVERY_S s"
    fi
    sleep "$BACKUP_EVERY_S"
done
