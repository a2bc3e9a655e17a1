#!/usr/bin/env python3
"""The recognizer pool through a real lectord (see tests/pool/run)."""
import difflib
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import DEMO, DEMO_DIR, ENV, LECTORD, Client, Daemon, Suite, workdir  # noqa: E402

suite = Suite("pool", timed=False)
check = suite.check


def lines_of(text):
    return [line.strip() for line in text.split("\n") if line.strip()]


def matches_its_frame(message):
    """The text reads the frame it was captured from (the replay loops over the four demo
    frames in order, so frame = seq % 4): at least 90% alike (Tesseract reads "1pm" as
    "lpm" in one of them, with one recognizer as with several)."""
    expected = "\n".join(DEMO[message["seq"] % len(DEMO)])
    return difflib.SequenceMatcher(None, "\n".join(lines_of(message["text"])), expected).ratio() >= 0.9


def check_capture_order(where, texts, seq_check):
    """TEXT messages published in capture order (seq and capture time strictly increase),
    each reading the frame it was captured from."""
    for name, values in ((seq_check, [t["seq"] for t in texts]), ("capture times strictly increase", [t["time"] for t in texts])):
        check("%s: %s" % (where, name), all(a < b for a, b in zip(values, values[1:])), str(values))
    wrong = [(t["seq"], t["text"]) for t in texts if not matches_its_frame(t)]
    check("%s: every text reads the frame it was captured from" % where, not wrong, repr(wrong[:3]))


# A read is ended after 3 s by default and publishes the lines read so far: on a loaded
# machine a debug build's read of a demo page can take that long (CI, 12:45 UTC: two
# partial texts in 24), which is --deadline-ms's behaviour, not the pool's.
WHOLE_READS = ["--deadline-ms", "30000"]


def start(args, log):
    return subprocess.Popen([LECTORD] + WHOLE_READS + args, stdout=subprocess.PIPE, stderr=log, env=ENV)


def stdout_stream():
    """--stdout with 2 recognizers, replay at 20 fps (faster than recognition): order and text."""
    with tempfile.TemporaryFile("w+") as log:
        proc = start(["--replay", DEMO_DIR, "--fps", "20", "--loop", "--stdout", "--recognizers", "2",
                      "--max-frames", "24"], log)
        try:
            out, _ = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        log.seek(0)
        logtext = log.read()
    messages = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    texts = [m for m in messages if m["class"] == "TEXT"]
    frames = [m for m in messages if m["class"] == "FRAME"]
    check("stdout: lectord exits 0 after --max-frames 24", proc.returncode == 0, "exit %s" % proc.returncode)
    check("stdout: the log says recognizers=2", "recognizers=2" in logtext, logtext[-300:])
    check("stdout: 24 TEXT messages", len(texts) == 24, "%d" % len(texts))
    check_capture_order("stdout", texts, "capture order (seq) strictly increases")
    # Accounting: captured = recognized + dropped + rejected + unchanged + in flight
    # (at most the 2 recognizers' frames and the mailbox's).
    bad = []
    for f in frames:
        accounted = f["recognized"] + f["dropped"] + f["rejected"] + f.get("unchanged", 0)
        if not 0 <= f["captured"] - accounted <= 3:
            bad.append(f)
    check("stdout: every FRAME's counters add up (in flight 0-3)", frames and not bad, repr(bad[:1]))
    recognized = [f["recognized"] for f in frames]
    check("stdout: recognized counts 1, 2, 3, ... in publishing order", recognized == list(range(1, len(frames) + 1)),
          str(recognized))


def watch_tracks(args, texts_wanted, seconds):
    """A lectord on a socket of its own with `args`, watched with tracks on: the TEXT
    messages and TRACK events until `texts_wanted` TEXT came or `seconds` passed."""
    texts, tracks = [], []
    with Daemon(*(WHOLE_READS + args)) as daemon:
        client = Client(daemon.path, timeout=30)
        client.send({"class": "WATCH", "tracks": True, "frame": False})
        deadline = time.time() + seconds
        while len(texts) < texts_wanted and time.time() < deadline:
            message = client.read()
            if message["class"] == "TEXT":
                texts.append(message)
            elif message["class"] == "TRACK":
                tracks.append(message)
    return texts, tracks


def socket_watch():
    """Over the socket, live text on (defaults): TEXT order and text, TRACK events consistent."""
    texts, tracks = watch_tracks(["--replay", DEMO_DIR, "--fps", "20", "--loop", "--recognizers", "2"], 16, 180)
    check("socket: 16 TEXT messages with live text on", len(texts) == 16, "%d" % len(texts))
    check_capture_order("socket", texts, "seq strictly increases")
    # The demo shows another page in every frame: a new scene each time, whose lines
    # replace the tracks at their place before they settle, so TRACK events need a still
    # page (socket_tracks). Whatever came is consistent.
    broken = broken_tracks(tracks)
    check("socket: TRACK events, if any, each start with new and nothing follows gone",
          not broken, "%d events, broken %r" % (len(tracks), broken[:1]))


def broken_tracks(tracks):
    """The TRACK events out of order: a track that does not start with new, or anything after its gone."""
    state, broken = {}, []
    for event in tracks:
        kind, ident = event.get("event"), event.get("id")
        if ident not in state and kind != "new":
            broken.append(event)
        if state.get(ident) == "gone":
            broken.append(event)
        state[ident] = kind
    return broken


def socket_tracks():
    """Two recognizers on one still page (looping, the change gate off so that it is read
    again and again): its lines settle as tracks, announced once each, in order."""
    page = os.path.join(DEMO_DIR, "frame-00.png")
    texts, tracks = watch_tracks(["--replay", page, "--fps", "20", "--loop", "--recognizers", "2", "--gate", "off"], 12, 120)
    news = [t["text"] for t in tracks if t.get("event") == "new"]
    expected = DEMO[0]
    check("socket, still page: each of its lines settles as one track",
          sorted(news) == sorted(expected), "new: %r, expected %r" % (news, expected))
    broken = broken_tracks(tracks)
    check("socket, still page: each track starts with new and nothing follows gone",
          tracks and not broken, "%d events, broken %r" % (len(tracks), broken[:1]))


def option_errors():
    for value in ["0", "17", "many"]:
        proc = subprocess.run([LECTORD, "--demo", "--stdout", "--recognizers", value], capture_output=True, env=ENV, timeout=60)
        err = proc.stderr.decode()
        check("--recognizers %s is refused (exit 2, names the option)" % value,
              proc.returncode == 2 and "--recognizers" in err and "auto" in err, "exit %s: %s" % (proc.returncode, err[-200:]))


def config_key_and_lossless_replay():
    directory = workdir("lector-pool-")
    config = os.path.join(directory, "lectord.conf")
    with open(config, "w") as handle:
        handle.write("[camera]\nreplay = %s\nrecognizers = 2\n" % DEMO_DIR)
    # Without --fps the replay is lossless: one recognizer, every frame read once.
    proc = subprocess.run([LECTORD, "--config", config, "--stdout"], capture_output=True, env=ENV, timeout=240)
    texts = [json.loads(l) for l in proc.stdout.decode().splitlines() if l.startswith('{"class":"TEXT"')]
    err = proc.stderr.decode()
    check("config key recognizers = 2 is read; a replay without --fps keeps one recognizer",
          proc.returncode == 0 and "recognizers=1" in err, "exit %s: %s" % (proc.returncode, err[-300:]))
    check("the lossless replay reads all 4 frames, in order", [t["seq"] for t in texts] == [0, 1, 2, 3],
          str([t["seq"] for t in texts]))
    with open(config, "w") as handle:
        handle.write("[camera]\nreplay = %s\nfps = 20\nloop = true\nrecognizers = 2\n" % DEMO_DIR)
    proc = subprocess.run([LECTORD, "--config", config, "--stdout", "--max-frames", "2"],
                          capture_output=True, env=ENV, timeout=240)
    check("config key recognizers = 2 with --fps: 2 recognizers", "recognizers=2" in proc.stderr.decode(),
          proc.stderr.decode()[-300:])


for function in (option_errors, stdout_stream, socket_watch, socket_tracks, config_key_and_lossless_replay):
    suite.test(function)

if __name__ == "__main__":
    sys.exit(suite.main())
