# scripts/package.d/build.sh — sourced by scripts/package: the programs, the manual
# pages, the Depends (dpkg-shlibdeps) and lintian, each for the target release and
# architecture ($dist, $arch). Uses $repo, $work, $CACHE, log, die.

native() { [[ "$dist" == "$host_dist" && "$arch" == "$host_arch" ]]; }

# The -dev packages a build for $dist needs (scripts/setup's list), plus what running
# dpkg-shlibdeps, the programs' --help and lintian in that root needs.
root_packages() {
  local common=(libc6-dev libtesseract-dev libleptonica-dev tesseract-ocr-eng libjpeg62-turbo-dev libv4l-dev
                libmosquitto-dev libmicrohttpd-dev libopencv-imgproc-dev libicu-dev libsqlite3-dev
                libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libzxing-dev
                python3 dpkg-dev lintian pkgconf)
  case "$dist" in
    trixie) echo "${common[*]} libstdc++-14-dev libgcc-14-dev libcamera-dev libonnxruntime-dev" ;;
    bookworm) echo "${common[*]} libstdc++-12-dev libgcc-12-dev" ;;
  esac
}

# The build root of $dist/$arch (amd64 only: a root this machine can chroot into), made
# once with debootstrap and cached; its path on stdout.
target_root() {
  local root="$CACHE/root-$dist-$arch" mirror="${LECTOR_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  if [[ "$arch" == arm64 ]]; then pi_root; return; fi
  [[ "$arch" == "$host_arch" ]] || die "a $arch root cannot be chrooted into here"
  if [[ ! -f "$root/.done" ]]; then
    command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2
    log "debootstrap $dist $arch with the -dev packages into $root (once; about 10 minutes)"
    rm -rf "$root" "$root.tmp"; mkdir -p "$CACHE"
    # debootstrap's own resolver does not follow virtual packages (lintian's perl
    # needs perl-openssl-abi-3): apt installs the -dev packages afterwards.
    { debootstrap --variant=minbase --arch="$arch" "$dist" "$root.tmp" "$mirror" \
        && "$repo/tests/pi/in-root.sh" "$root.tmp" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(root_packages)"
    } > "$CACHE/debootstrap-$dist-$arch.log" 2>&1 \
      || { tail -20 "$CACHE/debootstrap-$dist-$arch.log" >&2; die "the $dist root failed (log: $CACHE/debootstrap-$dist-$arch.log)"; }
    rm -f "$root.tmp"/var/cache/apt/archives/*.deb
    mv "$root.tmp" "$root"; touch "$root/.done"
  fi
  # A root made before a package joined the list gets it now.
  "$repo/tests/pi/in-root.sh" "$root" sh -c "dpkg -s $(root_packages) >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(root_packages); }" \
    > "$CACHE/packages-$dist-$arch.log" 2>&1 || { tail -20 "$CACHE/packages-$dist-$arch.log" >&2; die "the $dist root's packages failed"; }
  echo "$root"
}

# arm64: tests/pi's Debian 13 amd64 build root (tests/pi/build-root.sh, cached in
# LECTOR_PI_CACHE): its swiftlang cross-compiles against its arm64 sysroot; dpkg-shlibdeps
# and lintian run in it (the arm64 libraries installed beside the amd64 ones, multiarch).
pi_root() {
  local root="${LECTOR_PI_CACHE:-$HOME/.cache/lector/pi}/build"
  [[ -f "$root/.build-done" && -f "$root/.arm64-onnx-done" ]] || die "no arm64 build root in $root (tests/pi/build-root.sh makes it)"
  echo "$root"
}

# Runs a command in the target root (or here, for a native build).
in_target() {
  if native; then "$@"; else "$repo/tests/pi/in-root.sh" "$(target_root)" "$@"; fi
}

# Builds the four programs for $dist/$arch; prints the folder holding them.
build_programs() {
  local products=(lectord lector lector-mqtt lector-http) p
  if native; then
    for p in "${products[@]}"; do
      log "swift build -c release --static-swift-stdlib --product $p"
      (cd "$repo" && swift build -c release --static-swift-stdlib --product "$p" >&2) || die "swift build $p failed"
    done
    (cd "$repo" && swift build -c release --show-bin-path)
    return
  fi
  if [[ "$arch" == arm64 ]]; then
    [[ "$dist" == trixie ]] || die "--arch arm64 builds for trixie only (tests/pi's cross-build root is Debian 13)"
    log "tests/pi/build-root.sh: the arm64 cross-build root (made once; the source synced into it)"
    "$repo/tests/pi/build-root.sh" > "$work/pi-root.log" || die "tests/pi/build-root.sh failed"
    log "tests/pi/cross-build.sh: ${products[*]} for aarch64 with Debian 13's swiftlang"
    in_target sh /src/lector/tests/pi/cross-build.sh /src/lector "${products[@]}" >&2 || die "the arm64 cross-build failed"
    echo "$(pi_root)/src/lector/.build-arm64/aarch64-unknown-linux-gnu/release"
    return
  fi
  local root scratch="$repo/.build-$dist-$arch" resources
  root="$(target_root)"
  resources="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift_static"
  # The link step looks for the static runtime (swiftrt.o, the .a files) under the
  # SDK: there it is this toolchain's own.
  [[ -e "$root/usr/lib/swift_static" ]] || ln -s "$resources" "$root/usr/lib/swift_static"
  for p in "${products[@]}"; do
    log "swift build -c release --static-swift-stdlib --product $p against the $dist root"
    (cd "$repo" && PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_PATH="$root/usr/lib/x86_64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig" \
       PKG_CONFIG_LIBDIR="$root/usr/lib/x86_64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig" \
       swift build -c release --static-swift-stdlib --product "$p" --scratch-path "$scratch" \
         --sdk "$root" -Xswiftc -sdk -Xswiftc "$root" -Xswiftc -resource-dir -Xswiftc "$resources" \
         -Xswiftc -use-ld=lld -Xcc --sysroot="$root" -Xcxx --sysroot="$root" -Xlinker --sysroot="$root" >&2) \
      || die "swift build $p for $dist failed"
  done
  echo "$scratch/release"
}

# The manual pages from the programs' --help (scripts/make-man), run where they run.
make_man_pages() {
  local dir="$work/man"
  mkdir -p "$dir"
  if native; then
    python3 "$repo/scripts/make-man" "$bin" "$dir" >/dev/null || die "scripts/make-man failed"
  elif [[ "$arch" == arm64 ]]; then
    # The aarch64 programs' --help, run here by qemu's user-mode emulator with the
    # arm64 sysroot's libraries.
    local sysroot p t="$work/man-bin"
    sysroot="$(pi_root)/opt/arm64-sysroot"; mkdir -p "$t"
    command -v qemu-aarch64-static >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >&2
    for p in lectord lector lector-mqtt lector-http; do
      printf '#!/bin/sh\nexec qemu-aarch64-static -L %s %s "$@"\n' "$sysroot" "$bin/$p" > "$t/$p"; chmod +x "$t/$p"
    done
    LECTOR_MAN_DATE="$(git -C "$repo" log -1 --format=%cs)" python3 "$repo/scripts/make-man" "$t" "$dir" >/dev/null \
      || die "scripts/make-man (the arm64 programs under qemu-aarch64-static) failed"
  else
    local root t
    root="$(target_root)"; t="$root/tmp/lector-man"
    rm -rf "$t"; mkdir -p "$t/bin" "$t/out"
    cp "$bin"/lectord "$bin"/lector "$bin"/lector-mqtt "$bin"/lector-http "$t/bin/"
    cp "$repo/scripts/make-man" "$t/"
    in_target env LECTOR_MAN_DATE="$(git -C "$repo" log -1 --format=%cs)" python3 /tmp/lector-man/make-man /tmp/lector-man/bin /tmp/lector-man/out >/dev/null || die "scripts/make-man in the $dist root failed"
    cp "$t"/out/* "$dir/"; rm -rf "$t"
  fi
  echo "$dir"
}

# DEBIAN/control's Depends for each package with programs: dpkg-shlibdeps on its ELF
# files, in a root of the target release, merged with the package's own relations.
shlibdeps_all() {
  local base="/tmp/lector-shlibs" host_base p
  if native; then host_base="$base"; else host_base="$(target_root)$base"; fi
  rm -rf "$host_base"; mkdir -p "$host_base/debian"
  printf 'Source: lector\n\nPackage: lectord\nArchitecture: any\n' > "$host_base/debian/control"
  [[ "$arch" != arm64 ]] || arm64_libraries
  local private=""
  if [[ -d "$work/stage/lectord/usr/lib/lector" ]]; then
    # Debian 12: lectord's ONNX Runtime is its own (bundled_onnxruntime): found, no Depends.
    mkdir -p "$host_base/lib"; cp -a "$work/stage/lectord/usr/lib/lector/." "$host_base/lib/"
    echo "libonnxruntime 1 lectord" > "$host_base/debian/shlibs.local"
    private="-l$base/lib -xlectord"
  fi
  for p in lectord lector lector-mqtt lector-http; do
    mkdir -p "$host_base/$p"; cp "$work/stage/$p/usr/bin/$p" "$host_base/$p/"
    local deps
    deps="$(in_target env DEB_HOST_ARCH="$arch" sh -c "cd $base && dpkg-shlibdeps -O $private -e$p/$p" 2>"$work/shlibdeps-$p.log" | sed -n 's/^shlibs:Depends=//p')" \
      || { cat "$work/shlibdeps-$p.log" >&2; die "dpkg-shlibdeps $p failed"; }
    [[ -n "$deps" ]] || { cat "$work/shlibdeps-$p.log" >&2; die "dpkg-shlibdeps $p: no Depends"; }
    local extra; extra="$(sed -n 's/^Depends: //p' "$work/stage/$p/DEBIAN/control")"
    sed -i "s/^Depends: .*/Depends: ${deps}${extra:+, $extra}/" "$work/stage/$p/DEBIAN/control"
  done
  sed -i '/^Depends: *$/d' "$work/stage/lector-models/DEBIAN/control"
  rm -rf "$host_base"
}

# arm64: dpkg-shlibdeps reads the libraries' packages from the dpkg database, so the
# arm64 libraries the programs link are installed in the build root beside the amd64 ones
# (multiarch): for each NEEDED soname, the amd64 package holding it, as :arm64; with
# the cross objdump dpkg-shlibdeps uses, and lintian.
arm64_libraries() {
  local sonames names
  sonames="$(for p in lectord lector lector-mqtt lector-http; do readelf -d "$work/stage/$p/usr/bin/$p"; done \
    | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^ld-linux' | sort -u)"
  names="$(for so in $sonames; do in_target dpkg -S "*/x86_64-linux-gnu/$so" 2>/dev/null | head -1; done \
    | sed 's/:amd64:.*//; s/: .*//' | sort -u | sed 's/$/:arm64/' | tr '\n' ' ')"
  [[ -n "$names" ]] || die "no packages found for the arm64 programs' libraries ($sonames)"
  log "arm64 libraries in the build root for dpkg-shlibdeps: $names"
  in_target sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lintian dpkg-dev binutils-aarch64-linux-gnu $names" \
    > "$work/arm64-libraries.log" 2>&1 || { tail -20 "$work/arm64-libraries.log" >&2; die "installing the arm64 libraries in the build root"; }
}

# lintian (the target release's) on the packages; fails on any error.
run_lintian() {
  local lroot="" args=(--info --display-info --show-overrides) f
  if ! native; then lroot="$(target_root)"; mkdir -p "$lroot/tmp/lector-lint"; cp "$@" "$lroot/tmp/lector-lint/"; fi
  log "lintian ($(in_target lintian --version))"
  local files=(); for f in "$@"; do files+=("${lroot:+/tmp/lector-lint/}$( [[ -n $lroot ]] && basename "$f" || echo "$f")"); done
  in_target lintian "${args[@]}" "${files[@]}" > "$work/lintian.txt" 2>&1 || true
  grep -v 'spelling-error-in-binary' "$work/lintian.txt" >&2 || true
  cp "$work/lintian.txt" "$out/lintian-$dist-$arch.txt"
  [[ -n "$lroot" ]] && rm -rf "$lroot/tmp/lector-lint"
  local e w o; e=$(grep -c '^E: ' "$work/lintian.txt" || true); w=$(grep -c '^W: ' "$work/lintian.txt" || true)
  o=$(grep -c '^O: ' "$work/lintian.txt" || true)
  log "lintian: $e errors, $w warnings, $o overridden warnings (all of it in $out/lintian-$dist-$arch.txt)"
  ((e == 0)) || die "lintian reports errors"
}

control_arch() { [[ "$1" == lector-models ]] && echo all || echo "$arch"; }
