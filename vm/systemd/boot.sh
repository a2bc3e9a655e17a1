#!/usr/bin/env bash
# vm/systemd/boot.sh — boot a root file system tree with systemd as PID 1 under qemu
# TCG (the cached Debian kernel of vm/setup.sh), and relay what the guest prints
# between LECTOR-VM-BEGIN and LECTOR-VM-EXIT <code> on its serial console.
#
# usage: vm/systemd/boot.sh [--memory MB] [--smp N] [--timeout SEC] [--net] [--free-mb MB] [--verbose] ROOT_DIR
#   ROOT_DIR   the tree to boot (made from vm/systemd/build-root.sh's root); it is packed
#              into a fresh ext4 image with mkfs.ext4 -d (no loop mount), never changed.
#              Something in it must print the markers on /dev/ttyS0 and power off.
#   --timeout  the host kills qemu after SEC seconds (default 600)
#   --net      a network card (virtio) on qemu's user-mode network: NAT to the host's
#              network, DHCP and DNS at 10.0.2.3 (the root configures it)
#   --free-mb  free space in the root image beyond the tree (default 512)
#
# A tiny busybox initramfs loads virtio_pci, virtio_blk and ext4, mounts /dev/vda and
# switch_roots to /lib/systemd/systemd. Exit status: the guest's code; 124 host timeout;
# 125 no marker. Full serial log: $CACHE/last-systemd-console.log.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
CACHE="${LECTOR_VM_CACHE:-$repo/.cache/vm}"
export LECTOR_VM_CACHE="$CACHE"
die() { echo "[vm/systemd/boot] error: $*" >&2; exit 125; }
log() { echo "[vm/systemd/boot] $*" >&2; }
memory=1536; smp=2; timeout_s=600; verbose=0; net=(-nic none); free_mb=512
while (($#)); do
  case "$1" in
    --memory) memory="$2"; shift 2 ;;
    --smp) smp="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --verbose) verbose=1; shift ;;
    --net) net=(-nic user,model=virtio-net-pci); shift ;;
    --free-mb) free_mb="$2"; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
(($# == 1)) || die "usage: boot.sh [options] ROOT_DIR"
rootdir="$1"
[[ -x "$rootdir/lib/systemd/systemd" ]] || die "$rootdir has no /lib/systemd/systemd"

"$repo/vm/setup.sh"
kver="$(cat "$CACHE/current-kver")"
kdir="$CACHE/kernel/$kver"
mbase="$(cat "$kdir/.modbase")"
work="$(mktemp -d "${TMPDIR:-/tmp}/lector-sdvm.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# ---- root image ---------------------------------------------------------------------
t0=$(date +%s)
size_mb=$(( $(du -sm "$rootdir" | cut -f1) + free_mb ))
mkfs.ext4 -q -F -L lector-root -E root_owner=0:0 -d "$rootdir" "$work/root.img" "${size_mb}M" \
  || die "mkfs.ext4 -d failed"
log "root image: ${size_mb} MB in $(( $(date +%s) - t0 )) s"

# ---- initramfs: load the disk and ext4 modules, switch to systemd --------------------
ir="$work/initramfs"
mkdir -p "$ir"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$(command -v busybox)" "$ir/bin/busybox"
for a in sh mount umount insmod switch_root mkdir sleep echo cat; do ln -s busybox "$ir/bin/$a"; done
: > "$ir/modules"
for m in virtio_pci virtio_blk ext4; do
  modprobe -d "$mbase" -S "$kver" --show-depends "$m" | while read -r cmd path _; do
    [[ "$cmd" == insmod ]] || continue
    b="$(basename "$path")"; b="${b%.xz}"; b="${b%.zst}"
    grep -qxF "/lib/modules/$b" "$ir/modules" && continue
    case "$path" in   # Debian 13's .ko.xz: busybox's insmod needs them uncompressed
      *.xz) xz -dc "$path" > "$ir/lib/modules/$b" ;;
      *.zst) zstd -qdc "$path" > "$ir/lib/modules/$b" ;;
      *) cp "$path" "$ir/lib/modules/$b" ;;
    esac
    echo "/lib/modules/$b" >> "$ir/modules"
  done
done
cat > "$ir/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r ko; do insmod "$ko" || echo "LECTOR-VM-ERROR insmod $ko"; done < /modules
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o rw /dev/vda /newroot || { echo "LECTOR-VM-ERROR cannot mount /dev/vda"; echo "LECTOR-VM-EXIT 125"; exec sh; }
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /lib/systemd/systemd
INIT
chmod +x "$ir/init"
( cd "$ir" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet ) > "$work/initramfs.cpio"

# ---- boot ----------------------------------------------------------------------------
qemu=(qemu-system-x86_64 -accel tcg -cpu max -m "$memory" -smp "$smp"
      -nodefaults -no-user-config -display none -serial stdio -no-reboot
      -kernel "$kdir/boot/vmlinuz-$kver" -initrd "$work/initramfs.cpio"
      -drive "file=$work/root.img,format=raw,if=virtio" "${net[@]}"
      -append "console=ttyS0 quiet loglevel=3 systemd.show_status=0 panic=-1 rdinit=/init")
logf="$work/console.log"
start=$(date +%s)
set +e
# Escape sequences are taken out: Debian 13's systemd resets the console before the
# guest's first line (ESC [!p, ESC ] 104 BEL, ESC [?7h).
timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 | tee "$logf" | \
  awk -v verbose="$verbose" '
    { sub(/\r$/, ""); gsub(/\033\[[0-9;?!]*[A-Za-z]|\033\][0-9;]*\007/, "") }
    verbose { print; fflush(); next }
    /^LECTOR-VM-BEGIN$/ { inside = 1; next }
    /^LECTOR-VM-EXIT / { print; fflush(); inside = 0; next }
    /LECTOR-VM-ERROR|Kernel panic|qemu-system/ { print > "/dev/stderr"; fflush("/dev/stderr"); next }
    inside { print; fflush() }'
qrc=${PIPESTATUS[0]}
set -e
cp "$logf" "$CACHE/last-systemd-console.log"
log "qemu finished in $(( $(date +%s) - start )) s (log: $CACHE/last-systemd-console.log)"
marker="$(tr -d '\r' < "$logf" | grep -E '^LECTOR-VM-EXIT [0-9]+$' | tail -1 || true)"
[[ -n "$marker" ]] && exit "${marker#LECTOR-VM-EXIT }"
((qrc == 124 || qrc == 137)) && { log "host timeout (${timeout_s} s) hit"; exit 124; }
log "no exit marker from the guest (qemu status $qrc)"
exit 125
