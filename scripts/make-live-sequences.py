#!/usr/bin/python3
"""Generates camera-like frame sequences with known text, for live-text measurements.

A printed card seen by a hand-held webcam: the card jitters by a few pixels and turns by
a fraction of a degree from frame to frame, every frame has its own sensor noise, the
lens is a little out of focus, the light falls off towards one side, and each frame is
an MJPEG (JPEG) frame. Two kinds of scene:

- clean: dark text on a light card, cap height 15-30 px, mild noise;
- dim:   small text (cap height 12-19 px), low contrast, heavy noise, more defocus.

Each sequence is one MJPEG file (concatenated JPEGs, what `lectord --replay` reads) plus a
JSON file with the ground truth: the frame rate, and per scene its first and last frame
and its lines of text. Frames are deterministic (fixed seed per sequence).

To stay fast and small, a scene renders `--unique` distinct frames (jitter, noise) and
cycles through them; the stream a recognizer sees still changes every frame.

Usage:
    scripts/make-live-sequences.py OUT_DIR [--fps 10] [--seconds 30] [--size 640x480]
        [--set stability|switch|work|all] [--unique 48] [--shake smooth|independent]
        [--scenes 12] [--seed 1000] [--first-scene 0]

Needs Pillow and numpy (Debian: python3-pil python3-numpy, installed by scripts/setup).
"""
import argparse
import io
import json
import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
CAP_RATIO = 0.73  # DejaVu Sans: cap height / font size

# Label-like texts: (lines) per scene. Words from everyday labels, with numbers.
TEXTS = [
    ["Batch 7731 expires", "12 March 2027", "Store below 25 C"],
    ["Platform 4 departs 10:42", "Next stop Central"],
    ["Serial number A7-3391", "Inspected 2026-11-02"],
    ["Open Monday to Friday", "Saturday 9am to 1pm", "Closed on Sundays"],
    ["Meter reading 004217 kWh", "Tariff night"],
    ["Keep refrigerated", "Use within 5 days of opening"],
    ["Room 214 Laboratory", "Authorised staff only"],
    ["Net weight 500 g", "Best before 08 2027"],
    ["Gate B12 boarding 18:05", "Flight LX 318 Zurich"],
    ["Quick brown fox jumps", "over 12 lazy dogs"],
    ["Parcel for Maria Lopez", "Unit 7 Harbour Road"],
    ["Voltage 230 V 50 Hz", "Current 16 A max"],
]


def render_card(size, lines, cap_px, contrast, seed, desk=70):
    """The scene at twice the output resolution: a card on a desk, text left-aligned."""
    w, h = size[0] * 2, size[1] * 2
    rng = random.Random(seed)
    paper = 225
    ink = int(paper - contrast)
    image = Image.new("L", (w, h), desk)
    draw = ImageDraw.Draw(image)
    font_px = int(round(cap_px * 2 / CAP_RATIO))
    fonts = [ImageFont.truetype(BOLD, font_px), ImageFont.truetype(FONT, font_px)]
    widths = [draw.textlength(line, font=fonts[min(i, 1)]) for i, line in enumerate(lines)]
    line_step = int(font_px * 1.6)
    card_w = int(max(widths) + font_px * 2)
    card_h = int(line_step * len(lines) + font_px * 1.4)
    card_w = min(card_w, int(w * 0.92))
    x0 = (w - card_w) // 2 + rng.randint(-w // 20, w // 20)
    y0 = (h - card_h) // 2 + rng.randint(-h // 12, h // 12)
    x0 = max(8, min(x0, w - card_w - 8))
    y0 = max(8, min(y0, h - card_h - 8))
    draw.rectangle([x0, y0, x0 + card_w, y0 + card_h], fill=paper)
    y = y0 + int(font_px * 0.7)
    for i, line in enumerate(lines):
        draw.text((x0 + font_px, y), line, fill=ink, font=fonts[min(i, 1)])
        y += line_step
    return image


class HandShake:
    """Hand-held tremor: shift and rotation wander smoothly (a damped random walk) within
    a few pixels and a fraction of a degree, as a hand holding a camera does."""

    def __init__(self, rng):
        self.rng = rng
        self.x = self.y = self.angle = 0.0
        self.path = []

    def optics(self, kind):
        """This frame's defocus (Gaussian blur radius) and sensor-noise sigma."""
        return (0.9, 6.0) if kind == "clean" else (1.1, 18.0)

    def step(self):
        pull = 0.85
        self.x = pull * self.x + self.rng.gauss(0, 0.9)
        self.y = pull * self.y + self.rng.gauss(0, 0.9)
        self.angle = pull * self.angle + self.rng.gauss(0, 0.06)
        clamp = lambda v, m: max(-m, min(m, v))
        self.x, self.y, self.angle = clamp(self.x, 4), clamp(self.y, 4), clamp(self.angle, 0.3)
        return self.x, self.y, self.angle


class IndependentShake(HandShake):
    """The harsher hand-held camera of issue 25 point 6: every frame drawn on its own
    (shift sigma 2 px, rotation sigma 0.35 degrees, no smoothing from frame to frame),
    with its own defocus and sensor noise (each 0.7-1.4 times the scene kind's)."""

    def step(self):
        self.x, self.y = self.rng.gauss(0, 2.0), self.rng.gauss(0, 2.0)
        self.angle = self.rng.gauss(0, 0.35)
        return self.x, self.y, self.angle

    def optics(self, kind):
        blur, sigma = super().optics(kind)
        return blur * self.rng.uniform(0.7, 1.4), sigma * self.rng.uniform(0.7, 1.4)


SHAKES = {"smooth": HandShake, "independent": IndependentShake}


def camera_frame(card, size, rng, kind, light, shake):
    """One frame as a hand-held camera sees the card: jitter, rotation, blur, light, noise."""
    dx, dy, degrees = shake.step()
    shake.path.append([round(dx, 2), round(dy, 2), round(degrees, 3)])
    angle = math.radians(degrees)
    cw, ch = card.size
    cos, sin = math.cos(angle), math.sin(angle)
    cx, cy = cw / 2, ch / 2
    # Output pixel (u, v) samples the card at 2*(u,v) rotated about the centre, shifted.
    a, b = 2 * cos, -2 * sin
    d, e = 2 * sin, 2 * cos
    c = cx - cos * cx + sin * cy - 2 * dx
    f = cy - sin * cx - cos * cy - 2 * dy
    frame = card.transform(size, Image.AFFINE, (a, b, c, d, e, f), resample=Image.BILINEAR, fillcolor=card.getpixel((0, 0)))
    blur, sigma = shake.optics(kind)
    frame = frame.filter(ImageFilter.GaussianBlur(blur))
    pixels = np.asarray(frame, dtype=np.float32) * light
    pixels += np.random.default_rng(rng.randrange(1 << 30)).normal(0, sigma, pixels.shape).astype(np.float32)
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def light_field(size, rng, kind):
    """Uneven light: brighter on one side, falling off by 25-40%; dim scenes darker."""
    w, h = size
    xs = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    ys = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    ax, ay = rng.uniform(-1, 1), rng.uniform(-1, 1)
    norm = math.hypot(ax, ay) or 1
    ramp = (xs * ax + ys * ay) / norm
    ramp = (ramp - ramp.min()) / max(float(ramp.max() - ramp.min()), 1e-6)
    falloff = rng.uniform(0.25, 0.4)
    base = 1.0 if kind == "clean" else 0.62
    return base * (1 - falloff * ramp)


def scene_frames(size, lines, kind, seed, unique, quality, shake_kind):
    rng = random.Random(seed)
    cap = rng.randint(15, 30) if kind == "clean" else rng.randint(12, 19)
    contrast = rng.randint(150, 190) if kind == "clean" else rng.randint(55, 75)
    # Dim scenes: a grey label on a light-grey shelf, faint print, in poor light.
    card = render_card(size, lines, cap, contrast, seed, desk=70 if kind == "clean" else 190)
    light = light_field(size, rng, kind)
    jpegs = []
    shake = SHAKES[shake_kind](rng)
    for _ in range(unique):
        buffer = io.BytesIO()
        camera_frame(card, size, rng, kind, light, shake).save(buffer, "JPEG", quality=quality)
        jpegs.append(buffer.getvalue())
    return jpegs, cap, shake.path


def write_sequence(out, name, size, fps, scenes, unique, quality, shake_kind="smooth"):
    """scenes: [(kind, lines, seconds, seed)] -> OUT/name.mjpeg + OUT/name.json."""
    truth = {"fps": fps, "width": size[0], "height": size[1], "scenes": []}
    frame = 0
    with open(os.path.join(out, name + ".mjpeg"), "wb") as stream:
        for kind, lines, seconds, seed in scenes:
            count = int(round(seconds * fps))
            jpegs, cap, path = scene_frames(size, lines, kind, seed, min(unique, count), quality, shake_kind)
            for i in range(count):
                stream.write(jpegs[i % len(jpegs)])
            truth["scenes"].append({"kind": kind, "lines": lines, "cap_px": cap,
                                    "first": frame, "last": frame + count - 1,
                                    # Frame i of the scene shows unique frame i % len(shake), moved by
                                    # (dx, dy) px and turned by deg degrees.
                                    "shake": path})
            frame += count
    truth["frames"] = frame
    with open(os.path.join(out, name + ".json"), "w") as file:
        json.dump(truth, file, indent=1)


def main():
    parser = argparse.ArgumentParser(description="Camera-like frame sequences with known text.")
    parser.add_argument("out")
    parser.add_argument("--fps", type=float, default=10)
    parser.add_argument("--seconds", type=float, default=30, help="length of a still scene")
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--set", default="all", choices=["stability", "switch", "work", "all"])
    parser.add_argument("--unique", type=int, default=48, help="distinct frames rendered per scene")
    parser.add_argument("--quality", type=int, default=80, help="JPEG quality")
    parser.add_argument("--scenes", type=int, default=12, help="still scenes in the stability set")
    parser.add_argument("--seed", type=int, default=1000,
                        help="seed of the first still scene (scene i: seed + i; it places the card, "
                             "picks its size, contrast and light, and draws every frame's jitter and noise)")
    parser.add_argument("--first-scene", type=int, default=0,
                        help="number of the first still scene (its text, kind and file name; with --seed "
                             "a few scenes of a set can be generated on their own)")
    parser.add_argument("--shake", default="smooth", choices=sorted(SHAKES),
                        help="smooth: a damped random walk (tests/live); independent: every frame "
                             "jittered on its own, defocus and noise varying (tests/handheld)")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    os.makedirs(args.out, exist_ok=True)
    if args.set in ("stability", "all"):
        # Still scenes: two thirds clean, one third small and dim.
        for i in range(args.first_scene, args.first_scene + args.scenes):
            kind = "dim" if i % 3 == 2 else "clean"
            write_sequence(args.out, f"still-{i:02d}", size, args.fps,
                           [(kind, TEXTS[i % len(TEXTS)], args.seconds, args.seed + i)], args.unique, args.quality, args.shake)
    if args.set in ("switch", "all"):
        # Scene switches: a new card every few seconds.
        scenes = [("clean", TEXTS[(3 * i + 1) % len(TEXTS)], 4, 2000 + i) for i in range(8)]
        write_sequence(args.out, "switch", size, args.fps, scenes, args.unique, args.quality, args.shake)
    if args.set in ("work", "all"):
        write_sequence(args.out, "work", size, args.fps, [("clean", TEXTS[0], 60, 3000)], args.unique, args.quality, args.shake)


if __name__ == "__main__":
    main()
