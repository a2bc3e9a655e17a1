#!/bin/sh
# vm/selftest-guest.sh — runs INSIDE the VM (busybox sh); started by vm/selftest.sh.
# usage: selftest-guest.sh main | small | errors PROBE_BINARY
# Prints what vivid does and exits non-zero if a fact we rely on does not hold.
# Expects vivid loaded with n_devs=1 node_types=0x101 (capture /dev/video0, output /dev/video1).
CAP=/dev/video0
OUT=/dev/video1
fails=0
say()  { echo "== $*"; }
ok()   { echo "PASS: $*"; }
bad()  { echo "FAIL: $*"; fails=$((fails + 1)); }

# md5 of frame I (0-based) of size SZ in FILE
frame_md5() { dd if="$3" bs="$2" skip="$1" count=1 2>/dev/null | md5sum | cut -d' ' -f1; }

# loop_run FRAMEFILE CAPFILE N: stream FRAMEFILE (looped) to the output node while capturing
# N frames from the capture node. Formats, inputs and controls must be set already.
loop_run() {
  v4l2-ctl -d $OUT --stream-out-mmap --stream-from "$1" --stream-loop --stream-count 100 \
    >/tmp/out.log 2>&1 &
  opid=$!
  sleep 1                   # let the output start streaming before capturing
  v4l2-ctl -d $CAP --stream-mmap --stream-count "$3" --stream-to "$2" >/tmp/cap.log 2>&1
  crc=$?
  kill $opid 2>/dev/null; wait $opid 2>/dev/null
  return $crc
}

# count_equal FILE SZ N REFMD5: how many of the N frames in FILE have md5 REFMD5
count_equal() {
  n=0; i=0
  while [ $i -lt "$3" ]; do
    [ "$(frame_md5 $i "$2" "$1")" = "$4" ] && n=$((n + 1))
    i=$((i + 1))
  done
  echo $n
}

part_main() {
  say "v4l2-ctl --list-devices"; v4l2-ctl --list-devices
  say "v4l2-ctl -d $CAP --all (first 40 lines)"; v4l2-ctl -d $CAP --all | head -40
  say "inputs"; v4l2-ctl -d $CAP --list-inputs | grep -E 'Input|Name|Type'
  say "outputs"; v4l2-ctl -d $OUT --list-outputs | grep -E 'Output|Name|Type'
  for inp in 0 2 3; do
    v4l2-ctl -d $CAP -i $inp >/dev/null
    fmts=$(v4l2-ctl -d $CAP --list-formats | sed -n "s/.*\]: '\([^']*\)'.*/\1/p" | tr '\n' ' ')
    say "capture formats on input $inp: $(echo $fmts | wc -w) formats"
    for f in YUYV NV12 GREY MJPG; do
      case " $fmts " in *" $f "*) echo "  $f: offered";; *) echo "  $f: NOT offered";; esac
    done
  done
  say "capture formats with sizes, input 0 (webcam), first 30 lines"
  v4l2-ctl -d $CAP -i 0 >/dev/null; v4l2-ctl -d $CAP --list-formats-ext | head -30
  say "controls on capture node (v4l2-ctl -l), vivid error-injection part"
  v4l2-ctl -d $CAP -l | grep -E 'loop_video|osd_text_mode|disconnect|inject|dropped|wrap'

  # ---- S-Video loop: capture input 2, output 0, both 720x576 YUYV ----
  say "loop S-Video: input 2 -> output 0, YUYV 720x576"
  v4l2-ctl -d $CAP -i 2 -c loop_video=1,osd_text_mode=2
  v4l2-ctl -d $OUT -o 0
  v4l2-ctl -d $CAP -v width=720,height=576,pixelformat=YUYV
  v4l2-ctl -d $OUT -x width=720,height=576,pixelformat=YUYV
  v4l2-ctl -d $CAP -V | grep -E 'Width|Pixel|Field|Size'
  v4l2-ctl -d $OUT -X | grep -E 'Width|Pixel|Field|Size'
  SZ=829440
  head -c $SZ /dev/urandom > /tmp/a.yuyv
  ref=$(md5sum < /tmp/a.yuyv | cut -d' ' -f1)
  if loop_run /tmp/a.yuyv /tmp/cap.raw 10; then
    size=$(wc -c < /tmp/cap.raw); n=$(count_equal /tmp/cap.raw $SZ 10 "$ref")
    echo "captured $size bytes; $n of 10 frames byte-identical to the written frame"
    [ "$n" -eq 10 ] && ok "S-Video YUYV loop is byte-identical" || bad "S-Video YUYV loop ($n/10)"
  else
    cat /tmp/cap.log; bad "S-Video capture failed"
  fi

  # ---- format mismatch: capture NV12 / GREY while output stays YUYV ----
  for cf in NV12 GREY; do
    say "loop with capture $cf, output YUYV"
    v4l2-ctl -d $CAP -v width=720,height=576,pixelformat=$cf
    csz=$(v4l2-ctl -d $CAP -V | sed -n 's/.*Size Image *: //p')
    # a flat grey YUYV frame (every byte 0x80): a converting loop would give all-0x80 too
    head -c $SZ /dev/zero | tr '\000' '\200' > /tmp/g.yuyv
    head -c "$csz" /dev/zero | tr '\000' '\200' > /tmp/g.exp
    loop_run /tmp/g.yuyv /tmp/capg.raw 3 || cat /tmp/cap.log
    refg=$(md5sum < /tmp/g.exp | cut -d' ' -f1)
    n=$(count_equal /tmp/capg.raw "$csz" 3 "$refg")
    f1=$(frame_md5 1 "$csz" /tmp/capg.raw); f2=$(frame_md5 2 "$csz" /tmp/capg.raw)
    if [ "$n" -gt 0 ]; then
      echo "OBSERVED: capture $cf + output YUYV: $n/3 frames are the converted output frame (loops)"
    elif [ "$f1" != "$f2" ]; then
      echo "OBSERVED: capture $cf + output YUYV: no loop; every frame differs (noise), none equals the output"
    else
      echo "OBSERVED: capture $cf + output YUYV: no loop; a static frame that is not the output"
    fi
    # same format on both sides
    say "loop with capture $cf, output $cf"
    v4l2-ctl -d $OUT -x width=720,height=576,pixelformat=$cf
    osz=$(v4l2-ctl -d $OUT -X | sed -n 's/.*Size Image *: //p')
    head -c "$osz" /dev/urandom > /tmp/c.raw
    refc=$(md5sum < /tmp/c.raw | cut -d' ' -f1)
    loop_run /tmp/c.raw /tmp/capc.raw 5 || cat /tmp/cap.log
    n=$(count_equal /tmp/capc.raw "$csz" 5 "$refc")
    echo "frame size cap=$csz out=$osz; $n of 5 frames byte-identical"
    [ "$n" -eq 5 ] && ok "$cf->$cf loop is byte-identical" || bad "$cf->$cf loop ($n/5)"
    v4l2-ctl -d $OUT -x width=720,height=576,pixelformat=YUYV
  done
  v4l2-ctl -d $CAP -v width=720,height=576,pixelformat=YUYV

  # ---- HDMI loop: capture input 3, output 1, 640x480p60 on both ----
  say "loop HDMI: input 3 -> output 1, 640x480p59.94 YUYV"
  v4l2-ctl -d $CAP -i 3
  v4l2-ctl -d $OUT -o 1
  v4l2-ctl -d $CAP --list-dv-timings | head -12
  v4l2-ctl -d $CAP --set-dv-bt-timings index=0
  v4l2-ctl -d $OUT --set-dv-bt-timings index=0
  v4l2-ctl -d $CAP -v width=640,height=480,pixelformat=YUYV
  v4l2-ctl -d $OUT -x width=640,height=480,pixelformat=YUYV
  v4l2-ctl -d $CAP --get-dv-timings | grep -E 'Active|Frame format|Pixelclock'
  v4l2-ctl -d $CAP -V | grep -E 'Width|Pixel|Field|Size'
  v4l2-ctl -d $OUT -X | grep -E 'Width|Pixel|Field|Size'
  SZ=614400
  head -c $SZ /dev/urandom > /tmp/h.yuyv
  ref=$(md5sum < /tmp/h.yuyv | cut -d' ' -f1)
  if loop_run /tmp/h.yuyv /tmp/caph.raw 10; then
    n=$(count_equal /tmp/caph.raw $SZ 10 "$ref")
    echo "$n of 10 frames byte-identical"
    [ "$n" -eq 10 ] && ok "HDMI YUYV loop is byte-identical" || bad "HDMI YUYV loop ($n/10)"
  else
    cat /tmp/cap.log; bad "HDMI capture failed"
  fi
}

# Reduced node/input set: only an S-Video input and an S-Video output, so the capture node
# loops its output with no input/output selection at all.
part_small() {
  say "v4l2-ctl --list-devices"; v4l2-ctl --list-devices
  say "inputs"; v4l2-ctl -d $CAP --list-inputs | grep -E 'Input|Name|Type'
  say "outputs"; v4l2-ctl -d $OUT --list-outputs | grep -E 'Output|Name|Type'
  v4l2-ctl -d $CAP -V | grep -E 'Width|Pixel|Field|Size'
  v4l2-ctl -d $OUT -X | grep -E 'Width|Pixel|Field|Size'
  say "loop with defaults (no -i/-o, no format setting)"
  v4l2-ctl -d $CAP -c loop_video=1,osd_text_mode=2
  SZ=829440
  head -c $SZ /dev/urandom > /tmp/a.yuyv
  ref=$(md5sum < /tmp/a.yuyv | cut -d' ' -f1)
  loop_run /tmp/a.yuyv /tmp/cap.raw 5 || cat /tmp/cap.log
  n=$(count_equal /tmp/cap.raw $SZ 5 "$ref")
  echo "$n of 5 frames byte-identical"
  [ "$n" -eq 5 ] && ok "default-config loop is byte-identical" || bad "default-config loop ($n/5)"
}

# Error injection. Each inject_* control is a button (write 1); it arms a one-shot error.
# PROBE ($2) is vm/v4l2-probe.c built on the host: it prints exact errno values and flags.
part_errors() {
  PROBE=$1
  v4l2-ctl -d $CAP -i 2
  v4l2-ctl -d $CAP -l | grep -E 'disconnect|inject|dropped'
  say "v4l2-ctl view: arm an error with -c NAME=1, then stream 3 frames"
  for c in inject_vidioc_reqbufs_error inject_vidioc_qbuf_error inject_vidioc_streamon_error; do
    v4l2-ctl -d $CAP -c $c=1
    v4l2-ctl -d $CAP --stream-mmap --stream-count 3 --stream-to /dev/null >/tmp/e.log 2>&1
    echo "$c: v4l2-ctl exit $?: $(grep -m1 -iE 'returned|error|failed' /tmp/e.log | tr -s '\t ' ' ')"
    v4l2-ctl -d $CAP --stream-mmap --stream-count 3 --stream-to /dev/null >/dev/null 2>&1
    echo "  next stream afterwards: exit $? (the error is one-shot)"
  done
  if [ ! -x "$PROBE" ]; then echo "no probe binary; skipping the errno details"; return; fi

  # spec: CTRL:AT name expected-text (grep -E on the probe output)
  for spec in "0x00f0f043:-1 reqbufs REQBUFS:.errno.22.EINVAL" \
              "0x00f0f044:-1 qbuf QBUF.*errno.22.EINVAL" \
              "0x00f0f045:-1 streamon STREAMON:.errno.22.EINVAL" \
              "0x00f0f042:3 buf_flag_error frame.4.*V4L2_BUF_FLAG_ERROR" \
              "0x00f0f046:3 fatal_streaming_error DQBUF:.errno.5.EIO" \
              "0x00f0f041:3 disconnect DQBUF:.errno.19.ENODEV"; do
    set -- $spec
    say "probe: 6 frames, control $1 ($2) pressed at ${1#*:}"
    "$PROBE" $CAP 6 "$1" | tee /tmp/p.log
    grep -qE "$3" /tmp/p.log && ok "$2 gives $3" || bad "$2: expected $3"
    "$PROBE" $CAP 2 >/tmp/p2.log
    n=$(grep -c '^frame' /tmp/p2.log)
    echo "  next probe run: $n frames"
    [ "$n" -eq 2 ] && ok "$2 is one-shot: next open streams again" || bad "$2: next run got $n frames"
  done
  grep -q 'reopen + QUERYCAP: ok' /tmp/p.log && ok "disconnect: reopen works once fd and mmaps are released" \
    || bad "disconnect: reopen failed"
  say "probe: percentage_of_dropped_buffers=50, 8 frames (sequence gaps)"
  v4l2-ctl -d $CAP -c percentage_of_dropped_buffers=50
  "$PROBE" $CAP 8 | grep '^frame'
  v4l2-ctl -d $CAP -c percentage_of_dropped_buffers=0
  say "kernel log of the vivid events"
  dmesg | grep -iE 'vivid|disconnect|reconnect' | tail -8
  say "reload vivid (rmmod + insmod)"
  rmmod vivid; echo "rmmod exit $?"
  insmod "$(grep '/vivid.ko$' /lector/modules)" n_devs=1 node_types=0x101; echo "insmod exit $?"
  ls /dev/video*
  v4l2-ctl -d $CAP -i 2 >/dev/null; "$PROBE" $CAP 2 | grep -c '^frame'
}

case "$1" in
  main) part_main ;;
  small) part_small ;;
  errors) part_errors "$2" ;;
  *) echo "usage: $0 main|small|errors"; exit 2 ;;
esac
echo "guest part $1: $fails failure(s)"
[ $fails -eq 0 ]
