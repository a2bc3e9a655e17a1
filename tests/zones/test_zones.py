#!/usr/bin/env python3
"""Zones, rules and named cameras through a real lectord (see tests/zones/run).

Each check prints "ok   NAME" or "FAIL NAME: detail"; the last line is "N passed, N failed"
(tests/lectortest.py).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import ENV, LECTORD, ROOT, Client, Daemon as BaseDaemon, Suite, lector, lectord, workdir  # noqa: E402

suite = Suite("zones", timed=False)
check = suite.check
WORK = workdir("lector-zones-")
SEQUENCE = os.path.join(WORK, "sequence")
TRUTH = {}


def script(name, body):
    """An executable shell script in the work folder (a hook)."""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def config(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def meter_config(rules, loop=False, extra_zones="", reading_extra=""):
    return f"""# a utility meter
[camera meter]
replay = {SEQUENCE}/meter.mjpeg
fps = {TRUTH['fps']}
loop = {'true' if loop else 'false'}

[zone meter/reading]
rect = 120,200,400,80
psm = 7
whitelist = digits
{reading_extra}

[zone meter/serial]
rect = 120,330,400,50
psm = 7
{extra_zones}
{rules}"""


def run_stdout(conf, timeout=240):
    """lectord --config CONF --stdout to its end: (status, messages, log, seconds)."""
    started = time.time()
    result = subprocess.run([LECTORD, "--config", conf, "--stdout"], capture_output=True, timeout=timeout, env=ENV)
    messages = [json.loads(line) for line in result.stdout.decode().splitlines() if line.startswith("{")]
    return result.returncode, messages, result.stderr.decode(errors="replace"), time.time() - started


def run_replay(conf, what, hook_files=()):
    """run_stdout on the meter replay, once more if the host starved the pipeline.

    The replay is camera-like: frames come at the sequence's fps and a frame the pipeline
    is not ready for is dropped. When the host stalls lectord for seconds (seen once in a
    CI-like run: 94 of 120 frames recognized, latency p99 2.9 s, where passing runs
    recognize 120 with p99 under 200 ms), whole 3-second readings are never seen and the
    accuracy checks would judge the host, not the reading. Such a run is reported and
    the replay run again; a stall that comes back (e.g. one caused by lectord itself) is
    judged as it is. HOOK_FILES, written by the hooks, are emptied before each run."""
    total = TRUTH["readings"][-1]["last"] + 1
    for attempt in (1, 2):
        for path in hook_files:
            if os.path.exists(path):
                os.remove(path)
        result = run_stdout(conf)
        frames = [m for m in result[1] if m["class"] == "FRAME"]
        if len(frames) >= 0.95 * total or attempt == 2:
            return result
        latencies = [f["latency_ms"] for f in frames]
        print(f"     {what}: the pipeline was starved ({len(frames)} of {total} frames recognized, latency p99 "
              f"{percentile(latencies, 0.99):.1f} ms, load average {os.getloadavg()[0]:.2f}); running the replay again", flush=True)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def per_recognition(frames):
    """Each FRAME's latency over its recognition time."""
    return [f["latency_ms"] / max(f["recognize_ms"], 1) for f in frames]


def digit_accuracy(read, truth):
    """Digits of `truth` read right, position by position (a length error costs the rest)."""
    return sum(1 for a, b in zip(read, truth) if a == b) if len(read) == len(truth) else \
        sum(1 for a, b in zip(read, truth) if a == b) - abs(len(read) - len(truth))


BASELINE = {}


def test_meter_readings():
    """The meter: settled readings, MATCH and the hook once per change, whitelist, two zones."""
    record = os.path.join(WORK, "readings.txt")
    stdin_copy = os.path.join(WORK, "stdin.jsonl")
    hook = script("record-reading", f'echo "$LECTOR_DEVICE $LECTOR_ZONE $LECTOR_RULE $LECTOR_TEXT $LECTOR_GROUP_1 $LECTOR_GROUP_2" >> {record}\n'
                                    f'cat >> {stdin_copy}')
    conf = config("meter.conf", meter_config(f"""
[rule meter/reading/any]
match = ^([0-9]+)([0-9]{{3}})$
on_match = {hook}
"""))
    status, messages, log, seconds = run_replay(conf, "meter", (record, stdin_copy))
    check("lectord --config meter.conf --stdout ends by itself (exit 0)", status == 0, log[-1500:])
    matches = [m for m in messages if m["class"] == "MATCH"]
    texts = [m for m in messages if m["class"] == "TEXT"]
    frames = [m for m in messages if m["class"] == "FRAME"]
    truth = TRUTH["readings"]
    # The settled reading of each period: the MATCH whose frame lies in it.
    right = total = 0
    per_reading = []
    for reading in truth:
        inside = [m for m in matches if reading["first"] <= m["seq"] <= reading["last"] + 2]
        got = inside[0]["text"] if inside else ""
        right += max(0, digit_accuracy(got, reading["text"]))
        total += len(reading["text"])
        per_reading.append((reading["text"], got))
    accuracy = right / total if total else 0
    check(f"digits right per settled reading: {right}/{total} = {accuracy:.4f} (>= 0.99)", accuracy >= 0.99, per_reading)
    check(f"the rule matches each reading once, as it changes: {len(matches)} MATCH for {len(truth)} readings",
          [m["text"] for m in matches] == [r["text"] for r in truth], [(m["seq"], m["text"]) for m in matches])
    first = matches[0] if matches else {}
    check("MATCH names device, zone, rule, groups, box, corners, time",
          first.get("device") == "meter" and first.get("zone") == "reading" and first.get("rule") == "any"
          and first.get("groups") == [first.get("text", "")[:-3], first.get("text", "")[-3:]]
          and len(first.get("corners", [])) == 4 and "box" in first and "time" in first and "track" in first, first)
    time.sleep(0.2)
    recorded = open(record).read().splitlines() if os.path.exists(record) else []
    expected = [f"meter reading any {m['text']} {m['text'][:-3]} {m['text'][-3:]}" for m in matches]
    check(f"the hook ran exactly once per change ({len(recorded)} runs), with the match in its environment",
          recorded == expected and len(recorded) == len(truth), (recorded, expected))
    stdin_lines = [json.loads(line) for line in open(stdin_copy)] if os.path.exists(stdin_copy) else []
    check("the hook got the MATCH line on its standard input",
          [m.get("text") for m in stdin_lines] == [m["text"] for m in matches] and all(m.get("class") == "MATCH" for m in stdin_lines),
          stdin_lines[:2])
    reading_blocks = [b for t in texts for b in t["blocks"] if b.get("zone") == "reading"]
    serial_blocks = [b for t in texts for b in t["blocks"] if b.get("zone") == "serial"]
    outside = [b["text"] for b in reading_blocks if any(not (c.isdigit() or c.isspace()) for c in b["text"])]
    check(f"the whitelisted zone reports digits only ({len(reading_blocks)} blocks)", reading_blocks and not outside, outside[:5])
    check("every block carries its zone", all(b.get("zone") in ("reading", "serial") for t in texts for b in t["blocks"]),
          [b for t in texts for b in t["blocks"] if b.get("zone") not in ("reading", "serial")][:2])

    def inside(box, rect):
        x, y, w, h = rect
        return x <= box["x"] and y <= box["y"] and box["x"] + box["width"] <= x + w and box["y"] + box["height"] <= y + h
    serial_right = sum(1 for b in serial_blocks if TRUTH["serial"] in b["text"])
    check(f"two zones on one frame report independently: serial read as {TRUTH['serial']!r} in {serial_right}/{len(serial_blocks)} "
          f"blocks, letters and all, beside the digits-only reading",
          serial_blocks and serial_right >= 0.9 * len(serial_blocks)
          and all(inside(b["box"], TRUTH["zones"]["reading"]) for b in reading_blocks)
          and all(inside(b["box"], TRUTH["zones"]["serial"]) for b in serial_blocks),
          [b["text"] for b in serial_blocks[:5]])
    latencies = [f["latency_ms"] for f in frames]
    BASELINE["latency"] = latencies
    BASELINE["per_recognition"] = per_recognition(frames)
    BASELINE["seconds"] = seconds
    print(f"     baseline: {len(frames)} frames recognized, latency p50 {percentile(latencies, 0.5):.1f} ms "
          f"p99 {percentile(latencies, 0.99):.1f} ms, run {seconds:.1f} s", flush=True)


def test_meter_neural():
    """The meter's reading zone read by the neural line recognizer through its digits mask (issue 26).

    The replay is lossless here (no --fps: every frame is read, however long it takes), so
    the check judges the reading, not the host's speed: each frame's reading and one MATCH
    per reading, beside Tesseract's zone on the same frames."""
    if not any(os.path.exists(f"/usr/local/share/lector/models/{name}")
           for name in ("PP-OCRv6_rec_small_latin.onnx", "PP-OCRv6_rec_small_latin_opencv.onnx")):
        print("     skipped: the neural line recognizer's model is not installed (scripts/fetch-engine-model)")
        return
    rule = """
[rule meter/reading/any]
match = ^[0-9]+$
"""
    results = {}
    for engine in ("neural", "tesseract"):
        text = meter_config(rule, reading_extra=f"engine = {engine}")
        conf = config(f"meter-{engine}.conf", "\n".join(line for line in text.splitlines() if not line.startswith("fps =")))
        status, messages, log, seconds = run_stdout(conf, timeout=900)
        frames_right = frames = 0
        lines = []
        for message in messages:
            if message["class"] != "TEXT":
                continue
            blocks = [b for b in message["blocks"] if b.get("zone") == "reading"]
            expected = next((r["text"] for r in TRUTH["readings"] if r["first"] <= message["seq"] <= r["last"]), None)
            frames += 1
            frames_right += int(bool(blocks) and blocks[0]["text"].replace(" ", "") == expected)
            lines += [line for b in blocks for line in b.get("lines", [])]
        matches = [m["text"] for m in messages if m["class"] == "MATCH"]
        recognize = [m["recognize_ms"] for m in messages if m["class"] == "FRAME" and "recognize_ms" in m]
        results[engine] = (status, frames_right, frames, matches, lines, percentile(recognize, 0.5), log)
    status, right, frames, matches, lines, ms, log = results["neural"]
    check("lectord with a neural zone ends by itself (exit 0)", status == 0, log[-1500:])
    base = results["tesseract"]
    check(f"neural + digits reads every reading: {right}/{frames} frames right (Tesseract's whitelist {base[1]}/{base[2]}), "
          f"one MATCH per reading ({len(matches)} for {len(TRUTH['readings'])})",
          frames and right >= 0.99 * frames and matches == [r["text"] for r in TRUTH["readings"]], (matches, log[-500:]))
    outside = [line["text"] for line in lines if any(not (c.isdigit() or c.isspace()) for c in line["text"])]
    check(f"the neural zone's lines say engine neural and hold digits only ({len(lines)} lines)",
          lines and not outside and all(line.get("engine") == "neural" for line in lines), (outside[:5], lines[:1]))
    print(f"     recognize per frame p50: neural zone {ms:.1f} ms, Tesseract's zone {base[5]:.1f} ms "
          f"(both with the Tesseract serial zone), load average {os.getloadavg()[0]:.1f}", flush=True)


def test_hooks_that_hang_or_fail():
    """A hook that hangs is killed at its timeout, latency unaffected; a failing hook is logged once per change of error."""
    pids = os.path.join(WORK, "hang-pids")
    runs = os.path.join(WORK, "fail-runs")
    hang = script("hang-hook", f"echo $$ >> {pids}\nexec sleep 120")
    fail = script("fail-hook", f"echo run >> {runs}\necho 'meter offline' >&2\nexit 3")
    conf = config("hooks.conf", meter_config(f"""
[rule meter/reading/hang]
match = ^[0-9]{{7,8}}$
on_match = {hang}
hook_timeout = 1

[rule meter/reading/fail]
match = ^[0-9]{{7,8}}$
on_match = {fail}
"""))
    status, messages, log, seconds = run_replay(conf, "hooks", (pids, runs))
    frames = [m for m in messages if m["class"] == "FRAME"]
    latencies = [f["latency_ms"] for f in frames]
    hang_pids = [int(p) for p in open(pids).read().split()] if os.path.exists(pids) else []
    alive = []
    for pid in hang_pids:
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
    timed_out = [line for line in log.splitlines() if "hook failed" in line and "rule=reading/hang" in line]
    check(f"a hook that hangs is killed at its timeout ({len(hang_pids)} runs, none left running, failure logged {len(timed_out)} time)",
          status == 0 and len(hang_pids) >= 2 and not alive and len(timed_out) == 1 and "timed out" in timed_out[0], (alive, timed_out, log[-800:]))
    base = BASELINE.get("latency", [])
    p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
    b50, b99 = percentile(base, 0.5), percentile(base, 0.99)
    # Compared as latency per recognition (both runs' recognitions take what the load
    # lets them): a publication that waited for a hook would add its second to each.
    ratio, base_ratio = percentile(per_recognition(frames), 0.5), percentile(BASELINE.get("per_recognition", []), 0.5)
    check(f"the pipeline's latency is unaffected by hanging hooks: p50 {p50:.1f} ms p99 {p99:.1f} ms vs {b50:.1f} / {b99:.1f} ms without; "
          f"latency per recognition p50 {ratio:.2f} vs {base_ratio:.2f}; {len(frames)} vs {len(base)} frames recognized",
          base and ratio <= base_ratio * 1.5 and len(frames) >= 0.9 * len(base), (ratio, base_ratio))
    fail_runs = len(open(runs).read().split()) if os.path.exists(runs) else 0
    failures = [line for line in log.splitlines() if "hook failed" in line and "rule=reading/fail" in line]
    check(f"a hook that fails is logged once per change of error ({fail_runs} runs, {len(failures)} log line)",
          fail_runs >= 2 and len(failures) == 1 and "exit status 3" in failures[0] and "meter offline" in failures[0], failures)


def test_config_errors():
    """Zone and rule mistakes name file:line, and lectord refuses to start."""
    plain = os.path.join(WORK, "not-executable")
    open(plain, "w").write("#!/bin/sh\n")
    os.chmod(plain, 0o644)
    base = meter_config("")
    lines = base.count("\n")
    cases = [
        ("a duplicate zone", base + "[zone meter/reading]\nrect = 0,0,10,10\n", lines + 1),
        ("a bad regex", base + "[rule meter/reading/x]\nmatch = ([0-9]\n", lines + 2),
        ("a non-executable hook", base + f"[rule meter/reading/x]\nmatch = .\non_match = {plain}\n", lines + 3),
        ("a duplicate rule", base + "[rule meter/reading/x]\nmatch = .\n[rule meter/reading/x]\nmatch = 1\n", lines + 3),
        ("a rule of an unknown zone", base + "[rule meter/dial/x]\nmatch = .\n", lines + 1),
        ("a zone of an unknown camera", base + "[zone kitchen/door]\nrect = 0,0,10,10\n", lines + 1),
        ("an unknown zone key", base + "[zone meter/other]\nrect = 0,0,10,10\npms = 7\n", lines + 3),
    ]
    for name, text, line in cases:
        path = config("bad.conf", text)
        result = subprocess.run([LECTORD, "--config", path, "--stdout"], capture_output=True, timeout=30, env=ENV)
        err = result.stderr.decode(errors="replace")
        check(f"{name}: refused with {path.rsplit('/', 1)[1]}:{line}", result.returncode != 0 and f"{path}:{line}:" in err, err[-400:])


class Daemon(BaseDaemon):
    """lectord --config CONF on the work folder's socket."""

    def __init__(self, conf, env=None):
        super().__init__("--config", conf, socket_path=os.path.join(WORK, "lector.sock"), env=env,
                         log_path=os.path.join(WORK, "daemon.log"))
        self.sock = self.path

    def __exit__(self, *exc):
        self.stop(timeout=15)


def test_named_camera_and_reload():
    """`meter` in the protocol, the client and the systemd status; a zone outside the frame; SIGHUP with a bad file."""
    conf = config("live.conf", meter_config("""
[rule meter/reading/any]
match = ^[0-9]{7,8}$
""", loop=True, extra_zones="""
[zone meter/far]
rect = 700,0,100,50
psm = 7
"""))
    notify_path = os.path.join(WORK, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(1)
    with Daemon(conf, env=dict(ENV, NOTIFY_SOCKET=notify_path)) as daemon:
        client = Client(daemon.sock, timeout=30)
        client.read_class("VERSION")
        client.send({"class": "WATCH", "devices": ["meter"], "matches": True})
        devices = client.read_class("DEVICES")
        watch = client.read_class("WATCH")
        check("WATCH devices [\"meter\"] is accepted and echoed", watch.get("devices") == ["meter"] and watch.get("matches") is True, watch)
        # The first TEXT, the DEVICES that reports the zone outside the frame (pushed when the
        # first frame came) and the first MATCH, in whatever order they come.
        seen = {}
        deadline = time.time() + 90
        while len(seen) < 3 and time.time() < deadline:
            message = client.read()
            if message["class"] == "DEVICES" and any(z.get("warning") for d in message["devices"] for z in d.get("zones", [])):
                seen.setdefault("DEVICES", message)
            elif message["class"] in ("TEXT", "MATCH"):
                seen.setdefault(message["class"], message)
        text = seen.get("TEXT", {"device": None, "blocks": []})
        check("TEXT's device is the camera's name", text["device"] == "meter", text["device"])
        fitted = seen.get("DEVICES", devices)
        device = fitted["devices"][0]
        zones = {z["name"]: z for z in device.get("zones", [])}
        check("DEVICES: name is the camera's, path the source's, card the replay's description, zones listed",
              device.get("name") == "meter" and device.get("path", "").endswith("meter.mjpeg") and device.get("card", "").startswith("replay of")
              and set(zones) == {"reading", "serial", "far"} and zones["reading"]["psm"] == 7 and zones["reading"]["whitelist"] == "0123456789",
              device)
        check("a zone outside the upright frame is reported in DEVICES and the log",
              "outside" in zones["far"].get("warning", "") and "zone does not fit" in daemon.logtext() and "zone=far" in daemon.logtext(),
              zones["far"])
        match = seen.get("MATCH", {})
        check("MATCH reaches a watcher with matches: true", match.get("device") == "meter" and match.get("zone") == "reading", match)
        later = [client.read_class("TEXT") for _ in range(5)]
        check("the zone outside the frame is not read", all(b.get("zone") != "far" for t in [text] + later for b in t["blocks"]))
        client.send({"class": "STATUS"})
        status = client.read_class("STATUS")
        check("STATUS names the camera", status["devices"][0].get("name") == "meter", status["devices"])
        client.send({"class": "SNAPSHOT", "device": "meter", "max_width": 64})
        snapshot = client.read_class("SNAPSHOT")
        check('"device":"meter" works in a request (SNAPSHOT)', snapshot["device"] == "meter", snapshot.get("device"))
        client.send({"class": "ORIENTATION", "device": device["path"], "rotation": 0})
        orientation = client.read_class("ORIENTATION")
        check("the source path still names the camera in a request, answered with its name", orientation["device"] == "meter", orientation)
        client.close()
        code, out, err = lector("watch", "--socket", daemon.sock, "--device", "meter", "--count", "1", timeout=60)
        check("lector watch --device meter", code == 0 and any(line.startswith("meter 0.") for line in out.splitlines()), out + err)
        code, out, err = lector("watch", "--socket", daemon.sock, "--device", "meter", "--matches", "--count", "1", timeout=90)
        check(f"lector watch --matches prints matches readably: {out.strip()}", code == 0 and out.startswith("meter/reading any \""), out + err)
        code, out, err = lector("devices", "--socket", daemon.sock, timeout=60)
        check("lector devices shows the name and the zones", code == 0 and out.startswith("meter ") and "zone reading 120,200,400,80" in out, out)
        statuses = []
        deadline = time.time() + 12
        while time.time() < deadline:
            try:
                statuses += [line for line in notify.recv(4096).decode().splitlines() if line.startswith("STATUS=")]
            except socket.timeout:
                pass
            if any("meter:" in s for s in statuses):
                break
        check(f"the systemd status names the camera: {statuses[-1] if statuses else ''}", any("meter:" in s for s in statuses), statuses)
        # SIGHUP with a broken file keeps the old configuration.
        good = open(conf).read()
        open(conf, "w").write(good + "\n[rule meter/reading/broken]\nmatch = ([0-9]\n")
        daemon.proc.send_signal(signal.SIGHUP)
        time.sleep(1.5)
        log = daemon.logtext()
        client = Client(daemon.sock, timeout=30)
        client.read_class("VERSION")
        client.send({"class": "DEVICES"})
        devices = client.read_class("DEVICES")
        check("SIGHUP with a bad regex: reported with file:line, the old configuration kept",
              "configuration not reloaded" in log and f"{conf}:" in log and daemon.proc.poll() is None
              and len(devices["devices"][0].get("zones", [])) == 3, log[-600:])
        # SIGHUP with a good file that changes the zones: applied.
        open(conf, "w").write(good.replace("[zone meter/far]\nrect = 700,0,100,50\npsm = 7\n", ""))
        daemon.proc.send_signal(signal.SIGHUP)
        deadline = time.time() + 20
        names = set()
        while time.time() < deadline:
            client.send({"class": "DEVICES"})
            names = {z["name"] for z in client.read_class("DEVICES")["devices"][0].get("zones", [])}
            if names == {"reading", "serial"}:
                break
            time.sleep(0.5)
        check("SIGHUP with a zone removed applies it", names == {"reading", "serial"} and "meter: zone" in daemon.logtext(), (names, daemon.logtext()[-400:]))
        client.close()
    notify.close()


def hostile_sign():
    """A sign a passer-by could hold up (issue 39): 64 `a`s and a `!`, 40 digits and an
    `X`: lines that almost match `^(a|aa)+$` and `^([0-9]+ ?)+$`, whose failing searches
    backtrack exponentially."""
    from PIL import Image, ImageDraw, ImageFont
    path = os.path.join(WORK, "hostile-sign.png")
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 22)
    image = Image.new("L", (1280, 200), 255)
    draw = ImageDraw.Draw(image)
    draw.text((20, 40), "a" * 64 + "!", font=font, fill=0)
    draw.text((20, 120), "1" * 40 + "X", font=font, fill=0)
    image.save(path)
    return path


def test_rule_that_backtracks():
    """A rule whose search backtracks without end gives up at its step limit: the camera
    publishes at the speed of a run without the rule, --max-frames ends, the rule is
    logged once and shown in DEVICES, --check-config warns of the nesting."""
    camera = f"[camera sign]\nreplay = {hostile_sign()}\nfps = 10\nloop = true\n"
    rules = ("[rule sign/as]\nmatch = ^(a|aa)+$\nsettled_only = false\n"
             "[rule sign/digits]\nmatch = ^([0-9]+ ?)+$\nsettled_only = false\n")
    with_rules = config("hostile-rules.conf", camera + rules)
    without = config("hostile-none.conf", camera)
    frames = 10

    def timed(conf):
        result = subprocess.run([LECTORD, "--config", conf, "--stdout", "--max-frames", str(frames), "--gate", "off"],
                                capture_output=True, timeout=120, env=ENV)
        return result, [json.loads(line) for line in result.stdout.decode().splitlines() if line.startswith("{")]

    for attempt in (1, 2):
        times = {"with": [], "without": []}
        runs = []
        for name, conf in (("without", without), ("with", with_rules)) * 2:
            started = time.time()
            result, messages = timed(conf)
            times[name].append(time.time() - started)
            runs.append((name, result, messages))
        ratio = min(times["with"]) / min(times["without"])
        if ratio <= 1.5 or attempt == 2:
            break
        print(f"     the host was busy (ratio {ratio:.2f}, load average {os.getloadavg()[0]:.2f}); measuring again", flush=True)
    ended = [(name, result.returncode, sum(1 for m in messages if m["class"] == "TEXT")) for name, result, messages in runs]
    check(f"--max-frames {frames} ends with and without the rules, every frame published: {ended}",
          all(status == 0 and texts == frames for _, status, texts in ended), ended)
    check(f"with the rules the camera publishes at the speed of a run without them: {min(times['with']):.1f} s against "
          f"{min(times['without']):.1f} s (x{ratio:.2f}, at most 1.5; load average {os.getloadavg()[0]:.1f})", ratio <= 1.5, times)
    log = runs[1][1].stderr.decode(errors="replace")
    said = [line for line in log.splitlines() if "rule skipped a line" in line]
    check("each rule that gave up is logged once", len(said) == 2 and any("rule=as" in l for l in said)
          and any("rule=digits" in l for l in said), log[-1500:])
    check("its lines published no MATCH", not any(m["class"] == "MATCH" for m in runs[1][2]))
    status, out, err = lectord("--config", with_rules, "--check-config")
    warned = [line for line in out.splitlines() if "warning:" in line]
    check("--check-config warns about the nested quantifiers of the digits rule, and only of it",
          status == 0 and len(warned) == 1 and "rule digits" in warned[0] and "nested quantifiers" in warned[0], out + err)
    with BaseDaemon("--config", with_rules) as daemon:
        client = Client(daemon.path, timeout=30)
        client.read_class("VERSION")
        client.send({"class": "WATCH", "enable": True})
        client.read_class("TEXT", timeout=60)
        warning = ""
        deadline = time.time() + 20
        while time.time() < deadline and "rule" not in warning:
            client.send({"class": "DEVICES"})
            warning = client.read_class("DEVICES")["devices"][0].get("warning", "")
            time.sleep(0.3)
        check(f"DEVICES warns of the rule: {warning}", "rule" in warning and "too many steps" in warning, warning)
        client.close()


for function in (test_meter_readings, test_meter_neural, test_hooks_that_hang_or_fail, test_config_errors, test_named_camera_and_reload,
                 test_rule_that_backtracks):
    suite.test(function)


def make_sequence():
    """The meter replay and its truth (scripts/make-meter-sequence.py)."""
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/make-meter-sequence.py"), SEQUENCE], check=True)
    TRUTH.update(json.load(open(os.path.join(SEQUENCE, "meter.json"))))


if __name__ == "__main__":
    sys.exit(suite.main(setup=make_sequence))
