#!/usr/bin/env bash
# tests/pi/vm.sh — boot a guest script under qemu TCG on Debian 13's kernel, for amd64
# or arm64, from an initramfs made of files taken from a Debian root (the sysroot):
# busybox, the given binaries with every library they need (tests/pi/elf-closure.py),
# files, and kernel modules. vm/run.sh's markers and exit codes.
#
# usage: tests/pi/vm.sh --arch amd64|arm64 --sysroot DIR --kernel DIR [options] SCRIPT [ARGS]
#   --sysroot DIR        Debian root the guest's files come from (arm64 files from its
#                        multiarch folders: /usr/lib/aarch64-linux-gnu)
#   --kernel DIR         an unpacked linux-image package (boot/vmlinuz-*, usr/lib/modules)
#   --busybox PATH       busybox (static) for the guest's architecture (a host path)
#   --binary PATH        an executable inside the sysroot, with its libraries (repeatable)
#   --host-binary P:D    a host executable P (built elsewhere) at guest path D; its
#                        libraries come from the sysroot (repeatable)
#   --file SRC:DEST      a host file or folder at guest path DEST (repeatable)
#   --root-file PATH     a sysroot file or folder at the same guest path (repeatable)
#   --module NAME        load kernel module NAME (and what it depends on) (repeatable)
#   --module-options "NAME OPTS"  options for one module
#   --memory MB, --smp N, --timeout SEC (guest script; the host adds 300 s for boot)
# The guest's output between LECTOR-VM-BEGIN and LECTOR-VM-EXIT is printed; exit status:
# the script's, 124 host timeout, 125 no marker. Full log: $LOG (default /tmp/lector-pi-vm.log).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { echo "[pi/vm] error: $*" >&2; exit 125; }
arch=""; sysroot=""; kernel=""; busybox=""; binaries=(); hostbins=(); files=(); rootfiles=(); modules=()
declare -A modopts=()
memory=1024; smp=2; timeout_s=600
while (($#)); do
  case "$1" in
    --arch) arch="$2"; shift 2 ;;
    --sysroot) sysroot="${2%/}"; shift 2 ;;
    --kernel) kernel="${2%/}"; shift 2 ;;
    --busybox) busybox="$2"; shift 2 ;;
    --binary) binaries+=("$2"); shift 2 ;;
    --host-binary) hostbins+=("$2"); shift 2 ;;
    --file) files+=("$2"); shift 2 ;;
    --root-file) rootfiles+=("$2"); shift 2 ;;
    --module) modules+=("$2"); shift 2 ;;
    --module-options) modopts["${2%% *}"]="${2#* }"; shift 2 ;;
    --memory) memory="$2"; shift 2 ;;
    --smp) smp="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
(($#)) || die "no guest script"
script="$1"; shift
[[ -d "$sysroot/usr" && -d "$kernel/boot" && -x "$busybox" ]] || die "need --sysroot, --kernel and --busybox"
vmlinuz="$(ls "$kernel"/boot/vmlinuz-* | head -1)"
kver="${vmlinuz##*/vmlinuz-}"
mbase="$kernel/usr/lib/modules/$kver"
[[ -f "$mbase/modules.dep" ]] || depmod -b "$kernel/usr" "$kver" 2>/dev/null || depmod -b "$kernel" "$kver"
work="$(mktemp -d "${TMPDIR:-/tmp}/lector-pi-vm.XXXXXX")"
trap 'rm -rf "$work"' EXIT
r="$work/root"
mkdir -p "$r"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,run,lector,etc,root}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$r/$d"; done
mknod -m 600 "$r/dev/console" c 5 1 2>/dev/null || true
put() {  # put SRC DEST: a copy (symlinks followed), never written through a link
  mkdir -p "$r$(dirname "$2")"; rm -rf "$r$2"; cp -a -L "$1" "$r$2"
}
closure() {  # closure IN-ROOT-PATH...: the files and their libraries, from the sysroot
  local f
  while read -r f; do [[ -e "$r$f" ]] || put "$sysroot$f" "$f"; done \
    < <(python3 "$here/elf-closure.py" "$sysroot" "$@") || die "libraries missing for $*"
}
put "$busybox" /usr/bin/busybox
for a in sh mount umount insmod mkdir sleep echo cat grep sed awk timeout poweroff dmesg sync ls cut \
         tr wc head tail date kill ps uname rm cp mv test env seq printf find xargs tee; do
  ln -sf busybox "$r/usr/bin/$a"
done
for b in "${binaries[@]}"; do closure "$b"; done
for hb in "${hostbins[@]}"; do
  src="${hb%%:*}"; dest="${hb#*:}"
  cp "$src" "$sysroot/tmp/.lector-closure-$$"
  closure "/tmp/.lector-closure-$$"
  rm -f "$sysroot/tmp/.lector-closure-$$" "$r/tmp/.lector-closure-$$"
  put "$src" "$dest"
done
for f in "${rootfiles[@]}"; do put "$sysroot$f" "$f"; done
for f in "${files[@]}"; do put "${f%%:*}" "${f#*:}"; done
: > "$r/lector/modules"
for m in "${modules[@]}"; do
  deps="$(modprobe -d "$kernel/usr" -S "$kver" --show-depends "$m" 2>/dev/null || modprobe -d "$kernel" -S "$kver" --show-depends "$m")" \
    || die "kernel module $m not found"
  while read -r cmd path _; do
    [[ "$cmd" == insmod ]] || continue
    b="$(basename "$path")"; b="${b%.xz}"; b="${b%.zst}"
    grep -q "/$b\$" "$r/lector/modules" && continue
    case "$path" in
      *.xz) xz -dc "$path" > "$r/lector/$b" ;;
      *.zst) zstd -qdc "$path" > "$r/lector/$b" ;;
      *) cp "$path" "$r/lector/$b" ;;
    esac
    name="${b%.ko}"; echo "/lector/$b ${modopts[$name]:-}" >> "$r/lector/modules"
  done <<<"$deps"
done
put "$script" /lector/guest
chmod +x "$r/lector/guest"
{ printf 'TIMEOUT=%s\nset --' "$timeout_s"; for a in "$@"; do printf " '%s'" "${a//\'/\'\\\'\'}"; done; printf '\n'; } > "$r/lector/config"
cat > "$r/init" <<'INIT'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LECTOR_VM=1
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm
chmod 1777 /tmp
exec </dev/console >/dev/console 2>&1
. /lector/config
while read -r ko opts; do
  # shellcheck disable=SC2086
  insmod "$ko" $opts || echo "LECTOR-VM-ERROR insmod $ko $opts failed"
done < /lector/modules
echo 2 > /proc/sys/kernel/printk
echo "LECTOR-VM-BEGIN"
cd /
timeout "$TIMEOUT" /lector/guest "$@"
rc=$?
echo "LECTOR-VM-EXIT $rc"
sync; sleep 1; poweroff -f
INIT
chmod +x "$r/init"
( cd "$r" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet ) > "$work/initramfs.cpio"
echo "[pi/vm] initramfs $(( $(stat -c %s "$work/initramfs.cpio") / 1048576 )) MB, kernel $kver ($arch)" >&2
case "$arch" in
  amd64) qemu=(qemu-system-x86_64 -accel tcg -cpu max -serial stdio) ; console=ttyS0 ;;
  arm64) qemu=(qemu-system-aarch64 -M virt -cpu max -accel tcg -serial stdio) ; console=ttyAMA0 ;;
  *) die "--arch amd64 or arm64" ;;
esac
qemu+=(-m "$memory" -smp "$smp" -nodefaults -no-user-config -display none -no-reboot
       -kernel "$vmlinuz" -initrd "$work/initramfs.cpio" -append "console=$console quiet panic=-1 rdinit=/init")
log="${LOG:-/tmp/lector-pi-vm.log}"
set +e
timeout -k 5 $((timeout_s + 300)) "${qemu[@]}" </dev/null 2>&1 | tee "$log" | awk '
  { sub(/\r$/, "") }
  /^LECTOR-VM-BEGIN$/ { inside = 1; next }
  /^LECTOR-VM-EXIT / { print; fflush(); inside = 0; next }
  /LECTOR-VM-ERROR|Kernel panic/ { print > "/dev/stderr"; next }
  /^\[ *[0-9]+\.[0-9]+\] / { next }
  inside { print; fflush() }'
qrc=${PIPESTATUS[0]}
set -e
marker="$(tr -d '\r' < "$log" | grep -E '^LECTOR-VM-EXIT [0-9]+$' | tail -1 || true)"
[[ -n "$marker" ]] && exit "${marker#LECTOR-VM-EXIT }"
((qrc == 124 || qrc == 137)) && exit 124
exit 125
