#!/usr/bin/env bash
# The operator console in a real browser: headless Chromium (Debian's chromium and
# chromium-driver) driven by selenium from Python (Tests/console), against the running system.
# `make test` runs it as step `console`.
#
#   deploy/scripts/console-test.sh
#
# It starts a system of its own (system-run.sh) with an admin configured (ADMIN_USERNAME), then
# runs `python3 -m pytest Tests/console` against the gateway's operator listener, where the
# console is (the apps' port answers 404 for it): sign in, mark a print job printed, retry a dead letter, a printer who sees only the printer's
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
ADMIN_USERNAME="console-admin@example.org"
ADMIN_PASSWORD="Console-admin-$RANDOM-Pw1"
export ADMIN_USERNAME ADMIN_PASSWORD BACKPLANE_BIN_DIR=$BIN_DIR LOG_TAG
# pytest runs once the system of its own (system-run.sh) is ready, and the system stops after it.
CONSOLE_OUT=$OUT CONSOLE_ADMIN_USERNAME=$ADMIN_USERNAME CONSOLE_ADMIN_PASSWORD=$ADMIN_PASSWORD \
    "$SCRIPTS_DIR/system-run.sh" console "$OUT" bash -c 'echo "[$LOG_TAG] the system is ready at $SYSTEM_URL; pytest Tests/console" >&2
        CONSOLE_BASE_URL=$OPERATOR_URL CONSOLE_APPS_URL=$SYSTEM_URL timeout --foreground -k 10 "$1" python3 -m pytest -q -p no:cacheprovider "$2"' \
    console "$CONSOLE_TIMEOUT" "$REPO_ROOT/Tests/console"
