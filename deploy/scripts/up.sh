#!/usr/bin/env bash
# `make up`: runs the whole of Backplane on this machine, in the foreground.
#
#   1. installs what is missing (bootstrap.sh);
#   2. unless DATABASE_URL is set, starts a throwaway PostgreSQL in .data/pg and points
#      DATABASE_URL at it;
#   3. builds the release executables;
#   4. starts the broker, then the services, then the gateway, each one's output prefixed by its
#      name ("broker   | ..."), and waits until GET /readyz answers 200;
#   5. supervises: a process that dies is reported with its exit code, the others keep running;
#   6. on Ctrl-C / SIGTERM / SIGHUP: SIGTERM to every process, SIGKILL to what is left after
#      STOP_TIMEOUT seconds, stops the PostgreSQL, and checks that no child process remains.
#      A second Ctrl-C skips the wait and kills at once.
#
# Environment (the executables' own settings, docs/settings.md, pass through as they are):
#   DATABASE_URL          use this database instead of the throwaway one
#   PG_PORT               port for the throwaway PostgreSQL (default 5432, or a free one if taken)
#   PG_KEEP=1             leave the throwaway PostgreSQL running on exit
#   HTTP_PORT             gateway port (default 8080), also where readiness is checked
#   TRUSTED_PROXIES       the gateway's setting; make up's default is loopback (127.0.0.1,::1),
#                         so that loadgen can play many clients with X-Forwarded-For; set it
#                         empty to rate-limit by the connection's own address
#   API_DOCS_DIR          the gateway's setting (Swagger UI's files for /docs); unset, make up
#                         sets it to the folder of pip's swagger-ui-bundle-v2 (bootstrap.sh
#                         installs it); set it empty for a gateway without the rendered reference
#   SERVICES              which services to run (default: every worker of deploy/services.txt,
#                         today auth orders printing routing notify hydration civic social);
#                         the broker and the gateway always run
#   REPLICAS_<service>    number of replicas, e.g. REPLICAS_routing=3 (default 1)
#   REPLICAS_gateway      number of gateways (default 1): gateway-1 on HTTP_PORT, gateway-2 on
#                         HTTP_PORT+1, ...; each is a whole gateway (put a balancer in front, or
#                         give loadgen several --base-url)
#   ADMIN_PORT_BASE       first admin port (default 9100): every process gets its own
#                         ADMIN_HTTP_PORT (/healthz, /readyz, /metrics), base+0 for the broker,
#                         then each service replica and gateway in start order, shown in its
#                         "started" line; off: none
#   SKIP_BUILD=1          do not run `swift build -c release`
#   SKIP_BOOTSTRAP=1      do not run bootstrap.sh
#   SMTP_SINK=0           do not start the local SMTP sink (it starts with notify unless SMTP_HOST
#                         names another relay; mail lands in SMTP_SINK_DIR, port SMTP_PORT or 2525)
#   SMTP_SINK_DIR         the SMTP sink's folder, one .eml file per message (default .data/mail)
#   CIVIC_STANDIN=0       do not start the local Open States stand-in (it starts with civic unless
#                         CIVIC_FEED_URL names another feed)
#   CIVIC_STANDIN_PORT    the Open States stand-in's port (default 8095)
#   PAYMENT_PROVIDER=stripe  orders pays through Stripe's API; without STRIPE_BASE_URL the local
#                         Stripe stand-in (deploy/stripe-standin) starts with orders, with
#                         STRIPE_API_KEY (default sk_test_standin)
#   STRIPE_STANDIN_PORT   the Stripe stand-in's port (default 8096)
#   STRIPE_STANDIN_DELAY_MS  milliseconds the Stripe stand-in takes to answer (default 0)
#   BACKPLANE_BIN_DIR     where the executables are (default: swift build -c release --show-bin-path)
#   READY_TIMEOUT         seconds to wait for /readyz (default 60)
#   BROKER_READY_TIMEOUT  seconds to wait for the broker to answer `broker --probe` before the
#                         services start (default 15; after it they start anyway, with a warning)
#   STOP_TIMEOUT          seconds between SIGTERM and SIGKILL on shutdown (default 10)
#   RESTART               no (default): a process that dies stays down and is reported;
#                         always: it is started again after RESTART_DELAY, like docker-compose's
#                         `restart: always` (the fault run uses this)
#   RESTART_DELAY         seconds before a process that died is started again (default 1)
#   BACKPLANE_COMMIT      the commit every process reports with --version and in its first log
#                         line (default: git rev-parse --short=12 HEAD, or unknown)
set -euo pipefail
LOG_TAG=up
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL_SERVICES=$(registry worker)
SERVICES=${SERVICES:-$ALL_SERVICES}
# /readyz waits for the services this run starts (the gateway's default names all of them).
: "${READINESS_SERVICES:=$(echo $SERVICES | tr ' ' ',')}"
export READINESS_SERVICES
PG_DIR="$REPO_ROOT/.data/pg"
: "${HTTP_PORT:=8080}"
# On one machine the load generator plays many phones through X-Forwarded-For: believe it from
# loopback (production sets the address range of its own proxies; see README "Rate limits").
: "${TRUSTED_PROXIES=127.0.0.1,::1}"
export TRUSTED_PROXIES
# What every process reports with --version and in its first log line.
: "${BACKPLANE_COMMIT:=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"
export BACKPLANE_COMMIT
: "${ADMIN_PORT_BASE:=9100}"
[[ $ADMIN_PORT_BASE == off || $ADMIN_PORT_BASE =~ ^[1-9][0-9]*$ ]] ||
    die "ADMIN_PORT_BASE must be a port number or off, got '$ADMIN_PORT_BASE'"
: "${READY_TIMEOUT:=60}"
: "${STOP_TIMEOUT:=10}"
: "${BROKER_READY_TIMEOUT:=15}"
export HTTP_PORT

LIVE=()             # PIDs of the supervised processes not reaped yet, in start order
FILTERS=()          # PIDs of the log-prefixing filters (children of this shell too)
declare -A NAME=()  # PID -> display name
declare -A PID_OF=() # display name -> PID
declare -A EXE_OF=() # display name -> executable
declare -A ADMIN_PORT_OF=() # display name -> its ADMIN_HTTP_PORT (none when ADMIN_PORT_BASE=off)
NAME_WIDTH=8
PG_OWNED=""         # set when this script is responsible for stopping .data/pg
STOP_SIGNAL=""      # set by the signal traps; the main flow notices it and shuts down
STOPPING=""
FORCE_KILL=""

# ---------------------------------------------------------------------------- preparation

# plan_processes: fills PLAN with the names to start, in order: broker, services, gateways.
# A service (or the gateway) with REPLICAS_<name>=N>1 gets names name-1..name-N.
plan_processes() {
    PLAN=(broker)
    local svc n i var
    for svc in $SERVICES; do
        [[ " $ALL_SERVICES " == *" $svc "* ]] || die "unknown service '$svc' in SERVICES (known: $ALL_SERVICES)"
        var="REPLICAS_$svc"
        n=${!var:-1}
        [[ $n =~ ^[0-9]+$ ]] || die "$var must be a number, got '$n'"
        if ((n == 1)); then
            PLAN+=("$svc")
        else
            for ((i = 1; i <= n; i++)); do PLAN+=("$svc-$i"); done
        fi
    done
    n=${REPLICAS_gateway:-1}
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "REPLICAS_gateway must be a number of at least 1, got '$n'"
    if ((n == 1)); then
        PLAN+=(gateway)
    else
        for ((i = 1; i <= n; i++)); do PLAN+=("gateway-$i"); done
    fi
    FIRST_GATEWAY=gateway
    ((n == 1)) || FIRST_GATEWAY=gateway-1
    local index=0
    for svc in "${PLAN[@]}"; do
        [[ $ADMIN_PORT_BASE == off ]] || ADMIN_PORT_OF[$svc]=$((ADMIN_PORT_BASE + index))
        index=$((index + 1))
    done
    for svc in "${PLAN[@]}"; do ((${#svc} > NAME_WIDTH)) && NAME_WIDTH=${#svc}; done
    return 0
}

# check_ports: a port already taken would make a process fail later with a less obvious error,
# and a foreign server on HTTP_PORT would even answer our readiness check.
check_ports() {
    local spec port i
    local -a gateway_ports=()
    for ((i = 1; i < ${REPLICAS_gateway:-1}; i++)); do
        gateway_ports+=("HTTP_PORT+$i=tcp://127.0.0.1:$((HTTP_PORT + i))")
    done
    for spec in "HTTP_PORT=tcp://127.0.0.1:$HTTP_PORT" "${gateway_ports[@]}" \
        "BROKER_BIND=${BROKER_BIND:-tcp://127.0.0.1:5555}" \
        "EVENTS_XSUB_BIND=${EVENTS_XSUB_BIND:-tcp://127.0.0.1:5556}" \
        "EVENTS_XPUB_BIND=${EVENTS_XPUB_BIND:-tcp://127.0.0.1:5557}" \
        $(for name in "${!ADMIN_PORT_OF[@]}"; do echo "ADMIN_PORT_BASE($name)=tcp://127.0.0.1:${ADMIN_PORT_OF[$name]}"; done); do
        port=${spec##*:}
        [[ $port =~ ^[0-9]+$ ]] || continue
        port_in_use "$port" &&
            die "port $port (${spec%%=*}) is already in use: is Backplane already running? Stop it or set ${spec%%=*}"
    done
    return 0
}

start_database() {
    if [[ -n ${DATABASE_URL:-} ]]; then
        info "using DATABASE_URL from the environment"
        return 0
    fi
    local port
    PG_OWNED=1 # from here on, even if the start below is interrupted half-way
    if port=$("$SCRIPTS_DIR/pg.sh" status "$PG_DIR" 2>/dev/null); then
        # Most likely left over from a run that was killed: adopt it.
        info "PostgreSQL in .data/pg is already running on port $port; using it"
    else
        port=${PG_PORT:-5432}
        if port_in_use "$port"; then
            [[ -z ${PG_PORT:-} ]] || die "PG_PORT=$port is already in use"
            port=$(free_port)
            info "port 5432 is taken (another PostgreSQL?); the throwaway PostgreSQL uses port $port instead"
        fi
        "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$port"
    fi
    DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$port")
    export DATABASE_URL
    info "DATABASE_URL=$DATABASE_URL"
}

# locate_api_docs: unless API_DOCS_DIR is set (even empty), points it at Swagger UI's files in
# the Python package swagger-ui-bundle-v2, for the gateway's /docs. Without the package the
# gateway still starts; its /docs then says the reference is not installed.
locate_api_docs() {
    if [[ -z ${API_DOCS_DIR+set} ]]; then
        API_DOCS_DIR=$(python3 -c 'import swagger_ui_bundle; print(swagger_ui_bundle.swagger_ui_path)' 2>/dev/null) ||
            API_DOCS_DIR=""
    fi
    if [[ -n $API_DOCS_DIR && ! -f $API_DOCS_DIR/swagger-ui-bundle.js ]]; then
        warn "API_DOCS_DIR=$API_DOCS_DIR has no swagger-ui-bundle.js; /docs will say the reference is not installed"
    elif [[ -z $API_DOCS_DIR ]]; then
        info "no Swagger UI (pip package swagger-ui-bundle-v2; bootstrap.sh installs it): /docs will say the reference is not installed"
    fi
    export API_DOCS_DIR
}

build() {
    if [[ -n ${SKIP_BUILD:-} ]]; then
        info "SKIP_BUILD is set: not building"
    else
        require_cmd swift "install a Swift 6 toolchain (https://www.swift.org/install/)"
        info "building release executables (swift build -c release)"
        if ! (cd "$REPO_ROOT" && swift build -c release); then
            [[ -n $STOP_SIGNAL ]] && return 0
            die "swift build -c release failed"
        fi
    fi
    if [[ -z ${BACKPLANE_BIN_DIR:-} ]]; then
        BACKPLANE_BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path 2>/dev/null) ||
            BACKPLANE_BIN_DIR="$REPO_ROOT/.build/release"
    fi
    local name
    for name in "${PLAN[@]}"; do
        [[ -x $BACKPLANE_BIN_DIR/${name%-[0-9]*} ]] || die "executable $BACKPLANE_BIN_DIR/${name%-[0-9]*} not found (build first, or set BACKPLANE_BIN_DIR)"
    done
}

# ---------------------------------------------------------------------------- processes

# prefix_lines NAME: copies stdin to stdout with "NAME    | " in front of each line. It ignores
# INT/TERM so that it outlives the process it serves: it ends at end-of-file, after that
# process's last (shutdown) lines, and the process never writes into a closed pipe.
prefix_lines() {
    trap '' INT TERM HUP
    local tag
    printf -v tag '%-*s | ' "$NAME_WIDTH" "$1"
    exec python3 "$SCRIPTS_DIR/prefix-lines.py" "$tag"
}

# start_process NAME EXE: starts EXE in the background with stdout+stderr through prefix_lines.
# The filter is opened first through process substitution on a file descriptor, so that both
# the filter's and the process's $! are real PIDs of children of this shell (nothing to guess,
# nothing reparented), and the descriptor is closed here at once so that only the process holds
# the pipe and the filter sees end-of-file when it exits.
start_process() {
    local name=$1 exe=$2 fd pid port=$HTTP_PORT admin=${ADMIN_PORT_OF[$1]:-} started
    # gateway-I listens on HTTP_PORT+I-1 (the others do not read HTTP_PORT).
    [[ $name == gateway-* ]] && port=$((HTTP_PORT + ${name#gateway-} - 1))
    exec {fd}> >(prefix_lines "$name")
    FILTERS+=("$!")
    if [[ -n $admin ]]; then
        HTTP_PORT=$port ADMIN_HTTP_PORT=$admin ADMIN_HTTP_HOST=127.0.0.1 "$exe" </dev/null >&"$fd" 2>&1 &
    else
        HTTP_PORT=$port "$exe" </dev/null >&"$fd" 2>&1 &
    fi
    pid=$!
    exec {fd}>&-
    LIVE+=("$pid")
    NAME[$pid]=$name
    PID_OF[$name]=$pid
    EXE_OF[$name]=$exe
    started="pid $pid"
    [[ -z $admin ]] || started+=", admin http://127.0.0.1:$admin"
    info "started $name ($started)"
}

# nap SECONDS: sleep that a Ctrl-C may cut short. A Ctrl-C reaches the foreground `sleep` too,
# and its death by SIGINT must not end the script through `set -e`.
nap() {
    sleep "$1" || true
}

# forget PID: drops PID from LIVE.
forget() {
    local keep=() p
    for p in "${LIVE[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
    LIVE=("${keep[@]}")
}

describe_status() {
    local rc=$1
    if ((rc > 128)); then
        echo "killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))) (exit code $rc)"
    else
        echo "exit code $rc"
    fi
}

# on_child_exit PID RC: a supervised process ended. During shutdown that is expected.
on_child_exit() {
    local pid=$1 rc=$2
    forget "$pid"
    if [[ -n $STOPPING ]]; then
        ((rc == 0 || rc == 143)) || info "${NAME[$pid]} stopped: $(describe_status "$rc")"
    elif [[ ${RESTART:-no} == always ]]; then
        warn "${NAME[$pid]} (pid $pid) exited unexpectedly: $(describe_status "$rc"); restarting it in ${RESTART_DELAY:-1}s"
        nap "${RESTART_DELAY:-1}"
        [[ -n $STOP_SIGNAL ]] || start_process "${NAME[$pid]}" "${EXE_OF[${NAME[$pid]}]}"
    else
        warn "${NAME[$pid]} (pid $pid) exited unexpectedly: $(describe_status "$rc"); ${#LIVE[@]} other processes keep running"
    fi
}

# reap_dead: collects every supervised process that has exited, without blocking on live ones.
reap_dead() {
    local pid rc
    for pid in "${LIVE[@]}"; do
        pid_alive "$pid" && continue
        rc=0
        wait "$pid" || rc=$?
        on_child_exit "$pid" "$rc"
    done
}

# wait_for_broker: services connect lazily and retry, so this is not required for correctness;
# it only keeps their first log lines free of connection noise. Times out with a warning.
wait_for_broker() {
    local pid=$1 exe=$2 deadline=$((SECONDS + BROKER_READY_TIMEOUT))
    until "$exe" --probe >/dev/null 2>&1; do
        [[ -z $STOP_SIGNAL ]] || return 0
        pid_alive "$pid" || return 0 # reported by the supervisor
        if ((SECONDS >= deadline)); then
            warn "broker --probe still fails after ${BROKER_READY_TIMEOUT}s; starting the services anyway"
            return 0
        fi
        nap 0.2
    done
}

# start_smtp_sink: the local SMTP sink (deploy/smtp-sink, aiosmtpd) that keeps every mail notify
# sends as a file under .data/mail; skipped when SMTP_HOST points elsewhere or SMTP_SINK=0.
start_smtp_sink() {
    [[ " $SERVICES " == *" notify "* ]] || return 0
    [[ ${SMTP_SINK:-1} == 1 && ${SMTP_HOST:-127.0.0.1} == 127.0.0.1 ]] || return 0
    export SMTP_SINK_PORT=${SMTP_PORT:-2525} SMTP_SINK_DIR=${SMTP_SINK_DIR:-"$REPO_ROOT/.data/mail"}
    port_in_use "$SMTP_SINK_PORT" && die "port $SMTP_SINK_PORT (SMTP_PORT) is already in use; set SMTP_PORT or SMTP_SINK=0"
    start_process smtp "$REPO_ROOT/deploy/smtp-sink/smtp_sink.py"
    info "mail notify sends lands in $SMTP_SINK_DIR (one .eml file per message)"
}

# start_civic_standin: the local stand-in of the Open States API (deploy/openstates-standin) that
# serves civic's importer the PolitiMap fixture; skipped when CIVIC_FEED_URL names another feed.
start_civic_standin() {
    [[ " $SERVICES " == *" civic "* ]] || return 0
    [[ ${CIVIC_STANDIN:-1} == 1 && -z ${CIVIC_FEED_URL:-} ]] || return 0
    export STANDIN_PORT=${CIVIC_STANDIN_PORT:-8095}
    port_in_use "$STANDIN_PORT" && die "port $STANDIN_PORT (CIVIC_STANDIN_PORT) is already in use; set it or CIVIC_STANDIN=0"
    export CIVIC_FEED_URL="http://127.0.0.1:$STANDIN_PORT"
    start_process openstates "$REPO_ROOT/deploy/openstates-standin/standin.py"
    info "civic imports from the Open States stand-in at $CIVIC_FEED_URL"
}

# start_stripe_standin: the local stand-in of Stripe's API (deploy/stripe-standin) for orders with
# PAYMENT_PROVIDER=stripe; skipped when STRIPE_BASE_URL names Stripe or another stand-in.
start_stripe_standin() {
    [[ " $SERVICES " == *" orders "* ]] || return 0
    [[ ${PAYMENT_PROVIDER:-sandbox} == stripe && -z ${STRIPE_BASE_URL:-} ]] || return 0
    local port=${STRIPE_STANDIN_PORT:-8096}
    port_in_use "$port" && die "port $port (STRIPE_STANDIN_PORT) is already in use; set it or STRIPE_BASE_URL"
    export STRIPE_API_KEY=${STRIPE_API_KEY:-sk_test_standin} STRIPE_BASE_URL="http://127.0.0.1:$port"
    STANDIN_PORT=$port STANDIN_API_KEY=$STRIPE_API_KEY STANDIN_DELAY_MS=${STRIPE_STANDIN_DELAY_MS:-0} \
        start_process stripe "$REPO_ROOT/deploy/stripe-standin/standin.py"
    info "orders pays through the Stripe stand-in at $STRIPE_BASE_URL (its charges: $STRIPE_BASE_URL/_standin/charges)"
}

start_all() {
    local name exe
    start_smtp_sink
    start_civic_standin
    start_stripe_standin
    # The San Luis Obispo City Council's sample members, items, votes and positions (made up),
    # imported by civic at start; CIVIC_LOCAL_FILES= (empty) imports none.
    export CIVIC_LOCAL_FILES=${CIVIC_LOCAL_FILES-"$REPO_ROOT/deploy/civic/san_luis_obispo_city_council.sample.json"}
    # The printer's sample postage file (loaded by printing at start unless already stored).
    export POSTAGE_FILE=${POSTAGE_FILE:-"$REPO_ROOT/services/printing/PrintingService/Resources/postage-sample.xml"}
    # The places greetings are suggested for (GeoNames cities of 15,000 people or more).
    if [[ " $SERVICES " == *" printing "* && -z ${GAZETTEER_FILE:-} ]]; then
        "$SCRIPTS_DIR/gazetteer.sh" "$REPO_ROOT/.data/gazetteer/cities15000.tsv" ||
            die "could not make printing's gazetteer (deploy/scripts/gazetteer.sh)"
        export GAZETTEER_FILE="$REPO_ROOT/.data/gazetteer/cities15000.tsv"
    fi
    for name in "${PLAN[@]}"; do
        [[ -z $STOP_SIGNAL ]] || return 0
        exe="$BACKPLANE_BIN_DIR/${name%-[0-9]*}"
        start_process "$name" "$exe"
        [[ $name == broker ]] && wait_for_broker "${PID_OF[broker]}" "$exe"
    done
    return 0
}

wait_until_ready() {
    local url="http://127.0.0.1:$HTTP_PORT/readyz" deadline=$((SECONDS + READY_TIMEOUT)) gateway=${PID_OF[$FIRST_GATEWAY]}
    info "waiting for $url (up to ${READY_TIMEOUT}s)"
    until curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
        [[ -z $STOP_SIGNAL ]] || return 0
        reap_dead
        if ! pid_alive "$gateway"; then
            warn "the gateway exited before it was ready (Ctrl-C to stop the rest)"
            return 0
        fi
        if ((SECONDS >= deadline)); then
            warn "not ready: $url did not answer 200 within ${READY_TIMEOUT}s; the processes keep running, see their logs above (Ctrl-C to stop)"
            return 0
        fi
        nap 0.5
    done
    local gateways=${REPLICAS_gateway:-1}
    if ((gateways > 1)); then
        info "Backplane is up: http://127.0.0.1:$HTTP_PORT to :$((HTTP_PORT + gateways - 1)) ($gateways gateways)  (Ctrl-C to stop)"
    else
        info "Backplane is up: http://127.0.0.1:$HTTP_PORT  (Ctrl-C to stop)"
    fi
}

supervise() {
    local pid rc
    while ((${#LIVE[@]} > 0)); do
        [[ -z $STOP_SIGNAL ]] || return 0
        pid="" rc=0
        # Returns when a child exits, or at once when a trapped signal arrives (then bash leaves
        # pid unset, hence the :-).
        wait -n -p pid "${LIVE[@]}" || rc=$?
        [[ -n ${pid:-} ]] && on_child_exit "$pid" "$rc"
    done
}

# ---------------------------------------------------------------------------- shutdown

stop_children() {
    local pid deadline
    local -a alive=()
    reap_dead
    if ((${#LIVE[@]} > 0)); then
        info "stopping ${#LIVE[@]} processes (SIGTERM; SIGKILL after ${STOP_TIMEOUT}s, or at a second Ctrl-C)"
        kill -TERM "${LIVE[@]}" 2>/dev/null || true
    fi
    deadline=$((SECONDS + STOP_TIMEOUT))
    while :; do
        alive=()
        for pid in "${LIVE[@]}"; do pid_alive "$pid" && alive+=("$pid"); done
        if ((${#alive[@]} == 0 || SECONDS >= deadline)) || [[ -n $FORCE_KILL ]]; then
            break
        fi
        nap 0.1
    done
    local rc
    for pid in "${alive[@]}"; do
        warn "${NAME[$pid]} (pid $pid) still running: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        # Reaped at once, or bash prints its own "Killed" job notice.
        rc=0
        wait "$pid" 2>/dev/null || rc=$?
        on_child_exit "$pid" "$rc"
    done
    for pid in "${LIVE[@]}"; do
        rc=0
        wait "$pid" 2>/dev/null || rc=$?
        on_child_exit "$pid" "$rc"
    done
    # The filters end once their pipes close; one still open after 2 s is held by a grandchild.
    deadline=$((SECONDS + 2))
    for pid in "${FILTERS[@]}"; do
        while pid_alive "$pid" && ((SECONDS < deadline)); do nap 0.05; done
        pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null || true
    done
}

stop_database() {
    [[ -n $PG_OWNED ]] || return 0
    if [[ -n ${PG_KEEP:-} ]]; then
        info "PG_KEEP is set: PostgreSQL in .data/pg keeps running"
        return 0
    fi
    "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" || warn "could not stop PostgreSQL in $PG_DIR"
}

# verify_no_children: the promise of Ctrl-C is that nothing is left behind. Reads /proc with
# builtins only, since a command substitution would itself be a child of this shell.
verify_no_children() {
    ((${#FILTERS[@]} > 0)) || return 0
    local f line rest ppid left=()
    for f in /proc/[0-9]*/stat; do
        { read -r line <"$f"; } 2>/dev/null || continue
        rest=${line##*) }
        read -r _ ppid _ <<<"$rest"
        [[ $ppid == "$$" ]] && left+=("${f//[!0-9]/}")
    done
    if ((${#left[@]} > 0)); then
        warn "processes still running after shutdown: ${left[*]}; killing them"
        kill -KILL "${left[@]}" 2>/dev/null || true
    else
        info "all processes stopped; none left behind"
    fi
}

shutdown() {
    [[ -z $STOPPING ]] || return 0
    STOPPING=1
    stop_children
    stop_database
    verify_no_children
}

# on_signal NAME: only records the request. The shutdown itself runs in the main flow, not
# inside the trap, because bash handles a second signal poorly while a trap handler runs, and
# the second Ctrl-C must still work (it cuts the SIGTERM grace period short).
# shellcheck disable=SC2317 # called from the traps set in main
on_signal() {
    if [[ -n $STOPPING || -n $STOP_SIGNAL ]]; then
        FORCE_KILL=1
        return 0
    fi
    STOP_SIGNAL=$1
    info "received SIG$1: shutting down"
}

# stop_if_requested: the check between steps; a signal ends the script with 128+signal number.
stop_if_requested() {
    [[ -n $STOP_SIGNAL ]] || return 0
    shutdown
    exit $((128 + $(kill -l "$STOP_SIGNAL")))
}

main() {
    # `make up | tee log` and Ctrl-C: the terminal's SIGINT ends tee too, and the next line we
    # print would kill us with SIGPIPE in the middle of the shutdown, leaving orphans. Ignored,
    # a write just fails. (The executables inherit this; servers ignore SIGPIPE anyway.)
    trap '' PIPE
    trap 'on_signal INT' INT
    trap 'on_signal TERM' TERM
    trap 'on_signal HUP' HUP
    trap shutdown EXIT

    [[ ${RESTART:-no} == no || ${RESTART:-no} == always ]] || die "RESTART must be no or always, not '$RESTART'"
    [[ -n ${SKIP_BOOTSTRAP:-} ]] || "$SCRIPTS_DIR/bootstrap.sh"
    require_cmd curl "run deploy/scripts/bootstrap.sh"
    locate_api_docs
    plan_processes
    check_ports
    start_database
    stop_if_requested
    build
    stop_if_requested
    start_all
    stop_if_requested
    wait_until_ready
    stop_if_requested
    supervise
    stop_if_requested
    warn "every process has exited"
    exit 1
}

main "$@"
