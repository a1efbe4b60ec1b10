#!/usr/bin/env bash
# make test's docs step: what is generated is up to date and what is listed once agrees.
#
#   deploy/scripts/check-docs.sh BIN_DIR
#
# compose, k8s, Prometheus and the gateway against deploy/services.txt (check-services.py);
# docs/settings.md against the settings the executables in BIN_DIR declare (settings-doc.py
# --check); the benchmark tables against docs/bench/*.json (bench-report.py --check); the OpenAPI
# document against openapi-spec-validator, and against the latest release's for what would break
# its clients (api-compat.py); and those checks' own failing fixtures (pytest Tests/tooling).
set -euo pipefail
SCRIPTS=$(dirname "${BASH_SOURCE[0]}")
ROOT="$SCRIPTS/../.."
python3 "$SCRIPTS/check-services.py"
python3 "$SCRIPTS/settings-doc.py" --check --bin-dir "${1:?usage: check-docs.sh BIN_DIR}"
python3 "$SCRIPTS/bench-report.py" --check --no-charts
python3 -m openapi_spec_validator "$ROOT/services/gateway/GatewayService/openapi.yaml"
python3 "$SCRIPTS/api-compat.py"
python3 -m pytest -q -p no:cacheprovider "$ROOT/Tests/tooling"
