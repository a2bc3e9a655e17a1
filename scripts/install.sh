#!/usr/bin/env bash
# scripts/install.sh — build Lector's release binaries and install them with the
# systemd units, the sysusers entry, the udev rule and an example configuration.
#
# usage: scripts/install.sh [--prefix DIR] [--root DIR] [--no-build] [--bin DIR] [--uninstall]
#   --prefix DIR   installation prefix (default /usr/local; the units' ExecStart= are
#                  rewritten when it is not /usr/local)
#   --root DIR     install into the root file system at DIR instead of / (an image being
#                  built): users are created with systemd-sysusers --root, nothing is
#                  reloaded
#   --no-build     install what .build/release holds (built before)
#   --bin DIR      install the programs in DIR instead (implies --no-build)
#   --uninstall    remove what an install put there (same --prefix/--root): stops and
#                  disables the units first; keeps /etc/lector and the user lector
#
# Running it again upgrades: files are replaced and running units are restarted
# (systemctl try-restart), so the new binaries are the ones running.
#
# Installs:
#   PREFIX/libexec/lector/{lectord,lector,lector-mqtt,lector-http,Lector_LectorCapture.resources},
#   PREFIX/bin/{lectord,lector,lector-mqtt,lector-http} (links), PREFIX/share/lector/www (the web page)
#   PREFIX/share/lector/models/                the text-line detector's model (copied from
#                                              /usr/local/share/lector/models when scripts/setup
#                                              put it there, else scripts/fetch-detector-model;
#                                              without it the service reads with Tesseract's layout)
#                                              and the neural line recognizer's (scripts/fetch-engine-model;
#                                              without it Tesseract reads every line)
#   PREFIX/lib/systemd/system/{lectord.service,lectord.socket,lectord@.service,lector-mqtt.service,lector-http.service,lector-speak.service}
#   PREFIX/lib/sysusers.d/lector.conf          user and group lector (member of video)
#   /etc/udev/rules.d/70-lector-systemd.rules  device units for V4L2 nodes (lectord@)
#   /etc/lector/lectord.conf                   only when there is none yet
#   /etc/lector/mqtt.conf                      the MQTT bridge's, only when there is none yet
#   PREFIX/share/doc/lector/                   README, PROTOCOL, example configs, libcamera drop-in
#   PREFIX/share/man/man1/lector.1, PREFIX/share/man/man8/{lectord,lector-mqtt,lector-http}.8
#                                              generated from the programs' --help (scripts/make-man)
# Then (on a live system) reloads systemd and udev. It enables nothing: run
#   systemctl enable --now lectord.service     (from boot: rules and hooks run with no client)
# or, for cameras read only while a client watches, lectord.socket alone.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
prefix=/usr/local; root=""; build=1; bindir=""; uninstall=0
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --root) root="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    --no-build) build=0; shift ;;
    --bin) bindir="$(cd "$2" && pwd)"; build=0; shift 2 ;;
    --uninstall) uninstall=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$prefix" == /* ]] || { echo "install.sh: --prefix must be absolute" >&2; exit 2; }
log() { echo "[install] $*" >&2; }
units=(lectord.service lectord.socket lectord@.service lector-mqtt.service lector-http.service lector-speak.service)
live() { [[ -z "$root" && -d /run/systemd/system ]]; }

if ((uninstall)); then
  R="$root"
  if live; then
    log "stopping and disabling the units"
    systemctl disable --now lectord.socket lectord.service lector-mqtt.service lector-http.service lector-speak.service 2>/dev/null || true
    systemctl stop 'lectord@*.service' 2>/dev/null || true
  fi
  for unit in "${units[@]}"; do rm -f "$R$prefix/lib/systemd/system/$unit"; done
  for name in lectord lector lector-mqtt lector-http; do rm -f "$R$prefix/bin/$name"; done
  rm -rf "$R$prefix/libexec/lector" "$R$prefix/share/lector" "$R$prefix/share/doc/lector"
  rm -f "$R$prefix/lib/sysusers.d/lector.conf" "$R/etc/udev/rules.d/70-lector-systemd.rules"
  rm -f "$R$prefix/share/man/man1/lector.1" "$R$prefix/share/man/man8/lectord.8" \
    "$R$prefix/share/man/man8/lector-mqtt.8" "$R$prefix/share/man/man8/lector-http.8"
  if live; then
    systemctl daemon-reload
    udevadm control --reload 2>/dev/null || true
  fi
  log "removed. Kept: /etc/lector (your configuration) and the user lector; remove them by hand if wanted."
  exit 0
fi

if ((build)); then
  log "swift build -c release --static-swift-stdlib"
  (cd "$repo" && swift build -c release --static-swift-stdlib --product lectord >&2 \
     && swift build -c release --static-swift-stdlib --product lector >&2 \
     && swift build -c release --static-swift-stdlib --product lector-mqtt >&2 \
     && swift build -c release --static-swift-stdlib --product lector-http >&2)
fi
bin="${bindir:-$(cd "$repo" && swift build -c release --show-bin-path 2>/dev/null || echo "$repo/.build/release")}"
for f in lectord lector lector-mqtt Lector_LectorCapture.resources; do
  [[ -e "$bin/$f" ]] || { echo "install.sh: $bin/$f missing (build first or drop --no-build)" >&2; exit 1; }
done

R="$root"
libexec="$R$prefix/libexec/lector"
log "installing into ${root:-/} (prefix $prefix)"
install -d -m 0755 "$libexec" "$R$prefix/bin" "$R$prefix/lib/systemd/system" "$R$prefix/lib/sysusers.d" \
  "$R/etc/udev/rules.d" "$R/etc/lector" "$R$prefix/share/doc/lector" "$R$prefix/share/man/man1" "$R$prefix/share/man/man8"
install -m 0755 "$bin/lectord" "$bin/lector" "$bin/lector-mqtt" "$libexec/"
rm -rf "$libexec/Lector_LectorCapture.resources"
cp -R "$bin/Lector_LectorCapture.resources" "$libexec/"
chmod -R u=rwX,go=rX "$libexec/Lector_LectorCapture.resources"
# ONNX Runtime where Debian has no package of it (scripts/fetch-onnxruntime put it in
# /usr/local/lib/lector): beside lectord, which looks in its own folder first ($ORIGIN),
# so an install into another root or prefix carries it.
onnxruntime="$(ldd "$bin/lectord" 2>/dev/null | awk '/libonnxruntime/ && $3 ~ "^/usr/local/lib/lector/" {print $3}')"
if [[ -n "$onnxruntime" ]]; then
  install -m 0644 "$(readlink -f "$onnxruntime")" "$libexec/$(basename "$onnxruntime")"
fi
ln -sfn "../libexec/lector/lectord" "$R$prefix/bin/lectord"
ln -sfn "../libexec/lector/lector" "$R$prefix/bin/lector"
ln -sfn "../libexec/lector/lector-mqtt" "$R$prefix/bin/lector-mqtt"
if [[ -x "$bin/lector-http" ]]; then
  install -m 0755 "$bin/lector-http" "$libexec/"
  ln -sfn "../libexec/lector/lector-http" "$R$prefix/bin/lector-http"
  install -d -m 0755 "$R$prefix/share/lector/www"
  install -m 0644 "$repo"/Sources/lector-http/www/* "$R$prefix/share/lector/www/"
else
  log "no $bin/lector-http (not built): the web page is not installed"
fi

# The text-line detector's model, where the units' LECTOR_DATA_DIR points.
models="$R$prefix/share/lector/models"
fetched=/usr/local/share/lector/models
if [[ "$models" != "$fetched" ]] && "$repo/scripts/fetch-detector-model" --check --dir "$fetched" 2>/dev/null; then
  install -d -m 0755 "$models"
  install -m 0644 "$fetched"/* "$models/"
  log "installed the text-line detector's model from $fetched"
elif ! "$repo/scripts/fetch-detector-model" --dir "$models"; then
  log "the text-line detector's model is not installed: the service reads with Tesseract's layout"
fi
# The neural line recognizer's models (--engine), the same way: copied above when
# scripts/setup fetched them, else fetched here; without them Tesseract reads every line.
if ! "$repo/scripts/fetch-engine-model" --check --dir "$models" 2>/dev/null \
    && ! "$repo/scripts/fetch-engine-model" --dir "$models"; then
  log "the neural line recognizer's model is not installed: Tesseract reads every line"
fi
# The segments engine's network (engine = segments), from the repository.
install -d -m 0755 "$models"
install -m 0644 "$repo/models/segments/lector-segments.onnx" "$repo/models/segments/lector-segments.txt" "$models/"

for unit in lectord.service lectord.socket lectord@.service lector-mqtt.service lector-http.service lector-speak.service; do
  sed -e "s|/usr/local/bin/|$prefix/bin/|g" -e "s|/usr/local/share/|$prefix/share/|g" \
    "$repo/systemd/$unit" > "$R$prefix/lib/systemd/system/$unit"
  chmod 0644 "$R$prefix/lib/systemd/system/$unit"
done
install -m 0644 "$repo/systemd/lector.sysusers" "$R$prefix/lib/sysusers.d/lector.conf"
install -m 0644 "$repo/systemd/70-lector-systemd.rules" "$R/etc/udev/rules.d/70-lector-systemd.rules"
install -m 0644 "$repo/systemd/lectord.conf.example" "$R$prefix/share/doc/lector/lectord.conf.example"
install -m 0644 "$repo/systemd/mqtt.conf.example" "$R$prefix/share/doc/lector/mqtt.conf.example"
sed -e "s|/usr/local/bin/|$prefix/bin/|g" "$repo/systemd/lectord.service.d/libcamera.conf.example" \
  > "$R$prefix/share/doc/lector/libcamera.conf.example"
install -m 0644 "$repo/systemd/lectord.service.d/network-camera.conf.example" "$R$prefix/share/doc/lector/network-camera.conf.example"
man_pages="$(mktemp -d)"
if python3 "$repo/scripts/make-man" "$bin" "$man_pages" >/dev/null; then
  install -m 0644 "$man_pages"/*.1 "$R$prefix/share/man/man1/"
  install -m 0644 "$man_pages"/*.8 "$R$prefix/share/man/man8/"
else
  log "could not generate the manual pages (scripts/make-man needs python3)"
fi
rm -rf "$man_pages"
install -m 0644 "$repo/README.md" "$R$prefix/share/doc/lector/README.md"
install -m 0644 "$repo/docs/PROTOCOL.md" "$R$prefix/share/doc/lector/PROTOCOL.md"
if [[ ! -e "$R/etc/lector/lectord.conf" ]]; then
  install -m 0644 "$repo/systemd/lectord.conf.example" "$R/etc/lector/lectord.conf"
  log "wrote /etc/lector/lectord.conf from the example: name your camera(s) there"
else
  log "kept the existing /etc/lector/lectord.conf"
fi
if [[ ! -e "$R/etc/lector/mqtt.conf" ]]; then
  install -m 0644 "$repo/systemd/mqtt.conf.example" "$R/etc/lector/mqtt.conf"
  log "wrote /etc/lector/mqtt.conf from the example: name your broker there (systemctl enable --now lector-mqtt)"
else
  log "kept the existing /etc/lector/mqtt.conf"
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

if live; then
  systemctl daemon-reload
  udevadm control --reload 2>/dev/null && udevadm trigger --subsystem-match=video4linux 2>/dev/null || true
  # An upgrade: units that run now restart on the new binaries (stopped ones stay stopped).
  systemctl try-restart lectord.service lector-mqtt.service lector-http.service lector-speak.service 'lectord@*.service' 2>/dev/null || true
  log "done. Start it with: systemctl enable --now lectord.service   (from boot; or lectord.socket: started by the first client)"
else
  log "done${root:+ (into $root)}."
fi
