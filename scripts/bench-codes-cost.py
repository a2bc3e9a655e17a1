#!/usr/bin/python3
"""The cost of `codes = on` on a still scene without a code (issue 48): lectord replays
one image (--loop --fps 5, the demo's first frame unless given) for SECONDS with codes
off, then on, then off and on again, and prints the CPU seconds per captured frame of
each run (utime + stime from /proc) and the ratio on/off of the sums.

    scripts/bench-codes-cost.py [IMAGE] [--seconds 40] [--lectord PATH]
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(lectord, image, seconds, codes):
    process = subprocess.Popen([lectord, "--replay", image, "--loop", "--fps", "5", "--stdout", "--codes", codes],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    time.sleep(seconds)
    with open("/proc/%d/stat" % process.pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    process.terminate()
    log = process.communicate(timeout=30)[1]
    captured = [int(m) for m in re.findall(r"captured=(\d+)", log)]
    recognized = [int(m) for m in re.findall(r"recognized=(\d+)", log)]
    return cpu, (captured or [0])[-1], (recognized or [0])[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("image", nargs="?", default=os.path.join(HERE, "..", "Sources", "LectorCapture", "Resources", "demo", "frame-00.png"))
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--lectord", default=os.path.join(HERE, "..", ".build", "release", "lectord"))
    args = parser.parse_args()
    totals = {"off": [0.0, 0], "on": [0.0, 0]}
    for codes in ["off", "on", "off", "on"]:
        cpu, captured, recognized = run(args.lectord, args.image, args.seconds, codes)
        totals[codes][0] += cpu
        totals[codes][1] += captured
        print("codes %-3s cpu %.2f s, %d frames captured, %d read: %.1f ms a frame"
              % (codes, cpu, captured, recognized, 1000 * cpu / max(1, captured)), flush=True)
    off = totals["off"][0] / max(1, totals["off"][1])
    on = totals["on"][0] / max(1, totals["on"][1])
    print("per frame: off %.2f ms, on %.2f ms, on/off %.3f" % (1000 * off, 1000 * on, on / off))


if __name__ == "__main__":
    sys.exit(main())
