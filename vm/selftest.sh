#!/usr/bin/env bash
# vm/selftest.sh — prove the VM harness and record the vivid facts Lector relies on.
#
# Boots the VM three times (vm/run.sh), each running vm/selftest-guest.sh:
#   main    vivid "n_devs=1 node_types=0x101": device list, --all, formats, controls,
#           S-Video and HDMI loop round trips (byte-identical), NV12/GREY vs YUYV loop
#   small   vivid with one S-Video input and one S-Video output: loop with no setup
#   errors  error-injection controls, with exact errno values from vm/v4l2-probe.c
# Full output: $CACHE/selftest.log. Exit 0 only if every boot and every check passed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
CACHE="${LECTOR_VM_CACHE:-$repo/.cache/vm}"
mkdir -p "$CACHE"
"$here/setup.sh"

# Build the probe (a plain C program; any C compiler will do).
probe="$CACHE/v4l2-probe"
cc="$(command -v cc || command -v gcc || command -v clang || true)"
if [[ -n "$cc" ]]; then
  "$cc" -O2 -Wall -o "$probe" "$here/v4l2-probe.c"
  probe_args=(--binary "$probe")
else
  echo "[selftest] no C compiler: the errno part of 'errors' is skipped" >&2
  probe=/nonexistent; probe_args=()
fi

base="n_devs=1 node_types=0x101"
small="$base num_inputs=1 input_types=0x2 num_outputs=1 output_types=0x0"
log="$CACHE/selftest.log"; : > "$log"
failed_boots=0
run_part() {   # run_part PART VIVID_OPTIONS [run.sh options...]
  local part="$1" opts="$2"; shift 2
  local t0=$SECONDS rc=0
  echo "##### part $part — vivid options: $opts" | tee -a "$log"
  "$here/run.sh" --vivid-options "$opts" --timeout 300 "$@" \
    "$here/selftest-guest.sh" "$part" "$probe" 2>&1 | tee -a "$log" || rc=$?
  echo "##### part $part: exit $rc in $((SECONDS - t0)) s" | tee -a "$log"
  ((rc == 0)) || failed_boots=$((failed_boots + 1))
}

run_part main "$base"
run_part small "$small"
run_part errors "$base" "${probe_args[@]}"

passed=$(grep -c '^PASS:' "$log" || true)
failed=$(( $(grep -c '^FAIL:' "$log" || true) + failed_boots ))
echo "selftest: $passed passed, $failed failed (log: $log)"
((failed == 0))
