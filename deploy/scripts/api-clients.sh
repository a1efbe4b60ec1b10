#!/usr/bin/env bash
# make test's api-clients step: the OpenAPI document through client generators that are not ours,
# as app teams use them, and the clients against the running system.
#
#   deploy/scripts/api-clients.sh
#
# 1. Generates clients from services/gateway/GatewayService/openapi.yaml with openapi-python-client
#    (settings in Tests/api-clients/python-client.yaml) and openapi-generator-cli's
#    typescript-fetch, kotlin and swift6, at the versions Tests/api-clients/requirements.txt pins
#    (bootstrap.sh installs them, and Java with default-jre-headless).
# 2. api-clients.py: a warning or an error of a generator fails the step, unless
#    Tests/api-clients/notices.txt lists it as the generator's notice about itself; and each
#    client has one method per operation, less what Tests/api-clients/unexpressed.txt lists.
# 3. Compiles the TypeScript client with Debian's tsc (node-typescript 4.8), with the generator's
#    own tsconfig.json, strict but for noImplicitAny (the generated type guards narrow with `in`,
#    which TypeScript does from 4.9 on).
# 4. Runs each app's core flow through the Python client (Tests/api-clients/flows.py) against a
#    system of its own (system-run.sh).
# The last line it prints (and writes to $API_CLIENTS_OUT/result.txt) sums up the counts.
#
# Environment:
#   API_CLIENTS_OUT    folder for the clients, the generators' output and the system's log
#                      (default .data/api-clients)
#   BACKPLANE_BIN_DIR  where the executables are (default: the debug build, swift build --show-bin-path)
#   DATABASE_URL       a PostgreSQL to create the system's own database in; unset: a throwaway
#                      PostgreSQL under API_CLIENTS_OUT
set -euo pipefail
LOG_TAG=api-clients
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${API_CLIENTS_OUT:=$REPO_ROOT/.data/api-clients}"
DOC="$REPO_ROOT/services/gateway/GatewayService/openapi.yaml"
LISTS="$REPO_ROOT/Tests/api-clients"

# The second part, run by system-run.sh once the system is ready.
if [[ ${1:-} == flows ]]; then
    exec python3 "$LISTS/flows.py" "$API_CLIENTS_OUT/clients/python" "$SYSTEM_URL"
fi

hint="run deploy/scripts/bootstrap.sh (it installs it)"
for cmd in openapi-python-client openapi-generator-cli java tsc curl psql; do require_cmd "$cmd" "$hint"; done
rm -rf "$API_CLIENTS_OUT"
mkdir -p "$API_CLIENTS_OUT/clients"
API_CLIENTS_OUT=$(cd "$API_CLIENTS_OUT" && pwd)
OUT=$API_CLIENTS_OUT/clients
status=0

# The generators, one after another: each of openapi-generator's is a JVM of its own.
info "generating: python (openapi-python-client $(openapi-python-client --version | awk '{print $NF}'))"
openapi-python-client generate --path "$DOC" --meta none --config "$LISTS/python-client.yaml" \
    --output-path "$OUT/python/backplane_client" >"$OUT/python.log" 2>&1 || { warn "openapi-python-client failed"; status=1; }
# typescript-fetch as a package of its own: its package.json and tsconfig.json, which tsc reads.
declare -A OPTIONS=(
    [typescript-fetch]="npmName=backplane-client,npmVersion=1.0.0,supportsES6=true"
    [kotlin]="packageName=org.backplane.client"
    [swift6]="projectName=BackplaneClient"
)
for generator in typescript-fetch kotlin swift6; do
    info "generating: $generator (openapi-generator-cli $(openapi-generator-cli version 2>/dev/null | tail -n 1))"
    openapi-generator-cli generate -i "$DOC" -g "$generator" -o "$OUT/$generator" \
        --additional-properties="${OPTIONS[$generator]}" >"$OUT/$generator.log" 2>&1 ||
        { warn "openapi-generator-cli $generator failed (${OUT#"$REPO_ROOT"/}/$generator.log)"; status=1; }
done

counts=$(python3 "$SCRIPTS_DIR/api-clients.py" "$DOC" "$OUT") || status=1
printf '%s\n' "$counts" >&2

info "compiling the TypeScript client: tsc $(tsc --version | awk '{print $NF}')"
if tsc -p "$OUT/typescript-fetch" --noEmit --strict --noImplicitAny false >"$OUT/tsc.log" 2>&1; then
    compiled="tsc: no errors"
else
    compiled="tsc: $(grep -c 'error TS' "$OUT/tsc.log" || true) errors"
    head -n 30 "$OUT/tsc.log" >&2
    status=1
fi
info "$compiled"

flows=""
BIN_DIR=${BACKPLANE_BIN_DIR:-$(cd "$REPO_ROOT" && swift build --show-bin-path 2>/dev/null || true)}
if [[ ! -x $BIN_DIR/gateway ]]; then
    warn "no gateway in $BIN_DIR: build first (swift build) or set BACKPLANE_BIN_DIR; the flows did not run"
    status=1
else
    export BACKPLANE_BIN_DIR=$BIN_DIR API_CLIENTS_OUT LOG_TAG
    mkdir -p "$API_CLIENTS_OUT/system"
    "$SCRIPTS_DIR/system-run.sh" api_clients "$API_CLIENTS_OUT/system" "$0" flows \
        >"$API_CLIENTS_OUT/flows.log" 2>&1 || status=1
    cat "$API_CLIENTS_OUT/flows.log" >&2
    flows=$(tail -n 1 "$API_CLIENTS_OUT/flows.log")
    [[ $flows =~ ^[0-9]+\ passed ]] || flows="did not run (${API_CLIENTS_OUT#"$REPO_ROOT"/}/flows.log)"
    flows="flows: $flows"
fi

# "python 182/182, typescript-fetch 182/182, ...; tsc: no errors; flows: 6 passed, 0 failed"
methods=$(sed -nE 's/^api-clients: ([a-z0-9-]+): ([0-9]+) of ([0-9]+) .*/\1 \2\/\3/p' <<<"$counts" | paste -sd, - | sed 's/,/, /g')
result="${methods:-no counts}; $compiled${flows:+; $flows}; $SECONDS s"
echo "$result" >"$API_CLIENTS_OUT/result.txt"
info "$result"
exit "$status"
