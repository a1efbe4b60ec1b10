#!/usr/bin/env bash
# `make bench-gateway`: what the request path costs, against the HTTP server alone.
#
# Builds the release executables (and `gateway-hello`, Hummingbird's hello-world), starts the
# hello-world and the system (auth and orders, rate limits off: wrk is one client address), signs
# up one account, then runs `wrk` against each target in turn, in one run on this machine:
#
#   hello-world      GET /hello on gateway-hello (the reference, 100%)
#   healthz          GET /healthz on the gateway (no broker)
#   currencies       GET /v1/currencies with a Bearer token (gateway -> broker -> orders, cached)
#   me               GET /v1/me with a Bearer token (gateway -> broker -> auth -> PostgreSQL)
#
# and prints requests/s, p50/p99 and the share of the hello-world rate for each.
#
# Environment:
#   WRK_THREADS (2), WRK_CONNECTIONS (64), WRK_SECONDS (8)   wrk's -t, -c and -d
#   TARGETS       which targets, in order (default "hello healthz currencies me")
#   SKIP_BUILD=1  use the release executables as they are
#   LOG_LEVEL     the system's log level (default info: the gateway writes its access log, as
#                 in production; the output goes to .data/bench-gateway.log)
set -euo pipefail
LOG_TAG=bench-gateway
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_cmd wrk "apt-get install wrk"
require_cmd curl

: "${WRK_THREADS:=2}" "${WRK_CONNECTIONS:=64}" "${WRK_SECONDS:=8}"
: "${TARGETS:=hello healthz currencies me}"
[[ -n ${SKIP_BUILD:-} ]] || (cd "$REPO_ROOT" && swift build -c release)
BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
mkdir -p "$REPO_ROOT/.data"
LOG=$REPO_ROOT/.data/bench-gateway.log

HELLO_PORT=$(free_port)
HTTP_PORT=$(free_port)
BROKER_PORT=$(free_port)
XSUB_PORT=$(free_port)
XPUB_PORT=$(free_port)
export HTTP_PORT SKIP_BUILD=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-info}
export BROKER_BIND="tcp://127.0.0.1:$BROKER_PORT" BROKER_URL="tcp://127.0.0.1:$BROKER_PORT"
export EVENTS_XSUB_BIND="tcp://127.0.0.1:$XSUB_PORT" EVENTS_PUB_URL="tcp://127.0.0.1:$XSUB_PORT"
export EVENTS_XPUB_BIND="tcp://127.0.0.1:$XPUB_PORT" EVENTS_SUB_URL="tcp://127.0.0.1:$XPUB_PORT"
export SERVICES="auth orders" READINESS_SERVICES=auth,orders
export RATE_LIMIT_READ=off RATE_LIMIT_WRITE=off RATE_LIMIT_LOGIN=off RATE_LIMIT_REGISTER=off

"$BIN_DIR/gateway-hello" "$HELLO_PORT" >>"$LOG" 2>&1 &
HELLO_PID=$!
info "starting the system (auth, orders; output in $LOG)"
"$SCRIPTS_DIR/up.sh" >>"$LOG" 2>&1 &
UP_PID=$!
stop_all() {
    kill -TERM "$HELLO_PID" "$UP_PID" 2>/dev/null || true
    wait "$HELLO_PID" "$UP_PID" 2>/dev/null || true
}
trap stop_all EXIT

GATEWAY=http://127.0.0.1:$HTTP_PORT
deadline=$((SECONDS + 120))
until curl -fsS "$GATEWAY/readyz" >/dev/null 2>&1 && curl -fsS "http://127.0.0.1:$HELLO_PORT/hello" >/dev/null 2>&1; do
    pid_alive "$UP_PID" || die "the system did not start; see $LOG"
    ((SECONDS < deadline)) || die "not ready after 120 s; see $LOG"
    sleep 0.5
done

user="bench-gateway-$RANDOM$RANDOM@example.org"
credentials="{\"username\": \"$user\", \"password\": \"Gateway2026x-bench\"}"
answer=$(curl -sS -w '\n%{http_code}' -H 'Content-Type: application/json' -d "$credentials" "$GATEWAY/v1/auth/register")
[[ ${answer##*$'\n'} == 201 ]] || die "could not register the bench account: $answer"
TOKEN=$(curl -fsS -H 'Content-Type: application/json' -d "$credentials" "$GATEWAY/v1/auth/login" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["accessToken"])') || die "could not log in"

url_of() {
    case $1 in
        hello) echo "http://127.0.0.1:$HELLO_PORT/hello" ;;
        healthz) echo "$GATEWAY/healthz" ;;
        currencies) echo "$GATEWAY/v1/currencies" ;;
        me) echo "$GATEWAY/v1/me" ;;
        *) die "unknown target '$1' (hello, healthz, currencies, me)" ;;
    esac
}

# Each target: a short warm-up, then the measured run; wrk's --latency output is kept.
declare -A RATE P50 P99 ERRORS
for target in $TARGETS; do
    url=$(url_of "$target")
    headers=()
    [[ $target == hello || $target == healthz ]] || headers=(-H "Authorization: Bearer $TOKEN")
    curl -fsS -o /dev/null "${headers[@]}" "$url" || die "$target: $url does not answer 200"
    wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d2s "${headers[@]}" "$url" >/dev/null
    out=$(wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${WRK_SECONDS}s" --latency "${headers[@]}" "$url")
    echo "$out" >"$REPO_ROOT/.data/bench-gateway-$target.txt"
    RATE[$target]=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
    P50[$target]=$(awk '$1 == "50%" { print $2 }' <<<"$out")
    P99[$target]=$(awk '$1 == "99%" { print $2 }' <<<"$out")
    ERRORS[$target]=$(awk '/Non-2xx or 3xx responses:/ { n += $NF } /Socket errors:/ { n += 1 } END { print n + 0 }' <<<"$out")
    info "$target: ${RATE[$target]} requests/s"
done

hello=${RATE[hello]:-}
printf '\n%s, wrk -t%s -c%s -d%ss, one run\n\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$WRK_THREADS" "$WRK_CONNECTIONS" "$WRK_SECONDS"
printf '| target | requests/s | p50 | p99 | non-2xx | share of hello-world |\n|---|---:|---:|---:|---:|---:|\n'
for target in $TARGETS; do
    share=-
    [[ -z $hello ]] || share=$(awk -v r="${RATE[$target]}" -v h="$hello" 'BEGIN { printf "%.0f%%", 100 * r / h }')
    printf '| %s | %s | %s | %s | %s | %s |\n' "$target" "${RATE[$target]}" "${P50[$target]}" "${P99[$target]}" \
        "${ERRORS[$target]}" "$share"
done
