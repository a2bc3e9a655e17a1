#!/bin/sh
# tests/pi/arm64-guest.sh — runs INSIDE the arm64 Debian 13 VM (qemu-system-aarch64,
# tests/pi/vm.sh): the cross-compiled lectord reads the bundled demo frames, then known
# text from vivid in loop mode (frames written to its output node come back on its
# capture node). Prints "RESULT name key=value" lines and lectord's output between
# "BEGIN-FILE name" / "END-FILE"; the host judges.
set -u
export OMP_THREAD_LIMIT=1
L=/lector
COMMON="--tessdata $L/tessdata --deadline-ms 300000"
# The raw capture path for cameras (as tests/vm does): under TCG a stack fold outlasts
# a frame interval, and the gate would hold a still scene back for --refresh-s.
RAW="--stack off --gate off"
now() { cut -d' ' -f1 /proc/uptime; }
show() { echo "BEGIN-FILE $1"; cat "$2" 2>/dev/null; echo "END-FILE"; }
# vivid_hdmi_loop, vivid_write: vivid's loop, as every guest sets it up (tests/vm/vivid-loop.sh).
. $L/vivid-loop.sh
echo "# $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPUs, kernel $(uname -r)"

# 1. the demo: the four bundled frames, once each (--max-frames 4).
t0=$(now)
$L/lectord --demo $COMMON --stdout --max-frames 4 > /tmp/demo.out 2> /tmp/demo.err
echo "RESULT demo exit=$? seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
show demo.out /tmp/demo.out
show demo.err /tmp/demo.err

# 2. vivid: HDMI input 3 looped from the HDMI output, 640x480 YUYV, the known text.
vivid_hdmi_loop /dev/video0 /dev/video1 YUYV
vivid_write /dev/video1 $L/frames/frame.YUYV
writer=$!
sleep 2
t0=$(now)
$L/lectord --device /dev/video0 --format YUYV --size 640x480 $RAW $COMMON --stdout --max-frames 2 > /tmp/vivid.out 2> /tmp/vivid.err
echo "RESULT vivid exit=$? seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
kill $writer 2>/dev/null
show vivid.out /tmp/vivid.out
show vivid.err /tmp/vivid.err
exit 0
