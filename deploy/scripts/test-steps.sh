#!/usr/bin/env bash
# make test's steps (test.sh runs them; test.sh's header says what each checks), each recorded in
# the step ledger (test-ledger.sh):
#
#   deploy/scripts/test-steps.sh imports|build|client|docs|interop|api-fuzz|console|api-clients|alerts|container-images|compose
#   deploy/scripts/test-steps.sh swift-test [extra swift test args...]
#
# Reads what test.sh exports: BIN_DIR, DATABASE_URL, GAZETTEER_FILE, TEST_WORKERS,
# SWIFT_TEST_TIMEOUT, PYTEST_TIMEOUT, FILTER, SWIFT_TEST_ARGS, STEP_LEDGER.
set -euo pipefail
LOG_TAG=test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ledger() { "$SCRIPTS_DIR/test-ledger.sh" "$@"; }
# The suites that time round trips and need the cores to themselves: run last, alone.
QUIET_SUITES='^(LoadgenTests\.BrokerRoundsTests|MajordomoTests\.LiveBrokerTests)/'

# needs STEP EXECUTABLE: records STEP failed unless BIN_DIR has EXECUTABLE.
needs() {
    [[ -x $BIN_DIR/$2 ]] && return 0
    ledger record "$1" FAIL "(no $2 executable in $BIN_DIR)"
    warn "$1: no $2 executable in $BIN_DIR"
    return 1
}

step=${1:-}
shift || true
case $step in
    imports)
        checks='for check in imports contracts queries shape migrations; do python3 "$1/check-$check.py" || exit 1; done'
        ledger run imports bash -c "$checks" imports "$SCRIPTS_DIR"
        ;;
    build) ledger run build swift build --build-tests ;;
    # Its own package, resolved and built apart from the server's (.build in clients/swift).
    client) ledger run client bash -c 'cd clients/swift && swift build && swift test' ;;
    docs) ledger run docs "$SCRIPTS_DIR/check-docs.sh" "$BIN_DIR" ;;
    swift-test)
        if [[ $(ledger result build) != PASS ]]; then
            (cd "$REPO_ROOT" && swift build --build-tests) || { ledger record swift-test FAIL "(the build failed)"; exit 0; }
        fi
        log="$REPO_ROOT/.data/swift-test.log"
        args=(--bin "$BIN_DIR/BackplanePackageTests.xctest" --workers "$TEST_WORKERS" --log "$log"
            --split SystemTests --quiet-suites "$QUIET_SUITES" --timeout "$SWIFT_TEST_TIMEOUT")
        [[ -n ${FILTER:-} ]] && args+=(--filter "$FILTER")
        # shellcheck disable=SC2206 # word splitting of SWIFT_TEST_ARGS is the point
        args+=(-- ${SWIFT_TEST_ARGS:-} "$@")
        mkdir -p "$(dirname "$log")"
        BACKPLANE_BIN_DIR=$BIN_DIR ledger run swift-test python3 "$SCRIPTS_DIR/swift-test-shards.py" "${args[@]}"
        ;;
    interop)
        dir="$REPO_ROOT/Tests/interop"
        if ! compgen -G "$dir/test_*.py" >/dev/null && ! compgen -G "$dir/*_test.py" >/dev/null; then
            ledger skip interop "no tests in Tests/interop yet"
            exit 0
        fi
        needs interop broker || exit 0
        BROKER_BIN=$BIN_DIR/broker BACKPLANE_BIN_DIR=$BIN_DIR \
            ledger run interop timeout --foreground -k 30 "$PYTEST_TIMEOUT" python3 -m pytest -q "$dir"
        ;;
    api-fuzz)
        needs api-fuzz gateway || exit 0
        out="$REPO_ROOT/.data/api-fuzz"
        API_FUZZ_OUT=$out BACKPLANE_BIN_DIR=$BIN_DIR STEP_DETAIL_FILE=$out/result.txt ledger run api-fuzz "$SCRIPTS_DIR/api-fuzz.sh"
        ;;
    console)
        needs console gateway || exit 0
        CONSOLE_OUT="$REPO_ROOT/.data/console-test" BACKPLANE_BIN_DIR=$BIN_DIR ledger run console "$SCRIPTS_DIR/console-test.sh"
        ;;
    api-clients)
        needs api-clients gateway || exit 0
        out="$REPO_ROOT/.data/api-clients"
        API_CLIENTS_OUT=$out BACKPLANE_BIN_DIR=$BIN_DIR STEP_DETAIL_FILE=$out/result.txt \
            ledger run api-clients "$SCRIPTS_DIR/api-clients.sh"
        ;;
    alerts)
        needs alerts gateway || exit 0
        ALERTS_OUT="$REPO_ROOT/.data/alerts" BACKPLANE_BIN_DIR=$BIN_DIR ledger run alerts "$SCRIPTS_DIR/alerts-test.sh"
        ;;
    container-images) IMAGE_BIN_DIR=$BIN_DIR ledger run container-images "$SCRIPTS_DIR/compose-test.sh" images ;;
    compose) ledger run compose "$SCRIPTS_DIR/compose-config.sh" ;;
    *) die "unknown step '$step'" ;;
esac
