# tests/vm/vivid-loop.sh — sourced (`. /lector/vivid-loop.sh`) by every guest that makes
# vivid show known text: tests/vm/capture-guest.sh, tests/pi's arm64 and libcamera guests,
# tests/systemd/guest-test.sh. In loop mode, frames written to an instance's output node
# come back byte for byte on its capture node. POSIX sh (busybox sh runs it too).

# vivid_loop CAP KIND: CAP's input shows what its instance's output of KIND (hdmi,
# s_video) is sent. Linux <= 6.6: the loop_video control. Linux >= 6.8 (Debian 13's 6.12)
# has none: every input has a menu "<KIND> NNN-M Is Connected To" (NNN the instance)
# whose items are 0 the test pattern, 1 none, then the outputs of KIND of every instance
# in turn: one per instance in these guests, so instance N's own is item 2 + N.
vivid_loop() {
  v4l2-ctl -d "$1" -c loop_video=1 >/dev/null 2>&1 && return 0
  _vivid_ctl=$(v4l2-ctl -d "$1" -l 2>/dev/null | grep -o "${2}_[0-9][0-9][0-9]_[0-9]*_is_connected_to" | head -1)
  [ -n "$_vivid_ctl" ] || { echo "vivid_loop: $1 has neither loop_video nor ${2}_NNN_M_is_connected_to" >&2; return 1; }
  _vivid_item=$(( 2 + $(echo "$_vivid_ctl" | sed "s/^${2}_0*\([0-9][0-9]*\)_.*/\1/") ))
  v4l2-ctl -d "$1" -c "$_vivid_ctl=$_vivid_item" >/dev/null \
    || { echo "vivid_loop: $1 $_vivid_ctl=$_vivid_item refused" >&2; return 1; }
}

# vivid_hdmi_loop CAP OUT FOURCC: the HDMI input (3) and output (1), 640x480p60 on both
# sides, the loop, no OSD, and FOURCC at 640x480 on both nodes.
vivid_hdmi_loop() {
  v4l2-ctl -d "$1" -i 3 -c osd_text_mode=2 >/dev/null
  vivid_loop "$1" hdmi
  v4l2-ctl -d "$2" -o 1 >/dev/null
  v4l2-ctl -d "$1" --set-dv-bt-timings index=0 >/dev/null
  v4l2-ctl -d "$2" --set-dv-bt-timings index=0 >/dev/null
  v4l2-ctl -d "$1" -v width=640,height=480,pixelformat="$3" >/dev/null
  v4l2-ctl -d "$2" -x width=640,height=480,pixelformat="$3" >/dev/null
}

# vivid_write OUT FILE: writes the raw frame FILE to the output node OUT in a loop, in the
# background ($! is the writer's pid).
vivid_write() {
  v4l2-ctl -d "$1" --stream-out-mmap --stream-from "$2" --stream-loop >/dev/null 2>&1 &
}
