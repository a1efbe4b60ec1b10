#!/usr/bin/env bash
# make test's PostgreSQL: always a throwaway one (PG_FAST), on a free port, in a fresh directory
# .data/test-pg-XXXX, removed afterwards whatever happens; directories left by runs that were
# killed (whose OWNER is gone) are removed at the next start.
#
#   deploy/scripts/test-db.sh start OWNER_PID   prints the directory and the DATABASE_URL
#   deploy/scripts/test-db.sh stop DIR
set -euo pipefail
LOG_TAG=test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in
    start)
        mkdir -p "$REPO_ROOT/.data"
        # A run killed with SIGKILL cannot clean up after itself; the next one does.
        for dir in "$REPO_ROOT"/.data/test-pg-*; do
            [[ -d $dir ]] || continue
            owner=$(cat "$dir/owner.pid" 2>/dev/null || true)
            [[ -n $owner ]] && pid_alive "$owner" && continue
            info "removing $dir, left by an earlier run"
            "$SCRIPTS_DIR/pg.sh" stop "$dir" >/dev/null 2>&1 || true
            rm -rf "$dir"
        done
        dir=$(mktemp -d "$REPO_ROOT/.data/test-pg-XXXX")
        echo "$2" >"$dir/owner.pid"
        port=$(free_port)
        PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$dir" "$port" || {
            "$SCRIPTS_DIR/pg.sh" stop "$dir" >/dev/null 2>&1 || true
            rm -rf "$dir"
            die "could not start PostgreSQL in $dir"
        }
        echo "$dir $("$SCRIPTS_DIR/pg.sh" url "$dir" "$port")"
        ;;
    stop)
        trap '' PIPE # a message to a closed pipe must not cut the clean-up short
        "$SCRIPTS_DIR/pg.sh" stop "$2" || warn "could not stop PostgreSQL in $2"
        rm -rf "$2"
        ;;
    *) die "usage: test-db.sh start OWNER_PID | stop DIR" ;;
esac
