#!/bin/sh
# tests/vm/capture-guest.sh — runs INSIDE the VM (busybox sh), started by
# tests/vm/run through vm/run.sh with vivid "n_devs=2 node_types=0x101,0x101":
# instance 0 = /dev/video0 (capture) + /dev/video1 (output), instance 1 = /dev/video2 + /dev/video3.
#
# Each scenario runs lectord against vivid's HDMI loop (frames written to the output
# node come back byte-identically on the capture node, 640x480p59.94) and saves what
# lectord printed under $LECTOR_OUT/<scenario>/; the host judges it (check-capture.py).
# This script only fails on harness errors; it prints progress lines.
set -u
OUT=${LECTOR_OUT:-/tmp/out}
LECTORD=${1:?usage: capture-guest.sh PATH-OF-LECTORD}
TESS=/lector/tessdata
FRAMES=/lector/frames
export OMP_THREAD_LIMIT=1
now() { date +%s; }
say() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }

# vivid_loop, vivid_hdmi_loop, vivid_write: the loop's setup, shared with the other guests.
. /lector/vivid-loop.sh

# start_writer OUT FOURCC [DIR]: writes DIR/frame.FOURCC (default $FRAMES) to OUT in a
# loop, restarting the writer whenever it ends (a disconnect ends it); stop_writer OUT stops it.
start_writer() {
  tag=$(basename "$1")
  src=${3:-$FRAMES}
  rm -f "/tmp/stop.$tag"
  (
    while [ ! -e "/tmp/stop.$tag" ]; do
      v4l2-ctl -d "$1" -x width=640,height=480,pixelformat="$2" >/dev/null 2>&1
      vivid_write "$1" "$src/frame.$2"
      echo $! >"/tmp/writer.$tag"
      wait $!
      sleep 0.3
    done
  ) &
  eval "writer_$tag=$!"
  sleep 1
}
stop_writer() {
  tag=$(basename "$1")
  touch "/tmp/stop.$tag"
  kill "$(cat "/tmp/writer.$tag")" 2>/dev/null
  eval "wait \$writer_$tag" 2>/dev/null
  rm -f "/tmp/stop.$tag"
}

# count FILE PATTERN: lines of FILE matching PATTERN (0 when there is no file yet).
count() { n=$(grep -c "$2" "$1" 2>/dev/null); echo "${n:-0}"; }

# wait_lines FILE PATTERN N SECONDS: waits until FILE has N lines matching PATTERN.
wait_lines() {
  end=$(( $(now) + $4 ))
  while [ "$(count "$1" "$2")" -lt "$3" ]; do
    [ "$(now)" -ge "$end" ] && return 1
    sleep 0.2
  done
  return 0
}

# Under TCG one recognition of 640x480 takes about 6 s: a generous deadline. --size keeps
# the capture at the loop's size (vivid's HDMI input has a scaler; a scaled capture does not loop).
COMMON="--tessdata $TESS --stdout --deadline-ms 120000 --size 640x480"
# The raw capture path (zero-copy, latest frame only), without live text's stacking:
# under TCG one 640x480 fold costs tens of ms (0.7 ms natively), longer than vivid's
# 16.7 ms frame interval, which would blur the latency bound and starve a second camera.
RAW="--stack off --gate off"

# ---- 1. formats: YUYV, NV12 (asked with --format), GREY (chosen by negotiation) -------------
for fmt in YUYV NV12 GREY; do
  d="$OUT/format-$fmt"; mkdir -p "$d"
  vivid_hdmi_loop /dev/video0 /dev/video1 $fmt
  start_writer /dev/video1 $fmt
  args="--format $fmt"
  [ $fmt = GREY ] && args=""   # no --format: the cheapest format (GREY) must be chosen
  say "format $fmt: lectord --device /dev/video0 $args --max-frames 4"
  t0=$(now)
  # shellcheck disable=SC2086
  timeout 240 "$LECTORD" $COMMON $RAW --device /dev/video0 $args --max-frames 4 \
    >"$d/stdout" 2>"$d/stderr"
  echo "exit=$? seconds=$(( $(now) - t0 ))" >"$d/status"
  stop_writer /dev/video1
  say "format $fmt: $(cat "$d/status"), $(grep -c '"class":"TEXT"' "$d/stdout") TEXT lines"
done

# ---- 2. the direct path is interceptable by LD_PRELOAD; libv4l2's is not ---------------------
vivid_hdmi_loop /dev/video0 /dev/video1 GREY
start_writer /dev/video1 GREY
for io in direct libv4l2; do
  d="$OUT/preload-$io"; mkdir -p "$d"
  say "LD_PRELOAD interposer, --io $io"
  # shellcheck disable=SC2086
  LD_PRELOAD=/lector/count-v4l2-calls.so timeout 120 "$LECTORD" $COMMON \
    --device /dev/video0 --io $io --max-frames 1 >"$d/stdout" 2>"$d/stderr"
  echo "exit=$?" >"$d/status"
  say "  $(grep count-v4l2-calls "$d/stderr")"
done

# ---- 3. injected errors and a disconnect while streaming; then SIGTERM ----------------------
d="$OUT/faults"; mkdir -p "$d"
: >"$d/events"
event() { echo "$(now) $*" >>"$d/events"; say "faults: $*"; }
# A STREAMON error armed while nothing streams hits the next stream: lectord's first.
event "inject_vidioc_streamon_error (before lectord starts)"
v4l2-ctl -d /dev/video0 -c inject_vidioc_streamon_error=1
# shellcheck disable=SC2086
"$LECTORD" $COMMON --device /dev/video0 >"$d/stdout" 2>"$d/stderr" &
pid=$!
wait_lines "$d/stdout" '"class":"TEXT"' 2 120 || say "faults: no TEXT before the injections"
# vivid's capture and output threads share this flag: whichever ticks first takes it.
# With the writer stopped for a moment, the capture side does.
stop_writer /dev/video1
event "inject_v4l2_buf_flag_error"
v4l2-ctl -d /dev/video0 -c inject_v4l2_buf_flag_error=1
sleep 1.5
start_writer /dev/video1 GREY
n=$(count "$d/stdout" '"class":"TEXT"')
event "inject_fatal_streaming_error (TEXT so far: $n)"
v4l2-ctl -d /dev/video0 -c inject_fatal_streaming_error=1
# Up to 2 frames captured before the fault may still be published after it (one in
# the mailbox, one being recognized): wait for 2 more, which were captured after it.
wait_lines "$d/stdout" '"class":"TEXT"' $((n + 4)) 120 || say "faults: no TEXT after the fatal error"
n=$(count "$d/stdout" '"class":"TEXT"')
event "disconnect (TEXT so far: $n)"
v4l2-ctl -d /dev/video0 -c disconnect=1
# Up to 2 frames captured before the fault may still be published after it (one in
# the mailbox, one being recognized): wait for 2 more, which were captured after it.
wait_lines "$d/stdout" '"class":"TEXT"' $((n + 4)) 120 || say "faults: no TEXT after the disconnect"
n=$(count "$d/stdout" '"class":"TEXT"')
event "SIGTERM (TEXT so far: $n)"
t0=$(cut -d' ' -f1 /proc/uptime)
kill -TERM $pid
wait $pid
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
echo "exit=$rc stop_seconds=$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')" >"$d/status"
event "lectord ended: $(cat "$d/status")"
stop_writer /dev/video1

# ---- 4. live text: a still scene, then a switch to other text (stacking, tracks and the
# change gate on, as by default). Scene A is the HELLO page; scene B the first demo page.
# Under TCG a recognition takes 5-20 s: --refresh-s (counted from the capture of the frame
# last read) is raised so that the gate's skipping of a still scene can be seen.
d="$OUT/scene-switch"; mkdir -p "$d"
: >"$d/events"
event() { echo "$(now) $*" >>"$d/events"; say "scene-switch: $*"; }
vivid_hdmi_loop /dev/video0 /dev/video1 GREY
start_writer /dev/video1 GREY
# shellcheck disable=SC2086
"$LECTORD" $COMMON --refresh-s 600 --device /dev/video0 >"$d/stdout" 2>"$d/stderr" &
pid=$!
wait_lines "$d/stdout" '"class":"TRACK".*"event":"new".*HELLO' 1 300 || say "scene-switch: scene A never settled"
event "scene A settled"
sleep 20   # a still scene: the gate skips unchanged frames
stop_writer /dev/video1
event "switch to scene B"
start_writer /dev/video1 GREY "$FRAMES/scene-b"
wait_lines "$d/stdout" '"class":"TRACK".*"event":"new".*LECTOR READS' 1 300 || say "scene-switch: scene B never settled"
event "scene B settled"
sleep 5
event "SIGTERM"
kill -TERM $pid
wait $pid
echo "exit=$?" >"$d/status"
stop_writer /dev/video1

# ---- 5. two cameras: instance 1 is disconnected while instance 0 keeps going; then the
# whole driver is unbound and bound again (vivid.0 is one platform device for all
# instances). lectord is given by-path style links, kept current the way udev keeps
# /dev/v4l/by-path: after the rebind the nodes may get other numbers, and lectord
# resolves the links again when it reopens.
d="$OUT/two-cameras"; mkdir -p "$d"
: >"$d/events"
event() { echo "$(now) $*" >>"$d/events"; say "two-cameras: $*"; }
link_nodes() {
  mkdir -p /dev/v4l/by-path
  for f in /sys/class/video4linux/video*; do
    name=$(cat "$f/name")
    case "$name" in
      vivid-*-vid-cap) ln -sfn "/dev/$(basename "$f")" "/dev/v4l/by-path/platform-$name" ;;
    esac
  done
}
A=/dev/v4l/by-path/platform-vivid-000-vid-cap
B=/dev/v4l/by-path/platform-vivid-001-vid-cap
link_nodes
ls -l /dev/v4l/by-path
vivid_hdmi_loop /dev/video0 /dev/video1 GREY
vivid_hdmi_loop /dev/video2 /dev/video3 GREY
start_writer /dev/video1 GREY
start_writer /dev/video3 GREY
# shellcheck disable=SC2086
"$LECTORD" $COMMON $RAW --device $A --device $B >"$d/stdout" 2>"$d/stderr" &
pid=$!
wait_lines "$d/stdout" "\"class\":\"FRAME\",\"device\":\"$B\"" 1 180 || say "two-cameras: B did not publish"
wait_lines "$d/stdout" "\"class\":\"FRAME\",\"device\":\"$A\"" 1 180 || say "two-cameras: A did not publish"
stop_writer /dev/video3
event "disconnect B (/dev/video2)"
v4l2-ctl -d /dev/video2 -c disconnect=1
sleep 15
start_writer /dev/video3 GREY
n=$(count "$d/stdout" "\"class\":\"FRAME\",\"device\":\"$B\"")
event "writer of /dev/video3 restarted (B FRAME lines so far: $n)"
wait_lines "$d/stdout" "\"class\":\"FRAME\",\"device\":\"$B\"" $((n + 1)) 180 || say "two-cameras: B did not come back"
stop_writer /dev/video3
stop_writer /dev/video1
pdev=$(basename "$(ls -d /sys/bus/platform/drivers/vivid/vivid* | head -1)")
sA=$(count "$d/stderr" "camera streaming device=$A")
sB=$(count "$d/stderr" "camera streaming device=$B")
event "unbind $pdev"
echo "$pdev" >/sys/bus/platform/drivers/vivid/unbind
sleep 3
event "bind $pdev"
echo "$pdev" >/sys/bus/platform/drivers/vivid/bind
sleep 1
link_nodes   # what udev would do
ls -l /dev/v4l/by-path | grep -o 'platform.*'
# Back: streaming again (the new instances start on the webcam input), then two more frames each.
for cam in A B; do
  eval "path=\$$cam; s=\$s$cam"
  wait_lines "$d/stderr" "camera streaming device=$path" $((s + 1)) 120 || say "two-cameras: $cam did not stream again"
  n=$(count "$d/stdout" "\"class\":\"FRAME\",\"device\":\"$path\"")
  wait_lines "$d/stdout" "\"class\":\"FRAME\",\"device\":\"$path\"" $((n + 2)) 180 || say "two-cameras: $cam did not publish again"
done
event "SIGTERM"
kill -TERM $pid
wait $pid
echo "exit=$?" >"$d/status"

say "done"
