#!/usr/bin/env bash
# tests/pi/build-root.sh — the Debian 13 amd64 build root tests/pi and scripts/package
# (--arch arm64) cross-build in, made once and cached in ${LECTOR_PI_CACHE:-~/.cache/lector/pi}:
#   $P/bare                   a bare trixie root (debootstrap minbase, ca-certificates)
#   $P/build                  a copy of it with scripts/setup run (swiftlang 6.0.3, the
#                             -dev packages), the source in /src/lector, and
#     /opt/arm64-sysroot      Debian 13 arm64 packages, unpacked (tests/pi/cross-build.sh)
#     /opt/swift-arm64        swiftlang_*_arm64.deb, unpacked (aarch64 stdlib, Foundation)
#   $P/kernel-amd64, $P/kernel-arm64   Debian 13's kernels, unpacked
# Each run syncs the source and re-runs scripts/setup (it installs only what is missing).
# usage: tests/pi/build-root.sh   (prints the build root's path last; needs root)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
P="${LECTOR_PI_CACHE:-$HOME/.cache/lector/pi}"
MIRROR="${LECTOR_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
log() { echo "[pi/build-root] $*" >&2; }
die() { echo "pi/build-root: $*" >&2; exit 1; }
mkdir -p "$P"
inroot() { "$here/in-root.sh" "$@"; }
sync_source() { mkdir -p "$1/src/lector"; rsync -a --delete --exclude .build --exclude '.build-*' --exclude .git --exclude dist "$repo/" "$1/src/lector/"; }

# ---- host tools --------------------------------------------------------------------------
need=(debootstrap qemu-system-x86 qemu-system-arm busybox-static cpio kmod xz-utils rsync binutils file python3)
missing=(); for p in "${need[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || die "installing host tools: ${missing[*]}"
fi

# ---- the bare trixie root ----------------------------------------------------------------
if [[ ! -f "$P/bare/.done" ]]; then
  log "debootstrap trixie into $P/bare"
  rm -rf "$P/bare" "$P/bare.tmp"
  debootstrap --variant=minbase --include=ca-certificates trixie "$P/bare.tmp" "$MIRROR" > "$P/debootstrap.log" 2>&1 \
    || { tail -5 "$P/debootstrap.log" >&2; die "debootstrap trixie (log: $P/debootstrap.log)"; }
  mv "$P/bare.tmp" "$P/bare"; touch "$P/bare/.done"
fi

# ---- the build root: setup, arm64 sysroot and Swift, kernels ----------------------------
R="$P/build"
if [[ ! -f "$R/.build-done" ]]; then
  rm -rf "$R"; cp -a "$P/bare" "$R"
fi
sync_source "$R"
log "scripts/setup in $R"
inroot "$R" sh -c 'cd /src/lector && scripts/setup' > "$P/setup.log" 2>&1 \
  || { tail -10 "$P/setup.log" >&2; die "scripts/setup in the build root (log: $P/setup.log)"; }
if [[ ! -f "$R/.build-done" ]]; then
  log "kernels, arm64 Swift, the arm64 sysroot"
  inroot "$R" sh -c 'dpkg --add-architecture arm64 && apt-get update -qq && mkdir -p /tmp/dl && cd /tmp/dl && chown _apt /tmp/dl;
    for a in amd64 arm64; do apt-get download "$(apt-cache depends linux-image-$a:$a | awk "/Depends: linux-image-[0-9]/{print \$2}" | head -1)"; done;
    apt-get download swiftlang:arm64' > "$P/dl.log" 2>&1 || { tail -5 "$P/dl.log" >&2; die "downloading kernels and arm64 Swift"; }
  for a in amd64 arm64; do rm -rf "$P/kernel-$a"; dpkg-deb -x "$R"/tmp/dl/linux-image-*_"$a".deb "$P/kernel-$a"; done
  rm -rf "$R/opt/swift-arm64"; dpkg-deb -x "$R"/tmp/dl/swiftlang_*_arm64.deb "$R/opt/swift-arm64"; rm -rf "$R/tmp/dl"
  # The arm64 sysroot: debootstrap's first stage fetches the packages; all are unpacked.
  rm -rf "$R/opt/arm64-sysroot"
  debootstrap --foreign --arch=arm64 --variant=minbase \
    --include=libtesseract-dev,libleptonica-dev,libjpeg62-turbo-dev,libv4l-dev,libcamera-dev,libc6-dev,libstdc++-14-dev,libgcc-14-dev,busybox-static,v4l-utils,tesseract-ocr-eng \
    trixie "$R/opt/arm64-sysroot" "$MIRROR" > "$P/arm64-debootstrap.log" 2>&1 || die "debootstrap arm64 (log: $P/arm64-debootstrap.log)"
  for d in "$R"/opt/arm64-sysroot/var/cache/apt/archives/*.deb; do dpkg-deb -x "$d" "$R/opt/arm64-sysroot"; done
  touch "$R/.build-done"
fi
# arm64 -dev packages added to the sysroot after it was first made (a root made before
# gets them here): debootstrap's first stage fetches them, all are unpacked. NAME is the
# stamp that says they are in.
sysroot_packages() {
  local name=$1 packages=$2 what=$3
  [[ -f "$R/.arm64-$name-done" ]] && return
  log "$what's arm64 -dev packages into the sysroot"
  local x="$P/arm64-$name"; rm -rf "$x"
  debootstrap --foreign --arch=arm64 --variant=minbase --include="$packages" \
    trixie "$x" "$MIRROR" > "$P/arm64-$name-debootstrap.log" 2>&1 || die "debootstrap arm64 $what (log: $P/arm64-$name-debootstrap.log)"
  for d in "$x"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$d" "$R/opt/arm64-sysroot"; done
  rm -rf "$x"; touch "$R/.arm64-$name-done"
}
# scripts/package --arch arm64 builds all four programs: the bridges, the networks
# (OpenCV's imgproc, ONNX Runtime), the rules' ICU, the history's SQLite, network
# cameras' FFmpeg, the codes' ZXing-C++ (without it pkg-config finds no `zxing` for
# arm64 and lectord is built without codes).
sysroot_packages onnx libmosquitto-dev,libmicrohttpd-dev,libopencv-imgproc-dev,libonnxruntime-dev "the bridges', OpenCV's and ONNX Runtime"
sysroot_packages icu libicu-dev "ICU"
sysroot_packages sqlite libsqlite3-dev "SQLite"
sysroot_packages ffmpeg libavformat-dev,libavcodec-dev,libswscale-dev,libavutil-dev "FFmpeg"
sysroot_packages zxing libzxing-dev "ZXing-C++"
echo "$R"
