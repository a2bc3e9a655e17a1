#!/usr/bin/env bash
# scripts/install.sh — build Lector's release binaries and install them with the
# systemd units, the sysusers entry, the udev rule and an example configuration.
#
# usage: scripts/install.sh [--prefix DIR] [--root DIR] [--no-build]
#   --prefix DIR   installation prefix (default /usr/local; the units' ExecStart= are
#                  rewritten when it is not /usr/local)
#   --root DIR     install into the root file system at DIR instead of / (an image being
#                  built): users are created with systemd-sysusers --root, nothing is
#                  reloaded
#   --no-build     install what .build/release holds (built before)
#
# Installs:
#   PREFIX/libexec/lector/{lectord,lector,Lector_LectorCore.resources}, PREFIX/bin/{lectord,lector} (links)
#   PREFIX/lib/systemd/system/{lectord.service,lectord.socket,lectord@.service}
#   PREFIX/lib/sysusers.d/lector.conf          user and group lector (member of video)
#   /etc/udev/rules.d/70-lector-systemd.rules  device units for V4L2 nodes (lectord@)
#   /etc/lector/lectord.conf                   only when there is none yet
#   PREFIX/share/doc/lector/                   README, PROTOCOL, example config, libcamera drop-in
# Then (on a live system) reloads systemd and udev. It enables nothing: run
#   systemctl enable --now lectord.socket
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
prefix=/usr/local; root=""; build=1
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --root) root="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$prefix" == /* ]] || { echo "install.sh: --prefix must be absolute" >&2; exit 2; }
log() { echo "[install] $*" >&2; }

if ((build)); then
  log "swift build -c release --static-swift-stdlib"
  (cd "$repo" && swift build -c release --static-swift-stdlib --product lectord >&2 \
     && swift build -c release --static-swift-stdlib --product lector >&2)
fi
bin="$(cd "$repo" && swift build -c release --show-bin-path 2>/dev/null || echo "$repo/.build/release")"
for f in lectord lector Lector_LectorCore.resources; do
  [[ -e "$bin/$f" ]] || { echo "install.sh: $bin/$f missing (build first or drop --no-build)" >&2; exit 1; }
done

R="$root"
libexec="$R$prefix/libexec/lector"
log "installing into ${root:-/} (prefix $prefix)"
install -d -m 0755 "$libexec" "$R$prefix/bin" "$R$prefix/lib/systemd/system" "$R$prefix/lib/sysusers.d" \
  "$R/etc/udev/rules.d" "$R/etc/lector" "$R$prefix/share/doc/lector"
install -m 0755 "$bin/lectord" "$bin/lector" "$libexec/"
rm -rf "$libexec/Lector_LectorCore.resources"
cp -R "$bin/Lector_LectorCore.resources" "$libexec/"
chmod -R u=rwX,go=rX "$libexec/Lector_LectorCore.resources"
ln -sfn "../libexec/lector/lectord" "$R$prefix/bin/lectord"
ln -sfn "../libexec/lector/lector" "$R$prefix/bin/lector"

for unit in lectord.service lectord.socket lectord@.service; do
  sed -e "s|/usr/local/bin/|$prefix/bin/|g" -e "s|/usr/local/share/|$prefix/share/|g" \
    "$repo/systemd/$unit" > "$R$prefix/lib/systemd/system/$unit"
  chmod 0644 "$R$prefix/lib/systemd/system/$unit"
done
install -m 0644 "$repo/systemd/lector.sysusers" "$R$prefix/lib/sysusers.d/lector.conf"
install -m 0644 "$repo/systemd/70-lector-systemd.rules" "$R/etc/udev/rules.d/70-lector-systemd.rules"
install -m 0644 "$repo/systemd/lectord.conf.example" "$R$prefix/share/doc/lector/lectord.conf.example"
sed -e "s|/usr/local/bin/|$prefix/bin/|g" "$repo/systemd/lectord.service.d/libcamera.conf.example" \
  > "$R$prefix/share/doc/lector/libcamera.conf.example"
install -m 0644 "$repo/README.md" "$R$prefix/share/doc/lector/README.md"
install -m 0644 "$repo/docs/PROTOCOL.md" "$R$prefix/share/doc/lector/PROTOCOL.md"
if [[ ! -e "$R/etc/lector/lectord.conf" ]]; then
  install -m 0644 "$repo/systemd/lectord.conf.example" "$R/etc/lector/lectord.conf"
  log "wrote /etc/lector/lectord.conf from the example: name your camera(s) there"
else
  log "kept the existing /etc/lector/lectord.conf"
fi

# user and group lector (and membership in video)
if command -v systemd-sysusers >/dev/null; then
  if [[ -n "$root" ]]; then
    systemd-sysusers --root="$root" "$R$prefix/lib/sysusers.d/lector.conf"
  else
    systemd-sysusers "$prefix/lib/sysusers.d/lector.conf"
  fi
else
  log "systemd-sysusers not found: create user/group lector (in group video) by hand"
fi

if [[ -z "$root" && -d /run/systemd/system ]]; then
  systemctl daemon-reload
  udevadm control --reload 2>/dev/null && udevadm trigger --subsystem-match=video4linux 2>/dev/null || true
  log "done. Start it with: systemctl enable --now lectord.socket   (or lectord.service)"
else
  log "done${root:+ (into $root)}."
fi
