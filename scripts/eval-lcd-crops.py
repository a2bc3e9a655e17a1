#!/usr/bin/python3
"""Measures `engine = segments` on generated electricity-meter LCD crops (issue 44).

Writes --count crops with scripts/make-lcd-crops.py (seeds --seed + i, which the
training never draws), then reads each with the built lectord as the issue's check
does on real crops: a camera replaying the crop with a zone over the whole crop,
`engine = segments` (or --engine), --at-once cameras per lectord. A crop is read when
the zone's first reading is the display's text exactly (leading zeros and the point as
printed). Prints the share read exactly, and the share with the right digits ignoring
the point.

usage: /usr/bin/python3 scripts/eval-lcd-crops.py [--lectord PATH] [--count 200] [--seed 7000000]
                                                  [--engine segments] [--whitelist 0123456789.] [--verbose]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read_batch(args, crops, work, index):
    conf = os.path.join(work, f"batch{index}.conf")
    with open(conf, "w") as handle:
        for number, (path, _) in enumerate(crops):
            width, height = Image.open(path).size
            handle.write(f"[camera c{number}]\nreplay = {path}\nloop = true\nfps = 1\n\n")
            handle.write(f"[zone c{number}/reading]\nrect = 0,0,{width},{height}\nengine = {args.engine}\n")
            if args.whitelist:
                handle.write(f"whitelist = {args.whitelist}\n")
            handle.write("\n")
    process = subprocess.Popen([args.lectord, "--config", conf, "--stdout"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    read = {}
    deadline = time.time() + 150
    for raw in process.stdout:
        if not raw.startswith(b"{"):
            continue
        message = json.loads(raw)
        if message.get("class") == "TEXT":
            camera = message.get("device", "")  # the camera's name: c<number>
            if camera.startswith("c") and camera[1:].isdigit():
                read.setdefault(os.path.basename(crops[int(camera[1:])][0]), (message.get("text") or "").strip())
        if len(read) == len(crops) or time.time() > deadline:
            break
    process.terminate()
    process.wait(timeout=60)
    return read


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lectord", default=os.path.join(ROOT, ".build", "release", "lectord"))
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7_000_000)
    parser.add_argument("--engine", default="segments")
    parser.add_argument("--whitelist", default="")
    parser.add_argument("--at-once", type=int, default=20)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="eval-lcd-crops-")
    subprocess.run([sys.executable, os.path.join(HERE, "make-lcd-crops.py"), work, "--count", str(args.count),
                    "--seed", str(args.seed)], check=True)
    with open(os.path.join(work, "truth.tsv")) as handle:
        truth = [line.rstrip("\n").split("\t") for line in handle]
    read = {}
    for start in range(0, len(truth), args.at_once):
        crops = [(os.path.join(work, name), text) for name, text in truth[start:start + args.at_once]]
        read.update(read_batch(args, crops, work, start))
    exact = digits = 0
    for name, text in truth:
        got = read.get(name, "")
        exact += got == text
        digits += got.replace(".", "") == text.replace(".", "")
        if args.verbose and got != text:
            print(f"{name} {text} read {got!r}")
    n = len(truth)
    print(f"engine {args.engine}{' whitelist ' + args.whitelist if args.whitelist else ''}: {n} generated meter crops "
          f"(seeds {args.seed}..{args.seed + n - 1}): exact {exact}/{n} {exact / n:.3f}, digits ignoring the point "
          f"{digits}/{n} {digits / n:.3f}")


if __name__ == "__main__":
    main()
