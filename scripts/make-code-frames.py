#!/usr/bin/python3
"""Generates a colour camera sequence of gate codes, for colour evidence and crops.

Each frame is a 640x480 colour PNG: a blue-to-violet background and a yellow plate with
a code of three letters and three digits (`ABC123`) in black. Each code is written
`--copies` times in a row (a camera that sees the same car for a while), so a replay at
a few frames a second reads and settles each code before the next. `codes.txt` lists
the codes in order. Deterministic (fixed seed).

With `--raw`, the first frame is also written as raw camera frames for
`lectord --replay-format`: `first.yuyv` (YUYV 4:2:2), `first.nv12` (NV12 4:2:0) and
`first.grey` (GREY), BT.601 video range like a webcam's, and `first.jpg` (a JPEG, as
MJPEG replays it).

Usage:
    scripts/make-code-frames.py OUT_DIR [--codes 24] [--copies 3] [--raw]
"""
import argparse
import os
import random

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 640, 480
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def frame(code, number):
    image = Image.new("RGB", (WIDTH, HEIGHT), (40 + 7 * number % 160, 90, 160))
    draw = ImageDraw.Draw(image)
    draw.rectangle((120, 180, 520, 300), fill=(250, 210, 40))
    draw.text((150, 200), code, font=ImageFont.truetype(FONT, 72), fill=(10, 10, 10))
    return image


def video_range(rgb):
    """BT.601 video-range Y, Cb, Cr planes (lists of rows) of an RGB image."""
    pixels = rgb.load()
    planes = ([], [], [])
    for y in range(HEIGHT):
        rows = ([], [], [])
        for x in range(WIDTH):
            r, g, b = pixels[x, y]
            rows[0].append(round(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255))
            rows[1].append(round(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255))
            rows[2].append(round(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255))
        for plane, row in zip(planes, rows):
            plane.append(row)
    return planes


def write_raw(image, out):
    luma, cb, cr = video_range(image)
    with open(os.path.join(out, "first.grey"), "wb") as f:
        f.write(bytes(v for row in luma for v in row))
    yuyv = bytearray()
    for y in range(HEIGHT):
        for x in range(0, WIDTH, 2):
            yuyv += bytes((luma[y][x], cb[y][x], luma[y][x + 1], cr[y][x]))
    with open(os.path.join(out, "first.yuyv"), "wb") as f:
        f.write(yuyv)
    nv12 = bytearray(v for row in luma for v in row)
    for y in range(0, HEIGHT, 2):
        for x in range(0, WIDTH, 2):
            nv12 += bytes((cb[y][x], cr[y][x]))
    with open(os.path.join(out, "first.nv12"), "wb") as f:
        f.write(nv12)
    image.save(os.path.join(out, "first.jpg"), quality=90)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--codes", type=int, default=24)
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--raw", action="store_true")
    args = parser.parse_args()
    random.seed(7)
    frames = os.path.join(args.out, "frames")
    os.makedirs(frames, exist_ok=True)
    codes = []
    for number in range(args.codes):
        code = "".join(random.choice("ABCDEFHKLMNPRSTUVWXYZ") for _ in range(3)) + "%03d" % random.randrange(1000)
        codes.append(code)
        image = frame(code, number)
        for copy in range(args.copies):
            image.save(os.path.join(frames, "%03d-%d.png" % (number, copy)))
        if number == 0 and args.raw:
            write_raw(image, args.out)
    with open(os.path.join(args.out, "codes.txt"), "w") as f:
        f.write("\n".join(codes) + "\n")


if __name__ == "__main__":
    main()
