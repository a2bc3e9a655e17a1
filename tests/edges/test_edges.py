#!/usr/bin/env python3
"""Edges of issue 16 against a real lectord and lector (see tests/edges/run).

Each check prints "ok   NAME" or "FAIL NAME: detail"; the last line is "N passed, N failed"
(tests/lectortest.py).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import ENV, FIXTURES, LECTOR, LECTORD, ROOT, STARTUP_SECONDS, Client, Daemon, SkipTest, Suite, lector, lectord, real_time, serve_lines, workdir  # noqa: E402

suite = Suite("edges", timed=False)
test = suite.test
check = suite.check


def gray_fixture():
    """hello-640x480 as (width, height, bytes of gray pixels), through djpeg."""
    pgm = subprocess.run(["djpeg", "-grayscale", "-pnm", os.path.join(FIXTURES, "hello-640x480.jpg")],
                         capture_output=True, check=True).stdout
    header = pgm.split(b"\n", 3)
    width, height = map(int, header[1].split())
    return width, height, header[3][: width * height]


def large_frame(path, width=3000, height=2000):
    """A width x height JPEG: the 640x480 fixture tiled on a light background."""
    tile_width, tile_height, tile = gray_fixture()
    rows = []
    for y in range(height):
        ty = y % tile_height
        line = tile[ty * tile_width:(ty + 1) * tile_width]
        row = (line * (width // tile_width + 1))[:width]
        rows.append(row)
    pgm = b"P5 %d %d 255\n" % (width, height) + b"".join(rows)
    jpeg = subprocess.run(["cjpeg", "-grayscale", "-quality", "90"], input=pgm, capture_output=True, check=True).stdout
    with open(path, "wb") as out:
        out.write(jpeg)
    return path


# (a) SNAPSHOT off the server thread ------------------------------------------------

@test
def snapshot_load():
    work = workdir("lector-edges-")
    frame = large_frame(os.path.join(work, "large-3000x2000.jpg"))
    seconds = float(os.environ.get("EDGES_LOAD_SECONDS", "20"))
    clients = int(os.environ.get("EDGES_SNAPSHOT_CLIENTS", "8"))
    # publish_ms also holds the moments the recognizer and server threads wait for a CPU,
    # which on a 2-core machine shared with other builds can alone exceed 20 ms: up to
    # three runs, each printed; one at or under the goal passes (rendering on the server
    # thread gave 2302 ms, every time).
    results = []
    for attempt in range(3):
        result = snapshot_load_run(frame, seconds, clients)
        results.append(result)
        print(f"     snapshot load, run {attempt + 1}: {result['replies']} SNAPSHOT replies of 3000x2000 in {seconds:.0f} s "
              f"to {clients} clients, {result['texts']} TEXT to the watcher, publish_ms p50 {result['p50']} p99 {result['p99']}",
              flush=True)
        if result["errors"] or (result["p99"] is not None and result["p99"] <= 20):
            break
    last = results[-1]
    check(f"{clients} clients looping SNAPSHOT on 3000x2000 are answered",
          not last["errors"] and (clients == 0 or min(last["counts"]) > 0), last["errors"][:3])
    check(f"the watcher goes on receiving TEXT under SNAPSHOT load ({last['texts']} in {seconds:.0f} s)", last["texts"] >= 3)
    best = min((r["p99"] for r in results if r["p99"] is not None), default=None)
    check(f"publish p99 under SNAPSHOT load: {best} ms (<= 20 ms; runs: {[r['p99'] for r in results]})",
          best is not None and best <= 20)


def snapshot_load_run(frame, seconds, clients):
    """One run: a watcher, `clients` SNAPSHOT loops for `seconds`, then STATUS."""
    # Per-frame recognition (live text's stacking and change gate off): the same frame
    # looping would otherwise be read only every --refresh-s, and the watcher's TEXT are
    # what publish_ms measures. A long deadline: reading a 3000x2000 frame on a loaded
    # machine passed the default 3 s in a Debian 13 root at load 5, and then no TEXT came.
    with Daemon("--replay", frame, "--loop", "--fps", "4", "--stack", "off", "--gate", "off", "--deadline-ms", "30000") as d:
        watcher = Client(d.path, timeout=60)
        watcher.send({"class": "WATCH", "enable": True})
        watcher.read_class("TEXT", timeout=90)
        stop = threading.Event()
        counts = [0] * clients
        errors = []

        def loop(index):
            try:
                c = Client(d.path, timeout=60)
                c.read_class("VERSION")
                while not stop.is_set():
                    # Eight different requests: eight renderings of each frame.
                    c.send({"class": "SNAPSHOT", "boxes": index % 2 == 0, "max_width": 3000 + index})
                    # Not parsed (1.4 MB of JSON each): the load is lectord's, not python's.
                    reply = c.readline()
                    if not reply.startswith(b'{"class":"SNAPSHOT"') or b'"width":3000,' not in reply:
                        errors.append(reply[:200])
                        return
                    counts[index] += 1
                c.close()
            except Exception as error:  # noqa: BLE001 - reported by the check
                errors.append(error)

        texts = 0
        threads = [threading.Thread(target=loop, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        started = time.time()
        while time.time() - started < seconds:
            if watcher.read()["class"] == "TEXT":
                texts += 1
        status_client = Client(d.path)
        status_client.send({"class": "STATUS"})
        status = status_client.reply()
        stop.set()
        for t in threads:
            t.join(60)
        publish = status.get("publish_ms", {})
        return {"replies": sum(counts), "counts": counts, "errors": errors, "texts": texts,
                "p50": publish.get("p50"), "p99": publish.get("p99")}


# (b) idle connections ----------------------------------------------------------------

def when_closed(clients, started):
    """For each client, reading until lectord closes it: (seconds since `started`, its
    last message), or (None, the error) when the connection failed otherwise."""
    closed = []
    for c in clients:
        lines = []
        try:
            while True:
                lines.append(json.loads(c.readline()))
        except EOFError:
            closed.append((round(time.time() - started, 2), lines[-1] if lines else None))
        except OSError as error:
            closed.append((None, error))
    return closed


@test
def idle_timeout():
    with Daemon("--demo", "--fps", "5", "--max-clients", "4", "--idle-timeout", "2") as d:
        time.sleep(0.2)  # the start-up probe's slot is free again
        started = time.time()
        idle = [Client(d.path) for _ in range(4)]
        idle[0].sock.sendall(b'{"class":')  # half a line is no request
        status, out, err = lector("status", "--socket", d.path)
        check("lector prints the server's ERROR when refused: too many clients",
              status != 0 and "too many clients (at most 4)" in err, (status, out, err))
        # A watcher is never idle: it takes the place of one idle client once they are closed.
        closed = when_closed(idle, started)
        seconds = [round(t, 2) for t, _ in closed if t is not None]
        check(f"4 idle connections (one with half a line) closed after --idle-timeout 2: at {seconds} s",
              len(seconds) == 4 and all(1.9 <= t <= 4 for t in seconds), closed)
        check("each is told why in an ERROR", all(isinstance(m, dict) and m.get("class") == "ERROR"
                                                   and "idle timeout" in m.get("message", "") for _, m in closed), closed)
        status, out, err = lector("status", "--socket", d.path)
        check("a new client is then served", status == 0 and "demo" in out, (status, out, err))
        watcher = Client(d.path)
        watcher.send({"class": "WATCH", "enable": True})
        watcher.read_class("TEXT")
        time.sleep(2.5)
        watcher.send({"class": "STATUS"})
        check("a watcher is not closed for being idle", watcher.reply()["class"] == "STATUS")
        check("the log says why clients were closed", "client idle; closing" in d.logtext())


@test
def watchers_that_ask_for_nothing():
    """A WATCH with every message switched off receives nothing: it cannot hold a client
    slot past --idle-timeout (issue 39)."""
    with Daemon("--demo", "--fps", "5", "--max-clients", "4", "--idle-timeout", "3") as d:
        time.sleep(0.2)  # the start-up probe's slot is free again
        started = time.time()
        holders = [Client(d.path) for _ in range(4)]
        for c in holders:
            c.send({"class": "WATCH", "enable": True, "text": False, "frame": False})
        status, out, err = lector("status", "--socket", d.path)
        check("while they hold every slot a bridge is refused: too many clients", status != 0 and "too many clients" in err, (status, err))
        closed = when_closed(holders, started)
        seconds = [t for t, _ in closed if t is not None]
        check(f"4 watchers that ask for nothing closed by --idle-timeout 3: at {seconds} s",
              len(seconds) == 4 and all(2.9 <= t <= 5 for t in seconds)
              and all(isinstance(m, dict) and "idle timeout" in m.get("message", "") for _, m in closed), closed)
        status, out, err = lector("status", "--socket", d.path)
        check("a bridge is then served", status == 0 and "demo" in out, (status, out, err))
        check("no camera was started for them", "demo" in out and "streaming" not in out, out)


# (c) the fallback socket and peer credentials -------------------------------------

USER, SQUATTER = 64999, 64998  # uids with no account: setpriv needs none


def as_user(uid, *command):
    """`command` run as `uid` (no groups), without XDG_RUNTIME_DIR: the fallback applies."""
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "env", "-u", "XDG_RUNTIME_DIR", "-u", "LECTOR_SOCKET", "-u", "RUNTIME_DIRECTORY", *command]


IMPOSTOR = '''
import os, socket, sys
path = sys.argv[1]
server = socket.socket(socket.AF_UNIX)
server.bind(path)
os.chmod(path, 0o777)
server.listen(8)
print("listening", flush=True)
while True:
    connection, _ = server.accept()
    try:
        connection.sendall(b'{"class":"VERSION","release":"6.6.6","proto_major":1,"proto_minor":9}\\n')
    except OSError:
        pass  # a client that refused us and left
    connection.close()
'''


def impostor(path):
    """A fake lectord run by SQUATTER on `path`, once it listens."""
    process = subprocess.Popen(["setpriv", f"--reuid={SQUATTER}", f"--regid={SQUATTER}", "--clear-groups",
                                sys.executable, "-c", IMPOSTOR, path], stdout=subprocess.PIPE, text=True)
    process.stdout.readline()
    return process


@test
def fallback_socket():
    if os.getuid() != 0:
        raise SkipTest("the fallback checks run lectord and an impostor as other users (needs root for setpriv)")
    import shutil
    directory = f"/tmp/lector-{USER}"
    shutil.rmtree(directory, ignore_errors=True)
    # Squatted: another user made the directory first (and left it open to all).
    os.mkdir(directory)
    os.chown(directory, SQUATTER, SQUATTER)
    os.chmod(directory, 0o777)
    result = subprocess.run(as_user(USER, LECTORD, "--demo"), capture_output=True, text=True, timeout=30, env=ENV)
    check("a squatted fallback directory is refused, naming XDG_RUNTIME_DIR",
          result.returncode == 1 and directory in result.stderr and "belongs to uid 64998" in result.stderr
          and "XDG_RUNTIME_DIR" in result.stderr, (result.returncode, result.stderr[-600:]))
    # The client facing an impostor in that directory.
    fake = impostor(directory + "/lector.sock")
    try:
        result = subprocess.run(as_user(USER, LECTOR, "status"), capture_output=True, text=True, timeout=30, env=ENV)
        check("lector refuses an impostor at its fallback path, saying who serves it",
              result.returncode == 69 and "refusing to talk to" in result.stderr and "uid 64998" in result.stderr
              and "6.6.6" not in result.stdout, (result.returncode, result.stdout, result.stderr))
        status, out, err = lector("status", "--socket", directory + "/lector.sock")
        check("root's lector refuses another user's server too", status == 69 and "uid 64998" in err, (status, out, err))
    finally:
        fake.kill()
        fake.wait()
    # A link in its place is refused as well.
    shutil.rmtree(directory)
    os.symlink("/tmp", directory)
    result = subprocess.run(as_user(USER, LECTORD, "--demo"), capture_output=True, text=True, timeout=30, env=ENV)
    check("a symbolic link as the fallback directory is refused", result.returncode == 1
          and "is a symbolic link" in result.stderr, result.stderr[-400:])
    os.unlink(directory)
    # Free: lectord makes it 0700 and its own, and lector finds it there.
    process = subprocess.Popen(as_user(USER, LECTORD, "--demo"), stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        deadline = time.time() + STARTUP_SECONDS
        while time.time() < deadline and not os.path.exists(directory + "/lector.sock"):
            time.sleep(0.05)
        info = os.lstat(directory)
        check(f"lectord creates the fallback directory mode 0700, its own (mode {oct(info.st_mode & 0o7777)}, uid {info.st_uid})",
              info.st_mode & 0o7777 == 0o700 and info.st_uid == USER)
        result = subprocess.run(as_user(USER, LECTOR, "status"), capture_output=True, text=True, timeout=30, env=ENV)
        check("lector (same user, no XDG_RUNTIME_DIR) talks to it at the fallback path",
              result.returncode == 0 and "demo" in result.stdout, (result.returncode, result.stdout, result.stderr))
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
        shutil.rmtree(directory, ignore_errors=True)


# (d) --check-config and --record -----------------------------------------------------

@test
def check_config():
    status, out, err = lectord("--demo", "--check-config")
    check("--check-config: a valid setup exits 0 and prints what would run",
          status == 0 and "configuration is valid" in out and "camera demo:" in out and "idle timeout 60 s" in out,
          (status, out, err))
    work = workdir("lector-edges-")
    config = os.path.join(work, "lectord.conf")
    with open(config, "w") as f:
        f.write("max_clients = 8\nidle_timeout = 30\n[camera door]\ndevice = /dev/video9\nrotation = 90\n")
    status, out, err = lectord("--config", config, "--check-config")
    check("--check-config reads the file: its cameras and daemon keys",
          status == 0 and "at most 8 clients" in out and "idle timeout 30 s" in out and "/dev/video9" in out
          and "EXIF 6 (right)" in out and "not present now" in out, (status, out, err))
    with open(config, "w") as f:
        f.write("[camera door]\ndevice = /dev/video9\nrotation = 45\n")
    status, out, err = lectord("--config", config, "--check-config")
    check("--check-config: a bad value exits 2 naming file, line and key",
          status == 2 and f"{config}:3: rotation" in err and out == "", (status, out, err))
    status, out, err = lectord("--demo", "--lang", "xyz", "--check-config")
    check("--check-config: a language without traineddata exits 2", status == 2 and "'xyz'" in err, (status, out, err))
    status, out, err = lectord("--replay", "/nonexistent/frames", "--check-config")
    check("--check-config: a missing replay path exits 2", status == 2 and "/nonexistent/frames does not exist" in err,
          (status, out, err))


def texts(stdout):
    return [json.loads(line)["text"] for line in stdout.splitlines() if line.startswith('{"class":"TEXT"')]


@test
def record_and_replay():
    work = workdir("lector-edges-")
    folder = os.path.join(work, "frames")
    status, out, err = lectord("--demo", "--stdout", "--max-frames", "6", "--record", folder)
    recorded = sorted(os.listdir(folder))
    live = texts(out)
    check(f"--record keeps the captured frames ({len(recorded)} files for {len(live)} recognized)",
          status == 0 and len(recorded) >= 6 and all(n.startswith("frame-") and n.endswith(".pgm") for n in recorded),
          (status, recorded, err[-400:]))
    # Every recorded frame read (--gate off): the demo holds each page, so most recorded
    # frames are alike, and the change gate would skip some of them as unchanged.
    status, out, err = lectord("--replay", folder, "--stdout", "--gate", "off")
    replayed = texts(out)
    check(f"--replay of the recorded folder reads the same text ({len(replayed)} frames)",
          status == 0 and len(replayed) == len(recorded) and set(live) <= set(replayed) and all(t for t in live),
          (live, replayed, err[-400:]))
    # JPEG frames are kept byte for byte.
    jpegs = os.path.join(work, "jpegs")
    fixture = os.path.join(FIXTURES, "hello-640x480.jpg")
    status, out, err = lectord("--replay", fixture, "--stdout", "--record", jpegs)
    names = os.listdir(jpegs)
    with open(fixture, "rb") as a, open(os.path.join(jpegs, names[0]), "rb") as b:
        same = a.read() == b.read()
    check("a JPEG frame is recorded as the same .jpg", status == 0 and len(names) == 1 and names[0].endswith(".jpg") and same,
          (names, err[-300:]))
    # The bound: 640x480 frames are 307 KB each; 1 MB holds three, the newest.
    bounded = os.path.join(work, "bounded")
    status, out, err = lectord("--demo", "--stdout", "--max-frames", "8", "--record", bounded, "--record-max-mb", "1")
    names = sorted(os.listdir(bounded))
    total = sum(os.path.getsize(os.path.join(bounded, n)) for n in names)
    serials = [int(n.split("-")[2].split(".")[0]) for n in names]
    written = int(err.split("written=")[1].split()[0]) if "written=" in err else 0
    check(f"--record-max-mb 1: {len(names)} files, {total} bytes, the newest kept (serials {serials} of {written})",
          status == 0 and total <= 1 << 20 and len(names) == 3 and serials == list(range(written - 2, written + 1)),
          err[-400:])


# (e) --roi, rejections, CLI edges --------------------------------------------------

@test
def roi_outside():
    status, out, err = lectord("--demo", "--roi", "700,0,100,100", "--stdout", "--max-frames", "3")
    message = "roi 700,0,100,100 lies outside the 640x480 upright image: the whole frame is read"
    check("--roi outside the image: logged once", status == 0 and err.count(message) == 1, err[-500:])
    status, out, err = lectord("--demo", "--roi", "600,0,100,100", "--stdout", "--max-frames", "1")
    check("--roi partly outside: says what is read", "extends beyond the 640x480 upright image: only 600,0,40,100 is read" in err,
          err[-400:])
    work = workdir("lector-edges-")
    config = os.path.join(work, "lectord.conf")
    with open(config, "w") as f:
        f.write("[camera demo]\ndemo = true\nroi = 700,0,100,100\n")
    with Daemon("--config", config) as d:
        c = Client(d.path)
        c.send({"class": "WATCH", "enable": True})
        warning = None
        deadline = time.time() + 30
        while time.time() < deadline and warning is None:
            pushed = c.read()
            if pushed["class"] == "DEVICES":
                warning = pushed["devices"][0].get("warning")
        check("roi from the configuration file: DEVICES carries the warning", warning == message, warning)
        status, out, err = lector("devices", "--socket", d.path)
        check("lector devices shows it", "warning: " + message in out, out)
        check("and the log says it once", d.logtext().count(message) == 1, d.logtext()[-400:])


@test
def rejections_logged_once():
    work = workdir("lector-edges-")
    folder = os.path.join(work, "frames")
    os.makedirs(folder)
    with open(os.path.join(FIXTURES, "hello-640x480.jpg"), "rb") as f:
        jpeg = f.read()
    files = {"a-good.jpg": jpeg, "b-empty.png": b"", "c-text.png": b"hello\n", "e-cut.jpg": jpeg[:3000], "f-bad.jpg": b"garbage\n"}
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data)
    os.mkdir(os.path.join(folder, "d-dir.png"))
    os.symlink("g-loop.png", os.path.join(folder, "g-loop.png"))
    process = subprocess.Popen([LECTORD, "--replay", folder, "--loop", "--fps", "20", "--stdout"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
    time.sleep(4)
    process.send_signal(signal.SIGTERM)
    err = process.communicate(timeout=10)[1]
    passes = int(err.split("captured=")[1].split()[0]) // 7 if "captured=" in err else 0
    for name in ["b-empty.png", "c-text.png", "d-dir.png", "e-cut.jpg", "f-bad.jpg", "g-loop.png"]:
        check(f"replay: {name} named once over {passes} passes", err.count("file=" + os.path.join(folder, name)) == 1 and passes >= 2,
              err[-600:])
    check("replay: an empty file is called empty, a cut JPEG cut short",
          "the file is empty" in err and "the file is cut short" in err, err[-600:])


# What a sign (or a server on the socket) can put in a line: an OSC title change ended by
# BEL, a screen clear, a right-to-left override, DEL and a C1 control.
HOSTILE_TEXT = "a\x1b]0;pwned\x07b \x1b[2J c\u202ed \x7f\u009b"


@test
def watch_escapes_control_characters():
    """`lector watch` prints a line's control characters escaped, never raw (issue 39)."""
    box = {"x": 1, "y": 2, "width": 3, "height": 4}
    corners = [[1, 2], [4, 2], [4, 6], [1, 6]]
    text = {"class": "TEXT", "device": "demo", "seq": 1, "time": "2026-12-04T00:00:00.000Z", "orientation": {"exif": 1, "name": "up"},
            "width": 640, "height": 480, "recognize_ms": 10, "text": HOSTILE_TEXT,
            "blocks": [{"text": HOSTILE_TEXT, "box": box, "corners": corners, "confidence": 0.9,
                        "lines": [{"text": HOSTILE_TEXT, "box": box, "corners": corners, "confidence": 0.9}]}]}
    track = {"class": "TRACK", "device": "demo", "id": "1", "event": "new", "text": HOSTILE_TEXT, "box": box, "corners": corners,
             "confidence": 0.9,
             "observations": 3, "first_seen": "2026-12-04T00:00:00.000Z", "last_seen": "2026-12-04T00:00:00.000Z"}
    error = {"class": "ERROR", "message": "closing: " + HOSTILE_TEXT}
    folder = workdir("lector-edges-escape-")
    for name, args, lines in (("TEXT", [], [text, error]), ("TRACK", ["--tracks"], [track, error])):
        path = os.path.join(folder, name + ".sock")
        thread = serve_lines(path, lines)
        result = subprocess.run([LECTOR, "watch", "--socket", path] + args, capture_output=True, timeout=30, env=ENV)
        thread.join()
        out = result.stdout.decode(errors="replace") + result.stderr.decode(errors="replace")
        raw = [c for c in out if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f or c == "\u202e"]
        check("lector watch %s: the text shown escaped, no control character printed raw: %r" % (" ".join(args) or "(text)", out[-160:]),
              not raw and "\\u001b]0;pwned\\u0007b" in result.stdout.decode() and "\\u202e" in result.stdout.decode()
              and "\\u001b[2J" in result.stderr.decode(), (raw, out))


@test
def cli_edges():
    status, out, err = lector("--version")
    check("lector --version", status == 0 and out.startswith("lector "), (status, out, err))
    status, out, err = lectord("--demo", "--replay", os.path.join(FIXTURES, "hello-640x480.png"))
    check("lectord --demo --replay: refused, one source per camera", status == 2 and "not both" in err, (status, err))
    status, out, err = lectord("--replay", "x.raw", "--replay-format", "GREY", "--size", "20000x20000")
    check("--size 20000x20000 states the limit", status == 2 and "16384" in err, err)
    status, out, err = lectord("--demo", "--socket", "")
    check("lectord --socket '': a clear message", status == 2 and "--socket needs a value" in err, err)
    status, out, err = lector("status", "--socket", "")
    check("lector --socket '': a clear message", status == 2 and "--socket needs a path" in err, err)
    work = workdir("lector-edges-")
    loop = os.path.join(work, "loop.png")
    os.symlink("loop.png", loop)
    status, out, err = lectord("--replay", loop, "--stdout")
    check("a symlink loop is not called missing", status == 1 and "symbolic link" in err and "does not exist" not in err, err)
    config = os.path.join(work, "long.conf")
    with open(config, "w") as f:
        f.write("[camera a]\ndemo = true\nrotation = " + "x" * 500_000 + "\n")
    status, out, err = lectord("--config", config)
    check(f"a 500 KB config value is echoed once, cut short ({len(err)} bytes of message)",
          status == 2 and err.count("x" * 60) == 1 and "x" * 61 not in err and len(err) < 400 and "500000 bytes" in err,
          err[:400])
    with Daemon() as d:
        c = Client(d.path)
        c.send({"class": "WATCH", "devices": []})
        reply = c.reply()
        check("WATCH devices:[] is an ERROR", reply["class"] == "ERROR" and "empty" in reply["message"], reply)
        c.send(b'{"class":"WATCH","enable":false,"enable":true}')
        reply = c.reply()
        check("duplicate JSON keys are an ERROR", reply["class"] == "ERROR" and "duplicate key" in reply["message"], reply)
        status, out, err = lector("snapshot", "--device", "nosuch", "-o", os.path.join(work, "x.jpg"), "--socket", d.path)
        check("snapshot --device nosuch: the error is SNAPSHOT's", status == 1 and "SNAPSHOT: unknown device" in err, err)
        result = subprocess.run([LECTOR, "snapshot", "-o", "-", "--socket", d.path], capture_output=True, timeout=30, env=ENV,
                                cwd=work)
        check("snapshot -o - writes the JPEG on stdout", result.returncode == 0 and result.stdout[:2] == b"\xff\xd8"
              and not os.path.exists(os.path.join(work, "-")), (result.returncode, result.stdout[:20], result.stderr))
        status, out, err = lector("watch", "--count", "2", "--socket", d.path)
        lines = out.splitlines()
        check("lector watch: each frame after a separator with its time",
              status == 0 and lines[0].startswith("-- 20") and "T" in lines[0] and " demo frame " in lines[0]
              and sum(line.startswith("-- ") for line in lines) == 2, out)
    with Daemon("--device", "/dev/video9") as d:
        check("a missing /dev/video9 is not 'ready'", "camera ready" not in d.logtext(), d.logtext())
        status, out, err = lector("devices", "--socket", d.path)
        check("lector devices: a missing camera is lost, not idle", "/dev/video9  lost" in out and "does not exist" in out, out)
        try:
            result = subprocess.run([LECTOR, "watch", "--socket", d.path], capture_output=True, timeout=4, env=ENV, text=True)
            err = result.stderr
        except subprocess.TimeoutExpired as expired:
            err = (expired.stderr or b"").decode()
        check(f"lector watch: 'is lost' said once per change ({err.count('is lost')} in 4 s)", err.count("is lost") == 1, err)
        started = time.time()
        status, out, err = lector("snapshot", "-o", os.path.join(work, "y.jpg"), "--socket", d.path)
        elapsed = time.time() - started
        check(f"snapshot of a lost camera: says so in {elapsed:.1f} s", status == 1 and "is lost" in err and elapsed < real_time(5), err)
        check("the log says 'not available', not 'lost … losses=0'", "losses=0" not in d.logtext(), d.logtext()[-400:])


# (f) manual pages, install and uninstall -------------------------------------------

def man(*arguments, env=None):
    result = subprocess.run(["man", *arguments], capture_output=True, text=True, timeout=60,
                            env=dict(env or os.environ, MANPAGER="cat", MANWIDTH="200"))
    return result.returncode, result.stdout


@test
def man_pages():
    import re
    import shutil
    work = workdir("lector-edges-")
    bindir = os.path.dirname(LECTORD)
    pages = os.path.join(work, "man")
    subprocess.run([os.path.join(ROOT, "scripts/make-man"), bindir, pages], check=True, capture_output=True)
    for name, section in [("lectord", 8), ("lector", 1), ("lector-mqtt", 8), ("lector-http", 8)]:
        help_text = subprocess.run([os.path.join(bindir, name), "--help"], capture_output=True, text=True).stdout
        flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]+)", help_text))
        status, shown = man("-l", os.path.join(pages, f"{name}.{section}"))
        shown = shown.replace("\u2010", "-")
        missing = sorted(flag for flag in flags if flag not in shown)
        check(f"man -l {name}.{section} shows every option of --help ({len(flags)})",
              status == 0 and not missing and f"{name.upper()}({section})" in shown, missing or shown[:300])
    root = os.path.join(work, "root")
    result = subprocess.run([os.path.join(ROOT, "scripts/install.sh"), "--root", root, "--bin", bindir],
                            capture_output=True, text=True, timeout=300)
    status, shown = man("lectord", env=dict(os.environ, MANPATH=os.path.join(root, "usr/local/share/man")))
    check("after install, man lectord shows the options", result.returncode == 0 and status == 0
          and "--idle-timeout" in shown and "--check-config" in shown, (result.stderr[-400:], shown[:200]))
    units = os.path.join(root, "usr/local/lib/systemd/system")
    documents = {line.split("file:", 1)[1].strip() for unit in os.listdir(units)
                 for line in open(os.path.join(units, unit)) if line.startswith("Documentation=file:")}
    check(f"every unit's Documentation= exists after install ({len(documents)})",
          documents and all(os.path.exists(root + path) for path in documents), documents)
    result = subprocess.run([os.path.join(ROOT, "scripts/install.sh"), "--root", root, "--uninstall"],
                            capture_output=True, text=True, timeout=60)
    left = [path for path in ["usr/local/bin/lectord", "usr/local/libexec/lector", "usr/local/share/man/man8/lectord.8",
                              "usr/local/lib/systemd/system/lectord.service", "usr/local/share/doc/lector"]
            if os.path.lexists(os.path.join(root, path))]
    check("install.sh --uninstall removes programs, units, pages and docs, keeps /etc/lector",
          result.returncode == 0 and not left and os.path.exists(os.path.join(root, "etc/lector/lectord.conf")),
          (left, result.stderr[-300:]))
    shutil.rmtree(work, ignore_errors=True)


@test
def ready_and_devices_after_watch():
    with Daemon() as d:
        c = Client(d.path)
        c.send({"class": "WATCH", "enable": True})
        devices = c.reply()
        check(f"DEVICES right after the WATCH that starts a camera: {devices['devices'][0]['state']} (opening or streaming, not idle)",
              devices["class"] == "DEVICES" and devices["devices"][0]["state"] in ("opening", "streaming"), devices)
    # Socket activation with a client waiting: READY=1 comes once its WATCH started the
    # camera and the camera streams.
    work = workdir("lector-edges-")
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(os.path.join(work, "lector.sock"))
    listening.listen(8)
    listening.set_inheritable(True)  # dup2 onto itself (it may be 3 already) keeps close-on-exec
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(os.path.join(work, "notify"))
    notify.settimeout(30)
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(os.path.join(work, "lector.sock"))
    client.sendall(b'{"class":"WATCH"}\n')
    env = dict(ENV, NOTIFY_SOCKET=os.path.join(work, "notify"), LISTEN_FDS="1")
    # systemd's way: the listening socket as descriptor 3, LISTEN_PID the daemon's own pid.
    process = subprocess.Popen(["sh", "-c", 'export LISTEN_PID=$$; exec "$0" --demo --fps 5', LECTORD], stderr=open(os.path.join(work, "log"), "w"),
                               env=env, close_fds=False, preexec_fn=lambda: os.dup2(listening.fileno(), 3))
    try:
        message = notify.recv(4096).decode()
        status_line = next((line for line in message.splitlines() if line.startswith("STATUS=")), message)
        check(f"READY=1 after the waiting client's camera runs: {status_line}",
              "READY=1" in message and "streaming" in message and "idle" not in message, message)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


if __name__ == "__main__":
    sys.exit(suite.main())
