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

# `|| true`: a message that cannot be written (the reader of a pipe is gone) must not abort a
# script that is in the middle of cleaning up.
info() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2 || true; }
warn() { printf '[%s] warning: %s\n' "$LOG_TAG" "$*" >&2 || true; }
die() {
    printf '[%s] error: %s\n' "$LOG_TAG" "$*" >&2 || true
    exit 1
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
