#!/usr/bin/env python3
"""Judges what capture-guest.sh saved: one ok/FAIL line per check, then
"N passed, N failed". usage: check-capture.py OUTDIR VM_EXIT_STATUS"""
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import Suite  # noqa: E402

OUT, VM_RC = sys.argv[1], int(sys.argv[2])
FRAME_MS = 1000 / 59.94      # vivid's HDMI 640x480p59.94
# Under TCG on a loaded host, vivid's timestamps (computed from its frame period, not
# read from a clock at completion) and the guest's scheduling jitter by tens of ms:
# waits from -13 to +54 ms were measured where a real camera shows 0-33, and 91.5 ms once
# (CI, 2026-12-01: the first frame after the start, its recognition took 17 s). A queued
# frame would add a whole recognition (3.7 s and more here), so the bound still proves
# no queueing; how many waits kept within the strict 2 intervals is printed beside it.
TCG_SLACK_MS = 150
suite = Suite("capture", timed=False)
check = suite.check


def read(scenario, name):
    try:
        with open(os.path.join(OUT, scenario, name), errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def messages(scenario, cls=None):
    out = []
    for line in read(scenario, "stdout").splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if cls is None or message.get("class") == cls:
            out.append(message)
    return out


def status(scenario):
    return dict(kv.split("=", 1) for kv in read(scenario, "status").split() if "=" in kv)


def seconds(rfc3339):
    return datetime.datetime.strptime(rfc3339, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def events(scenario):
    out = []
    for line in read(scenario, "events").splitlines():
        stamp, _, what = line.partition(" ")
        out.append((int(stamp), what))
    return out


def event_time(scenario, prefix):
    return next((t for t, what in events(scenario) if what.startswith(prefix)), None)


def reads_hello(text):
    return "HELLO LECTOR" in " ".join(text.upper().split())


check("the VM ran the guest script to the end", VM_RC == 0, f"vm/run.sh exit {VM_RC}")

# 1. formats, and latest-frame-only on the 60 fps loop.
for fmt in ("YUYV", "NV12", "GREY"):
    scenario = f"format-{fmt}"
    texts, frames = messages(scenario, "TEXT"), messages(scenario, "FRAME")
    how = "--format" if fmt != "GREY" else "negotiated (no --format)"
    check(f"{fmt} ({how}): lectord exits 0 after --max-frames 4", status(scenario).get("exit") == "0",
          f"status {status(scenario)}, stderr tail: {read(scenario, 'stderr')[-300:]!r}" if status(scenario).get("exit") != "0" else "")
    hello = sum(reads_hello(t.get("text", "")) for t in texts)
    check(f"{fmt}: the known text is read from vivid's capture node", bool(texts) and hello == len(texts),
          f"{hello} of {len(texts)} TEXT lines read 'HELLO LECTOR'" + ("" if hello else f"; first: {texts[0].get('text')!r}" if texts else ""))
    formats = {(f.get("format"), f.get("width"), f.get("height")) for f in frames}
    check(f"{fmt}: frames are {fmt} 640x480", formats == {(fmt, 640, 480)}, f"saw {sorted(map(str, formats))}")
    if not frames:
        continue
    in_flight = [f["captured"] - f["recognized"] - f["dropped"] - f["rejected"] - f.get("unchanged", 0) for f in frames]
    waits = [f["latency_ms"] - f["recognize_ms"] - f["overhead_ms"] for f in frames]
    last = frames[-1]
    check(f"{fmt}: latest frame only — frames are dropped, never queued (in flight <= 2)",
          last["dropped"] > 0 and max(in_flight) <= 2 and min(in_flight) >= 0,
          f"captured {last['captured']}, recognized {last['recognized']}, dropped {last['dropped']}, "
          f"rejected {last['rejected']}, in flight max {max(in_flight)}")
    strict = sum(w <= 2 * FRAME_MS for w in waits)
    check(f"{fmt}: latency <= recognition + 2 frame intervals ({2 * FRAME_MS:.1f} ms) + {TCG_SLACK_MS} ms TCG allowance",
          max(waits) <= 2 * FRAME_MS + TCG_SLACK_MS,
          "latency ms " + ", ".join(f"{f['latency_ms']:.0f}" for f in frames)
          + "; recognition (recognize+overhead) ms " + ", ".join(f"{f['recognize_ms'] + f['overhead_ms']:.0f}" for f in frames)
          + "; wait before recognition ms " + ", ".join(f"{w:.1f}" for w in waits)
          + f"; {strict} of {len(waits)} within the strict 2 intervals")

# 2. LD_PRELOAD interposer.
counts = {}
for io in ("direct", "libv4l2"):
    match = re.search(r"count-v4l2-calls: open=(\d+) ioctl=(\d+) mmap=(\d+)", read(f"preload-{io}", "stderr"))
    counts[io] = tuple(map(int, match.groups())) if match else None
    texts = messages(f"preload-{io}", "TEXT")
    check(f"--io {io}: recognizes the known text", status(f"preload-{io}").get("exit") == "0"
          and any(reads_hello(t.get("text", "")) for t in texts), read(f"preload-{io}", "stderr")[-300:] if not texts else "")
direct = counts["direct"]
check("--io direct: the LD_PRELOAD interposer sees open, ioctl and mmap on /dev/video*",
      direct is not None and all(n > 0 for n in direct),
      f"open={direct[0]} ioctl={direct[1]} mmap={direct[2]}" if direct else "no count line")
v4l2 = counts["libv4l2"]
check("--io libv4l2: the interposer sees no ioctl/mmap (libv4l2 uses raw syscalls)",
      v4l2 is not None and v4l2[1] == 0 and v4l2[2] == 0,
      f"open={v4l2[0]} ioctl={v4l2[1]} mmap={v4l2[2]}" if v4l2 else "no count line")

# 3. Faults while streaming.
stderr = read("faults", "stderr")
frames = messages("faults", "FRAME")
texts = messages("faults", "TEXT")
check("buffer with V4L2_BUF_FLAG_ERROR is rejected and counted", frames and frames[-1]["rejected"] >= 1,
      f"rejected {frames[-1]['rejected'] if frames else '-'}")
# A failure before the camera ever streamed is logged as "not available" (losses=0).
lost = re.findall(r"camera (?:lost|not available): .*", stderr)
check("fatal streaming error (EIO) is reported as a loss",
      any("Input/output error" in l or "queue reported an error" in l for l in lost), " | ".join(lost))
check("injected STREAMON error is survived (reported, retried, then streaming)",
      any("VIDIOC_STREAMON" in l for l in lost) and "camera streaming" in stderr)
check("disconnect (ENODEV) is reported as a loss", any("has gone" in l or "No such device" in l for l in lost))
streaming = re.findall(r"camera streaming .*losses=(\d+)", stderr)
check("streaming resumes after each loss without a restart", len(streaming) >= 3,
      f"{len(streaming)} 'camera streaming' lines, losses={streaming}")
for prefix, what in (("inject_fatal_streaming_error", "the fatal streaming error (EIO)"), ("disconnect", "the disconnect")):
    t = event_time("faults", prefix)
    after = [m for m in texts if t is not None and seconds(m["time"]) > t + 1 and reads_hello(m.get("text", ""))]
    check(f"the known text is recognized again after {what}", len(after) >= 1, f"{len(after)} TEXT lines after it")
st = status("faults")
check("SIGTERM ends lectord promptly with exit 0", st.get("exit") == "0" and float(st.get("stop_seconds", 99)) < 3,
      f"{st}")


def accounting(scenario, stderr):
    final = re.search(r"camera stopped .*captured=(\d+) recognized=(\d+) dropped=(\d+) rejected=(\d+) unchanged=(\d+)", stderr)
    if final:
        c, r, d, j, u = map(int, final.groups())
        check(f"{scenario}: after stop, captured = recognized + dropped + rejected + unchanged (nothing in flight)",
              c == r + d + j + u, f"captured {c} = recognized {r} + dropped {d} + rejected {j} + unchanged {u}")
    else:
        check(f"{scenario}: after stop, captured = recognized + dropped + rejected + unchanged", False, "no 'camera stopped' line")


accounting("faults", stderr)
in_flight = [f["captured"] - f["recognized"] - f["dropped"] - f["rejected"] - f.get("unchanged", 0) for f in frames]
check("faults: in flight stays <= 2 throughout", frames and 0 <= min(in_flight) and max(in_flight) <= 2,
      f"max {max(in_flight) if frames else '-'}")

# 4. Two cameras: one disconnected, then the driver unbound and bound.
frames = messages("two-cameras", "FRAME")
stderr = read("two-cameras", "stderr")
cut, back_at = event_time("two-cameras", "disconnect"), event_time("two-cameras", "writer of /dev/video3 restarted")
unbind, bind = event_time("two-cameras", "unbind"), event_time("two-cameras", "bind")
A, B = "/dev/v4l/by-path/platform-vivid-000-vid-cap", "/dev/v4l/by-path/platform-vivid-001-vid-cap"
def of(device, start, end=1e12):
    return [f for f in frames if f["device"] == device and start < seconds(f["time"]) < end]
if cut and back_at and unbind and bind:
    # Frame times are capture times: a frame captured in the window was published after it.
    during = of(A, cut + 1, back_at)
    check("while camera B is disconnected, camera A keeps publishing", len(during) >= 1,
          f"{len(during)} frames of A captured in the {back_at - cut - 1} s after the disconnect")
    check("camera B recovers from the disconnect without a restart", len(of(B, cut + 1, unbind)) >= 1,
          f"{len(of(B, cut + 1, unbind))} frames")
    check("both cameras publish again after the driver is unbound and bound (by-path links re-resolved)",
          len(of(A, bind)) >= 1 and len(of(B, bind)) >= 1,
          f"A {len(of(A, bind))}, B {len(of(B, bind))} frames captured after bind")
else:
    check("two-cameras scenario ran", False, f"events {events('two-cameras')}")
check("the disconnect is reported as a loss of camera B",
      re.search(r"camera lost: .*device=" + re.escape(B), stderr) is not None)
check("two cameras: lectord exits 0 on SIGTERM", status("two-cameras").get("exit") == "0", str(status("two-cameras")))

# 5. Live text on vivid: a still scene, then a switch.
stderr = read("scene-switch", "stderr")
frames, tracks = messages("scene-switch", "FRAME"), messages("scene-switch", "TRACK")
switch = event_time("scene-switch", "switch to scene B")
check("scene switch: lectord exits 0 on SIGTERM", status("scene-switch").get("exit") == "0", str(status("scene-switch")))
news = [t for t in tracks if t.get("event") == "new"]
a_new = [t for t in news if "HELLO" in t.get("text", "").upper()]
b_new = [t for t in news if switch is not None and seconds(t["last_seen"]) > switch and "LECTOR READS" in t.get("text", "").upper()]
check("scene switch: scene A's line settles as a TRACK `new` reading HELLO LECTOR", a_new, f"{len(news)} new events: "
      + "; ".join(repr(t.get("text")) for t in news[:6]))
check("scene switch: after the switch, scene B's line settles as a new track", b_new,
      f"switch at {switch}; new events after it: " + "; ".join(repr(t.get("text")) for t in news if switch and seconds(t["last_seen"]) > switch))
gone = [t for t in tracks if t.get("event") == "gone" and "HELLO" in t.get("text", "").upper()]
check("scene switch: scene A's track is `gone` after the switch", gone, f"{len(gone)} gone events for HELLO")
if frames:
    last = frames[-1]
    check("scene switch: the gate skipped unchanged frames of the still scene", last.get("unchanged", 0) > 0,
          f"captured {last['captured']}, recognized {last['recognized']}, dropped {last['dropped']}, unchanged {last.get('unchanged')}")
    in_flight = [f["captured"] - f["recognized"] - f["dropped"] - f["rejected"] - f.get("unchanged", 0) for f in frames]
    check("scene switch: in flight stays within 0..2 throughout", 0 <= min(in_flight) and max(in_flight) <= 2,
          f"min {min(in_flight)}, max {max(in_flight)}")
else:
    check("scene switch: FRAME lines", False, stderr[-300:])
accounting("scene-switch", stderr)

sys.exit(suite.finish())
