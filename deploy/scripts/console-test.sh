#!/usr/bin/env bash
# The operator console in a real browser: headless Chromium (Debian's chromium and
# chromium-driver) driven by selenium from Python (Tests/console), against the running system.
# `make test` runs it as step `console`.
#
#   deploy/scripts/console-test.sh
#
# It starts the system with up.sh (free ports, its own database, its own SMTP sink and data
# folder) with an admin configured (ADMIN_USERNAME), then runs `python3 -m pytest Tests/console`:
# sign in, mark a print job printed, retry a dead letter, a printer who sees only the printer's
# pages; a screenshot of each page goes to CONSOLE_OUT/screenshots (checked non-blank there,
# never committed). Tests/console/test_docs.py opens the API reference (/docs: Swagger UI from
# the pip package swagger-ui-bundle-v2, which up.sh points the gateway's API_DOCS_DIR at) and
# checks that every operation of /openapi.yaml shows, with no CSP violation.
#
# Environment:
#   CONSOLE_OUT        folder for the system's log and the screenshots (default .data/console-test)
#   CONSOLE_TIMEOUT    seconds pytest may take (default 300)
#   BACKPLANE_BIN_DIR  where the executables are (default: the debug build, swift build --show-bin-path)
#   DATABASE_URL       a PostgreSQL to create the run's own database in; unset: a throwaway
#                      PostgreSQL under CONSOLE_OUT
set -euo pipefail
LOG_TAG=console-test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${CONSOLE_OUT:=$REPO_ROOT/.data/console-test}"
: "${CONSOLE_TIMEOUT:=300}"
require_cmd curl "run deploy/scripts/bootstrap.sh"
require_cmd psql "run deploy/scripts/bootstrap.sh"
require_cmd chromedriver "run deploy/scripts/bootstrap.sh (it installs Debian's chromium-driver)"
python3 -c 'import selenium' 2>/dev/null || die "selenium is missing: run deploy/scripts/bootstrap.sh"
python3 -c 'import swagger_ui_bundle' 2>/dev/null ||
    die "Swagger UI (pip package swagger-ui-bundle-v2) is missing: run deploy/scripts/bootstrap.sh"

rm -rf "$CONSOLE_OUT"
mkdir -p "$CONSOLE_OUT"
OUT=$(cd "$CONSOLE_OUT" && pwd)
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build --show-bin-path)}
[[ -x $BIN_DIR/gateway ]] || die "no gateway in $BIN_DIR: build first (swift build) or set BACKPLANE_BIN_DIR"

isolated_system console
CONSOLE_BASE_URL="http://127.0.0.1:$HTTP_PORT"
ADMIN_USERNAME="console-admin@example.org"
ADMIN_PASSWORD="Console-admin-$RANDOM-Pw1"
export ADMIN_USERNAME ADMIN_PASSWORD

info "starting the system (log in ${OUT#"$REPO_ROOT"/}/system.log)"
"$SCRIPTS_DIR/up.sh" >"$OUT/system.log" 2>&1 &
UP_PID=$!
deadline=$((SECONDS + 120))
until curl -fsS -o /dev/null --max-time 2 "$CONSOLE_BASE_URL/readyz" 2>/dev/null; do
    pid_alive "$UP_PID" || die "the system did not start; see $OUT/system.log"
    ((SECONDS < deadline)) || die "not ready after 120 s; see $OUT/system.log"
    sleep 0.5
done

info "the system is ready at $CONSOLE_BASE_URL; pytest Tests/console"
CONSOLE_BASE_URL=$CONSOLE_BASE_URL CONSOLE_OUT=$OUT CONSOLE_ADMIN_USERNAME=$ADMIN_USERNAME \
    CONSOLE_ADMIN_PASSWORD=$ADMIN_PASSWORD \
    timeout --foreground -k 10 "$CONSOLE_TIMEOUT" python3 -m pytest -q -p no:cacheprovider "$REPO_ROOT/Tests/console"
