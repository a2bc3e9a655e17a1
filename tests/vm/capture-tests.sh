#!/usr/bin/env bash
# tests/vm/capture-tests.sh — V4L2 capture on the real kernel: lectord against the vivid
# driver in a qemu VM (vm/run.sh). One command for CI:
#   1. builds lectord (release, Swift runtime linked statically), the LD_PRELOAD
#      interposer (count-v4l2-calls.c) and raw frames with known text (make-frames.py);
#   2. boots the VM once; capture-guest.sh runs every scenario and saves lectord's output;
#   3. check-capture.py judges it: PASS/FAIL lines and a closing "N passed, N failed".
# Options: --keep DIR keeps the guest's output in DIR. Exit status 0 only if all passed.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
keep=""
[[ "${1:-}" == --keep ]] && keep="$2"
started=$SECONDS
fail() { echo "capture-tests: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/lector-capture.XXXXXX")"
trap 'rm -rf "$work"' EXIT
out="${keep:-$work/out}"
rm -rf "$out"; mkdir -p "$out"

cd "$repo"
echo "[capture-tests] building lectord (release)"
swift build -c release --static-swift-stdlib --product lectord >"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log"; fail "swift build failed"; }
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/lectord"
cc="$(command -v cc || command -v gcc)" || fail "no C compiler"
"$cc" -O2 -Wall -shared -fPIC -o "$work/count-v4l2-calls.so" "$here/count-v4l2-calls.c" -ldl \
  || fail "building the interposer failed"
python3 "$here/make-frames.py" "$repo/Tests/LectorTests/Fixtures/hello-640x480.png" 640 480 "$work/frames" \
  || fail "making frames failed"
tessdata="${TESSDATA_PREFIX:-/usr/share/tesseract-ocr/5/tessdata}"
[[ -f "$tessdata/eng.traineddata" ]] || fail "no eng.traineddata in $tessdata"
echo "[capture-tests] built in $((SECONDS - started)) s; booting the VM"

boot=$SECONDS
"$repo/vm/run.sh" --binary "$bin" \
  --file "$work/count-v4l2-calls.so:/lector/count-v4l2-calls.so" \
  --file "$work/frames:/lector/frames" \
  --file "$tessdata/eng.traineddata:/lector/tessdata/eng.traineddata" \
  --vivid-options "n_devs=2 node_types=0x101,0x101" \
  --timeout 900 --out "$out" \
  "$here/capture-guest.sh" "$bin" 2>&1 | sed -u 's/^/  /'
vm_rc=${PIPESTATUS[0]}
echo "[capture-tests] VM ran $((SECONDS - boot)) s (exit $vm_rc)"
python3 "$here/check-capture.py" "$out" "$vm_rc"
rc=$?
echo "[capture-tests] total $((SECONDS - started)) s"
exit $rc
