#!/usr/bin/env bash
# Installs what Backplane needs on a Debian machine, and only what is missing. Safe to run any
# number of times: a machine that has everything is checked in about a second and left alone.
#
#   deploy/scripts/bootstrap.sh
#
# Needs root or sudo when something must be installed. Installs:
#   - Debian packages: the C libraries the Swift targets link (ZeroMQ, Argon2, Cairo, Pango), pkg-config
#     (SwiftPM asks it where libzmq.pc lives), PostgreSQL with contrib (pg_trgm), curl, Pillow (python3-pil:
#     Tests/image-fixtures), chromium for the console test, docker-compose (Debian's v1, only to validate
#     docker-compose.yml), Java and tsc for the api-clients step, promtool (prometheus) for the alerts step, pgbackrest, haproxy (the upgrade drill).
#   - Python packages from the requirements files below (Swagger UI, pyzmq, pytest, aiosmtpd,
#     PyYAML, schemathesis, selenium, the client generators) with pip (--break-system-packages
#     where Debian's Python refuses plain pip installs).
# It does not install Swift: Debian does not package it (see https://www.swift.org/install/).
#
# Environment:
#   BOOTSTRAP_SKIP_APT=1   do not check/install Debian packages
#   BOOTSTRAP_SKIP_PIP=1   do not check/install Python packages
#   BOOTSTRAP_REQUIREMENTS="FILE..."  Python requirements files (default deploy/requirements.txt and
#                          Tests/{interop,api-fuzz,console,api-clients}/requirements.txt and
#                          deploy/otlp-standin/requirements.txt)
set -euo pipefail
LOG_TAG=bootstrap
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

APT_PACKAGES=(
    libzmq3-dev libargon2-dev libcairo2-dev libpango1.0-dev libxml2-dev libturbojpeg0-dev libpng-dev poppler-utils prometheus
    python3-pil chromium chromium-driver pkg-config postgresql postgresql-contrib curl docker-compose default-jre-headless node-typescript pgbackrest haproxy
)
read -r -a REQUIREMENTS <<<"${BOOTSTRAP_REQUIREMENTS:-$REPO_ROOT/deploy/requirements.txt $REPO_ROOT/Tests/interop/requirements.txt $REPO_ROOT/Tests/api-fuzz/requirements.txt $REPO_ROOT/Tests/console/requirements.txt $REPO_ROOT/Tests/api-clients/requirements.txt $REPO_ROOT/deploy/otlp-standin/requirements.txt}"

# Where the noisy output of apt/pip goes; shown only when something fails.
BOOTSTRAP_LOG=$(mktemp -t backplane-bootstrap.XXXXXX)
trap 'rm -f "$BOOTSTRAP_LOG"' EXIT

# run_quietly WHAT CMD...: runs CMD with its output in the log; on failure prints the log's tail.
run_quietly() {
    local what=$1
    shift
    if ! "$@" >>"$BOOTSTRAP_LOG" 2>&1; then
        tail -n 40 "$BOOTSTRAP_LOG" >&2
        die "$what failed (command: $*)"
    fi
}

is_installed() { [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]; }

ensure_apt_packages() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        warn "not a Debian-based system: install these yourself: ${APT_PACKAGES[*]}"
        return 0
    fi
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}"; do
        is_installed "$pkg" || missing+=("$pkg")
    done
    # pip comes from Debian only when the Python at hand has none (pyenv/venv Pythons bring their own).
    if [[ -z ${BOOTSTRAP_SKIP_PIP:-} ]] && ! python3 -m pip --version >/dev/null 2>&1; then
        missing+=(python3-pip)
    fi
    if ((${#missing[@]} == 0)); then
        info "Debian packages: all present"
        return 0
    fi
    info "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Wait for a concurrent apt/dpkg (e.g. unattended-upgrades) instead of failing at once.
    local apt_opts=(-o DPkg::Lock::Timeout=300 -y -q --no-install-recommends)
    run_quietly "apt-get update" as_root apt-get -o DPkg::Lock::Timeout=300 -q update
    run_quietly "apt-get install ${missing[*]}" as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get "${apt_opts[@]}" install "${missing[@]}"
    # Only promtool is wanted from prometheus: the daemon its package starts is stopped and disabled.
    [[ " ${missing[*]} " != *" prometheus "* ]] ||
        { as_root service prometheus stop && as_root update-rc.d prometheus disable; } >>"$BOOTSTRAP_LOG" 2>&1 || true
    info "installed: ${missing[*]}"
}

ensure_python_packages() {
    require_cmd python3 "install python3 (apt-get install python3)"
    local files=() file
    for file in "${REQUIREMENTS[@]}"; do
        if [[ -f $file ]]; then
            files+=("$file")
        else
            info "no ${file#"$REPO_ROOT"/}; skipping it"
        fi
    done
    local missing
    missing=$(python3 "$SCRIPTS_DIR/missing-requirements.py" "${files[@]}") || die "could not read ${files[*]:-requirements}"
    if [[ -z $missing ]]; then
        info "Python packages: all present"
        return 0
    fi
    info "installing Python packages: $(paste -sd " " <<<"$missing")"
    local reqfile
    reqfile=$(mktemp -t backplane-req.XXXXXX)
    printf '%s\n' "$missing" >"$reqfile"
    local pip=(python3 -m pip install -q --disable-pip-version-check -r "$reqfile")
    # Debian's own Python refuses pip installs outside a venv (PEP 668); this machine's packages
    # are the project's test tools, so fall back to --break-system-packages there.
    if ! PIP_ROOT_USER_ACTION=ignore "${pip[@]}" >>"$BOOTSTRAP_LOG" 2>&1; then
        if grep -q externally-managed-environment "$BOOTSTRAP_LOG"; then
            run_quietly "pip install" env PIP_ROOT_USER_ACTION=ignore "${pip[@]}" --break-system-packages
        else
            tail -n 40 "$BOOTSTRAP_LOG" >&2
            rm -f "$reqfile"
            die "pip install failed"
        fi
    fi
    rm -f "$reqfile"
    info "Python packages installed"
}

main() {
    [[ -n ${BOOTSTRAP_SKIP_APT:-} ]] || ensure_apt_packages
    [[ -n ${BOOTSTRAP_SKIP_PIP:-} ]] || ensure_python_packages
    command -v swift >/dev/null 2>&1 ||
        warn "swift not found: install a Swift 6 toolchain (https://www.swift.org/install/) and put it on PATH"
}

main "$@"
