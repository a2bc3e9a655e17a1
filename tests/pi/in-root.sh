#!/usr/bin/env bash
# tests/pi/in-root.sh — run a command inside a Debian root tree (chroot), with /proc,
# /sys and /dev mounted for the command's life and unmounted after, whatever happens.
#
# usage: tests/pi/in-root.sh ROOT COMMAND [ARGS...]
# The host's resolv.conf is copied in (apt needs it). Exit status: the command's.
set -uo pipefail
root="$1"; shift
[[ -d "$root/usr" ]] || { echo "in-root: $root is not a root tree" >&2; exit 2; }
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null; done; }
trap cleanup EXIT
for m in proc sys dev dev/pts; do
  mountpoint -q "$root/$m" && continue
  mkdir -p "$root/$m"
  case "$m" in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sysfs "$root/sys" ;;
    dev) mount --bind /dev "$root/dev" ;;
    dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;
  esac && mounted+=("$root/$m")
done
chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root LANG=C.UTF-8 OMP_THREAD_LIMIT=1 TERM=dumb "$@"
