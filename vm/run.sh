#!/usr/bin/env bash
# vm/run.sh — run a guest script in a real Debian kernel (qemu TCG) with vivid loaded.
#
# usage: vm/run.sh [options] GUEST_SCRIPT [ARGS...]
#   --binary PATH         copy PATH into the guest at the same absolute path, with every
#                         library ldd lists (same paths) and the dynamic loader (repeatable)
#   --file SRC:DEST       copy host file or directory SRC to guest path DEST (repeatable)
#   --vivid-options OPTS  module options for vivid, e.g. "n_devs=1 node_types=0x101"
#   --no-vivid            do not load vivid (nor its dependencies)
#   --module NAME         also load kernel module NAME and its dependencies (repeatable)
#   --out DIR             files the guest writes under /out (also $LECTOR_OUT) are copied
#                         to host DIR after the run (through a virtio disk, as a tar)
#   --memory MB           guest RAM (default 2048: the initramfs holds lectord and every
#                         library it links, about 240 MB with FFmpeg, ICU and ONNX Runtime)
#   --smp N               guest vCPUs (default 2)
#   --timeout SEC         guest script timeout (default 300); the host kills qemu at
#                         SEC + ${LECTOR_VM_BOOT_ALLOWANCE:-120} s
#   --verbose             stream the whole serial console, not only the script's output
#
# The guest script is executed (its #! line decides; busybox sh is /bin/sh) from /,
# with PATH=/usr/sbin:/usr/bin:/sbin:/bin, LECTOR_VM=1, and ARGS as arguments.
# Guest has busybox applets, v4l2-ctl, v4l2-compliance and whatever --binary/--file add.
#
# Exit status: the guest script's exit code (busybox timeout reports a killed script as
# 143); 124 if the host-side timeout hit; 125 if the exit marker is missing (kernel panic,
# module load failure, guest crash) or on a harness error.
# Full serial log: $CACHE/last-console.log (CACHE = ${LECTOR_VM_CACHE:-<repo>/.cache/vm}).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
CACHE="${LECTOR_VM_CACHE:-$repo/.cache/vm}"
export LECTOR_VM_CACHE="$CACHE"

die() { echo "[vm/run] error: $*" >&2; exit 125; }
log() { echo "[vm/run] $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 125; }

# ---- arguments --------------------------------------------------------------------
binaries=(); files=(); modules=(); vivid=1; vivid_opts=""
outdir=""; memory=2048; smp=2; timeout_s=300; verbose=0
allowance="${LECTOR_VM_BOOT_ALLOWANCE:-120}"   # boot + shutdown time on top of --timeout
while (($#)); do
  case "$1" in
    --binary) binaries+=("$2"); shift 2 ;;
    --file) files+=("$2"); shift 2 ;;
    --vivid-options) vivid_opts="$2"; shift 2 ;;
    --no-vivid) vivid=0; shift ;;
    --module) modules+=("$2"); shift 2 ;;
    --out) outdir="$2"; shift 2 ;;
    --memory) memory="$2"; shift 2 ;;
    --smp) smp="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --verbose) verbose=1; shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
(($#)) || usage
script="$1"; shift
[[ -f "$script" ]] || die "guest script not found: $script"

# ---- kernel (setup.sh is idempotent and quick when everything is cached) ----------
"$here/setup.sh"
kver="$(cat "$CACHE/current-kver")"
kdir="$CACHE/kernel/$kver"
mbase="$(cat "$kdir/.modbase")"          # dir holding lib/modules/$kver
vmlinuz="$kdir/boot/vmlinuz-$kver"

work="$(mktemp -d "${TMPDIR:-/tmp}/lector-vm.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"

# ---- initramfs tree -----------------------------------------------------------------
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,run,out,lector,etc}
# Mirror the host's usrmerge symlinks so ldd paths (/lib/...) and /usr/lib/... both work.
for d in bin sbin lib lib64; do
  if [[ -L "/$d" ]]; then ln -s "$(readlink "/$d")" "$root/$d"; else mkdir -p "$root/$d"; fi
done
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true   # early console for /init

# put SRC at guest path DEST (never write through a symlink into the host!)
put() {
  local src="$1" dest="$2"
  mkdir -p "$root$(dirname "$dest")"
  rm -rf "$root$dest"
  cp -a -L "$src" "$root$dest"
}

# put an executable plus its shared libraries (as ldd resolves them on the host)
put_exe() {
  local exe="$1" lib out
  put "$exe" "$exe"
  out="$(ldd "$exe" 2>&1)" || return 0       # static binary or script: nothing to add
  if grep -q 'not found' <<<"$out"; then die "ldd $exe: missing libraries:
$out"; fi
  while read -r lib; do
    [[ -e "$root$lib" ]] || put "$lib" "$lib"
  done < <(awk '/=> \// {print $3} /^[ \t]*\// {print $1}' <<<"$out")
}

# busybox and its applets
put "$(command -v busybox)" /bin/busybox
while read -r applet; do
  [[ -e "$root/$applet" || -L "$root/$applet" ]] || ln -s /bin/busybox "$root/$applet"
done < <(/bin/busybox --list-full)

# V4L2 tools
put_exe "$(command -v v4l2-ctl)"
put_exe "$(command -v v4l2-compliance)"

for b in "${binaries[@]}"; do
  [[ -f "$b" ]] || die "--binary not found: $b"
  b="$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"   # absolute, symlinks kept
  put_exe "$b"
done
for f in "${files[@]}"; do
  src="${f%%:*}"; dest="${f#*:}"
  [[ "$f" == *:* && -e "$src" && "$dest" == /* ]] || die "bad --file $f (want SRC:/abs/dest)"
  put "$src" "$dest"
done

# kernel modules, in load order, with their dependencies (resolved on the host)
# put_module SRC DEST: a module, decompressed: Debian 13's kernel ships .ko.xz, which
# busybox's insmod (init_module with the file's bytes) cannot load
put_module() {
  mkdir -p "$root$(dirname "$2")"
  case "$1" in
    *.xz) xz -dc "$1" > "$root$2" ;;
    *.zst) zstd -qdc "$1" > "$root$2" ;;
    *) put "$1" "$2" ;;
  esac
}
wanted=("${modules[@]}")
[[ -n "$outdir" ]] && wanted=(virtio_pci virtio_blk "${wanted[@]}")
((vivid)) && wanted+=(vivid)
: > "$root/lector/modules"
for m in "${wanted[@]}"; do
  # one module per call: "--show-depends A B" would take B as a parameter of A
  deps="$(modprobe -d "$mbase" -S "$kver" --show-depends "$m")" || die "kernel module $m not found"
  while read -r cmd path _; do
    [[ "$cmd" == insmod ]] || continue            # skip "builtin ..." lines
    rel="${path#"$mbase"}"; rel="/lib/${rel#*/lib/}"   # -> /lib/modules/$kver/...
    rel="${rel%.xz}"; rel="${rel%.zst}"                 # stored uncompressed (busybox insmod)
    grep -qxF "$rel" "$root/lector/modules" && continue
    put_module "$path" "$rel"
    echo "$rel" >> "$root/lector/modules"
  done <<<"$deps"
done

# guest script, its arguments and settings
put "$script" /lector/guest
chmod +x "$root/lector/guest"
{
  printf 'TIMEOUT=%s\nVIVID_OPTS=%q\nOUT=%s\n' "$timeout_s" "$vivid_opts" "${outdir:+1}"
  printf 'set --'
  for a in "$@"; do printf " '%s'" "${a//\'/\'\\\'\'}"; done
  printf '\n'
} > "$root/lector/config"

cat > "$root/init" <<'INIT'
#!/bin/sh
# Lector VM init: mount, load modules, run the guest script, report, power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LECTOR_VM=1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /root
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
chmod 1777 /tmp   # /tmp is part of the initramfs root (no tmpfs: it would hide --binary/--file under /tmp)
exec </dev/console >/dev/console 2>&1
. /lector/config

finish() {      # finish CODE: print the marker, save /out, power off
  echo "LECTOR-VM-EXIT $1"
  if [ -n "$OUT" ]; then
    tar -cf /dev/vda -C /out . || echo "LECTOR-VM-ERROR saving /out failed"
  fi
  echo "--- dmesg ---"; dmesg
  sync; sleep 1           # let the UART drain before the machine stops
  poweroff -f
}

while read -r ko; do
  opts=""
  case "$ko" in */vivid.ko) opts="$VIVID_OPTS" ;; esac
  # shellcheck disable=SC2086
  if ! insmod "$ko" $opts; then
    echo "LECTOR-VM-ERROR insmod $ko $opts failed"; dmesg | tail -20; finish 125
  fi
done < /lector/modules
[ -n "$OUT" ] && export LECTOR_OUT=/out

echo 2 > /proc/sys/kernel/printk   # keep kernel chatter off the console (dmesg has it)
echo "LECTOR-VM-BEGIN"
cd /
timeout "$TIMEOUT" /lector/guest "$@"
finish $?
INIT
chmod +x "$root/init"

( cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet ) > "$work/initramfs.cpio"

# ---- boot ---------------------------------------------------------------------------
qemu=(qemu-system-x86_64 -accel tcg -cpu max -m "$memory" -smp "$smp"
      -nodefaults -no-user-config -display none -serial stdio -no-reboot
      -kernel "$vmlinuz" -initrd "$work/initramfs.cpio"
      -append "console=ttyS0 quiet panic=-1 rdinit=/init")
if [[ -n "$outdir" ]]; then
  truncate -s "${LECTOR_VM_OUT_MB:-512}M" "$work/out.img"
  qemu+=(-drive "file=$work/out.img,format=raw,if=virtio")
fi

logf="$work/console.log"
start=$(date +%s)
set +e
timeout -k 5 $((timeout_s + allowance)) "${qemu[@]}" </dev/null 2>&1 | tee "$logf" | \
  awk -v verbose="$verbose" '
    { sub(/\r$/, "") }
    verbose { print; fflush(); next }
    /^LECTOR-VM-BEGIN$/ { inside = 1; next }
    /^LECTOR-VM-EXIT / { print; fflush(); inside = 0; next }
    /LECTOR-VM-ERROR|Kernel panic|BUG:|Oops|qemu-system/ { print > "/dev/stderr"; fflush("/dev/stderr"); next }
    /^\[ *[0-9]+\.[0-9]+\] / { next }   # kernel messages: only in the log file
    inside { print; fflush() }'
qrc=${PIPESTATUS[0]}
set -e
cp "$logf" "$CACHE/last-console.log"
log "qemu finished in $(( $(date +%s) - start )) s (log: $CACHE/last-console.log)"

if [[ -n "$outdir" ]]; then
  mkdir -p "$outdir"
  tar -xf "$work/out.img" -C "$outdir" 2>/dev/null || log "warning: nothing saved from /out"
fi

marker="$(tr -d '\r' < "$logf" | grep -E '^LECTOR-VM-EXIT [0-9]+$' | tail -1 || true)"
if [[ -n "$marker" ]]; then exit "${marker#LECTOR-VM-EXIT }"; fi
if ((qrc == 124 || qrc == 137)); then log "host timeout ($((timeout_s + allowance)) s) hit"; exit 124; fi
grep -q 'Kernel panic' "$logf" && log "guest kernel panicked"
log "no exit marker from the guest (qemu status $qrc)"
exit 125
