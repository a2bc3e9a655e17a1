#!/usr/bin/env bash
# tests/systemd/run.sh — Lector's systemd units under a real systemd with a real camera
# driver: builds (or reuses) a debootstrapped Debian bookworm root, installs Lector
# into a copy of it with scripts/install.sh (units unchanged), boots it under qemu TCG
# with systemd as PID 1 and vivid in loop mode showing a frame with known text, and
# runs tests/systemd/guest-test.sh there. Host-side checks first: systemd-analyze
# verify of every shipped unit and the offline security score.
#
# usage: tests/systemd/run.sh [--no-build] [--verbose]
# Last line: "systemd: N passed, N failed". Exit 0 only when nothing failed.
# Cache: ${LECTOR_VM_CACHE:-<repo>/.cache/vm} (root tree ~211 MB, kernel ~400 MB).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build=1; verbose=()
for a in "$@"; do
  case "$a" in
    --no-build) build=0 ;;
    --verbose) verbose=(--verbose) ;;
    *) echo "usage: tests/systemd/run.sh [--no-build] [--verbose]" >&2; exit 2 ;;
  esac
done
pass=0; fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }
finish() { echo "systemd: $pass passed, $fail failed"; [[ $fail -eq 0 ]]; exit $?; }
started=$SECONDS
command -v systemd-analyze >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >&2
command -v mkfs.ext4 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs >&2

# ---- host: verify and score the unit files as shipped --------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/lector-systemd-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
t=$SECONDS
base="$("$repo/vm/systemd/build-root.sh")" || { notok "building the Debian root (vm/systemd/build-root.sh)"; finish; }
echo "# root file system: $base ($((SECONDS - t)) s)"
stage="$work/root"
cp -a "$base" "$stage"
t=$SECONDS
install_args=(--root "$stage"); ((build)) || install_args+=(--no-build)
if "$repo/scripts/install.sh" "${install_args[@]}" > "$work/install.log" 2>&1; then
  ok "scripts/install.sh --root: built and installed ($((SECONDS - t)) s)"
else
  tail -30 "$work/install.log"; notok "scripts/install.sh failed"; finish
fi
missing="$(chroot "$stage" /usr/bin/ldd /usr/local/libexec/lector/lectord /usr/local/libexec/lector/lector 2>&1 | grep 'not found')"
[[ -z "$missing" ]] && ok "host: every library of lectord and lector resolves in the Debian root" \
                    || notok "host: libraries missing in the root: $missing"
units="$stage/usr/local/lib/systemd/system"
out="$(cd "$units" && systemd-analyze verify --root="$stage" --man=no \
        lectord.service lectord.socket "lectord@dev-video0.service" 2>&1)"
[[ -z "$out" ]] && ok "host: systemd-analyze verify clean for lectord.service, lectord.socket, lectord@.service" \
                || notok "host: systemd-analyze verify: $out"
line="$(systemd-analyze security --offline=yes "$repo/systemd/lectord.service" 2>&1 | grep 'Overall exposure level')"
score="$(sed -E 's/.*: ([0-9.]+) .*/\1/' <<<"$line")"
echo "# host: $line"
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 1.0) }' \
  && ok "host: systemd-analyze security --offline=yes systemd/lectord.service: $score <= 1.0" \
  || notok "host: offline exposure '$score' > 1.0"

# ---- the guest: test harness, a frame with known text, a config for vivid -------------
install -d "$stage/lector-test"
install -m 0755 "$here/guest-test.sh" "$stage/lector-test/guest-test.sh"
python3 "$repo/tests/vm/make-frames.py" "$repo/Tests/LectorTests/Fixtures/hello-640x480.png" 720 576 "$stage/lector-test/frames"
mv "$stage/lector-test/frames/frame.YUYV" "$stage/lector-test/frame.yuyv"
rm -r "$stage/lector-test/frames"
install -m 0644 "$here/lector-vmtest.service" "$stage/etc/systemd/system/lector-vmtest.service"
ln -sf ../lector-vmtest.service "$stage/etc/systemd/system/multi-user.target.wants/lector-vmtest.service"
cat > "$stage/etc/lector/lectord.conf" <<'CONF'
# vivid (n_devs=1, S-Video in loop mode): 720x576 YUYV
[camera]
device = /dev/video0
format = YUYV
size = 720x576
CONF

t=$SECONDS
"$repo/vm/systemd/boot.sh" --timeout "${LECTOR_SYSTEMD_VM_TIMEOUT:-900}" "${verbose[@]}" "$stage" > "$work/guest.out"
rc=$?
cat "$work/guest.out"
echo "# guest: exit $rc after $((SECONDS - t)) s"
gp=$(grep -c '^ok - ' "$work/guest.out"); gf=$(grep -c '^not ok - ' "$work/guest.out")
pass=$((pass + gp)); fail=$((fail + gf))
if [[ $rc -ne 0 && $gf -eq 0 ]]; then notok "the guest ended without a result (exit $rc)"; fi
((gp + gf > 0)) || notok "the guest reported no checks"
echo "# total: $((SECONDS - started)) s"
finish
