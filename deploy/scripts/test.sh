#!/usr/bin/env bash
# `make test`: the whole test suite against a real PostgreSQL and real ZeroMQ.
#
#   deploy/scripts/test.sh [extra swift test args...]
#
# Steps, each run even when an earlier one failed (unless it needs that one's output):
#   imports     every Swift target imports only modules it declares in Package.swift
#               (deploy/scripts/check-imports.py; SwiftPM alone lets an undeclared one through),
#               and every query goes through shared/Store's guard (deploy/scripts/check-queries.py)
#   build       swift build --build-tests
#   swift-test  swift test (XCTest and Swift Testing), with BACKPLANE_BIN_DIR set so that system
#               tests find the executables
#   interop     python3 -m pytest -q Tests/interop, with BROKER_BIN set (the RFC 7 peers in Python),
#               twice: against the broker's native ZMTP engine (its default for tcp://) and, as
#               "interop-libzmq", with BROKER_ENGINE=libzmq
#   api-fuzz    schemathesis (`st run -c all`, fixed seed) against the running system started from
#               the build, with a user's and an admin's token (deploy/scripts/api-fuzz.sh); fails on
#               any failure of any check; its summary line gives cases, failures and seconds
#   console     deploy/scripts/console-test.sh: the operator console in headless Chromium (selenium,
#               Tests/console) against the running system started from the build: sign in, mark
#               a print job printed, retry a dead letter; screenshots in .data/console-test
#   compose     docker-compose config -q (docker-compose.yml is valid)
#   containers  deploy/scripts/compose-test.sh: the compose file and the image run for real with
#               podman (healthy, every app's journey, --scale, a crash, down -v); the image holds
#               the build step's (debug) executables when that step passed, else a release build
# Ends with a summary of which steps passed, failed or were skipped; exits non-zero when any
# step failed, after the lines of swift test's output that name the failed tests (the whole
# output is kept in .data/swift-test.log). PostgreSQL is always a throwaway one, on a free port, in a fresh directory
# .data/test-pg-XXXX that is removed afterwards whatever happens (DATABASE_URL is ignored and
# replaced); directories left by runs that were killed are removed at the next run.
#
# Environment:
#   FILTER=REGEX            swift test --filter REGEX (make test FILTER=Majordomo)
#   SWIFT_TEST_ARGS="..."   more arguments for swift test (so do this script's own arguments)
#   TEST_STEPS="..."        steps to run (default "imports build swift-test interop api-fuzz console
#                           compose containers")
#   SWIFT_TEST_TIMEOUT      seconds before swift test is stopped (default 2700)
#   TEST_PARALLELISM=N      Swift tests that may run at once (default 1). The suites share one
#                           PostgreSQL and two cores: run side by side, a suite that keeps a
#                           transaction open holds back every event-log reader in the cluster
#                           (they wait for older transactions, by design) and CPU-heavy suites
#                           starve the deadline tests of the broker. One at a time takes a few
#                           minutes more and gives the same answer on every run. 0: no limit.
#   PYTEST_TIMEOUT          seconds before pytest is stopped (default 900)
#   API_FUZZ_EXAMPLES, API_FUZZ_SEED, ...  the api-fuzz step's settings (see api-fuzz.sh)
#   SKIP_BOOTSTRAP=1        do not run bootstrap.sh
set -euo pipefail
LOG_TAG="test"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${TEST_STEPS:=imports build swift-test interop api-fuzz console compose containers}"
: "${SWIFT_TEST_TIMEOUT:=2700}"
: "${PYTEST_TIMEOUT:=900}"
: "${TEST_PARALLELISM:=1}"
[[ $TEST_PARALLELISM =~ ^[0-9]+$ ]] || die "TEST_PARALLELISM must be a number (0 for no limit), not '$TEST_PARALLELISM'"
INTEROP_DIR="$REPO_ROOT/Tests/interop"
SWIFT_TEST_LOG="$REPO_ROOT/.data/swift-test.log"
TEST_PG_DIR=""
declare -A RESULT=() # step -> PASS / FAIL / SKIP
declare -A DETAIL=() # step -> "(exit 1, 12s)" and the like
STEP_ORDER=()

# ---------------------------------------------------------------------------- database

# remove_stale_test_dirs: a run killed with SIGKILL cannot clean up after itself; the next one
# does, for every directory whose owning run is gone.
remove_stale_test_dirs() {
    local dir owner
    for dir in "$REPO_ROOT"/.data/test-pg-*; do
        [[ -d $dir ]] || continue
        owner=$(cat "$dir/owner.pid" 2>/dev/null || true)
        [[ -n $owner ]] && pid_alive "$owner" && continue
        info "removing $dir, left by an earlier run"
        "$SCRIPTS_DIR/pg.sh" stop "$dir" >/dev/null 2>&1 || true
        rm -rf "$dir"
    done
}

start_test_db() {
    mkdir -p "$REPO_ROOT/.data"
    remove_stale_test_dirs
    TEST_PG_DIR=$(mktemp -d "$REPO_ROOT/.data/test-pg-XXXX")
    echo $$ >"$TEST_PG_DIR/owner.pid"
    local port
    port=$(free_port)
    PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$TEST_PG_DIR" "$port"
    DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$TEST_PG_DIR" "$port")
    export DATABASE_URL
    info "DATABASE_URL=$DATABASE_URL"
}

teardown() {
    [[ -n $TEST_PG_DIR ]] || return 0
    trap '' PIPE # a message to a closed pipe must not cut the clean-up short
    "$SCRIPTS_DIR/pg.sh" stop "$TEST_PG_DIR" || warn "could not stop PostgreSQL in $TEST_PG_DIR"
    rm -rf "$TEST_PG_DIR"
    TEST_PG_DIR=""
}

# ---------------------------------------------------------------------------- steps

wanted() { [[ " $TEST_STEPS " == *" $1 "* ]]; }

record() {
    STEP_ORDER+=("$1")
    RESULT[$1]=$2
    DETAIL[$1]=$3
}

# run_step NAME CMD...: runs CMD from the repository root and records how it went.
# Exit code 5 from pytest means "no tests collected": recorded as skipped, not failed.
run_step() {
    local name=$1 start rc=0
    shift
    info "── $name: $*"
    start=$SECONDS
    (cd "$REPO_ROOT" && "$@") || rc=$?
    local took=$((SECONDS - start))
    if ((rc == 0)); then
        record "$name" PASS "(${took}s)"
    elif [[ $name == interop* && $rc == 5 ]]; then
        record "$name" SKIP "(pytest collected no tests)"
    else
        ((rc == 124)) && warn "$name timed out"
        record "$name" FAIL "(exit $rc, ${took}s)"
    fi
    info "── $name: ${RESULT[$name]} ${DETAIL[$name]}"
}

skip_step() {
    record "$1" SKIP "($2)"
    info "── $1: skipped ($2)"
}

step_build() {
    run_step build swift build --build-tests
}

step_swift_test() {
    local args=()
    [[ ${RESULT[build]:-} == PASS ]] && args+=(--skip-build)
    [[ -n ${FILTER:-} ]] && args+=(--filter "$FILTER")
    ((TEST_PARALLELISM == 0)) || args+=(--experimental-maximum-parallelization-width "$TEST_PARALLELISM")
    # shellcheck disable=SC2206 # word splitting of SWIFT_TEST_ARGS is the point
    args+=(${SWIFT_TEST_ARGS:-} "$@")
    mkdir -p "$(dirname "$SWIFT_TEST_LOG")"
    : >"$SWIFT_TEST_LOG"
    BACKPLANE_BIN_DIR=$BIN_DIR run_step swift-test logged_swift_test "${args[@]}"
}

# logged_swift_test ARGS...: swift test, its output also kept in $SWIFT_TEST_LOG so that the
# summary can repeat what failed (a long run's failure is otherwise thousands of lines up).
# --foreground keeps swift test in our process group, so that Ctrl-C reaches it.
logged_swift_test() {
    timeout --foreground -k 30 "$SWIFT_TEST_TIMEOUT" swift test "$@" 2>&1 | tee "$SWIFT_TEST_LOG"
    return "${PIPESTATUS[0]}"
}

# failed_tests: the lines of the swift test log that name a failure: Swift Testing's ✘ lines
# and XCTest's "error:" and "failed" lines.
failed_tests() {
    [[ -s $SWIFT_TEST_LOG ]] || return 0
    grep -E '✘|: error: |Test Case .* failed' "$SWIFT_TEST_LOG" | head -n 40 || true
}

step_interop() {
    if ! compgen -G "$INTEROP_DIR/test_*.py" >/dev/null && ! compgen -G "$INTEROP_DIR/*_test.py" >/dev/null; then
        skip_step interop "no tests in Tests/interop yet"
        return 0
    fi
    if [[ ! -x $BIN_DIR/broker ]]; then
        record interop FAIL "(no broker executable in $BIN_DIR)"
        warn "interop: no broker executable in $BIN_DIR"
        return 0
    fi
    BROKER_ENGINE=native BROKER_BIN=$BIN_DIR/broker BACKPLANE_BIN_DIR=$BIN_DIR run_step interop \
        timeout --foreground -k 30 "$PYTEST_TIMEOUT" python3 -m pytest -q "$INTEROP_DIR"
    BROKER_ENGINE=libzmq BROKER_BIN=$BIN_DIR/broker BACKPLANE_BIN_DIR=$BIN_DIR run_step interop-libzmq \
        timeout --foreground -k 30 "$PYTEST_TIMEOUT" python3 -m pytest -q "$INTEROP_DIR"
}

step_api_fuzz() {
    if [[ ! -x $BIN_DIR/gateway ]]; then
        record api-fuzz FAIL "(no gateway executable in $BIN_DIR)"
        warn "api-fuzz: no gateway executable in $BIN_DIR"
        return 0
    fi
    local out="$REPO_ROOT/.data/api-fuzz"
    API_FUZZ_OUT=$out BACKPLANE_BIN_DIR=$BIN_DIR run_step api-fuzz "$SCRIPTS_DIR/api-fuzz.sh"
    # The step's line says what was run: "(2,645 cases, 0 failures, 95 s)".
    [[ -s $out/result.txt ]] && DETAIL[api-fuzz]="($(<"$out/result.txt"))"
    return 0
}

step_console() {
    if [[ ! -x $BIN_DIR/gateway ]]; then
        record console FAIL "(no gateway executable in $BIN_DIR)"
        warn "console: no gateway executable in $BIN_DIR"
        return 0
    fi
    CONSOLE_OUT="$REPO_ROOT/.data/console-test" BACKPLANE_BIN_DIR=$BIN_DIR run_step console "$SCRIPTS_DIR/console-test.sh"
}

step_compose() {
    if command -v docker-compose >/dev/null 2>&1; then
        run_step compose docker-compose -f docker-compose.yml config -q
    elif docker compose version >/dev/null 2>&1; then
        run_step compose docker compose -f docker-compose.yml config -q
    else
        record compose FAIL "(docker-compose not found: run deploy/scripts/bootstrap.sh)"
        warn "compose: docker-compose not found"
    fi
}

summary() {
    local step failed=()
    info "summary:"
    for step in "${STEP_ORDER[@]}"; do
        printf '[%s]   %-4s  %-14s  %s\n' "$LOG_TAG" "${RESULT[$step]}" "$step" "${DETAIL[$step]}" >&2
        [[ ${RESULT[$step]} == FAIL ]] && failed+=("$step")
    done
    if ((${#failed[@]} > 0)); then
        if [[ ${RESULT[swift-test]:-} == FAIL ]]; then
            info "swift-test failures (whole output in ${SWIFT_TEST_LOG#"$REPO_ROOT"/}):"
            failed_tests >&2
        fi
        info "result: FAILED (${failed[*]})"
        return 1
    fi
    info "result: OK"
}

main() {
    trap teardown EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # `make test | head` or a tee ended by Ctrl-C: exit through the EXIT trap rather than die
    # from SIGPIPE with the database still running.
    trap 'exit 141' PIPE

    local step
    for step in $TEST_STEPS; do
        [[ $step =~ ^(imports|build|swift-test|interop|api-fuzz|console|compose|containers)$ ]] || die "unknown step '$step' in TEST_STEPS"
    done
    [[ -n ${SKIP_BOOTSTRAP:-} ]] || "$SCRIPTS_DIR/bootstrap.sh"
    # Printing's gazetteer (greeting suggestions), which its tests and processes read.
    "$SCRIPTS_DIR/gazetteer.sh" "$REPO_ROOT/.data/gazetteer/cities15000.tsv" ||
        die "could not make printing's gazetteer (deploy/scripts/gazetteer.sh)"
    export GAZETTEER_FILE="$REPO_ROOT/.data/gazetteer/cities15000.tsv"
    start_test_db

    BIN_DIR=""
    if wanted build || wanted swift-test || wanted interop || wanted api-fuzz || wanted console; then
        require_cmd swift "install a Swift 6 toolchain (https://www.swift.org/install/)"
        BIN_DIR=$(cd "$REPO_ROOT" && swift build --show-bin-path) || BIN_DIR="$REPO_ROOT/.build/debug"
    fi
    wanted imports && run_step imports bash -c 'python3 "$1/check-imports.py" && python3 "$1/check-queries.py"' imports "$SCRIPTS_DIR"
    wanted build && step_build
    if [[ ${RESULT[build]:-} == FAIL ]]; then
        wanted swift-test && skip_step swift-test "build failed"
        wanted interop && skip_step interop "build failed"
        wanted api-fuzz && skip_step api-fuzz "build failed"
        wanted console && skip_step console "build failed"
    else
        wanted swift-test && step_swift_test "$@"
        wanted interop && step_interop
        wanted api-fuzz && step_api_fuzz
        wanted console && step_console
    fi
    wanted compose && step_compose
    # The image is made from the build step's executables when that step ran and passed: a
    # release build of its own would add 20-25 minutes to a fresh run (compose-test.sh).
    if wanted containers; then
        if [[ ${RESULT[build]:-} == PASS ]]; then
            IMAGE_BIN_DIR=$BIN_DIR SCALE_USERS=${SCALE_USERS:-600} run_step containers "$SCRIPTS_DIR/compose-test.sh"
        else
            run_step containers "$SCRIPTS_DIR/compose-test.sh"
        fi
    fi
    summary
}

# Run only when executed, so that the functions can be sourced (e.g. to try a step by hand).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    main "$@"
fi
