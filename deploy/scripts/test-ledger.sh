#!/usr/bin/env bash
# make test's record of its steps (test.sh and test-steps.sh write to it), one line per step:
# name, PASS / FAIL / SKIP, detail, seconds.
#
#   deploy/scripts/test-ledger.sh run NAME CMD...        run CMD from the repository root, record it
#   deploy/scripts/test-ledger.sh record NAME RESULT DETAIL
#   deploy/scripts/test-ledger.sh skip NAME REASON
#   deploy/scripts/test-ledger.sh result NAME            print NAME's result, if recorded
#   deploy/scripts/test-ledger.sh summary [AFTER_BUILD_S WHOLE_S]   print the summary (with the
#                                                        time after the build); exit 1 on a failure
#   deploy/scripts/test-ledger.sh group NAME STEP...     run test-steps.sh's STEPs, their output in
#                                                        .data/steps/NAME.log, their records in NAME.result
#   deploy/scripts/test-ledger.sh join NAME              print a group's output, add its records
#
# test.sh runs a group beside the steps that follow and joins it later, so that the log and the
# summary read one step after another. `run` exits 0 whatever CMD did; exit code 5 of an interop
# step (pytest: no tests collected) is recorded as skipped.
#
# Environment:
#   STEP_LEDGER       the ledger (default .data/steps/ledger.tsv; a group's NAME.result while it runs)
#   STEP_DETAIL_FILE  a file whose text, when not empty after `run`, is the step's detail, e.g.
#                     api-fuzz's "(2,645 cases, 0 failures, 95 s)"
set -euo pipefail
LOG_TAG=test
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
STEPS="$REPO_ROOT/.data/steps"
LEDGER=${STEP_LEDGER:-$STEPS/ledger.tsv}
SWIFT_TEST_LOG="$REPO_ROOT/.data/swift-test.log"
mkdir -p "$(dirname "$LEDGER")"
touch "$LEDGER"

record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-0}" >>"$LEDGER"; }
result_of() { awk -F '\t' -v name="$1" '$1 == name { result = $2 } END { print result }' "$LEDGER"; }

run() {
    local name=$1 start=$SECONDS rc=0 took result detail
    shift
    info "── $name: $*"
    (cd "$REPO_ROOT" && "$@") || rc=$?
    took=$((SECONDS - start))
    if ((rc == 0)); then
        result=PASS detail="(${took}s)"
    elif [[ $name == interop* && $rc == 5 ]]; then
        result=SKIP detail="(pytest collected no tests)"
    else
        ((rc == 124)) && warn "$name timed out"
        result=FAIL detail="(exit $rc, ${took}s)"
    fi
    info "── $name: $result $detail"
    [[ -z ${STEP_DETAIL_FILE:-} || ! -s ${STEP_DETAIL_FILE:-} ]] || detail="($(<"$STEP_DETAIL_FILE"))"
    record "$name" "$result" "$detail" "$took"
}

summary() {
    local name result detail took failed=()
    info "summary:"
    while IFS=$'\t' read -r name result detail took; do
        printf '[%s]   %-4s  %-14s  %s\n' "$LOG_TAG" "$result" "$name" "$detail" >&2
        [[ $result == FAIL ]] && failed+=("$name")
    done <"$LEDGER"
    [[ -z ${1:-} ]] || info "the steps after the build took $1 s (some side by side); the whole run $2 s"
    if ((${#failed[@]} > 0)); then
        if [[ $(result_of swift-test) == FAIL && -s $SWIFT_TEST_LOG ]]; then
            info "swift-test failures (whole output in ${SWIFT_TEST_LOG#"$REPO_ROOT"/}):"
            # Swift Testing's ✘ lines and XCTest's "error:" and "failed" lines.
            grep -E '✘|: error: |Test Case .* failed' "$SWIFT_TEST_LOG" | head -n 40 >&2 || true
        fi
        info "result: FAILED (${failed[*]})"
        return 1
    fi
    info "result: OK"
}

command=${1:-}
shift || true
case $command in
    run) run "$@" ;;
    record) record "$@" ;;
    skip)
        record "$1" SKIP "($2)"
        info "── $1: skipped ($2)"
        ;;
    result) result_of "$1" ;;
    summary) summary "$@" ;;
    group)
        name=$1
        shift
        rm -f "$STEPS/$name.result"
        for one in "$@"; do STEP_LEDGER="$STEPS/$name.result" "$SCRIPTS_DIR/test-steps.sh" "$one"; done >"$STEPS/$name.log" 2>&1
        ;;
    join)
        cat "$STEPS/$1.log"
        if [[ -s $STEPS/$1.result ]]; then
            cat "$STEPS/$1.result" >>"$LEDGER"
        else
            record "$1" FAIL "(ended without a result; see $STEPS/$1.log)"
        fi
        ;;
    *) die "usage: test-ledger.sh run|record|skip|result|summary|group|join ..." ;;
esac
