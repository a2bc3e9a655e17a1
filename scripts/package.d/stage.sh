# scripts/package.d/stage.sh — sourced by scripts/package: the staged tree of each
# package under $work/stage/PKG (files, DEBIAN/control, conffiles, md5sums, docs,
# lintian overrides). Uses $repo, $bin, $man, $version, $dist, $arch, $work, $CACHE.

maintainer="Lector maintainers <maintainers@users.noreply.a-seed-23babf48.example>"

# Where units and udev rules live: bookworm keeps them under /lib, trixie under /usr/lib
# (what each release's debhelper does).
unit_dir() { [[ "$dist" == bookworm ]] && echo /lib/systemd/system || echo /usr/lib/systemd/system; }
udev_dir() { [[ "$dist" == bookworm ]] && echo /lib/udev/rules.d || echo /usr/lib/udev/rules.d; }

# A unit as shipped in systemd/, with the packages' paths.
install_unit() {
  local pkg=$1 unit=$2
  install -d "$work/stage/$pkg$(unit_dir)"
  sed -e 's|/usr/local/bin/|/usr/bin/|g' \
      -e 's|file:/usr/local/share/doc/lector/|file:/usr/share/doc/lectord/|g' \
      -e 's|/usr/local/share/|/usr/share/|g' \
      -e 's|Installed by scripts/install.sh|Installed by the Debian package '"$pkg"'|' \
      "$repo/systemd/$unit" > "$work/stage/$pkg$(unit_dir)/$unit"
  chmod 0644 "$work/stage/$pkg$(unit_dir)/$unit"
}

# usr/share/doc/PKG: copyright, changelog.gz (a native package's), and more files given.
install_docs() {
  local pkg=$1 copyright=$2; shift 2
  local doc="$work/stage/$pkg/usr/share/doc/$pkg"
  install -d "$doc"
  install -m 0644 "$copyright" "$doc/copyright"
  { echo "lector ($version) $dist; urgency=medium"; echo
    echo "  * Built by scripts/package from commit $(git -C "$repo" rev-parse --short=12 HEAD) of Lector."; echo
    echo " -- $maintainer  $(date -R -d "@$(git -C "$repo" log -1 --format=%ct)")"; } | gzip -9n > "$doc/changelog.gz"
  local f; for f in "$@"; do install -m 0644 "$f" "$doc/"; done
}

# DEBIAN/control; Depends here are the package's own (shlibdeps_all adds the libraries').
write_control() {
  local pkg=$1 depends=$2 recommends=$3 section=$4 summary=$5 long=$6
  local size; size=$(du -s --apparent-size -B1024 --exclude=DEBIAN "$work/stage/$pkg" | cut -f1)
  install -d "$work/stage/$pkg/DEBIAN"
  { echo "Package: $pkg"; echo "Version: $version"; echo "Architecture: $(control_arch "$pkg")"
    echo "Maintainer: $maintainer"; echo "Installed-Size: $size"
    echo "Depends: $depends"
    [[ -z "$recommends" ]] || echo "Recommends: $recommends"
    echo "Section: $section"; echo "Priority: optional"
    echo "Description: $summary"; fold -s -w 78 <<<"$long" | sed 's/ *$//; s/^/ /'; } > "$work/stage/$pkg/DEBIAN/control"
}

# DEBIAN/md5sums of every file (dpkg --verify, debsums).
write_md5sums() {
  local pkg=$1
  (cd "$work/stage/$pkg" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0r md5sum) \
    > "$work/stage/$pkg/DEBIAN/md5sums"
}

install_overrides() {
  local pkg=$1 file="$repo/scripts/package.d/lintian/$1"
  [[ -f "$file" ]] || return 0
  install -d "$work/stage/$pkg/usr/share/lintian/overrides"
  sed "s|@UNIT_DIR@|$(unit_dir | cut -c2-)|" "$file" > "$work/stage/$pkg/usr/share/lintian/overrides/$pkg"
  chmod 0644 "$work/stage/$pkg/usr/share/lintian/overrides/$pkg"
}

install_man() {
  local pkg=$1 page=$2 section=$3
  install -d "$work/stage/$pkg/usr/share/man/man$section"
  gzip -9n < "$man/$page.$section" > "$work/stage/$pkg/usr/share/man/man$section/$page.$section.gz"
}

install_program() {
  local pkg=$1 name=$2 strip=strip
  install -D -m 0755 "$bin/$name" "$work/stage/$pkg/usr/bin/$name"
  if [[ "$arch" != "$host_arch" ]]; then   # arm64 (from amd64): binutils' cross strip
    strip=aarch64-linux-gnu-strip
    command -v "$strip" >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils-aarch64-linux-gnu >&2
  fi
  "$strip" --strip-unneeded --remove-section=.comment --remove-section=.note "$work/stage/$pkg/usr/bin/$name"
}

# The rest of a bridge's package (lector-mqtt, lector-http), once its files are staged: the
# docs, its man page, lintian overrides, DEBIAN/control (a service beside lectord) and its
# one conffile.
finish_bridge() {
  local pkg=$1 section=$2 summary=$3 long=$4 conffile=$5
  install_docs "$pkg" "$work/copyright"
  install_man "$pkg" "$pkg" 8
  install_overrides "$pkg"
  write_control "$pkg" "init-system-helpers (>= 1.54~)" "lectord" "$section" "$summary" "$long"
  echo "$conffile" > "$work/stage/$pkg/DEBIAN/conffiles"
}

stage_lectord() {
  local s="$work/stage/lectord" u
  install_program lectord lectord
  if bundled_onnxruntime; then   # Debian 12: ONNX Runtime in lectord's private folder
    local library; library="$(onnxruntime_library)"
    install -d "$s/usr/lib/lector"
    install -m 0644 "$library" "$s/usr/lib/lector/"
    ln -s "$(basename "$library")" "$s/usr/lib/lector/libonnxruntime.so.1"
    bundle_rpath "$s/usr/bin/lectord"
  fi
  install -d "$s/usr/share/lector/demo" "$s/etc/lector" "$s/usr/lib/sysusers.d" "$s$(udev_dir)"
  install -m 0644 "$bin"/Lector_LectorCapture.resources/demo/* "$s/usr/share/lector/demo/"
  for u in lectord.service lectord.socket lectord@.service; do install_unit lectord "$u"; done
  install -m 0644 "$repo/systemd/lector.sysusers" "$s/usr/lib/sysusers.d/lectord.conf"
  install -m 0644 "$repo/systemd/70-lector-systemd.rules" "$s$(udev_dir)/70-lector-systemd.rules"
  install -m 0644 "$repo/systemd/lectord.conf.example" "$s/etc/lector/lectord.conf"
  sed -e 's|/usr/local/bin/|/usr/bin/|g' "$repo/systemd/lectord.service.d/libcamera.conf.example" > "$work/libcamera.conf.example"
  install_docs lectord "$work/copyright" "$repo/README.md" "$repo/docs/PROTOCOL.md" "$work/libcamera.conf.example" \
    "$repo/systemd/lectord.service.d/network-camera.conf.example"
  install_man lectord lectord 8
  install_overrides lectord
  if bundled_onnxruntime; then
    grep -v '^#' "$repo/scripts/package.d/lintian/lectord.bookworm" >> "$s/usr/share/lintian/overrides/lectord"
  fi
  write_control lectord "tesseract-ocr-eng, init-system-helpers (>= 1.54~), systemd | systemd-standalone-sysusers | systemd-sysusers" \
    "lector-models, tesseract-ocr-osd" video "OCR camera daemon: reads text from live camera frames" \
    "lectord reads text from V4L2 (and, on Debian 13, libcamera) cameras with Tesseract and publishes what it reads on a Unix socket (/run/lector/lector.sock) for the lector client and the MQTT and web bridges. The package runs it as a systemd service under its own user (lector, in group video), started by its socket; lectord@.service runs one per camera when it is plugged in. Without lector-models it reads with Tesseract's own page layout."
  echo /etc/lector/lectord.conf > "$s/DEBIAN/conffiles"
}

stage_client() {
  install_program lector lector
  install_docs lector "$work/copyright"
  install_man lector lector 1
  install_overrides lector
  write_control lector "" "" video "command-line client of the lectord OCR camera daemon" \
    "lector talks to lectord over its Unix socket: watch the recognized text as it changes, list cameras, take snapshots, change settings while it runs."
}

stage_mqtt() {
  local s="$work/stage/lector-mqtt"
  install_program lector-mqtt lector-mqtt
  install_unit lector-mqtt lector-mqtt.service
  install -D -m 0644 "$repo/systemd/mqtt.conf.example" "$s/etc/lector/mqtt.conf"
  finish_bridge lector-mqtt net "MQTT bridge of the lectord OCR camera daemon" \
    "lector-mqtt publishes what lectord reads to an MQTT broker, with Home Assistant discovery. Its settings are in /etc/lector/mqtt.conf; the service is installed but not enabled: name the broker there, then systemctl enable --now lector-mqtt." \
    /etc/lector/mqtt.conf
}

stage_http() {
  local s="$work/stage/lector-http" unit
  install_program lector-http lector-http
  install -d "$s/usr/share/lector/www"
  install -m 0644 "$bin"/Lector_lector-http.resources/www/* "$s/usr/share/lector/www/"
  install_unit lector-http lector-http.service
  # The unit's options come from a conffile, so a listen address survives upgrades.
  unit="$s$(unit_dir)/lector-http.service"
  sed -i -e 's|^ExecStart=/usr/bin/lector-http --listen 127.0.0.1:8170 |EnvironmentFile=-/etc/default/lector-http\nExecStart=/usr/bin/lector-http $LECTOR_HTTP_OPTIONS |' "$unit"
  grep -q '^ExecStart=/usr/bin/lector-http \$LECTOR_HTTP_OPTIONS ' "$unit" || die "lector-http.service: ExecStart= not as expected"
  install -D -m 0644 "$repo/scripts/package.d/lector-http.default" "$s/etc/default/lector-http"
  finish_bridge lector-http video "web page of the lectord OCR camera daemon" \
    "lector-http serves a web page to aim the camera and watch what lectord reads (the camera view, the text and its boxes, the orientation). It listens on 127.0.0.1:8170 (set in /etc/default/lector-http); the service is installed but not enabled: systemctl enable --now lector-http." \
    /etc/default/lector-http
}

# The models, fetched (once, into the cache) from their pinned wheels, sha256 checked.
stage_models() {
  local s="$work/stage/lector-models" models="$CACHE/models"
  "$repo/scripts/fetch-detector-model" --dir "$models" >&2 || die "fetching the detector's model failed"
  "$repo/scripts/fetch-engine-model" --dir "$models" >&2 || die "fetching the neural recognizer's model failed"
  install -d "$s/usr/share/lector/models"
  install -m 0644 "$models"/* "$s/usr/share/lector/models/"
  install -m 0644 "$repo/models/segments/lector-segments.onnx" "$repo/models/segments/lector-segments.txt" "$s/usr/share/lector/models/"
  install_docs lector-models "$repo/scripts/package.d/models.copyright"
  install_overrides lector-models
  write_control lector-models "" "" science "models of the lectord OCR camera daemon (text lines)" \
    "The text-line detector (PP-OCRv4's DB detector) and the neural line recognizer (PP-OCRv6's small recognizer, all classes and Latin only), and the segments engine's seven-segment digit reader (trained by the project), run by ONNX Runtime. lectord finds them in /usr/share/lector/models. Taken from the PyPI wheels rapidocr-onnxruntime 1.4.4 and rapidocr 3.10.0 (sha256 checked when the package was built)."
}

# Debian 12 has no ONNX Runtime package: lectord is built against scripts/fetch-onnxruntime's
# copy of PyPI's library, which the lectord package then carries in /usr/lib/lector (its
# private folder: lectord needs it to start, lector-models stays optional); the packaged
# lectord's rpath names that folder.
bundled_onnxruntime() { [[ "$dist" == bookworm ]] && readelf -d "$bin/lectord" | grep -q 'libonnxruntime\.so'; }

# The ONNX Runtime library lectord was built against (scripts/fetch-onnxruntime's).
onnxruntime_library() {
  local libdir; libdir="$(pkg-config --variable=libdir libonnxruntime)" || die "pkg-config finds no libonnxruntime"
  readlink -f "$libdir/libonnxruntime.so.1"
}

# Sets a program's rpath to the packaged ONNX Runtime's folder (patchelf).
bundle_rpath() {
  command -v patchelf >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf >&2
  patchelf --set-rpath /usr/lib/lector "$1" || die "patchelf $1 failed"
}

stage_all() {
  cp "$repo/scripts/package.d/lector.copyright" "$work/copyright"
  stage_lectord; stage_client; stage_mqtt; stage_http; stage_models
  write_maintainer_scripts                         # package.d/scripts.sh
  local p; for p in lectord lector lector-mqtt lector-http lector-models; do
    find "$work/stage/$p" -type d -exec chmod 0755 {} +
    write_md5sums "$p"
  done
}
