# shellcheck shell=bash
# Helpers shared by the scripts in deploy/scripts. Source it; it defines functions and
# REPO_ROOT and changes nothing else.
#
# Messages go to stderr so that a script's stdout stays usable (pg.sh url prints only the URL).

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
SCRIPTS_DIR="$REPO_ROOT/deploy/scripts"

# Name shown in front of every message, e.g. "[up]". Scripts set LOG_TAG before sourcing.
: "${LOG_TAG:=$(basename "$0" .sh)}"

# registry KIND...: the names deploy/services.txt lists with one of these kinds (broker, worker,
# gateway, tool), in its order, separated by spaces.
registry() {
    awk -v kinds=" $* " '!/^#/ && NF >= 2 && index(kinds, " " $2 " ") { printf "%s%s", sep, $1; sep = " " }' \
        "$REPO_ROOT/deploy/services.txt"
}

# `|| true`: a message that cannot be written (the reader of a pipe is gone) must not abort a
# script that is in the middle of cleaning up.
info() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2 || true; }
warn() { printf '[%s] warning: %s\n' "$LOG_TAG" "$*" >&2 || true; }
die() {
    printf '[%s] error: %s\n' "$LOG_TAG" "$*" >&2 || true
    exit 1
}

# renamed_variable OLD NEW: OLD is the former name of the variable NEW, in the same unit. Call it
# before NEW's default is applied. When OLD is set (not empty) and NEW is not, NEW takes OLD's
# value (exported if OLD is) and a warning names both; when both are set, NEW wins and the
# warning says OLD is ignored. Remove the call when OLD is no longer accepted.
renamed_variable() {
    local old=$1 new=$2
    [[ -n ${!old:-} ]] || return 0
    if [[ -n ${!new:-} ]]; then
        warn "$old is ignored: it is the former name of $new, which is set ($new=${!new})"
        return 0
    fi
    printf -v "$new" '%s' "${!old}"
    [[ $(declare -p "$old" 2>/dev/null) != "declare -"*x* ]] || export "${new?}"
    warn "$old is the former name of $new (same unit): using $new=${!new}; set $new instead"
}

# require_cmd NAME [HINT]: fail early with a useful message instead of a "command not found" later.
require_cmd() {
    command -v "$1" >/dev/null 2>&1 || die "'$1' not found${2:+: $2}"
}

# port_in_use PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
# Uses bash's /dev/tcp so it works without ss/netstat; the subshell keeps the fd from leaking.
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# free_port: prints a TCP port that nothing listens on, chosen at random below the kernel's
# ephemeral range (ip_local_port_range): a port the kernel hands out itself (bind to 0) can be
# taken by any outgoing connection between this choice and the server binding it.
free_port() {
    python3 - <<'EOF'
import random, socket
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
for _ in range(2000):
    port = random.randrange(10000, max(low, 11000))
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("no free port below the ephemeral range")
EOF
}

# gateway_requests PORT: the HTTP requests the gateway on 127.0.0.1:PORT has answered (its
# /metrics; the scrape itself is counted after it answers).
gateway_requests() {
    curl -fsS "http://127.0.0.1:$1/metrics" |
        awk '/^hb_requests_total[{ ]/ || /^hb_requests[{ ]/ { sum += $NF } END { print sum + 0 }'
}

# as_root CMD...: runs CMD as root, through sudo when we are not root.
as_root() {
    if [[ $EUID -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root to run '$*' (run as root or install sudo)"
    fi
}

# pid_alive PID: true while PID runs. Unlike `kill -0`, a zombie (exited, not yet reaped) counts
# as gone: that is what a supervisor waiting for its children, or for a killed postmaster, needs.
pid_alive() {
    local stat
    # Not $(<file): under set -e a failed open there would end the whole script.
    { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# isolated_system NAME: what a test script does before it starts up.sh for a system of its own
# (api-fuzz.sh, console-test.sh). It gives the system a database nothing else uses: a new one
# named NAME_<time>_<pid> in DATABASE_URL's cluster, or else a throwaway server under $OUT/pg.
# It picks free ports for HTTP, the broker and the event proxy, exports what up.sh reads (the
# binaries in $BIN_DIR, mail and data under $OUT, the admin ports off), and sets the traps that
# stop the system (UP_PID, once the caller starts it) and the throwaway server at exit.
# Needs OUT and BIN_DIR; sets PG_DIR, UP_PID, DATABASE_URL, HTTP_PORT.
isolated_system() {
    PG_DIR=""
    UP_PID=""
    trap isolated_system_stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if [[ -n ${DATABASE_URL:-} ]]; then
        local name
        name="$1_$(date +%s)_$$"
        psql "$DATABASE_URL" -qc "CREATE DATABASE $name" >/dev/null || die "could not create database $name"
        DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$DATABASE_URL" "$name")
    else
        PG_DIR="$OUT/pg"
        mkdir -p "$PG_DIR"
        local port
        port=$(free_port)
        PG_FAST=1 "$SCRIPTS_DIR/pg.sh" start "$PG_DIR" "$port" >/dev/null
        DATABASE_URL=$("$SCRIPTS_DIR/pg.sh" url "$PG_DIR" "$port")
    fi
    export DATABASE_URL
    HTTP_PORT=$(free_port)
    local broker xsub xpub
    broker=$(free_port)
    xsub=$(free_port)
    xpub=$(free_port)
    export HTTP_PORT SKIP_BUILD=1 SKIP_BOOTSTRAP=1 BACKPLANE_BIN_DIR=$BIN_DIR LOG_LEVEL=${LOG_LEVEL:-warning}
    export BROKER_BIND="tcp://127.0.0.1:$broker" BROKER_URL="tcp://127.0.0.1:$broker"
    export EVENTS_XSUB_BIND="tcp://127.0.0.1:$xsub" EVENTS_PUB_URL="tcp://127.0.0.1:$xsub"
    export EVENTS_XPUB_BIND="tcp://127.0.0.1:$xpub" EVENTS_SUB_URL="tcp://127.0.0.1:$xpub"
    export SMTP_PORT=$(free_port) SMTP_SINK_DIR="$OUT/mail" DATA_DIR="$OUT/data" CIVIC_STANDIN_PORT=$(free_port)
    # Its ports are free ones picked at random; the admin ports (a fixed range by default) stay off.
    export ADMIN_PORT_BASE=off
}

# The EXIT trap of isolated_system: the system, then its throwaway server.
isolated_system_stop() {
    trap '' PIPE
    if [[ -n ${UP_PID:-} ]]; then
        kill -TERM "$UP_PID" 2>/dev/null || true
        wait "$UP_PID" 2>/dev/null || true
    fi
    [[ -z ${PG_DIR:-} ]] || "$SCRIPTS_DIR/pg.sh" stop "$PG_DIR" >/dev/null 2>&1 || true
}
