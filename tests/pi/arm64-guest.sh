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
echo "# $(uname -m), $(grep -c ^processor /proc/cpuinfo) CPUs, kernel $(uname -r)"

# 1. the demo: the four bundled frames, once each (--max-frames 4).
t0=$(now)
$L/lectord --demo $COMMON --stdout --max-frames 4 > /tmp/demo.out 2> /tmp/demo.err
echo "RESULT demo exit=$? seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
show demo.out /tmp/demo.out
show demo.err /tmp/demo.err

# 2. vivid: HDMI input 3 looped from the HDMI output, 640x480 YUYV, the known text.
v4l2-ctl -d /dev/video0 -i 3 >/dev/null
v4l2-ctl -d /dev/video0 -c osd_text_mode=2 >/dev/null
v4l2-ctl -d /dev/video0 -c loop_video=1 >/dev/null 2>&1 || v4l2-ctl -d /dev/video0 -c hdmi_000_0_is_connected_to=2
v4l2-ctl -d /dev/video1 -o 1 >/dev/null
v4l2-ctl -d /dev/video0 --set-dv-bt-timings index=0 >/dev/null
v4l2-ctl -d /dev/video1 --set-dv-bt-timings index=0 >/dev/null
v4l2-ctl -d /dev/video0 -v width=640,height=480,pixelformat=YUYV >/dev/null
v4l2-ctl -d /dev/video1 -x width=640,height=480,pixelformat=YUYV >/dev/null
v4l2-ctl -d /dev/video1 --stream-out-mmap --stream-from $L/frames/frame.YUYV --stream-loop >/dev/null 2>&1 &
writer=$!
sleep 2
t0=$(now)
$L/lectord --device /dev/video0 --format YUYV --size 640x480 $RAW $COMMON --stdout --max-frames 2 > /tmp/vivid.out 2> /tmp/vivid.err
echo "RESULT vivid exit=$? seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
kill $writer 2>/dev/null
show vivid.out /tmp/vivid.out
show vivid.err /tmp/vivid.err
exit 0
