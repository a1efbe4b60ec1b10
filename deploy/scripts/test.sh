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
#   docs        what is generated is up to date and what is listed once agrees: docs/settings.md
#               against the executables' declared settings (settings-doc.py --check), the
#               benchmark tables against docs/bench/*.json (bench-report.py --check), compose,
#               k8s, Prometheus and the gateway against deploy/services.txt (check-services.py),
#               the OpenAPI document against openapi-spec-validator, and those checks' own
#               failing fixtures (pytest Tests/tooling)
#   swift-test  the Swift tests (Swift Testing) in TEST_WORKERS processes at once, each with a
#               PostgreSQL of its own (swift-test-shards.py), BACKPLANE_BIN_DIR set so that
#               system tests find the executables; the suites that time round trips run last,
#               alone
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
#   containers  deploy/scripts/compose-test.sh (its images made beside the Swift tests, as the step
#               "container-images"; interop runs beside them too, and console beside api-fuzz): the compose file and the image run for real with
#               podman (healthy, every app's journey, --scale, a crash, down -v); the image holds
#               the build step's (debug) executables when that step passed, else a release build
# Ends with a summary of which steps passed, failed or were skipped, with each step's time; exits non-zero when any
# step failed, after the lines of swift test's output that name the failed tests (the whole
# output is kept in .data/swift-test.log). PostgreSQL is always a throwaway one, on a free port, in a fresh directory
# .data/test-pg-XXXX that is removed afterwards whatever happens (DATABASE_URL is ignored and
# replaced); directories left by runs that were killed are removed at the next run.
#
# Environment:
#   FILTER=REGEX            swift test --filter REGEX (make test FILTER=Majordomo)
#   SWIFT_TEST_ARGS="..."   more arguments for the test binary (so do this script's own arguments)
#   TEST_STEPS="..."        steps to run (default "imports build docs swift-test interop api-fuzz
#                           console compose containers")
#   SWIFT_TEST_TIMEOUT      seconds before the Swift tests are stopped (default 2700)
#   TEST_WORKERS=N          test processes at once, each with its own PostgreSQL (default 3;
#                           1 runs them one after another). Inside a process one test runs at a
#                           time: a suite that keeps a transaction open would hold back every
#                           event-log reader of its cluster, and the suites of one process share it.
#   PYTEST_TIMEOUT          seconds before pytest is stopped (default 900)
#   API_FUZZ_EXAMPLES, API_FUZZ_SEED, ...  the api-fuzz step's settings (see api-fuzz.sh)
#   SKIP_BOOTSTRAP=1        do not run bootstrap.sh
set -euo pipefail
LOG_TAG="test"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${TEST_STEPS:=imports build docs swift-test interop api-fuzz console compose containers}"
: "${SWIFT_TEST_TIMEOUT:=2700}"
: "${PYTEST_TIMEOUT:=900}"
: "${TEST_WORKERS:=3}"
[[ $TEST_WORKERS =~ ^[1-9][0-9]*$ ]] || die "TEST_WORKERS must be a number of at least 1, not '$TEST_WORKERS'"
INTEROP_DIR="$REPO_ROOT/Tests/interop"
SWIFT_TEST_LOG="$REPO_ROOT/.data/swift-test.log"
TEST_PG_DIR=""
declare -A RESULT=() # step -> PASS / FAIL / SKIP
declare -A DETAIL=() # step -> "(exit 1, 12s)" and the like
declare -A TOOK=()   # step -> seconds
AFTER_BUILD=0        # $SECONDS when the build step ended
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
    TOOK[$name]=$took
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

# start_background NAME CMD...: runs CMD (step functions) beside the steps that follow; its
# output waits in .data/steps/NAME.log until join_background NAME prints it and records its
# steps, so that the log reads one step after another.
declare -A BACKGROUND=() # name -> pid
start_background() {
    local name=$1 dir="$REPO_ROOT/.data/steps"
    shift
    mkdir -p "$dir"
    rm -f "$dir/$name.result"
    (
        STEP_ORDER=()
        "$@"
        for step in "${STEP_ORDER[@]}"; do
            printf '%s\t%s\t%s\t%s\n' "$step" "${RESULT[$step]}" "${DETAIL[$step]}" "${TOOK[$step]:-0}"
        done >"$dir/$name.result"
    ) >"$dir/$name.log" 2>&1 &
    BACKGROUND[$name]=$!
    info "── $name: started beside the next steps (output when it ends)"
}

join_background() {
    local name=$1 dir="$REPO_ROOT/.data/steps" step result detail took
    [[ -n ${BACKGROUND[$name]:-} ]] || return 0
    wait "${BACKGROUND[$name]}" || true
    unset "BACKGROUND[$name]"
    cat "$dir/$name.log"
    [[ -s $dir/$name.result ]] || { record "$name" FAIL "(ended without a result; see $dir/$name.log)"; return 0; }
    while IFS=$'\t' read -r step result detail took; do
        record "$step" "$result" "$detail"
        TOOK[$step]=$took
    done <"$dir/$name.result"
}

step_build() {
    run_step build swift build --build-tests
}

step_docs() {
    run_step docs bash -c '
        python3 "$1/check-services.py" &&
        python3 "$1/settings-doc.py" --check --bin-dir "$2" &&
        python3 "$1/bench-report.py" --check --no-charts &&
        python3 -m openapi_spec_validator "$3/services/gateway/GatewayService/openapi.yaml" &&
        python3 -m pytest -q -p no:cacheprovider "$3/Tests/tooling"' docs "$SCRIPTS_DIR" "$BIN_DIR" "$REPO_ROOT"
}

# The suites that time round trips and need the cores to themselves: run last, alone.
QUIET_SUITES='^(LoadgenTests\.BrokerRoundsTests|MajordomoTests\.LiveBrokerTests)/'

step_swift_test() {
    if [[ ${RESULT[build]:-} != PASS ]]; then
        (cd "$REPO_ROOT" && swift build --build-tests) || { record swift-test FAIL "(the build failed)"; return 0; }
    fi
    local args=(--bin "$BIN_DIR/BackplanePackageTests.xctest" --workers "$TEST_WORKERS" --log "$SWIFT_TEST_LOG"
        --split SystemTests --quiet-suites "$QUIET_SUITES" --timeout "$SWIFT_TEST_TIMEOUT")
    [[ -n ${FILTER:-} ]] && args+=(--filter "$FILTER")
    # shellcheck disable=SC2206 # word splitting of SWIFT_TEST_ARGS is the point
    args+=(-- ${SWIFT_TEST_ARGS:-} "$@")
    mkdir -p "$(dirname "$SWIFT_TEST_LOG")"
    BACKPLANE_BIN_DIR=$BIN_DIR run_step swift-test python3 "$SCRIPTS_DIR/swift-test-shards.py" "${args[@]}"
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

step_container_images() {
    IMAGE_BIN_DIR=$BIN_DIR run_step container-images "$SCRIPTS_DIR/compose-test.sh" images
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
    ((AFTER_BUILD > 0)) && info "the steps after the build took $((SECONDS - AFTER_BUILD)) s (some side by side); the whole run $SECONDS s"
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
        [[ $step =~ ^(imports|build|docs|swift-test|interop|api-fuzz|console|compose|containers)$ ]] || die "unknown step '$step' in TEST_STEPS"
    done
    [[ -n ${SKIP_BOOTSTRAP:-} ]] || "$SCRIPTS_DIR/bootstrap.sh"
    # Printing's gazetteer (greeting suggestions), which its tests and processes read.
    "$SCRIPTS_DIR/gazetteer.sh" "$REPO_ROOT/.data/gazetteer/cities15000.tsv" ||
        die "could not make printing's gazetteer (deploy/scripts/gazetteer.sh)"
    export GAZETTEER_FILE="$REPO_ROOT/.data/gazetteer/cities15000.tsv"
    start_test_db

    BIN_DIR=""
    if wanted build || wanted docs || wanted swift-test || wanted interop || wanted api-fuzz || wanted console; then
        require_cmd swift "install a Swift 6 toolchain (https://www.swift.org/install/)"
        BIN_DIR=$(cd "$REPO_ROOT" && swift build --show-bin-path) || BIN_DIR="$REPO_ROOT/.build/debug"
    fi
    wanted imports && run_step imports bash -c 'python3 "$1/check-imports.py" && python3 "$1/check-queries.py"' imports "$SCRIPTS_DIR"
    wanted build && step_build
    AFTER_BUILD=$SECONDS
    # The image is made from the build step's executables when that step ran and passed: a
    # release build of its own would add 20-25 minutes to a fresh run (compose-test.sh).
    local images=""
    [[ ${RESULT[build]:-} == PASS ]] && wanted containers && images=yes
    if [[ ${RESULT[build]:-} == FAIL ]]; then
        wanted docs && skip_step docs "build failed"
        wanted swift-test && skip_step swift-test "build failed"
        wanted interop && skip_step interop "build failed"
        wanted api-fuzz && skip_step api-fuzz "build failed"
        wanted console && skip_step console "build failed"
    else
        wanted docs && step_docs
        # Beside the Swift tests, which wait on processes and PostgreSQL more than they compute:
        # the RFC 7 peers and the container images (packages, the base image, the image build).
        wanted interop && start_background interop step_interop
        [[ -n $images ]] && start_background container-images step_container_images
        wanted swift-test && step_swift_test "$@"
        join_background interop
        join_background container-images
        wanted console && start_background console step_console
        wanted api-fuzz && step_api_fuzz
        join_background console
    fi
    wanted compose && step_compose
    if wanted containers; then
        if [[ -n $images && ${RESULT[container-images]:-} == PASS ]]; then
            IMAGE_BIN_DIR=$BIN_DIR SCALE_USERS=${SCALE_USERS:-600} run_step containers "$SCRIPTS_DIR/compose-test.sh" run
        elif [[ -n $images ]]; then
            skip_step containers "the images were not made"
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
