#!/usr/bin/env bash
# vm/systemd/build-root.sh — a Debian root file system (the host's release: bookworm or trixie) with systemd as PID 1,
# for booting Lector's units under real systemd in qemu (see vm/systemd/boot.sh).
#
# Builds (once) with debootstrap --variant=minbase plus the packages below, adds the
# cached kernel's modules that vivid, virtio (disk, network) and ext4 need (depmod'ed), and sets up a
# passwordless root console, a hostname and a serial getty-free boot. The result is
# cached as a directory keyed on a hash of the package list, suite, kernel and LAYOUT:
#   $CACHE/sysroot-<hash>/            the root tree (read-only input for boot.sh)
#   $CACHE/sysroot-current            the path of the newest one
# Prints the root's path on stdout. LECTOR_VM_CACHE as in vm/setup.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
CACHE="${LECTOR_VM_CACHE:-$repo/.cache/vm}"
export LECTOR_VM_CACHE="$CACHE"
log() { echo "[vm/build-root] $*" >&2; }

# Runtime libraries of lectord/lector (tesseract, leptonica, libjpeg-turbo, libv4l2),
# the English model (libarchive13 and libcurl3-nss: lectord links them through
# tesseract's pkg-config flags), systemd + udev (device units for /dev/v4l/by-id), dbus (for
# systemctl/systemd-analyze), v4l-utils (vivid loop setup in the test), procps, kmod.
# The root is the host's Debian release, so that what the host builds runs in it:
# bookworm by default, trixie on Debian 13 (whose lectord also links libcamera 0.4 and
# libstdc++; t64-renamed libraries). OpenCV's core and imgproc: the text-line detector
# (CTextDetector) links them wherever the build found them, with ONNX Runtime (Debian
# 13's package; on Debian 12 scripts/install.sh puts PyPI's library beside lectord);
# ICU (the rules), SQLite (the history) and FFmpeg (network cameras).
# LECTOR_VM_SUITE=bookworm|trixie picks another release; LECTOR_VM_BARE=1 makes a bare
# root instead (systemd, udev, dbus, kmod, procps, ca-certificates, and the virtio
# network driver's module: a root to install Lector's packages into, which pull in the
# libraries themselves; tests/packages). Give such roots a LECTOR_VM_CACHE of their
# own: one root is kept per cache.
SUITE="${LECTOR_VM_SUITE:-$( . /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")}"
case "$SUITE" in
  trixie|forky|sid)
    SUITE=trixie
    PACKAGES=(systemd udev dbus kmod procps v4l-utils libv4l-0t64 libjpeg62-turbo
              libtesseract5 libleptonica6 tesseract-ocr-eng libarchive13t64 libcurl4t64
              libcamera0.4 libstdc++6 libopencv-core410 libopencv-imgproc410 libonnxruntime1.21
              libicu76 libsqlite3-0 libavformat61 libavcodec61 libswscale8 libavutil59 libzxing3) ;;
  *)
    SUITE=bookworm
    PACKAGES=(systemd udev dbus kmod procps v4l-utils libv4l-0 libjpeg62-turbo
              libtesseract5 liblept5 tesseract-ocr-eng libarchive13 libcurl3-nss
              libopencv-core406 libopencv-imgproc406 libicu72 libsqlite3-0
              libavformat59 libavcodec59 libswscale6 libavutil57 libzxing2) ;;
esac
# virtio_net: the guest's network card (vm/systemd/boot.sh --net), for a network camera
# on the host (tests/systemd) and for apt (tests/packages).
MODULES=(vivid virtio_pci virtio_blk ext4 virtio_net)
if [[ "${LECTOR_VM_BARE:-0}" == 1 ]]; then
  PACKAGES=(systemd udev dbus kmod procps ca-certificates)
fi
MIRROR="${LECTOR_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

"$repo/vm/setup.sh"
kver="$(cat "$CACHE/current-kver")"
kdir="$CACHE/kernel/$kver"
mbase="$(cat "$kdir/.modbase")"

# Bump LAYOUT when the steps below change what the root holds.
LAYOUT=2
key="$(echo "${PACKAGES[*]} $SUITE $kver layout=$LAYOUT${LECTOR_VM_BARE:+ bare=$LECTOR_VM_BARE}" | sha256sum | cut -c1-12)"
out="$CACHE/sysroot-$key"
if [[ -f "$out/.done" ]]; then
  echo "$out" > "$CACHE/sysroot-current"
  echo "$out"; exit 0
fi

command -v debootstrap >/dev/null || {
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap e2fsprogs >&2
}
command -v mkfs.ext4 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs >&2

start=$(date +%s)
rm -rf "$out" "$out.tmp"
log "debootstrap $SUITE (${PACKAGES[*]}) into $out.tmp"
debootstrap --variant=minbase --include="$(IFS=,; echo "${PACKAGES[*]}")" \
  "$SUITE" "$out.tmp" "$MIRROR" > "$CACHE/debootstrap.log" 2>&1 || {
  tail -30 "$CACHE/debootstrap.log" >&2; log "debootstrap failed (log: $CACHE/debootstrap.log)"; exit 1; }
r="$out.tmp"

# ---- kernel modules: vivid, the virtio disk, ext4 (and their dependencies) ----------
for m in "${MODULES[@]}"; do
  modprobe -d "$mbase" -S "$kver" --show-depends "$m" | while read -r cmd path _; do
    [[ "$cmd" == insmod ]] || continue
    rel="${path#"$mbase"}"; rel="lib/${rel#*/lib/}"
    mkdir -p "$r/usr/$(dirname "$rel")"
    cp -n "$path" "$r/usr/$rel"   # compressed (.ko.xz on Debian 13) is fine: kmod reads it
  done
done
cp "$mbase/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$r/usr/lib/modules/$kver/" 2>/dev/null || true
depmod -b "$r/usr" "$kver"

# ---- system settings ----------------------------------------------------------------
echo lector-vm > "$r/etc/hostname"
echo "127.0.1.1 lector-vm" >> "$r/etc/hosts"
sed -i 's/^root:[^:]*:/root::/' "$r/etc/shadow"              # console login without password
printf '/dev/vda / ext4 rw,noatime 0 1\n' > "$r/etc/fstab"
ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"       # no VGA console here
ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service" # ttyS0 carries the test output
ln -sf /dev/null "$r/etc/systemd/system/systemd-timesyncd.service" 2>/dev/null || true
ln -sf /dev/null "$r/etc/systemd/system/apt-daily.timer"
ln -sf /dev/null "$r/etc/systemd/system/apt-daily-upgrade.timer"
mkdir -p "$r/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$r/etc/systemd/journald.conf.d/volatile.conf"
rm -rf "$r/var/cache/apt/archives"/*.deb "$r/var/lib/apt/lists"/* "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/locale"
mv "$r" "$out"
for old in "$CACHE"/sysroot-*/; do [[ "${old%/}" == "$out" ]] || rm -rf "${old%/}"; done   # keep one
touch "$out/.done"
echo "$out" > "$CACHE/sysroot-current"
log "root ready in $(( $(date +%s) - start )) s: $out ($(du -sh "$out" | cut -f1))"
echo "$out"
