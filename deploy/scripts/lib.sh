# shellcheck shell=bash
# Helpers every script in deploy/scripts sources: it defines functions, REPO_ROOT and SCRIPTS_DIR
# and changes nothing else. Messages go to stderr, so that a script's stdout stays usable (pg.sh
# url prints only the URL). A system of its own for a test script: system-run.sh.

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
require_cmd() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found${2:+: $2}"; }

# registry KIND...: the names deploy/services.txt lists with one of these kinds (broker, worker,
# gateway, tool), in its order, separated by spaces.
registry() {
    awk -v kinds=" $* " '!/^#/ && NF >= 2 && index(kinds, " " $2 " ") { printf "%s%s", sep, $1; sep = " " }' \
        "$REPO_ROOT/deploy/services.txt"
}

# renamed_variable OLD NEW: OLD is the former name of NEW, in the same unit; call it before NEW's
# default is applied. When only OLD is set, NEW takes its value (exported if OLD is), with a
# warning naming both; when both are set, NEW wins and the warning says OLD is ignored.
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

# port_in_use PORT: something accepts TCP connections on 127.0.0.1:PORT (bash's /dev/tcp: no
# ss or netstat needed; the subshell keeps the fd from leaking).
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port: prints a TCP port nothing listens on (free-port.py says how it is chosen).
free_port() { python3 "$SCRIPTS_DIR/free-port.py"; }

# pid_alive PID: true while PID runs. Unlike `kill -0`, a zombie (exited, not yet reaped) counts
# as gone: that is what a supervisor waiting for its children, or for a killed postmaster, needs.
pid_alive() {
    local stat
    # Not $(<file): under set -e a failed open there would end the whole script.
    { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
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
