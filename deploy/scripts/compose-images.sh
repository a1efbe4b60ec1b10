#!/usr/bin/env bash
# compose-test.sh's first step: the tools it needs (podman, runc, docker-compose, CNI plugins,
# installed with apt when missing) and its images.
#
#   deploy/scripts/compose-images.sh [all|images|run]
#
# Images: a Debian bookworm base made with debootstrap (cached in .data/containers); PostgreSQL
# 15, Python and HAProxy images from Debian's packages in place of postgres:15, python:3.12-slim
# and haproxy:2.8 (compose.override.yml in deploy/compose-test swaps only those `image:` lines);
# the project's image from deploy/Dockerfile with STAGING=prebuilt (the executables of
# IMAGE_BIN_DIR, else of the release build, staged by stage-prebuilt.sh). With `run`, images
# that exist are kept. Reads compose-test.sh's settings (SKIP_BUILD, IMAGE_BIN_DIR).
set -euo pipefail
LOG_TAG=containers
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PHASE=${1:-all}
OUT="$REPO_ROOT/.data/compose-test"
CACHE="$REPO_ROOT/.data/containers"
TEST_DIR="$REPO_ROOT/deploy/compose-test"
mkdir -p "$OUT" "$CACHE"
export CONTAINERS_CONF="$TEST_DIR/containers.conf"

missing=()
for tool in podman:podman runc:runc debootstrap:debootstrap docker-compose:docker-compose; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
[[ -e /usr/lib/cni/bridge || -e /usr/libexec/cni/bridge ]] || missing+=(containernetworking-plugins)
# Service names resolve on a compose network through CNI's dnsname plugin.
[[ -e /usr/lib/cni/dnsname ]] || missing+=(golang-github-containernetworking-plugin-dnsname)
# `init: true` in docker-compose.yml: podman's init process.
[[ -x /usr/libexec/podman/catatonit ]] || missing+=(catatonit)
if ((${#missing[@]} > 0)); then
    info "installing ${missing[*]} (apt)"
    as_root apt-get -q update >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
        "${missing[@]}" uidmap slirp4netns fuse-overlayfs >/dev/null
fi
require_cmd podman
require_cmd docker-compose

started=$SECONDS
if ! podman image exists localhost/debian:bookworm; then
    if [[ ! -s $CACHE/debian-bookworm.tar ]]; then
        # The mirror apt already uses, so the test needs no other network.
        mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
        mirror=${mirror:-$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)}
        mirror=${mirror:-http://deb.debian.org/debian}
        info "building the Debian bookworm base with debootstrap from $mirror"
        rm -rf "$CACHE/rootfs"
        as_root debootstrap --variant=minbase bookworm "$CACHE/rootfs" "$mirror" >"$OUT/debootstrap.log" 2>&1 ||
            die "debootstrap failed; see $OUT/debootstrap.log"
        tar -C "$CACHE/rootfs" -cf "$CACHE/debian-bookworm.tar.partial" .
        mv "$CACHE/debian-bookworm.tar.partial" "$CACHE/debian-bookworm.tar"
        rm -rf "$CACHE/rootfs"
    fi
    podman import -q "$CACHE/debian-bookworm.tar" localhost/debian:bookworm >/dev/null
fi
for image in postgres:15 python:3 haproxy:2; do
    name=${image%%:*}
    [[ $PHASE == run ]] && podman image exists "localhost/backplane-test/$image" && continue
    podman build -q -f "$TEST_DIR/$name.Containerfile" -t "localhost/backplane-test/$image" "$TEST_DIR" >/dev/null ||
        die "building the $name test image failed"
done
if [[ -n ${IMAGE_BIN_DIR:-} ]]; then
    [[ -x $IMAGE_BIN_DIR/gateway ]] || die "IMAGE_BIN_DIR=$IMAGE_BIN_DIR has no gateway executable"
    info "the image's executables: $IMAGE_BIN_DIR (no release build)"
else
    if [[ -z ${SKIP_BUILD:-} ]]; then
        info "swift build -c release"
        (cd "$REPO_ROOT" && swift build -c release 2>&1 | tail -n 3) || die "the release build failed"
    fi
    IMAGE_BIN_DIR=$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)
fi
if [[ $PHASE != run ]] || ! podman image exists localhost/backplane:latest; then
    "$SCRIPTS_DIR/stage-prebuilt.sh" "$IMAGE_BIN_DIR"
    info "building localhost/backplane:latest (deploy/Dockerfile, STAGING=prebuilt)"
    commit=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    (cd "$REPO_ROOT" && podman build -q -f deploy/Dockerfile --build-arg STAGING=prebuilt \
        --build-arg RUNTIME_IMAGE=localhost/debian:bookworm --build-arg "BACKPLANE_COMMIT=$commit" \
        -t localhost/backplane:latest . >/dev/null) ||
        die "building the image failed"
fi
image_size=$(podman image inspect localhost/backplane:latest --format '{{.Size}}')
info "images ready in $((SECONDS - started)) s; backplane:latest is $((image_size / 1000000)) MB"
