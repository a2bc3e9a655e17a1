#!/usr/bin/env bash
# vm/setup.sh — prepare the host for the Lector VM harness (idempotent).
#
#  1. Installs the Debian packages the harness needs (only those missing).
#  2. Downloads Debian's kernel package (linux-image-6.1.0-N-amd64, newest that
#     apt offers), unpacks it with dpkg -x (never installs it) into the cache,
#     and runs depmod -b on its modules.
#
# Cache: ${LECTOR_VM_CACHE:-<repo>/.cache/vm}. Work already done is skipped; once a kernel
# is unpacked, apt is not asked again unless LECTOR_VM_REFRESH=1 (then a newer kernel
# package, if apt offers one, is fetched and used).
# On success the cache holds:
#   $CACHE/kernel/<kver>/            the unpacked package
#   $CACHE/current-kver              the kernel release string (e.g. 6.1.0-57-amd64)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
CACHE="${LECTOR_VM_CACHE:-$repo/.cache/vm}"
mkdir -p "$CACHE"

log() { echo "[vm/setup] $*" >&2; }

# ---- 1. host packages ---------------------------------------------------------
# package name -> a file it provides (to test presence cheaply)
declare -A need=(
  [qemu-system-x86]=/usr/bin/qemu-system-x86_64
  [busybox-static]=/bin/busybox
  [cpio]=/usr/bin/cpio
  [kmod]=/usr/sbin/depmod
  [v4l-utils]=/usr/bin/v4l2-ctl
  [gzip]=/bin/gzip
  [xz-utils]=/usr/bin/xz
)
missing=()
for pkg in "${!need[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Use-Pty=0 \
    --no-install-recommends "${missing[@]}" >&2
fi
# busybox-static may live in /bin or /usr/bin depending on usrmerge
command -v busybox >/dev/null || { log "busybox not found after install"; exit 1; }

# ---- 2. kernel ------------------------------------------------------------------
# Fast path: a kernel is already unpacked and no refresh was asked for (apt-cache is slow).
if [[ -z "${LECTOR_VM_REFRESH:-}" && -s "$CACHE/current-kver" \
      && -f "$CACHE/kernel/$(cat "$CACHE/current-kver")/.done" ]]; then
  exit 0
fi
# Newest concrete kernel package behind the linux-image-amd64 metapackage.
pkg="$(apt-cache depends linux-image-amd64 2>/dev/null \
        | awk '/Depends: linux-image-[0-9]/ {print $2}' | sort -V | tail -1 || true)"
if [[ -z "$pkg" ]]; then
  # No apt lists (offline?): fall back to whatever the cache already holds.
  if [[ -s "$CACHE/current-kver" ]]; then
    log "apt-cache gave no kernel; keeping cached $(cat "$CACHE/current-kver")"
    exit 0
  fi
  log "cannot find linux-image-6.1.0-*-amd64 via apt-cache (run apt-get update?)"
  exit 1
fi
kver="${pkg#linux-image-}"          # e.g. 6.1.0-57-amd64
kdir="$CACHE/kernel/$kver"

if [[ ! -f "$kdir/.done" ]]; then
  log "fetching $pkg"
  rm -rf "$kdir"; mkdir -p "$kdir"
  dl="$CACHE/deb"; mkdir -p "$dl"
  if ! ls "$dl/${pkg}_"*.deb >/dev/null 2>&1; then
    # (root downloads without apt's _apt sandbox user: the cache may be unreadable to it)
    (cd "$dl" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >&2)
  fi
  deb="$(ls "$dl/${pkg}_"*.deb | sort -V | tail -1)"
  log "unpacking $(basename "$deb")"
  dpkg -x "$deb" "$kdir"
  # Modules live under lib/modules (bookworm) or usr/lib/modules (usrmerged).
  if [[ -d "$kdir/lib/modules/$kver" ]]; then
    mbase="$kdir"
  elif [[ -d "$kdir/usr/lib/modules/$kver" ]]; then
    mbase="$kdir/usr"
  else
    log "no modules directory for $kver in $deb"; exit 1
  fi
  log "depmod -b $mbase $kver"
  depmod -b "$mbase" "$kver"
  echo "$mbase" > "$kdir/.modbase"
  touch "$kdir/.done"
  rm -f "$deb"    # the unpacked tree is all we need
  log "kernel ready: $kdir/boot/vmlinuz-$kver"
fi
echo "$kver" > "$CACHE/current-kver"
