#!/usr/bin/env bash
# Gathers executables built on this host (release, or make test's debug build) into
# deploy/prebuilt/ for deploy/Dockerfile's
# STAGING=prebuilt: the executables, SwiftPM's resource bundles beside them, the Swift runtime
# libraries they load (they find them beside themselves: their RUNPATH has $ORIGIN), the
# backtracer, Swagger UI's files for /docs (api-docs.sh) and printing's gazetteer (deploy/scripts/gazetteer.sh; PyPI or an earlier copy in
# .data/gazetteer). The executables lose their debugging information (strip --strip-debug), not
# their symbols. The host must run Debian bookworm, like the runtime image (same glibc).
#
#   deploy/scripts/stage-prebuilt.sh [BIN_DIR]     (default: swift build -c release --show-bin-path)
#
# BIN_DIR may be a symbolic link (.build/debug): the resource bundles are found through it.
#
# It does not build: run `swift build -c release` first (make compose-test does).
set -euo pipefail
LOG_TAG=stage
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

EXECUTABLES=$(registry broker worker gateway tool)
BIN_DIR=${1:-$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)}
OUT="$REPO_ROOT/deploy/prebuilt"
SWIFT_LIBS=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift/linux
SWIFT_LIBS=$(readlink -f "$SWIFT_LIBS")

find "$OUT" -mindepth 1 ! -name .gitignore -exec rm -rf {} +
for exe in $EXECUTABLES; do
    [[ -x $BIN_DIR/$exe ]] || die "$BIN_DIR/$exe is missing: run swift build -c release first"
    cp "$BIN_DIR/$exe" "$OUT/"
    # Without the DWARF (half the size); the symbol table stays, so crash backtraces keep names.
    strip --strip-debug "$OUT/$exe"
done
find -H "$BIN_DIR" -maxdepth 1 -name '*.resources' -exec cp -R {} "$OUT/" \;
# Printing's gazetteer (GeoNames cities of 15,000 people or more), as the toolchain stage makes it.
"$SCRIPTS_DIR/gazetteer.sh" "$REPO_ROOT/.data/gazetteer/cities15000.tsv"
mkdir -p "$OUT/gazetteer"
cp "$REPO_ROOT/.data/gazetteer/cities15000.tsv" "$OUT/gazetteer/"
# Swagger UI's files for the gateway's /docs, as the toolchain stage gathers them.
"$SCRIPTS_DIR/api-docs.sh" "$OUT/api-docs"
# The Swift runtime libraries the executables load (ldd follows their dependencies too).
for exe in $EXECUTABLES; do ldd "$BIN_DIR/$exe"; done |
    awk -v dir="$SWIFT_LIBS/" 'index($3, dir) == 1 { print $3 }' | sort -u |
    while read -r lib; do cp "$lib" "$OUT/"; done
backtracer="$SWIFT_LIBS/../../../libexec/swift/linux/swift-backtrace-static"
[[ -x $backtracer ]] && cp "$backtracer" "$OUT/"
info "staged $(find "$OUT" -maxdepth 1 -type f ! -name .gitignore | wc -l) files, $(du -sh "$OUT" | cut -f1), in $OUT"
