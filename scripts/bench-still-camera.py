#!/usr/bin/python3
"""CPU per captured frame of a still document camera, for two (or more) lectord builds
measured in turns in one run (issue 44: colour evidence must not cost a frame that has
no accepted MATCH).

The camera: Tests/Fixtures/page-1280x720.png as a YUYV webcam delivers it (BT.601
video range, made here), replayed at 15 fps in a loop: one still scene. lectord keeps
evidence (`--evidence`) for a camera-wide rule on its words, so after the scene's first
MATCH (one per appearance) no frame has one: every frame is the case measured. A
python client WATCHes (a camera runs while watched). Each round starts every build once,
in turn, for `--seconds`, and takes lectord's CPU time (utime + stime of /proc/PID/stat)
over the camera's captured frames (STATUS), once the scene's MATCHes are kept (their
evidence files written and none new for 3 s) and `--warmup` seconds have passed; it
says how many evidence files appeared during the window (0: no MATCH in it).

Usage:
    scripts/bench-still-camera.py --lectord A=PATH --lectord B=PATH [--seconds 30] [--rounds 3]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time

from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def yuyv(png, out):
    image = Image.open(png).convert("RGB")
    width, height = image.size
    data = bytearray()
    pixels = image.load()
    for y in range(height):
        for x in range(0, width, 2):
            (r0, g0, b0), (r1, g1, b1) = pixels[x, y], pixels[x + 1, y]
            y0 = round(16 + (65.481 * r0 + 128.553 * g0 + 24.966 * b0) / 255)
            y1 = round(16 + (65.481 * r1 + 128.553 * g1 + 24.966 * b1) / 255)
            cb = round(128 + (-37.797 * r0 - 74.203 * g0 + 112.0 * b0) / 255)
            cr = round(128 + (112.0 * r0 - 93.786 * g0 - 18.214 * b0) / 255)
            data += bytes((y0, cb, y1, cr))
    with open(out, "wb") as f:
        f.write(data)
    return width, height


def request(path, message):
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(path)
        reader = sock.makefile("rb")
        reader.readline()  # VERSION
        sock.sendall((json.dumps(message) + "\n").encode())
        while True:
            reply = json.loads(reader.readline())
            if reply["class"] == message["class"]:
                return reply


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def captured(path):
    return sum(device["captured"] for device in request(path, {"class": "STATUS"})["devices"])


def settled(folder, quiet=3, timeout=120):
    """Waits until `folder` holds files and none came for `quiet` seconds."""
    end = time.time() + timeout
    last, since = None, time.time()
    while time.time() < end:
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        if names != last:
            last, since = names, time.time()
        elif names and time.time() - since >= quiet:
            return len(names)
        time.sleep(0.2)
    return len(last or [])


def measure(binary, conf, work, seconds, warmup):
    sock = os.path.join(work, "bench.sock")
    evidence = tempfile.mkdtemp(prefix="evidence-", dir=work)
    proc = subprocess.Popen([binary, "--config", conf, "--socket", sock, "--evidence", evidence],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    try:
        for _ in range(600):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        watcher = socket.socket(socket.AF_UNIX)
        watcher.connect(sock)
        watcher.sendall(b'{"class":"WATCH","enable":true,"text":true,"matches":true}\n')
        drain = subprocess.Popen(["cat"], stdin=watcher.fileno(), stdout=subprocess.DEVNULL)
        started = time.time()
        kept = settled(evidence)
        time.sleep(max(0.0, warmup - (time.time() - started)))
        cpu0, frames0 = cpu_seconds(proc.pid), captured(sock)
        time.sleep(seconds)
        cpu1, frames1 = cpu_seconds(proc.pid), captured(sock)
        drain.kill()
        watcher.close()
        return (cpu1 - cpu0) * 1000 / max(1, frames1 - frames0), frames1 - frames0, len(os.listdir(evidence)) - kept
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lectord", action="append", required=True, help="NAME=PATH")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    builds = [item.split("=", 1) for item in args.lectord]
    work = tempfile.mkdtemp(prefix="lector-still-")
    width, height = yuyv(os.path.join(ROOT, "Tests/Fixtures/page-1280x720.png"), os.path.join(work, "page.yuyv"))
    conf = os.path.join(work, "still.conf")
    with open(conf, "w") as f:
        f.write("[camera doc]\nreplay = %s\nreplay_format = YUYV\nsize = %dx%d\nloop = true\nfps = 15\n\n"
                "[rule doc/words]\nmatch = [A-Za-z]{4,}\n" % (os.path.join(work, "page.yuyv"), width, height))
    results = {name: [] for name, _ in builds}
    for round_number in range(args.rounds):
        for name, binary in builds:
            per_frame, frames, new_files = measure(binary, conf, work, args.seconds, args.warmup)
            results[name].append(per_frame)
            print("round %d %s: %.3f ms CPU per captured frame (%d frames, %d evidence files in the window, load %.1f)"
                  % (round_number + 1, name, per_frame, frames, new_files, os.getloadavg()[0]), flush=True)
    for name, values in results.items():
        print("%s: median %.3f ms per frame (%s)" % (name, statistics.median(values), ", ".join("%.3f" % v for v in values)))
    if len(builds) == 2:
        first, second = (statistics.median(results[name]) for name, _ in builds)
        print("%s / %s: %.3f" % (builds[1][0], builds[0][0], second / first))


if __name__ == "__main__":
    main()
