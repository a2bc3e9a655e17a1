#!/usr/bin/env python3
"""The wire check: plays one fixed session (every request class, refusals, a WATCH at
symbol level, POLL, SNAPSHOT, ORIENTATION) against a lectord on the demo frames and
prints what came back, one canonical line per reply, with the values that vary from
run to run masked (times, timings, rates, counters, recognized text and its geometry,
JPEG data) and members in the order the server sent them. Stream messages (TEXT,
FRAME) are reduced to the distinct shapes seen.

  wire_session.py LECTORD            print the canonical session
  wire_session.py LECTORD GOLDEN     compare with GOLDEN; exit 1 and show a diff if not equal

GOLDEN (wire-session.golden) was recorded from the lectord of commit c959108, before
the typed protocol. Expected differences, masked here: proto_minor (0 → 1) and
STATUS's inbox_dropped (added in proto_minor 1), FRAME's sharpness and char_height
(added in proto_minor 2), FRAME's and STATUS's unchanged, FRAME's stacked and the
lines' track (added in proto_minor 3), DEVICE's layout (added in proto_minor 7), TEXT's
partial and unread (proto_minor 8: a read that ran out of time), the lines' engine
(proto_minor 9), DEVICE's languages (proto_minor 10) and STATUS devices' running_reason
(proto_minor 13).
"""
import difflib
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import DEMO_DIR, ENV, Client, Daemon  # noqa: E402

VOLATILE = {"time", "uptime", "seq", "captured", "recognized", "dropped", "rejected", "dropped_total",
            "latency_ms", "recognize_ms", "overhead_ms", "publish_ms", "capture_fps", "recognize_fps",
            "data", "text", "box", "corners", "confidence", "language", "proto_minor", "release",
            "running", "active", "state", "watched"}
ADDED = {"inbox_dropped", "sharpness", "char_height", "unchanged", "stacked", "track", "layout",
         "partial", "unread", "engine", "languages"}
STREAM = {"TEXT", "FRAME", "OVERFLOW"}


def mask(value, key=None):
    if key in VOLATILE:
        return "<%s>" % type(value).__name__
    if isinstance(value, dict):
        return [[k, mask(v, k)] for k, v in value.items() if k not in ADDED]
    if isinstance(value, list):
        # Arrays of elements (blocks, words, devices…) collapse to their distinct shapes.
        shapes = []
        for item in value:
            shape = mask(item)
            if shape not in shapes:
                shapes.append(shape)
        return shapes
    if isinstance(value, str) and value.startswith("replay of "):
        # The demo frames' path depends on where the checkout is.
        return re.sub(r"^replay of .*?/Sources/", "replay of <checkout>/Sources/", value)
    return value


def stream_mask(message):
    masked = dict(message)
    for key in ("width", "height", "orientation"):
        masked.pop(key, None)
    return json.dumps(mask(masked))


class Session:
    def __init__(self, path):
        self.client = Client(path, timeout=20)
        self.out = []
        self.stream = {}

    def line(self):
        return self.client.read()

    def reply(self, label, expected=None):
        """Records replies until a non-stream one (of class `expected` when given)."""
        while True:
            message = self.line()
            if message["class"] in STREAM:
                self.stream.setdefault(message["class"], set()).add(stream_mask(message))
                continue
            if message["class"] == "DEVICES" and expected not in (None, "DEVICES"):
                continue  # a device's state changed: sent whenever it happens
            self.out.append("%s -> %s" % (label, json.dumps(mask(message))))
            return message

    def request(self, request, *expected):
        raw = request if isinstance(request, bytes) else json.dumps(request, separators=(",", ":")).encode()
        self.client.send(raw)
        for name in expected or (None,):
            self.reply(raw.decode(errors="replace"), name)

    def wait_stream(self, name, count=2):
        deadline = time.time() + 30
        seen = 0
        while seen < count and time.time() < deadline:
            message = self.line()
            if message["class"] == name:
                seen += 1
            if message["class"] in STREAM:
                self.stream.setdefault(message["class"], set()).add(stream_mask(message))
            elif message["class"] != "DEVICES":
                self.out.append("unexpected -> %s" % json.dumps(mask(message)))


def play(lectord):
    with Daemon("--demo", "--fps", "5", binary=lectord, env=dict(ENV, LECTOR_DEMO_DIR=DEMO_DIR)) as daemon:
        time.sleep(0.2)
        s = Session(daemon.path)
        s.reply("connect")
        s.request({"class": "DEVICES"})
        s.request({"class": "STATUS"})
        s.request({"class": "POLL"})
        s.request(b"not json")
        s.request(b'{"class":"NOPE"}')
        s.request(b"[1,2]")
        s.request({"class": "WATCH", "level": "sentence"})
        s.request({"class": "WATCH", "min_confidence": 2})
        s.request({"class": "WATCH", "devices": ["nope"]})
        s.request({"class": "ORIENTATION"})
        s.request({"class": "ORIENTATION", "rotation": 45})
        s.request({"class": "ORIENTATION", "rotation": 90, "device_orientation": "portrait"})
        s.request({"class": "SNAPSHOT", "max_width": 3})
        s.request({"class": "SNAPSHOT", "device": "nope"})
        s.request({"class": "WATCH", "enable": True, "level": "symbol", "frame": True}, "DEVICES", "WATCH")
        s.wait_stream("TEXT")
        s.request({"class": "STATUS"}, "STATUS")
        s.request({"class": "POLL"}, "POLL")
        s.request({"class": "SNAPSHOT", "boxes": True, "max_width": 64}, "SNAPSHOT")
        s.request({"class": "WATCH", "level": "block", "min_confidence": 0.5, "changes_only": False}, "DEVICES", "WATCH")
        s.wait_stream("TEXT")
        s.request({"class": "WATCH", "level": "line"}, "DEVICES", "WATCH")
        s.wait_stream("TEXT")
        s.request({"class": "POLL"}, "POLL")
        s.request({"class": "ORIENTATION", "rotation": 90, "mirror": True}, "ORIENTATION")
        s.request({"class": "ORIENTATION", "device_orientation": "landscape-left", "camera_position": "front"}, "ORIENTATION")
        s.request({"class": "ORIENTATION", "device": "demo", "rotation": 0, "mirror": False}, "ORIENTATION")
        s.request({"class": "DEVICES"}, "DEVICES")
        s.request({"class": "WATCH", "enable": False}, "WATCH")
        s.request({"class": "STATUS", "unknown_member": [1, {"a": None}]}, "STATUS")
        for name in sorted(s.stream):
            for shape in sorted(s.stream[name]):
                s.out.append("stream %s %s" % (name, shape))
        return s.out


# DEVICE members a camera reports only once its source has started (a replay's name
# and rate), so whether a given reply has them depends on timing, not on the protocol.
STATE_DEPENDENT = {"name", "fps", "driver", "card", "bus", "format", "width", "height", "error"}


# Members added to STATUS's devices by later minor versions (additive: the golden predates them).
ADDED_TO_STATUS_DEVICES = {"name", "running_reason"}  # name: 5; running_reason: 13

# Request classes added by later minor versions, which an unknown class's ERROR lists.
ADDED_REQUEST_CLASSES = ["HISTORY"]


def settle(value):
    """Normalizes a masked value for comparison: any number is "<number>" (0 is written as
    an integer, other rates as floats), and DEVICE entries lose their state-dependent members."""
    if value in ("<int>", "<float>"):
        return "<number>"
    if isinstance(value, str) and value.startswith("unknown request class"):
        for name in ADDED_REQUEST_CLASSES:
            value = value.replace(", " + name, "")
    if isinstance(value, list):
        pairs = all(isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) for item in value)
        if pairs and value and value[0] == ["class", "DEVICE"]:
            value = [item for item in value if item[0] not in STATE_DEPENDENT]
        if pairs and value and value[0][0] == "path":
            # A STATUS device: `name` (the camera's name, proto_minor 5) and `running_reason`
            # (why it runs, proto_minor 13) were added since.
            value = [item for item in value if item[0] not in ADDED_TO_STATUS_DEVICES]
        return [settle(item) for item in value]
    return value


def settled(line):
    if line.startswith("stream "):
        _, name, masked = line.split(" ", 2)
        return "stream %s %s" % (name, json.dumps(settle(json.loads(masked))))
    label, _, masked = line.partition(" -> ")
    return "%s -> %s" % (label, json.dumps(settle(json.loads(masked)))) if masked else line


def main():
    lines = play(sys.argv[1])
    if len(sys.argv) < 3:
        print("\n".join(lines))
        return 0
    with open(sys.argv[2]) as f:
        golden = list(dict.fromkeys(settled(line) for line in f.read().splitlines()))
    lines = list(dict.fromkeys(settled(line) for line in lines))
    if lines == golden:
        return 0
    sys.stdout.writelines(difflib.unified_diff([g + "\n" for g in golden], [l + "\n" for l in lines], "golden", "now"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
