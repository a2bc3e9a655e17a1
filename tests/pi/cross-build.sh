#!/bin/sh
# tests/pi/cross-build.sh — runs INSIDE the Debian 13 amd64 build root: builds Lector's
# programs for aarch64 with Debian's swiftlang (the amd64 compiler) against
#   /opt/arm64-sysroot   Debian 13 arm64 packages, unpacked (glibc, libstdc++, Tesseract,
#                        Leptonica, libjpeg, libv4l2, libcamera; OpenCV's imgproc and ONNX
#                        Runtime for the networks, libmosquitto and libmicrohttpd for the
#                        bridges, ZXing-C++ for the codes)
#   /opt/swift-arm64     swiftlang_*_arm64.deb, unpacked: the aarch64 standard library,
#                        Foundation and their static archives
# Swift's runtime is linked statically (--static-swift-stdlib); linked by lld.
# usage: cross-build.sh SOURCE-DIR [PRODUCT...]   (default: lectord; prints each
#        product's binary path, the last one last; tests/pi/build-root.sh makes the root)
set -eu
src=$1; shift
[ $# -gt 0 ] || set -- lectord
sysroot=/opt/arm64-sysroot
resources=/opt/swift-arm64/usr/libexec/swift/lib/swift_static   # --static-swift-stdlib: the static resource folder
export PKG_CONFIG_SYSROOT_DIR=$sysroot
export PKG_CONFIG_LIBDIR=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig
cd "$src"
for product in "$@"; do
  swift build -c release --static-swift-stdlib --product "$product" \
    --scratch-path .build-arm64 --triple aarch64-unknown-linux-gnu --sdk $sysroot \
    -Xswiftc -sdk -Xswiftc $sysroot -Xswiftc -resource-dir -Xswiftc $resources -Xswiftc -use-ld=lld \
    -Xcc --sysroot=$sysroot -Xcxx --sysroot=$sysroot -Xlinker --sysroot=$sysroot >&2
done
for product in "$@"; do echo "$src/.build-arm64/aarch64-unknown-linux-gnu/release/$product"; done
