#!/usr/bin/env bash
# OpenAPI-driven fuzzing of the gateway: schemathesis (`st run -c all`) against the running
# system, with a user's and an admin's token, from the document the gateway itself serves at
# /openapi.yaml. `make test` runs a short round (step api-fuzz); `make fuzz-api` a long one.
#
#   deploy/scripts/api-fuzz.sh
#
# It starts a system of its own (system-run.sh) with an admin configured (ADMIN_USERNAME), then
# runs, for each round and each of two callers, a new user and a new admin, `st run -c all --seed
# S --max-examples N` with Tests/api-fuzz/schemathesis.toml. New callers each round: no token
# expires during a long run, and an account the fuzzer deleted or signed out is not used again.
# Any failure of any check fails the script. The last line it prints (and writes to
# $API_FUZZ_OUT/result.txt) is the count: "N cases, F failures, S s".
#
# Environment:
#   API_FUZZ_EXAMPLES  --max-examples, test cases per operation and phase (default 8)
#   API_FUZZ_ROUNDS    rounds, each with the next seed and fresh tokens (default 1)
#   API_FUZZ_SEED      the first round's --seed (default 20261124): a run is repeatable
#   API_FUZZ_TIMEOUT   seconds one `st run` may take before it is stopped, a failure (default 600)
#   API_FUZZ_OUT       folder for the system's log, the reports and the result (default .data/api-fuzz)
#   BACKPLANE_BIN_DIR  where the executables are (default: the debug build, swift build --show-bin-path)
#   DATABASE_URL       a PostgreSQL to create the run's own database in; unset: a throwaway
#                      PostgreSQL under API_FUZZ_OUT
set -euo pipefail
LOG_TAG=api-fuzz
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${API_FUZZ_EXAMPLES:=8}" "${API_FUZZ_ROUNDS:=1}" "${API_FUZZ_SEED:=20261124}" "${API_FUZZ_TIMEOUT:=600}"
: "${API_FUZZ_OUT:=$REPO_ROOT/.data/api-fuzz}"
CONFIG="$REPO_ROOT/Tests/api-fuzz/schemathesis.toml"
for var in API_FUZZ_EXAMPLES API_FUZZ_ROUNDS API_FUZZ_SEED API_FUZZ_TIMEOUT; do
    [[ ${!var} =~ ^[0-9]+$ ]] || die "$var must be a number, not '${!var}'"
done
require_cmd st "run deploy/scripts/bootstrap.sh (it installs schemathesis with pip)"
require_cmd curl "run deploy/scripts/bootstrap.sh"
require_cmd psql "run deploy/scripts/bootstrap.sh"

if [[ ${1:-} != rounds ]]; then
    rm -rf "$API_FUZZ_OUT"
    mkdir -p "$API_FUZZ_OUT"
    BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build --show-bin-path)}
    [[ -x $BIN_DIR/gateway ]] || die "no gateway in $BIN_DIR: build first (swift build) or set BACKPLANE_BIN_DIR"
    # The fuzzer sends thousands of requests a minute from one address: with the rate limits on,
    # most would be 429s and the run would check the limiter instead of the API. The limits have
    # their own tests (RateLimitHTTPTests, GatewayTests) and benchmark (make bench-flood).
    export RATE_LIMIT_LOGIN=off RATE_LIMIT_REGISTER=off RATE_LIMIT_RECOVERY=off RATE_LIMIT_SEARCH=off \
        RATE_LIMIT_WRITE=off RATE_LIMIT_READ=off BACKPLANE_BIN_DIR=$BIN_DIR
    export ADMIN_USERNAME="fuzz-admin@example.org" ADMIN_PASSWORD="Fuzz-admin-$RANDOM-Pw1"
    API_FUZZ_OUT=$(cd "$API_FUZZ_OUT" && pwd)
    export API_FUZZ_OUT API_FUZZ_EXAMPLES API_FUZZ_ROUNDS API_FUZZ_SEED API_FUZZ_TIMEOUT LOG_TAG
    # The rounds are this script's second part, run by system-run.sh once the system is ready.
    exec "$SCRIPTS_DIR/system-run.sh" api_fuzz "$API_FUZZ_OUT" "$0" rounds
fi
OUT=$API_FUZZ_OUT
BASE=$SYSTEM_URL
FUZZ_PASSWORD="Fuzz-caller-$RANDOM-Pw1"

# post PATH JSON [TOKEN]: the body of a successful POST (curl fails on an error status).
post() {
    curl -fsS -X POST -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} -d "$2" "$BASE$1"
}
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# caller ROLE ROUND: the access token of a new account (the fuzzer may delete or sign out the one it
# is given): a user, or an admin made so by ADMIN_USERNAME, whose token the fuzzer never sees.
caller() {
    local role=$1 round=$2 name id root
    name="r$round-$role-$RANDOM@example.org"
    id=$(post /v1/auth/register "{\"username\":\"$name\",\"password\":\"$FUZZ_PASSWORD\"}" | field userId)
    if [[ $role == admin ]]; then
        root=$(post /v1/auth/login "{\"username\":\"$ADMIN_USERNAME\",\"password\":\"$ADMIN_PASSWORD\"}" |
            field accessToken)
        post "/v1/admin/users/$id/roles" '{"grant":["admin"]}' "$root" >/dev/null
    fi
    post /v1/auth/login "{\"username\":\"$name\",\"password\":\"$FUZZ_PASSWORD\"}" | field accessToken
}

total_cases=0 total_failures=0 started=$SECONDS status=0
# fuzz_one CALLER SEED BEARER REPORT: one `st run` as CALLER; "cases failures exit" in REPORT.counts.
fuzz_one() {
    local seed=$2 bearer=$3 report=$4 rc=0 cases failures
    # Tests/api-fuzz/hooks.py: the serializer for tus PATCH bodies.
    PYTHONPATH="$REPO_ROOT/Tests/api-fuzz${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=hooks \
        timeout --foreground -k 10 "$API_FUZZ_TIMEOUT" \
        st --config-file "$CONFIG" --no-color run "$BASE/openapi.yaml" -c all --seed "$seed" \
        --max-examples "$API_FUZZ_EXAMPLES" -H "Authorization: Bearer $bearer" \
        --report junit --report-junit-path "$report.xml" >"$report.log" 2>&1 || rc=$?
    read -r cases failures < <(python3 "$REPO_ROOT/Tests/api-fuzz/counts.py" "$report.log" "$report.xml")
    echo "$cases $failures $rc" >"$report.counts"
}

# The user's and the admin's runs of a round go side by side: each is one Python process, and
# the system behind them has cores to spare.
for ((round = 0; round < API_FUZZ_ROUNDS; round++)); do
    seed=$((API_FUZZ_SEED + round))
    pids=()
    for caller in user admin; do
        bearer=$(caller "$caller" "$round") || die "could not sign in a new $caller for round $((round + 1))"
        info "round $((round + 1))/$API_FUZZ_ROUNDS, $caller: st run -c all --seed $seed --max-examples $API_FUZZ_EXAMPLES"
        fuzz_one "$caller" "$seed" "$bearer" "$OUT/$caller-$round" &
        pids+=($!)
    done
    wait "${pids[@]}" || true
    for caller in user admin; do
        report="$OUT/$caller-$round"
        read -r cases failures rc <"$report.counts" 2>/dev/null || { cases=0 failures=0 rc=1; }
        total_cases=$((total_cases + cases))
        total_failures=$((total_failures + failures))
        info "  $caller: $cases cases, $failures failures (exit $rc; ${report#"$REPO_ROOT"/}.log)"
        if ((rc != 0)); then
            status=1
            grep -E '^(_+ |\d+\. |[A-Z][a-z]+ .*failed|Valid data|Invalid data|Undocumented|Response|API rejected|Missing)' \
                "$report.log" | head -n 40 >&2 || true
        fi
    done
done
result="$total_cases cases, $total_failures failures, $((SECONDS - started)) s"
echo "$result" >"$OUT/result.txt"
info "$result"
exit "$status"
