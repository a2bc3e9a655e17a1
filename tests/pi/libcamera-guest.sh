#!/bin/sh
# tests/pi/libcamera-guest.sh — runs INSIDE the amd64 Debian 13 VM (tests/pi/vm.sh):
# libcamera's virtual camera (its config written here, serving /lector/text.jpg),
# lectord's native libcamera source, `lector devices` over the socket, then lectord
# under libcamerify (libcamera's V4L2 compatibility layer, LD_PRELOAD) with --io direct
# against vivid looping the same text. Prints "RESULT name key=value..." lines and the
# captured outputs between "BEGIN-FILE name" / "END-FILE"; the host judges.
set -u
export OMP_THREAD_LIMIT=1
L=/lector
COMMON="--tessdata $L/tessdata --deadline-ms 120000"
# The raw capture path for cameras (as tests/vm does): under TCG a stack fold outlasts
# a frame interval, and the gate would hold a still scene back for --refresh-s.
RAW="--stack off --gate off"
now() { cut -d' ' -f1 /proc/uptime; }
show() { echo "BEGIN-FILE $1"; cat "$2" 2>/dev/null; echo "END-FILE"; }
# vivid_hdmi_loop, vivid_write: vivid's loop, as every guest sets it up (tests/vm/vivid-loop.sh).
. $L/vivid-loop.sh

mkdir -p /usr/share/libcamera/pipeline/virtual
cat > /usr/share/libcamera/pipeline/virtual/virtual.yaml <<'YAML'
%YAML 1.1
---
"Virtual0":
  supported_formats:
    - width: 640
      height: 480
      frame_rates:
        - 10
        - 10
  frames:
    path: "/lector/text.jpg"
  location: "CameraLocationBack"
  model: "Lector known text"
YAML
ls /dev/udmabuf /dev/dma_heap 2>&1 | sed 's/^/# /'

# 1. native: lectord --device libcamera:0 until 3 frames are recognized.
t0=$(now)
$L/lectord --device libcamera:0 $RAW $COMMON --stdout --max-frames 3 > /tmp/native.out 2> /tmp/native.err
echo "RESULT native exit=$? seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
show native.out /tmp/native.out
show native.err /tmp/native.err

# 2. the socket: DEVICES through `lector devices`, and STATUS.
$L/lectord --device libcamera:Virtual0 $RAW $COMMON --socket /tmp/lector.sock --always-on > /tmp/served.out 2> /tmp/served.err &
pid=$!
i=0; while [ ! -S /tmp/lector.sock ] && [ $i -lt 100 ]; do sleep 0.3; i=$((i + 1)); done
i=0; until $L/lector devices --socket /tmp/lector.sock 2>/dev/null | grep -q streaming || [ $i -ge 60 ]; do sleep 1; i=$((i + 1)); done
$L/lector devices --socket /tmp/lector.sock > /tmp/devices.out 2>&1
echo "RESULT devices exit=$?"
sleep 20
$L/lector status --socket /tmp/lector.sock > /tmp/status.out 2>&1
$L/lector status --socket /tmp/lector.sock --json > /tmp/status.json 2>&1
kill -TERM $pid; wait $pid
echo "RESULT served exit=$?"
show devices.out /tmp/devices.out
show status.out /tmp/status.out
show status.json /tmp/status.json
show served.err /tmp/served.err

# 3. libcamerify: libcamera's V4L2 compatibility layer under lectord --io direct.
#    vivid (HDMI input 3 in loop mode) shows the same text, written to its output node.
vivid_hdmi_loop /dev/video0 /dev/video1 YUYV
vivid_write /dev/video1 $L/frames/frame.YUYV
writer=$!
sleep 1
compat=$(ls /usr/libexec/*/libcamera/v4l2-compat.so 2>/dev/null | head -1)
echo "# libcamerify's preload: $compat"
t0=$(now)
LD_PRELOAD=$compat LIBCAMERA_LOG_LEVELS='*:INFO' $L/lectord --device /dev/video0 --io direct --format YUYV --size 640x480 $RAW $COMMON --stdout --max-frames 2 \
  > /tmp/compat.out 2> /tmp/compat.err
echo "RESULT libcamerify exit=$? seconds=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{print b-a}')"
kill $writer 2>/dev/null
show libcamerify.out /tmp/compat.out
show libcamerify.err /tmp/compat.err
exit 0
