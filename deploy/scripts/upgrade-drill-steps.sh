#!/usr/bin/env bash
# The upgrade drill's steps (upgrade-drill.sh runs them; each process it starts is a file under
# OUT/run, so that the steps and the drill's clean-up share no shell state):
#
#   upgrade-drill-steps.sh start NAME GEN      start NAME (broker, a service, smtp, openstates or
#                                              gateway-1..4) from GEN's executables (prev, cur)
#   upgrade-drill-steps.sh ready NAME GEN      wait until its admin /readyz answers 200
#   upgrade-drill-steps.sh stop NAME GEN       SIGTERM, then wait until it has drained and exited
#   upgrade-drill-steps.sh roll FROM TO        the services, then the gateways, from FROM to TO
#   upgrade-drill-steps.sh hap COMMAND...      one command to HAProxy's runtime API
#   upgrade-drill-steps.sh boot | phases       the previous release started; the phases' figures
#
# Reads what upgrade-drill.sh exports: OUT, SERVICES, PREVIOUS_BIN_DIR, CURRENT_BIN_DIR,
# GATEWAY_PORTS (four HTTP ports, the HAProxy servers gateway-1..4), HAPROXY, HAPROXY_ADMIN_PORT,
# BALANCER_PORT (its frontend), SMTP_PORT, CIVIC_STANDIN_PORT, STOP_TIMEOUT (seconds from
# SIGTERM to a failed drill).
set -euo pipefail
LOG_TAG=upgrade-drill
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

pid_of() { cat "$OUT/run/$1.$2.pid"; }
start() {
    local name=$1 gen=$2 bin=$PREVIOUS_BIN_DIR admin
    [[ $gen == prev ]] || bin=$CURRENT_BIN_DIR
    admin=$(free_port)
    echo "$admin" >"$OUT/run/$name.$gen.admin"
    local -a cmd=(env ADMIN_HTTP_PORT="$admin" ADMIN_HTTP_HOST=127.0.0.1 "$bin/${name%-*}")
    case $name in
    gateway-*)
        local ports && read -ra ports <<<"$GATEWAY_PORTS"
        cmd=(env HTTP_PORT="${ports[${name#gateway-} - 1]}" "${cmd[@]:1}") ;;
    smtp) cmd=(python3 "$REPO_ROOT/deploy/smtp-sink/smtp_sink.py" --port "$SMTP_PORT" --dir "$OUT/mail") ;;
    openstates) cmd=(env STANDIN_PORT="$CIVIC_STANDIN_PORT" python3 "$REPO_ROOT/deploy/openstates-standin/standin.py") ;;
    esac
    "${cmd[@]}" >>"$OUT/logs/$name.$gen.log" 2>&1 &
    echo $! >"$OUT/run/$name.$gen.pid"
    info "started $name ($gen, pid $!)"
}

ready() {
    local admin deadline=$((SECONDS + 90))
    admin=$(cat "$OUT/run/$1.$2.admin")
    until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$admin/readyz" 2>/dev/null; do
        pid_alive "$(pid_of "$1" "$2")" || die "$1 ($2) exited; see $OUT/logs/$1.$2.log"
        ((SECONDS < deadline)) || die "$1 ($2) not ready after 90 s; see $OUT/logs/$1.$2.log"
        sleep 0.3
    done
}

stop() {
    local pid deadline=$((SECONDS + STOP_TIMEOUT))
    pid=$(pid_of "$1" "$2")
    pid_alive "$pid" || die "$1 ($2) had exited before its SIGTERM; see $OUT/logs/$1.$2.log"
    kill -TERM "$pid"
    while pid_alive "$pid"; do
        ((SECONDS < deadline)) || { kill -KILL "$pid"; die "$1 ($2) still running ${STOP_TIMEOUT}s after SIGTERM"; }
        sleep 0.2
    done
    rm -f "$OUT/run/$1.$2.pid"
    info "stopped $1 ($2)"
}

hap() { # the runtime API's TCP socket, through bash's /dev/tcp (no socat needed)
    exec 3<>"/dev/tcp/127.0.0.1/$HAPROXY_ADMIN_PORT"
    printf '%s\n' "$*" >&3
    cat <&3
    exec 3<&-
}

# server_field SLOT COLUMN: a column of `show stat` (5 scur: requests open on it, 18 status).
server_field() { hap "show stat" | awk -F, -v s="gateway-$1" -v c="$2" '$1 == "gateways" && $2 == s { print $c }'; }

wait_server() {
    local deadline=$((SECONDS + 30))
    until [[ $(server_field "$1" "$2") == "$3" ]]; do
        ((SECONDS < deadline)) || die "HAProxy's gateway-$1: column $2 not '$3' after 30 s"
        sleep 0.2
    done
}

# swap_gateway NEW OLD FROM TO: start gateway-NEW from TO; once HAProxy sends to it, take
# gateway-OLD out of the balancing (drain: no new request), wait until its open requests have
# answered, and only then SIGTERM it, so that no request meets a gateway that is closing.
swap_gateway() {
    hap "set server gateways/gateway-$1 state ready" >/dev/null
    start "gateway-$1" "$4"
    wait_server "$1" 18 UP
    hap "set server gateways/gateway-$2 state drain" >/dev/null
    wait_server "$2" 5 0
    stop "gateway-$2" "$3"
}

roll() {
    local from=$1 to=$2 service
    for service in $SERVICES; do start "$service" "$to"; done
    for service in $SERVICES; do ready "$service" "$to"; done
    for service in $SERVICES; do stop "$service" "$from"; done
    if [[ $to == cur ]]; then swap_gateway 3 1 "$from" "$to" && swap_gateway 4 2 "$from" "$to"; else
        swap_gateway 1 3 "$from" "$to" && swap_gateway 2 4 "$from" "$to"; fi
}

# The previous release: HAProxy, the broker, the services, gateway-1 and gateway-2 (3 and 4 are
# kept out of the balancing until a gateway is started there).
boot() {
    local ports service && read -ra ports <<<"$GATEWAY_PORTS"
    sed -e "s/@HTTP_PORT@/$BALANCER_PORT/; s/@ADMIN_PORT@/$HAPROXY_ADMIN_PORT/" \
        -e "s/@PORT1@/${ports[0]}/; s/@PORT2@/${ports[1]}/; s/@PORT3@/${ports[2]}/; s/@PORT4@/${ports[3]}/; s|@MAP@|$REPO_ROOT/deploy/haproxy/repeatable.map|" \
        "$REPO_ROOT/deploy/haproxy/upgrade-drill.cfg" >"$OUT/haproxy.cfg"
    "$HAPROXY" -q -f "$OUT/haproxy.cfg" >>"$OUT/logs/haproxy.log" 2>&1 &
    echo $! >"$OUT/run/haproxy.prev.pid"
    start broker prev && ready broker prev
    for service in $SERVICES; do start "$service" prev; done
    for service in $SERVICES; do ready "$service" prev; done
    start gateway-1 prev && start gateway-2 prev
    until hap "show info" >/dev/null 2>&1; do sleep 0.2; done
    for service in 3 4; do hap "set server gateways/gateway-$service state maint" >/dev/null; done
}

# The phases from OUT/phases.txt (a line per phase: name, time, loadgen's progress line when
# it began), each to the next one's start: requests answered, unexpected answers, sent again.
phases() {
    awk '{ t[NR] = $2; name[NR] = $1; for (i = 3; i < NF; i++) { v[NR, $i] = $(i + 1) } }
        END { printf "%-16s %8s %9s %7s %6s\n", "phase", "seconds", "requests", "errors", "again"
            for (i = 1; i < NR; i++) printf "%-16s %8.1f %9d %7d %6d\n", name[i], t[i + 1] - t[i],
                v[i + 1, "requests"] - v[i, "requests"], v[i + 1, "errors"] - v[i, "errors"], v[i + 1, "again"] - v[i, "again"] }' "$OUT/phases.txt"
}

"$@"
