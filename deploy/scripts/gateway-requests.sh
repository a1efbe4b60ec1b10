#!/usr/bin/env bash
# Prints the HTTP requests the gateway listening on HTTP_PORT has answered, read from its own
# admin port's /metrics (the ADMIN_HTTP_PORT in its environment; the apps' port serves no metrics).
#
#   deploy/scripts/gateway-requests.sh HTTP_PORT
set -euo pipefail
(($# == 1)) || { echo "usage: gateway-requests.sh HTTP_PORT" >&2; exit 2; }
admin=""
for pid in $(pgrep -x gateway); do
    environ=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || continue
    grep -qx "HTTP_PORT=$1" <<<"$environ" || continue
    admin=$(sed -n 's/^ADMIN_HTTP_PORT=//p' <<<"$environ")
done
[[ -n $admin ]] || { echo "gateway-requests.sh: no gateway with an admin port listens on $1" >&2; exit 1; }
curl -fsS "http://127.0.0.1:$admin/metrics" |
    awk '/^hb_requests_total[{ ]/ || /^hb_requests[{ ]/ { sum += $NF } END { print sum + 0 }'
