"""Hostile frames against a real lectord (see tests/hostile/run)."""
import json
import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import (DEMO_DIR, ENV, FIXTURES, LECTORD, ROOT, Client, Daemon, Suite, cpu_seconds, real_time, wait_for,  # noqa: E402
                        workdir, write)

FIXTURE = os.path.join(FIXTURES, "hello-640x480.png")
PEAK_LIMIT_KB = 300 * 1024

suite = Suite("hostile", timed=False)
test = suite.test
check = suite.check
WORK = workdir("lector-hostile-")
BOMBS = os.path.join(WORK, "bombs")
NOISE = os.path.join(WORK, "noise-3840x2160.grey")


def run_measured(arguments, timeout=60):
    """Runs lectord under /usr/bin/time -v: (exit status, stderr, peak RSS in KB)."""
    result = subprocess.run(["/usr/bin/time", "-v", LECTORD, *arguments], capture_output=True, text=True, timeout=timeout)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    return result.returncode, result.stderr, int(peak.group(1)) if peak else None


def late_run(arguments, late_message, seconds, env=None):
    """lectord with `arguments` (its log on a pipe): (process, log so far, seconds from
    "camera ready" to the first `late_message` in its log, or None in `seconds`)."""
    process = subprocess.Popen([LECTORD, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    log, ready, late = "", None, None
    started = time.monotonic()
    while time.monotonic() - started < seconds and late is None:
        log += (os.read(process.stderr.fileno(), 65536) if select.select([process.stderr], [], [], 0.01)[0] else b"").decode()
        if ready is None and "camera ready" in log:
            ready = time.monotonic()
        if ready is not None and late_message in log:
            late = time.monotonic()
        time.sleep(0.01)
    return process, log, (late - ready if late and ready else None)


def noise_run(noise, layout, deadline_ms=200):
    """lectord on the 4K noise frame with --deadline-ms `deadline_ms`: (process, log so far,
    seconds from "camera ready" to the first "longer than the N ms deadline", or None in 15 s)."""
    return late_run(["--replay", noise, "--replay-format", "GREY", "--size", "3840x2160", "--deadline-ms", str(deadline_ms),
                     "--stdout", "--loop", "--stack", "off", "--gate", "off", "--layout", layout],
                    "longer than the %d ms deadline" % deadline_ms, 15)


def terminate(process):
    """Sends SIGTERM: (exit status or None if it took over 10 s, or over the load-scaled
    bound of 1 s and 5 s more, seconds until it exited)."""
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        status = process.wait(timeout=max(10, real_time(1.0) + 5))
    except subprocess.TimeoutExpired:
        process.kill()
        status = None
    return status, time.monotonic() - started


def make_frames():
    """The bombs (make-bombs.py), and 4K of noise that Tesseract's layout analysis cannot be stopped in."""
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/hostile/make-bombs.py"), BOMBS], check=True)
    with open(NOISE, "wb") as out:
        out.write(os.urandom(3840 * 2160))


@test
def bombs_refused():
    # A single bomb as the replay source: refused before decoding, naming the file.
    for name, reason in [("png-bomb.png", "over the limit"), ("png-bomb-rgba.png", "over the limit"),
                         ("jpeg-8000.jpg", "8000x8000, over the limit")]:
        path = os.path.join(BOMBS, name)
        status, stderr, peak = run_measured(["--replay", path, "--stdout", "--max-frames", "1"])
        check(f"{name}: refused with a message naming the file", status == 1 and path in stderr and reason in stderr,
              f"status {status}: {stderr[-400:]}")
        check(f"{name}: peak RSS {peak} KB <= {PEAK_LIMIT_KB} KB", peak is not None and peak <= PEAK_LIMIT_KB)

    # The scan bomb is a well-formed header: it is replayed, and the frame is rejected.
    path = os.path.join(BOMBS, "jpeg-scans.jpg")
    status, stderr, peak = run_measured(["--replay", path, "--stdout", "--max-frames", "1"])
    check("jpeg-scans.jpg: the frame is rejected for its scans", status == 0 and "more than 100 progressive scans" in stderr
          and "rejected=1" in stderr, f"status {status}: {stderr[-400:]}")
    check(f"jpeg-scans.jpg: peak RSS {peak} KB <= {PEAK_LIMIT_KB} KB", peak is not None and peak <= PEAK_LIMIT_KB)


@test
def folder_with_bombs_and_fifos():
    # A folder mixing a good frame, every bomb and a FIFO: each bad file is named once,
    # the good frame is read, and the daemon is not blocked by the FIFO.
    folder = os.path.join(WORK, "mixed")
    os.makedirs(folder)
    os.symlink(FIXTURE, os.path.join(folder, "a-good.png"))
    for name in os.listdir(BOMBS):
        os.symlink(os.path.join(BOMBS, name), os.path.join(folder, "b-" + name))
    os.mkfifo(os.path.join(folder, "c-fifo.png"))
    os.mkfifo(os.path.join(folder, "d-fifo.jpg"))
    status, stderr, peak = run_measured(["--replay", folder, "--stdout", "--max-frames", "6"], timeout=120)
    for name in ["b-png-bomb.png", "b-png-bomb-rgba.png", "b-jpeg-8000.jpg", "c-fifo.png", "d-fifo.jpg"]:
        check(f"folder: {name} skipped with one message naming it",
              stderr.count(f"file={os.path.join(folder, name)}") == 1, stderr[-600:])
    check("folder: the FIFOs are named as FIFOs", stderr.count("it is a FIFO, not a regular file") == 2)
    check("folder: the good frame is read", "camera stopped" in stderr and re.search(r"recognized=[1-9]", stderr) is not None,
          stderr[-400:])
    check(f"folder: peak RSS {peak} KB <= {PEAK_LIMIT_KB} KB", peak is not None and peak <= PEAK_LIMIT_KB)

    # SIGTERM while replaying a folder with a FIFO in it, looping: exits 0 within 1 s.
    process = subprocess.Popen([LECTORD, "--replay", folder, "--stdout", "--loop", "--fps", "5"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    status, elapsed = terminate(process)
    check(f"SIGTERM while replaying a folder with FIFOs: exit {status} after {elapsed:.2f} s (0 within {real_time(1.0):.1f} s)",
          status == 0 and elapsed <= real_time(1.0))


@test
def stuck_recognition():
    # A frame whose layout analysis Tesseract cannot be stopped in (4K noise, under any
    # size limit): abandoned at its deadline, and SIGTERM during such a frame ends lectord.
    # Live text's stacking is off: this is about the recognizer's deadline, and folding
    # 4K frames in a debug build (unspecialized generics) holds the capture thread for
    # over 5 s per frame here (Swift 6.3 and 6.0.3 alike), and SIGTERM waits for it.
    # Tesseract's layout: its abandonment is what is checked here; the detector layout
    # has a check of its own below.
    process, log, delay = noise_run(NOISE, "tesseract")
    check(f"4K noise, --deadline-ms 200: the frame is abandoned {delay and round(delay, 2)} s after the camera is ready"
          f" (within {real_time(1.0):.1f} s)", delay is not None and delay <= real_time(1.0), log[-400:])
    time.sleep(1.5)  # the next frames are refused while the abandoned one still runs
    status, elapsed = terminate(process)
    check(f"SIGTERM during a stuck recognition: exit {status} after {elapsed:.2f} s (0 within {real_time(1.0):.1f} s)",
          status == 0 and elapsed <= real_time(1.0))

    # The same frame with the text-line detector (the default layout once its model is
    # installed): the network cannot be stopped midway, so a detection that outlasts the
    # deadline ends the read when it returns (about 0.12 s for a 4K frame here), and a
    # SIGTERM during one waits for it; both bounded, the daemon goes on.
    if "reading with the text-line detector" in subprocess.run([LECTORD, "--replay", FIXTURE, "--stdout", "--max-frames", "1"],
                                                               capture_output=True, text=True, timeout=120).stderr:
        # 20 ms: on ONNX Runtime the 1280 px detection of the noise takes about 120 ms on a
        # quiet machine, inside a 200 ms deadline (it outlasted it only under load).
        process, log, delay = noise_run(NOISE, "detector", deadline_ms=20)
        check(f"detector layout, 4K noise, --deadline-ms 20: the late read is ended {delay and round(delay, 2)} s after"
              f" the camera is ready (within {real_time(3.0):.1f} s)", delay is not None and delay <= real_time(3.0), log[-400:])
        time.sleep(0.5)
        status, elapsed = terminate(process)
        check(f"detector layout: SIGTERM during detections: exit {status} after {elapsed:.2f} s (0 within {real_time(3.0):.1f} s)",
              status == 0 and elapsed <= real_time(3.0))
    else:
        print("     (no text-line detector here: its deadline check is left out)")


@test
def oversized_frames():
    # 8000x8000 noise: over the pixel limit, refused up front with a message.
    status, stderr, _ = run_measured(["--replay", NOISE, "--replay-format", "GREY", "--size", "8000x8000",
                                      "--deadline-ms", "200", "--stdout"])
    check("8000x8000 frames are refused up front, saying the limit", status == 1 and "over the limit of" in stderr,
          stderr[-300:])



# ---------------------------------------------------------------- attacks on lectord's configuration
# Issue 29, break 3: every rectangle is checked with overflow-safe arithmetic when the
# configuration is read. Each row: (attack, arguments or a configuration file's text,
# what the refusal must say). Every one must end lectord with status 2 before it starts
# a camera (--check-config too), where the overflow once killed it with SIGILL.
HUGE = "9223372036854775807"
ZONE_GRID = [(x * 40, y * 30) for y in range(16) for x in range(16)]  # 256 cells of a 640x480 frame


def zones_config(count, deadline=None, whitelists=False, languages=None):
    """A configuration file for the demo frames with `count` zones (over a 16x16 grid of
    40x30 cells, wrapping), each with a whitelist of its own when asked."""
    rng = random.Random(count)
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    text = "[camera demo]\ndemo = true\nfps = 5\n" + (f"deadline_ms = {deadline}\n" if deadline else "")
    for index in range(count):
        x, y = ZONE_GRID[index % len(ZONE_GRID)]
        text += f"\n[zone demo/z{index}]\nrect = {x},{y},40,30\npsm = 7\n"
        if whitelists:
            text += "whitelist = " + "".join(sorted(rng.sample(alphabet, 12))) + "\n"
        if languages:
            text += f"lang = {languages[index % len(languages)]}\n"
    return text


CONFIG_ATTACKS = [
    ("--roi with x at Int.max", ["--roi", f"{HUGE},0,1,1"], "its far edge (x + width, y + height) must be at most 65536"),
    ("--roi whose y + height overflows", ["--roi", "0,9223372036854775800,1,100"], "its far edge"),
    ("--roi with width at Int.max", ["--roi", f"1,0,{HUGE},1"], "its far edge"),
    ("--roi beyond Int.max", ["--roi", "0,0,99999999999999999999,1"], "must be X,Y,W,H"),
    ("--roi with a negative width", ["--roi", "10,0,-5,1"], "width and height above 0"),
    ("--zone with x at Int.max", ["--zone", f"z={HUGE},0,1,1"], "rect: its far edge"),
    ("--zone with height at Int.max", ["--zone", f"z=0,1,1,{HUGE}"], "rect: its far edge"),
    ("--record-max-mb beyond Int.max", ["--record-max-mb", "99999999999999999999"], "must be a whole number"),
    ("--client-buffer at Int.max", ["--client-buffer", HUGE], "must be a whole number"),
    ("--fps nan", ["--fps", "nan"], "must be a number"),
    ("--deadline-ms at Int.max", ["--deadline-ms", HUGE], "must be a whole number"),
]

FILE_ATTACKS = [
    ("a zone section with x at Int.max", f"[camera demo]\ndemo = true\n\n[zone demo/z]\nrect = {HUGE},0,1,1\n", "rect: its far edge"),
    ("roi = with x at Int.max", f"[camera demo]\ndemo = true\nroi = {HUGE},0,1,1\n", "roi: its far edge"),
    ("1,000 zones", zones_config(1000, deadline=200), "1000 zones, more than the 256"),
    ("10,000 zones", zones_config(10000), "10000 zones, more than the 256"),
    ("zones in 5 languages", zones_config(5, languages=["eng", "deu", "fra", "spa", "ita"]), "zones in 5 languages"),
]


@test
def rectangles_and_numbers_refused():
    for name, arguments, said in CONFIG_ATTACKS:
        for mode in (["--stdout"], ["--check-config"]):
            started = time.monotonic()
            result = subprocess.run([LECTORD, "--demo", *mode, *arguments], capture_output=True, text=True, timeout=60, env=ENV)
            check(f"{name} ({mode[0]}): status {result.returncode} (2) in {time.monotonic() - started:.2f} s, saying why",
                  result.returncode == 2 and said in result.stderr, result.stderr[-300:])


@test
def configuration_files_refused():
    for index, (name, text, said) in enumerate(FILE_ATTACKS):
        conf = write(os.path.join(WORK, f"attack-{index}.conf"), text)
        for mode in (["--stdout"], ["--check-config"]):
            result = subprocess.run([LECTORD, "--config", conf, *mode], capture_output=True, text=True, timeout=120, env=ENV)
            check(f"{name} ({mode[0]}): status {result.returncode} (2), saying why",
                  result.returncode == 2 and said in result.stderr, result.stderr[-300:])


@test
def reload_refuses_overflow():
    # A running daemon sent SIGHUP with an overflowing roi: the reload is refused, the old
    # configuration stays, and the daemon goes on publishing.
    conf = write(os.path.join(WORK, "reload.conf"), "[camera demo]\ndemo = true\nfps = 5\nroi = 0,0,640,480\n")
    with Daemon("--config", conf, "--always-on") as daemon:
        for index, text in enumerate([f"[camera demo]\ndemo = true\nfps = 5\nroi = {HUGE},0,1,1\n",
                                      f"[camera demo]\ndemo = true\nfps = 5\n\n[zone demo/z]\nrect = 0,{HUGE},1,1\n"]):
            daemon.reload(conf, text)
            log = wait_for(lambda: daemon.logtext().count("configuration not reloaded") > index and daemon.logtext(), 30,
                           "the reload to be refused")
            check(f"SIGHUP with an overflowing rectangle ({index + 1}): refused, saying why",
                  "its far edge" in log.split("configuration not reloaded")[-1].splitlines()[0], log[-400:])
            with Client(daemon.path, read_version=True) as client:
                client.send({"class": "WATCH", "enable": True})
                text = client.read_class("TEXT", timeout=60)
            check(f"SIGHUP with an overflowing rectangle ({index + 1}): the daemon goes on publishing",
                  daemon.alive() and text["width"] == 640, text.get("width"))
        status = daemon.stop()
    check(f"the daemon stopped normally after the refused reloads (status {status})", status == 0)


# ---------------------------------------------------------------- zones without a bound (break 6)

def process_threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def process_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def zone_daemon_run(name, text, seconds=20):
    """lectord --stdout on a zones configuration: (process, TEXT messages within `seconds`
    of camera ready, threads and RSS in KB then, seconds to exit after SIGTERM, log)."""
    conf = write(os.path.join(WORK, name + ".conf"), text)
    process = subprocess.Popen([LECTORD, "--config", conf, "--stdout"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    os.set_blocking(process.stdout.fileno(), False)
    os.set_blocking(process.stderr.fileno(), False)
    out, log, texts, ready = b"", b"", [], None
    limit = time.monotonic() + 120
    while time.monotonic() < limit and process.poll() is None:
        select.select([process.stdout, process.stderr], [], [], 0.1)
        out += process.stdout.read() or b""
        log += process.stderr.read() or b""
        if ready is None and b"camera ready" in log:
            ready = time.monotonic()
            limit = ready + seconds
    threads, rss = (process_threads(process.pid), process_rss_kb(process.pid)) if process.poll() is None else (None, None)
    for line in out.decode(errors="replace").splitlines():
        if line.startswith('{"class":"TEXT"'):
            texts.append(json.loads(line))
    status, elapsed = terminate(process)
    log += process.stderr.read() or b""
    return texts, threads, rss, status, elapsed, log.decode(errors="replace")


@test
def zones_share_engines():
    # 80 zones with 80 different whitelists (were 80 engines and threads, 601 MB, no TEXT
    # in 20 s, SIGTERM 9 s): one engine per language, so as many threads as one zone.
    _, one_threads, one_rss, _, _, _ = zone_daemon_run("one-zone", zones_config(1), seconds=3)
    texts, threads, rss, status, elapsed, log = zone_daemon_run("80-zones", zones_config(80, whitelists=True), seconds=20)
    check(f"80 zones, 80 whitelists: {threads} threads (one zone: {one_threads})",
          threads is not None and one_threads is not None and threads <= one_threads + 1, log[-400:])
    check(f"80 zones, 80 whitelists: RSS {rss and rss // 1024} MB (one zone: {one_rss and one_rss // 1024} MB; at most 100 MB more)",
          rss is not None and one_rss is not None and rss <= one_rss + 100 * 1024)
    check(f"80 zones, 80 whitelists: {len(texts)} TEXT in 20 s", len(texts) >= 2, log[-400:])
    check(f"80 zones: SIGTERM: exit {status} after {elapsed:.2f} s (0 within {real_time(1.0):.1f} s)",
          status == 0 and elapsed <= real_time(1.0))


@test
def zones_obey_the_deadline():
    # The most zones a camera may have, with deadline_ms = 200 (1,000 took 4-6.6 s a
    # frame): each frame's read ends near its deadline, the zones it left are reported
    # (TEXT's unread, a warning naming them) and read first by the next frame.
    texts, _, _, status, elapsed, log = zone_daemon_run("256-zones", zones_config(256, deadline=200), seconds=20)
    times = sorted(t["recognize_ms"] for t in texts)
    median = times[len(times) // 2] if times else None
    bound = real_time(200 + 250 + 150)
    check(f"256 zones, deadline 200 ms: {len(texts)} TEXT, median read {median and round(median)} ms (<= {bound:.0f} ms)",
          median is not None and median <= bound, log[-400:])
    check("256 zones, deadline 200 ms: unread zones are counted in TEXT and named in the log",
          any(t.get("unread", 0) > 0 for t in texts) and "unread_zones=" in log and "zones=z" in log, log[-600:])
    zones = {b["zone"] for t in texts for b in t["blocks"]}
    check(f"256 zones, deadline 200 ms: the frames read zones all over the grid ({len(zones)} zones with text)",
          len(zones) >= 4, sorted(zones)[:20])
    check(f"256 zones: SIGTERM: exit {status} after {elapsed:.2f} s (0 within {real_time(1.0):.1f} s)",
          status == 0 and elapsed <= real_time(1.0))


# ---------------------------------------------------------------- rotation auto (break 7)

@test
def rotation_auto_deadline():
    # 4000x4000 noise with --rotation auto and --deadline-ms 200 (OSD took 3.3 s, called
    # it "rotation 180" at confidence 2.01, SIGTERM took 2.7 s): the check is abandoned at
    # the deadline like a read, the orientation in force stays, SIGTERM ends lectord.
    noise = os.path.join(WORK, "noise-4000.grey")
    with open(noise, "wb") as out:
        out.write(random.Random(4).randbytes(4000 * 4000))
    process, log, delay = late_run(["--replay", noise, "--replay-format", "GREY", "--size", "4000x4000", "--rotation", "auto",
                                    "--deadline-ms", "200", "--stdout", "--loop", "--stack", "off", "--gate", "off",
                                    "--layout", "tesseract"], "orientation check ran out of time", 30, env=ENV)
    # The warning itself shows the check was abandoned (one run to its end, as before the
    # fix, gives none). Its after_ms bounds how long past the deadline that took: the check
    # from the loaded detector, which still holds the OSD engine's first load and the
    # 16-megapixel frame's reduction in a debug build (2.2-3.0 s under a busy loop per
    # core; the time since "camera ready", bounded at 1.5 s before, was 2.28 s against
    # 2.2 s allowed there in a CI run).
    after = re.search(r"orientation check ran out of time.* after_ms=(\d+)", log)
    after_ms = int(after.group(1)) if after else None
    check(f"4000x4000 noise, rotation auto, --deadline-ms 200: the check is abandoned after {after_ms} ms"
          f" ({delay and round(delay, 2)} s after the camera is ready; within {real_time(3.0):.1f} s)",
          after_ms is not None and after_ms <= 1000 * real_time(3.0), log[-500:])
    time.sleep(1.0)
    status, elapsed = terminate(process)
    log += process.stderr.read().decode(errors="replace")
    check("4000x4000 noise: no orientation was taken from it", "orientation found" not in log, log[-400:])
    check(f"rotation auto on noise: SIGTERM: exit {status} after {elapsed:.2f} s (0 within {real_time(1.0):.1f} s)",
          status == 0 and elapsed <= real_time(1.0))


# ---------------------------------------------------------------- hooks (break 10's lectord part)

def marked_processes(marker):
    """Processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def hook_config(name, body, timeout):
    hook = write(os.path.join(WORK, name + ".sh"), "#!/bin/sh\n" + body + "\n", mode=0o755)
    return write(os.path.join(WORK, name + ".conf"), f"always_on = true\n\n[camera demo]\ndemo = true\nfps = 5\n\n"
                 f"[rule demo/any]\nmatch = [A-Za-z]\non_match = {hook}\nhook_timeout = {timeout}\n")


@test
def hooks_leave_nothing_behind():
    # A hook that setsid's a sleeper and exits (42 orphans were seen): the sleeper is
    # ended with the hook; none is left while lectord runs or after it stops.
    marker = "987650"
    conf = hook_config("setsid-hook", f"setsid sleep {marker} </dev/null >/dev/null 2>&1 &\nsleep {marker}1 &\nexit 0", 30)
    with Daemon("--config", conf) as daemon:
        wait_for(lambda: daemon.logtext().count("hook ran") >= 5, 90, "five hook runs")
        time.sleep(0.3)
        left = marked_processes(marker)
        check(f"after 5 runs of a hook that setsid's a sleeper: {len(left)} left running (0)", not left, left)
        status = daemon.stop()
    check(f"lectord stopped ({status}), no sleeper left", status == 0 and not marked_processes(marker))


@test
def hooks_do_not_hold_sigterm():
    # A hook that never ends, with hook_timeout = 3600 (it blocked SIGTERM for as long),
    # and a setsid'ed child of its own: SIGTERM ends lectord within 1 s, and both.
    marker = "987660"
    conf = hook_config("stuck-hook", f"setsid sleep {marker} </dev/null >/dev/null 2>&1 &\nexec sleep {marker}1", 3600)
    with Daemon("--config", conf) as daemon:
        wait_for(lambda: len(marked_processes(marker)) >= 2, 90, "the hook and its sleeper to run")
        started = time.monotonic()
        status = daemon.stop(timeout=30)
        elapsed = time.monotonic() - started
    check(f"SIGTERM with a hook of hook_timeout 3600 running: exit {status} after {elapsed:.2f} s (0 within {real_time(1.0):.1f} s)",
          status == 0 and elapsed <= real_time(1.0))
    time.sleep(0.2)
    left = marked_processes(marker)
    check(f"the hook and its setsid'ed child are gone ({len(left)} left)", not left, left)


# ---------------------------------------------------------------- stalled watchers (break 9)

def count_stream(path, seconds):
    """TEXT+FRAME messages a normal watcher reads in `seconds`."""
    with Client(path, read_version=True) as client:
        client.send({"class": "WATCH", "enable": True, "frame": True})
        count, deadline = 0, time.monotonic() + seconds
        client.sock.settimeout(0.5)
        while time.monotonic() < deadline:
            try:
                if json.loads(client.readline())["class"] in ("TEXT", "FRAME"):
                    count += 1
            except (socket.timeout, TimeoutError):
                pass
    return count


def stalled_watchers(path, count):
    """`count` watchers with small receive buffers that never read."""
    watchers = []
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(path)
        sock.sendall(json.dumps({"class": "WATCH", "enable": True, "frame": True}).encode() + b"\n")
        watchers.append(sock)
    return watchers


def recognized(path):
    """Frames lectord at `path` has recognized so far (STATUS)."""
    with Client(path, read_version=True) as client:
        return client.request({"class": "STATUS"})["devices"][0]["recognized"]


def watched_cost(daemon, seconds):
    """A normal watcher reading for `seconds`: (the TEXT+FRAME messages it read a frame
    recognized meanwhile, lectord's CPU milliseconds a frame recognized)."""
    frames, cpu = recognized(daemon.path), cpu_seconds(daemon.proc.pid)
    count = count_stream(daemon.path, seconds)
    frames = max(1, recognized(daemon.path) - frames)
    return count / frames, 1000 * (cpu_seconds(daemon.proc.pid) - cpu) / frames


@test
def stalled_watchers_cost_little():
    # Four watchers that never read must cost lectord little: they cut a normal watcher's
    # TEXT+FRAME rate from 61-65 to 51-53 in 6 s. A rate is what a loaded host changes most
    # (two cores busy: 28-45 from window to window alone), so both sides are taken per frame
    # recognized: the messages the watcher reads (what lectord delivers to it) and lectord's
    # CPU (what the stalled ones cost it), each within 10% of the same alone. Alone and
    # beside them, alternately, three times each in one run; the best of each is compared.
    with Daemon("--replay", DEMO_DIR, "--fps", "10", "--loop", "--gate", "off", "--client-timeout", "60") as daemon:
        count_stream(daemon.path, 2)  # warm up
        alone, beside = [], []
        for _ in range(3):
            alone.append(watched_cost(daemon, 6))
            watchers = stalled_watchers(daemon.path, 4)
            time.sleep(1.5)  # their buffers fill
            beside.append(watched_cost(daemon, 6))
            for sock in watchers:
                sock.close()
    delivered = max(m for m, _ in beside), max(m for m, _ in alone)
    cpu = min(ms for _, ms in beside), min(ms for _, ms in alone)
    check(f"a watcher beside 4 stalled ones reads {delivered[0]:.2f} messages a frame recognized against {delivered[1]:.2f} "
          f"alone; lectord {cpu[0]:.1f} ms CPU a frame against {cpu[1]:.1f} (best of 3 windows of 6 s each; within 10%)",
          delivered[0] >= 0.9 * delivered[1] and cpu[0] <= 1.1 * cpu[1], (alone, beside))

if __name__ == "__main__":
    sys.exit(suite.main(setup=make_frames))
