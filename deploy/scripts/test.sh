#!/usr/bin/env bash
# `make test`: the whole test suite against a real PostgreSQL and real ZeroMQ.
#
#   deploy/scripts/test.sh [extra swift test args...]
#
# Steps, each run even when an earlier one failed (unless it needs that one's output):
#   imports     declared imports, no contract on another service's, Store's query guard, the shape (check-*.py)
#   build       swift build --build-tests
#   client      swift build and swift test in clients/swift, the app teams' client package, alone
#   docs        generated files current, lists agree, the document valid and compatible (check-docs.sh)
#   swift-test  the Swift tests in TEST_WORKERS processes at once, each with a PostgreSQL of its
#               own (swift-test-shards.py); the suites that time round trips run last, alone
#   interop     pytest Tests/interop against the broker
#   api-fuzz    schemathesis against the system (api-fuzz.sh): cases, failures and seconds
#   console     the operator console in headless Chromium (console-test.sh)
#   api-clients clients from generators that are not ours, without a warning and with a method per
#               operation; tsc; each app's core flow through one, against the system (api-clients.sh)
#   alerts      the alert rules' promtool tests, runbook links and metrics in a live scrape (alerts-test.sh)
#   compose     docker-compose config -q (docker-compose.yml is valid)
#   containers  compose-test.sh: the compose file and the image, with the build step's executables
#               when it passed (else a release build), run for real with podman
# The steps are test-steps.sh's, recorded by test-ledger.sh; interop, client and the images
# ("container-images") run beside the Swift tests, console beside api-fuzz. Ends with each step's
# result and time; exits non-zero when any failed, naming the failed tests. PostgreSQL: test-db.sh.
#
# Environment:
#   FILTER=REGEX            swift test --filter REGEX (make test FILTER=Majordomo)
#   SWIFT_TEST_ARGS="..."   more arguments for the test binary (so do this script's own arguments)
#   TEST_STEPS="..."        steps to run (default "imports build client docs swift-test interop
#                           api-fuzz console api-clients alerts compose containers")
#   BIN_DIR=DIR             the executables the steps use (default: swift build --show-bin-path)
#   SWIFT_TEST_TIMEOUT      seconds before the Swift tests are stopped (default 2700)
#   TEST_WORKERS=N          test processes at once, each with its own PostgreSQL (default 3; 1 runs
#                           them one after another; inside a process one test runs at a time)
#   PYTEST_TIMEOUT          seconds before pytest is stopped (default 900)
#   API_FUZZ_EXAMPLES, API_FUZZ_SEED, ...  the api-fuzz step's settings (see api-fuzz.sh)
#   SKIP_BOOTSTRAP=1        do not run bootstrap.sh
set -euo pipefail
LOG_TAG="test"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ALL_STEPS="imports build client docs swift-test interop api-fuzz console api-clients alerts compose containers"
: "${TEST_STEPS:=$ALL_STEPS}" "${SWIFT_TEST_TIMEOUT:=2700}" "${PYTEST_TIMEOUT:=900}" "${TEST_WORKERS:=3}"
[[ $TEST_WORKERS =~ ^[1-9][0-9]*$ ]] || die "TEST_WORKERS must be a number of at least 1, not '$TEST_WORKERS'"
export SWIFT_TEST_TIMEOUT PYTEST_TIMEOUT TEST_WORKERS FILTER=${FILTER:-} SWIFT_TEST_ARGS=${SWIFT_TEST_ARGS:-}
export STEP_LEDGER="$REPO_ROOT/.data/steps/ledger.tsv"
TEST_PG_DIR=""
wanted() { [[ " $TEST_STEPS " == *" $1 "* ]]; }
step() { "$SCRIPTS_DIR/test-steps.sh" "$@"; }
ledger() { "$SCRIPTS_DIR/test-ledger.sh" "$@"; }
teardown() { [[ -z $TEST_PG_DIR ]] || "$SCRIPTS_DIR/test-db.sh" stop "$TEST_PG_DIR"; }

declare -A BACKGROUND=() # a group of steps run beside the ones that follow -> its pid
start_background() {
    ledger group "$@" & BACKGROUND[$1]=$!
    info "── $1: started beside the next steps (output when it ends)"
}
join_background() {
    [[ -n ${BACKGROUND[$1]:-} ]] || return 0
    wait "${BACKGROUND[$1]}" || true
    unset "BACKGROUND[$1]"
    ledger join "$1"
}

main() {
    trap teardown EXIT
    trap 'exit 130' INT && trap 'exit 143' TERM
    # `make test | head`: exit through the EXIT trap rather than die with the database running.
    trap 'exit 141' PIPE
    local one images="" after_build db
    for one in $TEST_STEPS; do
        [[ " $ALL_STEPS " == *" $one "* ]] || die "unknown step '$one' in TEST_STEPS"
    done
    [[ -n ${SKIP_BOOTSTRAP:-} ]] || "$SCRIPTS_DIR/bootstrap.sh"
    # Printing's gazetteer (greeting suggestions), which its tests and processes read.
    "$SCRIPTS_DIR/gazetteer.sh" "$REPO_ROOT/.data/gazetteer/cities15000.tsv" ||
        die "could not make printing's gazetteer (deploy/scripts/gazetteer.sh)"
    export GAZETTEER_FILE="$REPO_ROOT/.data/gazetteer/cities15000.tsv"
    db=$("$SCRIPTS_DIR/test-db.sh" start $$) || die "could not start PostgreSQL"
    read -r TEST_PG_DIR DATABASE_URL <<<"$db" && export DATABASE_URL
    info "DATABASE_URL=$DATABASE_URL"
    rm -f "$STEP_LEDGER"
    if [[ -z ${BIN_DIR:-} && " $TEST_STEPS " =~ " "(build|docs|swift-test|interop|api-fuzz|console|api-clients|alerts)" " ]]; then
        require_cmd swift "install a Swift 6 toolchain (https://www.swift.org/install/)"
        BIN_DIR=$(cd "$REPO_ROOT" && swift build --show-bin-path) || BIN_DIR="$REPO_ROOT/.build/debug"
    fi
    export BIN_DIR=${BIN_DIR:-}
    for one in imports build; do wanted $one && step $one; done
    after_build=$SECONDS
    # The image holds the build step's executables when it passed (a release build: 20-25 minutes).
    [[ $(ledger result build) == PASS ]] && wanted containers && images=yes
    if [[ $(ledger result build) == FAIL ]]; then
        for one in docs swift-test interop api-fuzz console api-clients alerts; do wanted $one && ledger skip $one "build failed"; done
    else
        wanted docs && step docs
        # Beside the Swift tests, which wait more than they compute: RFC 7 peers, client, images.
        wanted interop && start_background interop interop
        wanted client && start_background client client
        [[ -n $images ]] && start_background container-images container-images
        wanted swift-test && step swift-test "$@"
        join_background interop
        join_background client
        join_background container-images
        wanted console && start_background console console
        wanted api-fuzz && step api-fuzz
        join_background console
        for one in api-clients alerts; do wanted $one && step $one; done
    fi
    wanted compose && step compose
    if wanted containers; then
        if [[ -n $images && $(ledger result container-images) == PASS ]]; then
            IMAGE_BIN_DIR=$BIN_DIR SCALE_USERS=${SCALE_USERS:-600} ledger run containers "$SCRIPTS_DIR/compose-test.sh" run
        elif [[ -n $images ]]; then
            ledger skip containers "the images were not made"
        else
            ledger run containers "$SCRIPTS_DIR/compose-test.sh"
        fi
    fi
    if ((after_build > 0)); then ledger summary $((SECONDS - after_build)) "$SECONDS"; else ledger summary; fi
}

main "$@"
