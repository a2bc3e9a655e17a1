#!/usr/bin/env python3
"""Readings you can act on (issue 37) through a real lectord (see tests/readings/run).

platefull: each car photo of ../shared/testdata/realworld/platefull replayed as a camera
(`replay`, `loop`, `fps = 5`, 10 s of streaming), four cameras at a time, each with two
rules of `match = ^[A-Z0-9]{5,8}$` and `alike = true`: `plate`, whose known list holds
the 40 true plates, and `decoy`, whose list holds plates each 2+ edits (after look-alike
folding) from every true plate. At least 36 of 40 cars give a `plate` MATCH known as
their plate, none one known as another car's plate, each car at most 2 MATCH of its
plate (the other lines of the photo that fit the format, a road sign's EXIT79B, are
other appearances: counted and printed); no `decoy` MATCH is known.

meter: a generated seven-segment LCD meter that rises (scripts/make-meter-sequence.py
--style lcd: glare and a hand hide a digit in some frames) read by a zone rule with
`monotonic` and `max_rate`, lectord's MATCH both on --stdout and through lector-mqtt
into a real mosquitto: every accepted reading is the true one, none goes down, the
hidden-digit frames give rejected or no readings, the sensor topic's values never go
down, and rejected readings are on their own topic.

slow_core: at a third of a core (scripts/cpuquota.py), a car's first MATCH comes within
6 s of its first frame. Skipped where no cgroup cpu controller is writable.

known_list_file: a bad known list is refused by --check-config with file:line; an edited
list is read again on SIGHUP.

Each check prints "ok   NAME" or "FAIL NAME: detail"; the last line is "N passed, N failed".
"""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
from lectortest import ENV, LECTORD, ROOT, SkipTest, Suite, workdir  # noqa: E402
from cpuquota import CPUQuota, Unavailable  # noqa: E402

suite = Suite("readings")
check = suite.check
WORK = workdir("lector-readings-")
PLATES = os.path.join(ROOT, "..", "shared", "testdata", "realworld", "platefull")
TRUTH_TSV = os.path.join(ROOT, "..", "shared", "testdata", "realworld", "truth.tsv")
STREAM_SECONDS = 10
AT_ONCE = 4
# The look-alike folding of Sources/LectorPipeline/Rules/LookAlike.swift.
FOLD = str.maketrans("ODQIZSGB", "00012568")


def fold(text):
    return text.upper().translate(FOLD)


def distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def cars():
    """(file, plate) of each car photo."""
    rows = []
    with open(TRUTH_TSV) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "platefull":
                rows.append((fields[1], fields[3]))
    return sorted(rows)


def decoys(plates):
    """A plate per true plate, each 2+ folded edits from every true plate."""
    out = []
    for plate in plates:
        for fill in ("XK", "KX", "XW", "WK", "MX", "XM"):
            candidate = fill + plate[2:]
            if all(distance(fold(candidate), fold(p)) >= 2 for p in plates) and candidate not in out:
                out.append(candidate)
                break
        else:
            raise AssertionError("no decoy for " + plate)
    return out


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def plate_config(photo, known, decoy):
    return f"""[camera car]
replay = {photo}
loop = true
fps = 5

[rule car/plate]
match = ^[A-Z0-9]{{5,8}}$
alike = true
known = {known}

[rule car/decoy]
match = ^[A-Z0-9]{{5,8}}$
alike = true
known = {decoy}
"""


class Streamed:
    """lectord --config CONF --stdout (optionally in a CPU quota), its messages with the
    wall-clock time each arrived; stopped with SIGTERM `seconds` after its first FRAME."""

    def __init__(self, conf, seconds, quota=None):
        args = [os.environ.get("LECTORD", LECTORD), "--config", conf, "--stdout"]
        popen = quota.popen if quota else subprocess.Popen
        self.process = popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
        self.seconds = seconds
        self.messages = []
        self.first_frame = None
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.log = []
        threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            self.lines.put((time.time(), raw))
        self.lines.put(None)

    def run(self, deadline=120):
        """Collects until `seconds` after the first FRAME (or `deadline`), then stops lectord."""
        started = time.time()
        stop_at = started + deadline
        while True:
            try:
                item = self.lines.get(timeout=max(0.05, stop_at - time.time()))
            except queue.Empty:
                break
            if item is None:
                break
            arrived, raw = item
            if not raw.startswith(b"{"):
                continue
            message = json.loads(raw)
            message["_arrived"] = arrived
            self.messages.append(message)
            if message["class"] == "FRAME" and self.first_frame is None:
                self.first_frame = message
                stop_at = min(stop_at, arrived + self.seconds)
            if time.time() >= stop_at:
                break
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self

    def matches(self, rule=None):
        return [m for m in self.messages if m["class"] == "MATCH" and (rule is None or m["rule"] == rule)]


def rfc3339(text):
    """Seconds since the epoch of `2026-12-04T22:32:30.190Z`."""
    import calendar
    date, clock = text.rstrip("Z").split("T")
    whole, _, fraction = clock.partition(".")
    seconds = calendar.timegm(time.strptime(date + "T" + whole, "%Y-%m-%dT%H:%M:%S"))
    return seconds + (float("0." + fraction) if fraction else 0.0)


@suite.test
def platefull():
    rows = cars()
    plates = [plate for _, plate in rows]
    known = write("known.txt", "".join(f"{plate}\tcar {index}\n" for index, plate in enumerate(plates, 1)))
    decoy = write("decoy.txt", "".join(p + "\n" for p in decoys(plates)))
    results = {}
    pending = list(rows)
    while pending:
        batch, pending = pending[:AT_ONCE], pending[AT_ONCE:]
        runs = [(name, plate, Streamed(write(f"car-{name}.conf", plate_config(os.path.join(PLATES, name), known, decoy)),
                                       STREAM_SECONDS)) for name, plate in batch]
        threads = [threading.Thread(target=run.run) for _, _, run in runs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for name, plate, run in runs:
            results[name] = (plate, run)
    right, wrong, too_many, decoyed, lines = 0, [], [], [], []
    for name, (plate, run) in sorted(results.items()):
        matches = run.matches("plate")
        known_as = [m["known"]["text"] for m in matches if m.get("known")]
        mine = [m for m in matches if (m.get("known") or {}).get("text") == plate]
        tracks = {m.get("track") for m in mine}
        of_plate = [m for m in matches if m in mine or m.get("track") in tracks]
        right += bool(mine)
        wrong += [f"{name}: {text} (is {plate})" for text in known_as if text != plate]
        if len(of_plate) > 2:
            too_many.append(f"{name}: {[m['text'] for m in of_plate]}")
        decoyed += [f"{name}: {m['text']} as {m['known']['text']}" for m in run.matches("decoy") if m.get("known")]
        lines.append(f"{name} {plate}: " + (", ".join(f"{m['text']}({'=' if m.get('known') else '?'})" for m in matches) or "-"))
    print("     " + "\n     ".join(lines))
    others = sum(len([m for m in run.matches("plate") if not m.get("known")]) for _, run in results.values())
    check(f"platefull: {right} of {len(rows)} cars give a MATCH known as their plate (at least 36)", right >= 36)
    check("platefull: no car gives a MATCH known as another car's plate", not wrong, "; ".join(wrong))
    check(f"platefull: each car at most 2 MATCH of its plate ({others} MATCH of other lines that fit the format, none known)",
          not too_many, "; ".join(too_many))
    check("platefull: with plates 2+ edits from every true plate, no MATCH is known", not decoyed, "; ".join(decoyed))


@suite.test
def slow_core():
    try:
        CPUQuota.probe()
    except Unavailable as why:
        raise SkipTest(str(why))
    rows = cars()
    known = write("known-slow.txt", "".join(plate + "\n" for _, plate in rows))
    picked = [row for row in rows if row[0] in ("eu_eu10.jpg", "us_car1.jpg", "eu_test_001.jpg")]
    for name, plate in picked:
        with CPUQuota(33) as quota:
            conf = write(f"slow-{name}.conf", plate_config(os.path.join(PLATES, name), known, known).split("[rule car/decoy]")[0])
            run = Streamed(conf, 20, quota=quota).run()
        first = run.first_frame
        mine = [m for m in run.matches("plate") if (m.get("known") or {}).get("text") == plate]
        if first is None or not mine:
            check(f"slow core: {name} gives a MATCH of {plate}", False, [m["text"] for m in run.matches()])
            continue
        took = mine[0]["_arrived"] - rfc3339(first["time"])
        check(f"slow core: {name}'s first MATCH {took:.1f} s after its first frame (at most 6)", took <= 6)


if __name__ == "__main__":
    sys.exit(suite.main())
