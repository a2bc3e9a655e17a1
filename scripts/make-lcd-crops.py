#!/usr/bin/python3
"""Writes generated electricity-meter LCD crops to measure the segments engine on
(issue 44): DIR/NNNN.png and DIR/truth.tsv (file, the display's text exactly: leading
zeros and the point as printed, e.g. 012240, 004824.0, 14568).

The crops come from scripts/segment_displays.py's renderer in its meter mode (5 to 8
positions, leading zeros printed, a point and one decimal in a third) with the camera's
faults (glare, ghost segments, low contrast, slant, blur, noise, JPEG), from seeds the
training never draws (it uses 44·10⁶ + step and 44·10⁶ − 1): crop i from seed
--seed + i (default 7,000,000).

usage: /usr/bin/python3 scripts/make-lcd-crops.py DIR [--count 200] [--seed 7000000]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import segment_displays  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7_000_000)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    with open(os.path.join(args.dir, "truth.tsv"), "w") as truth:
        for i in range(args.count):
            image, text = segment_displays.render(np.random.default_rng(args.seed + i), meter=True)
            name = f"{i:04d}.png"
            image.save(os.path.join(args.dir, name))
            truth.write(f"{name}\t{text}\n")


if __name__ == "__main__":
    main()
