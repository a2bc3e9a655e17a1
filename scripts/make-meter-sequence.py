#!/usr/bin/python3
"""Generates a meter-like camera sequence with known readings, for zones and rules.

A utility meter seen by a fixed webcam: a dark housing, a light display window holding
a 7- or 8-digit reading that changes every few seconds, the unit ("kWh"), and a
printed serial-number label below it. Every frame has its own sensor noise, a slight
defocus and a jitter of a pixel or so; frames are JPEGs concatenated into one MJPEG
file (what `lectord --replay` reads). A JSON file gives the ground truth: the frame
rate, the zones' rectangles (upright pixels), and per reading its first and last frame.

Frames are deterministic (fixed seed).

`--style lcd` draws the reading as a seven-segment LCD (dark segments on a grey-green
glass, the unlit segments faintly visible, slanted like most meters), and with
`--hide N` hides one digit in N frames of each reading from its fourth frame on: glare
(a bright patch) or a hand (a dark shape) over it. The truth then lists those frames
per reading (`hidden`).

`--digits N` fixes the display's digit positions (leading zeros shown), `--decimals N`
draws a decimal point before the last N digits (the truth's text has it), drawn faint
in a fraction `--faint-point` of the readings (a camera often loses it), and `--start V`
gives the first value (a meter seen again after a restart continues).

Usage:
    scripts/make-meter-sequence.py OUT_DIR [--fps 5] [--seconds-per-reading 3]
        [--readings 8] [--size 640x480] [--seed 7] [--style font|lcd] [--hide N]
        [--digits N] [--decimals N] [--faint-point F] [--start V]

Writes OUT_DIR/meter.mjpeg and OUT_DIR/meter.json.
Needs Pillow and numpy (Debian: python3-pil python3-numpy, installed by scripts/setup).
"""
import argparse
import io
import json
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

DIGITS_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
LABEL_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

# Where things are in the 640x480 frame (scaled for other sizes).
READING_RECT = (120, 200, 400, 80)   # the display window: the `reading` zone
SERIAL_RECT = (120, 330, 400, 50)    # the printed label: the `serial` zone
SERIAL_TEXT = "SN AX-4471"


def readings(count, rng, digits=None, start=None):
    """A meter counting up: 7 or 8 digits (or `digits`), leading zeros kept, each change
    a few units."""
    value = rng.randint(1_000_000, 9_000_000)
    digits = digits or rng.choice([7, 8])
    if start is not None:
        value = start
    elif digits < 7:
        value = rng.randint(10 ** (digits - 1), 5 * 10 ** (digits - 1))
    out = []
    for _ in range(count):
        out.append(str(value).zfill(digits)[-digits:])
        value += rng.randint(1, 997 if digits >= 7 else 97)
    return out


def with_point(reading, decimals):
    """`reading`'s digits with the point before the last `decimals`."""
    return reading[:-decimals] + "." + reading[-decimals:] if decimals else reading


def scene(size, reading, lcd=False, decimals=0, point=30):
    """The meter at twice the output resolution, before the camera's noise: the reading in
    a font, or (`lcd`) as seven-segment digits, with a decimal point (of gray `point`)
    before the last `decimals` digits."""
    w, h = size[0] * 2, size[1] * 2
    sx, sy = w / 640, h / 480
    image = Image.new("L", (w, h), 58)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((60 * sx, 60 * sy, 580 * sx, 420 * sy), radius=int(30 * sx), fill=80, outline=40, width=int(4 * sx))
    draw.text((140 * sx, 120 * sy), "ELECTRICITY", font=ImageFont.truetype(LABEL_FONT, int(26 * sy)), fill=200)
    x, y, rw, rh = READING_RECT
    draw.rectangle(((x + 8) * sx, (y + 6) * sy, (x + rw - 8) * sx, (y + rh - 6) * sy), fill=190 if lcd else 222)
    if lcd:
        for index, digit in enumerate(reading):
            for segment in "abcdefg":
                lit = segment in SEGMENTS[digit]
                draw.polygon(segment_polygon(digit_origin(index, len(reading), sx, sy), segment, sx, sy), fill=30 if lit else 176)
        if decimals:
            left, top, pitch = digit_origin(len(reading) - decimals - 1, len(reading), sx, sy)
            cx, cy, r = left + pitch * 0.62 + pitch * 0.16, top + 52 * sy, 4 * sy
            draw.rectangle((cx - r, cy - r, cx + r, cy + r), fill=point)
    else:
        font = ImageFont.truetype(DIGITS_FONT, int(52 * sy))
        box = draw.textbbox((0, 0), reading, font=font)
        tx = (x + 20) * sx
        ty = (y + rh / 2) * sy - (box[1] + box[3]) / 2
        draw.text((tx, ty), reading, font=font, fill=25)
    draw.text(((x + rw + 10) * sx, (y + 30) * sy), "kWh", font=ImageFont.truetype(LABEL_FONT, int(24 * sy)), fill=210)
    x, y, rw, rh = SERIAL_RECT
    draw.rectangle((x * sx, y * sy, (x + rw) * sx, (y + rh) * sy), fill=205)
    label = ImageFont.truetype(LABEL_FONT, int(28 * sy))
    lb = draw.textbbox((0, 0), SERIAL_TEXT, font=label)
    draw.text(((x + 16) * sx, (y + rh / 2) * sy - (lb[1] + lb[3]) / 2), SERIAL_TEXT, font=label, fill=30)
    return image


# The segments of each digit: a top, b top right, c bottom right, d bottom, e bottom left,
# f top left, g middle.
SEGMENTS = {"0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc", "5": "afgcd", "6": "afgedc",
            "7": "abc", "8": "abcdefg", "9": "abcdfg"}


def digit_origin(index, count, sx, sy):
    """Top-left of digit `index` of `count` in the display window (scaled)."""
    x, y, rw, rh = READING_RECT
    # Digits as wide as an 8-digit display's: a shorter display is narrower, centred.
    pitch = (rw - 60) / max(count, 8)
    left = x + 24 + (max(count, 8) - count) * pitch / 2
    return ((left + index * pitch) * sx, (y + 14) * sy, pitch * sx)


def segment_polygon(origin, segment, sx, sy):
    """Segment `segment` of the digit at `origin`: a slanted bar."""
    left, top, pitch = origin
    dw, dh, t = pitch * 0.62, 52 * sy, 6 * sy
    slant = 0.12
    ends = {"a": ((0, 0), (dw, 0)), "g": ((0, dh / 2), (dw, dh / 2)), "d": ((0, dh), (dw, dh)),
            "f": ((0, 0), (0, dh / 2)), "b": ((dw, 0), (dw, dh / 2)), "e": ((0, dh / 2), (0, dh)), "c": ((dw, dh / 2), (dw, dh))}
    (x0, y0), (x1, y1) = ends[segment]
    gap = t * 0.7
    if y0 == y1:
        corners = [(x0 + gap, y0 - t / 2), (x1 - gap, y0 - t / 2), (x1 - gap, y0 + t / 2), (x0 + gap, y0 + t / 2)]
    else:
        corners = [(x0 - t / 2, y0 + gap), (x0 + t / 2, y0 + gap), (x0 + t / 2, y1 - gap), (x0 - t / 2, y1 - gap)]
    return [(left + cx + slant * (dh - cy), top + cy) for cx, cy in corners]


def hide_digit(base, size, reading, rng):
    """`base` with one digit hidden: glare (a bright patch) or a hand (a dark shape)."""
    image = base.copy()
    draw = ImageDraw.Draw(image)
    sx, sy = image.size[0] / 640, image.size[1] / 480
    index = rng.randrange(len(reading))
    left, top, pitch = digit_origin(index, len(reading), sx, sy)
    if rng.random() < 0.5:
        draw.ellipse((left - 10 * sx, top - 8 * sy, left + pitch * 0.9, top + 62 * sy), fill=250)
        kind = "glare"
    else:
        draw.ellipse((left - 14 * sx, top - 40 * sy, left + pitch * 1.1, top + 66 * sy), fill=92)
        kind = "hand"
    return image, index, kind


def camera_frame(base, size, rng, nprng):
    """What the webcam delivers: jitter, defocus, sensor noise, JPEG."""
    dx, dy = rng.randint(-2, 2), rng.randint(-2, 2)
    shifted = base.transform(base.size, Image.AFFINE, (1, 0, dx, 0, 1, dy), resample=Image.BILINEAR, fillcolor=58)
    small = shifted.resize(size, Image.LANCZOS).filter(ImageFilter.GaussianBlur(0.7))
    pixels = np.asarray(small, dtype=np.float32) + nprng.normal(0, 5.0, (size[1], size[0]))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "L")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--fps", type=float, default=5)
    parser.add_argument("--seconds-per-reading", type=float, default=3)
    parser.add_argument("--readings", type=int, default=8)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quality", type=int, default=85)
    parser.add_argument("--style", choices=["font", "lcd"], default="font")
    parser.add_argument("--hide", type=int, default=0, help="frames of each reading with a digit hidden (lcd)")
    parser.add_argument("--digits", type=int, default=None, help="the display's digit positions")
    parser.add_argument("--decimals", type=int, default=0, help="digits after a decimal point (lcd)")
    parser.add_argument("--faint-point", type=float, default=0, help="readings whose point is drawn faint (fraction)")
    parser.add_argument("--start", type=int, default=None, help="the first value (its digits, without the point)")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    rng = random.Random(args.seed)
    nprng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    per = max(1, round(args.fps * args.seconds_per_reading))
    truth = {"fps": args.fps, "size": list(size), "zones": {"reading": READING_RECT, "serial": SERIAL_RECT},
             "serial": SERIAL_TEXT, "readings": []}
    frame = 0
    with open(os.path.join(args.out, "meter.mjpeg"), "wb") as stream:
        for reading in readings(args.readings, rng, args.digits, args.start):
            faint = args.decimals and rng.random() < args.faint_point
            base = scene(size, reading, lcd=args.style == "lcd", decimals=args.decimals, point=150 if faint else 30)
            hidden = []
            for number in range(per):
                shown = base
                if args.style == "lcd" and 3 <= number < 3 + args.hide:
                    shown, digit, kind = hide_digit(base, size, reading, rng)
                    hidden.append({"frame": frame + number, "digit": digit, "by": kind})
                buffer = io.BytesIO()
                camera_frame(shown, size, rng, nprng).save(buffer, "JPEG", quality=args.quality)
                stream.write(buffer.getvalue())
            truth["readings"].append({"text": with_point(reading, args.decimals), "first": frame, "last": frame + per - 1,
                                      "hidden": hidden, "faint_point": bool(faint)})
            frame += per
    with open(os.path.join(args.out, "meter.json"), "w") as out:
        json.dump(truth, out, indent=1)


if __name__ == "__main__":
    main()
