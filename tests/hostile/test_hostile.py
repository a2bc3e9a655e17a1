"""Hostile frames against a real lectord (see tests/hostile/run)."""
import os
import re
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import FIXTURES, LECTORD, ROOT, Suite, real_time, workdir  # noqa: E402

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


def noise_run(noise, layout):
    """lectord on the 4K noise frame with --deadline-ms 200: (process, log so far, seconds
    from "camera ready" to the first "longer than the 200 ms deadline", or None in 15 s)."""
    process = subprocess.Popen([LECTORD, "--replay", noise, "--replay-format", "GREY", "--size", "3840x2160",
                                "--deadline-ms", "200", "--stdout", "--loop", "--stack", "off", "--gate", "off",
                                "--layout", layout],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    log, ready, late = "", None, None
    started = time.monotonic()
    while time.monotonic() - started < 15 and late is None:
        log += (os.read(process.stderr.fileno(), 65536) if select.select([process.stderr], [], [], 0.01)[0] else b"").decode()
        if ready is None and "camera ready" in log:
            ready = time.monotonic()
        if ready is not None and "longer than the 200 ms deadline" in log:
            late = time.monotonic()
        time.sleep(0.01)
    return process, log, (late - ready if late and ready else None)


def terminate(process):
    """Sends SIGTERM: (exit status or None if it took over 10 s, seconds until it exited)."""
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        status = process.wait(timeout=10)
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
    # deadline ends the read when it returns (about 0.5 s for a 4K frame here), and a
    # SIGTERM during one waits for it; both bounded, the daemon goes on.
    if "reading with the text-line detector" in subprocess.run([LECTORD, "--replay", FIXTURE, "--stdout", "--max-frames", "1"],
                                                               capture_output=True, text=True, timeout=120).stderr:
        process, log, delay = noise_run(NOISE, "detector")
        check(f"detector layout, 4K noise, --deadline-ms 200: the late read is ended {delay and round(delay, 2)} s after"
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


if __name__ == "__main__":
    sys.exit(suite.main(setup=make_frames))
