# tests/packages/arm64.sh — sourced by tests/packages/run: part c, the arm64 trixie
# packages (scripts/package --arch arm64 --dist trixie) installed and run in the arm64
# guest tests/pi boots (qemu-system-aarch64 under TCG, Debian 13's arm64 kernel,
# tests/pi/vm.sh). The guest side is tests/packages/arm64-guest.sh.
# On the host: debootstrap's first stage of a Debian 13 arm64 minbase root including
# every package Lector's arm64 lectord and lector name in Depends (the first of each
# alternative), so the guest needs no network; Lector's packages are put in /lector-debs.

# Depends of the given .deb files as package names (versions dropped, first alternative).
depends_names() {
  local f; for f in "$@"; do dpkg-deb -f "$f" Depends; done | tr ',' '\n' \
    | sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v '^$' | sort -u
}

part_c() {
  local dir="$1" P="${LECTOR_PI_CACHE:-$HOME/.cache/lector/pi}" R A root names t rc
  R="$P/build"; A="$R/opt/arm64-sysroot"
  [[ -d "$A/usr" && -d "$P/kernel-arm64" ]] || { notok "arm64: no tests/pi build root in $P (tests/pi/build-root.sh)"; return; }
  local debs_c=("$dir"/lectord_*_arm64.deb "$dir"/lector_*_arm64.deb "$dir"/lector-models_*_all.deb)
  for f in "${debs_c[@]}"; do [[ -f "$f" ]] || { notok "arm64: no $f"; return; }; done
  names="$(depends_names "${debs_c[@]}" | tr '\n' ',' | sed 's/,$//')"
  # debootstrap does not resolve a virtual package among the Depends of what it
  # includes: libonnxruntime1.21 depends on libre2-11-absl20240722, which libre2-11
  # provides (the second stage failed on it).
  [[ ",$names," == *,libonnxruntime1.21,* ]] && names+=",libre2-11"
  note "arm64: lectord's and lector's Depends: $names"
  root="$W/root-c"; t=$SECONDS
  if debootstrap --foreign --arch=arm64 --variant=minbase --include="$names" trixie "$root" "$MIRROR" > "$W/c-debootstrap.log" 2>&1; then
    ok "arm64: debootstrap's first stage of a Debian 13 arm64 root with the packages' Depends from the archive ($((SECONDS - t)) s, $(ls "$root"/var/cache/apt/archives/*.deb | wc -l) packages)"
  else tail -10 "$W/c-debootstrap.log"; notok "arm64: debootstrap --foreign of the Depends"; return; fi
  mkdir -p "$root/lector-debs"; cp "${debs_c[@]}" "$root/lector-debs/"
  tar -C "$root" -cf "$W/root-c.tar" . && rm -rf "$root"
  t=$SECONDS
  LOG="$CACHE/last-arm64-vm.log" "$repo/tests/pi/vm.sh" --arch arm64 --sysroot "$A" --kernel "$P/kernel-arm64" --busybox "$A/usr/bin/busybox" \
    --file "$W/root-c.tar:/lector/root.tar" --memory 4096 --smp 2 --timeout "${LECTOR_PACKAGES_ARM64_TIMEOUT:-3000}" \
    "$here/arm64-guest.sh" > "$W/arm64.out" 2> "$W/arm64.err"
  rc=$?
  note "arm64 VM: exit $rc after $((SECONDS - t)) s; $(tr -d '\r' < "$W/arm64.out" | grep '^# aarch64' | sed 's/^# //')"
  local r f
  part() { tr -d '\r' < "$W/arm64.out" | awk -v n="$1" '$0 == "BEGIN-FILE " n {p=1; next} /^END-FILE$/ {p=0} p'; }
  result() { tr -d '\r' < "$W/arm64.out" | grep "^RESULT $1 " | tail -1; }
  r="$(result second-stage)"
  if [[ "$r" == *exit=0* ]]; then ok "arm64 guest: debootstrap --second-stage installed Debian's packages (${r##*seconds=} s)"
  else part second-stage.tail | tail -8; tail -5 "$W/arm64.err"; notok "arm64 guest: second stage: ${r:-no result (see $CACHE/last-arm64-vm.log)}"; return; fi
  r="$(result dpkg)"
  if [[ "$r" == *exit=0* ]] && [[ "$(part status | grep -c 'install ok installed')" == 3 ]] && part status | grep -q ' arm64 install ok installed'; then
    ok "arm64 guest: dpkg -i lectord, lector, lector-models installed, their Depends met (${r##*seconds=} s): $(part status | tr '\n' ';')"
  else part dpkg.tail; notok "arm64 guest: dpkg -i: $r; $(part status | tr '\n' ';')"; fi
  part user | grep -q '^lector:' && ok "arm64 guest: user lector made by the postinst: $(part user | tr '\n' ' ')" || notok "arm64 guest: no user lector: $(part user)"
  part demo.out > "$W/arm64-demo.jsonl"
  set -- $(score "$W/arm64-demo.jsonl")
  r="$(result demo)"
  if [[ "$r" == *exit=0* ]] && good "$3"; then
    ok "arm64 guest: the installed /usr/bin/lectord --demo --stdout read $1/$2 words of ${6} frames in ${r##*seconds=} s (aarch64, qemu TCG)"
  else part demo.err | tail -6; notok "arm64 guest: demo: $1/$2 words, $r"; fi
  # lector-models' neural recognizer loads on Debian 13's ONNX Runtime (else lectord logs why
  # and reads every line with Tesseract).
  if part demo.err | grep -q "reading lines with the neural line recognizer too"; then
    ok "arm64 guest: the installed lectord reads lines with the neural line recognizer too (lector-models on ONNX Runtime)"
  else part demo.err | grep -E '^(error|warning)' | head -3; notok "arm64 guest: the neural line recognizer did not load"; fi
}
