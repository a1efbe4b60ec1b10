#!/usr/bin/env bash
# Puts Swagger UI's two files (and its licence) that the gateway serves at /docs into one folder,
# from the PyPI package swagger-ui-bundle-v2 of deploy/requirements.txt: the installed copy when
# python3 has it, else one pip installs into a temporary folder.
#
#   deploy/scripts/api-docs.sh DIR
#
# Used by the image (deploy/Dockerfile's build stage, stage-prebuilt.sh): the runtime image
# carries the files, not pip.
set -euo pipefail
LOG_TAG=api-docs
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[[ $# == 1 ]] || die "usage: $0 DIR"
target=$1
locate='import swagger_ui_bundle, pathlib; print(swagger_ui_bundle.swagger_ui_path)'
folder=$(python3 -c "$locate" 2>/dev/null) || folder=""
pythonpath=""
if [[ -z $folder ]]; then
    pythonpath=$(mktemp -d)
    trap 'rm -rf "$pythonpath"' EXIT
    python3 -m pip install -q --disable-pip-version-check --no-cache-dir --target "$pythonpath" \
        -r "$REPO_ROOT/deploy/requirements.txt" || die "pip could not install deploy/requirements.txt"
    folder=$(PYTHONPATH=$pythonpath python3 -c "$locate") || die "swagger-ui-bundle-v2 has no swagger_ui_path"
fi
[[ -f $folder/swagger-ui-bundle.js && -f $folder/swagger-ui.css ]] || die "no Swagger UI files in $folder"
mkdir -p "$target"
cp "$folder/swagger-ui-bundle.js" "$folder/swagger-ui.css" "$target/"
licence=$(PYTHONPATH=$pythonpath python3 - <<'PY'
import importlib.metadata as m
files = m.distribution("swagger-ui-bundle-v2").files or []
hits = [f for f in files if f.name.upper().startswith("LICEN")]
print(hits[0].locate() if hits else "")
PY
) || licence=""
[[ -n $licence && -f $licence ]] && cp "$licence" "$target/LICENSE"
info "Swagger UI's files in $target"
