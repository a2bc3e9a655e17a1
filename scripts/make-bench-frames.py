#!/usr/bin/env python3
"""Renders the frames `lector-bench` measures with: known text at camera-like sizes.

One clean gray frame per benchmark size (640x480, 1280x720, 1920x1080) with its text in
a sidecar .txt, written to Sources/lector-bench/Frames/. Cap heights are 22-38 px, the
20-40 px a camera pointed at a sign or a page gives. The benchmark derives the rest at
run time, deterministically (fixed seed): the noisy variant (sensor-like noise added to
the clean frame) and the camera encodings of both (YUYV, NV12, MJPEG), so the repository
holds only these small PNGs. Re-run after changing it:
    python3 -m pip install pillow && python3 scripts/make-bench-frames.py
"""
import os

from PIL import Image, ImageDraw, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Sources/lector-bench/Frames")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

# (size, font size, lines): DejaVu's cap height is 0.73 of the font size.
FRAMES = [
    ((640, 480), 30, ["Platform 4 departs 10:42", "Next stop: Central", "Mind the gap", "Meter 004217 kWh"]),
    ((1280, 720), 40, ["Open Monday to Friday", "Saturday 9am to 1pm", "Closed on Sundays",
                       "Serial number A7-3391", "Inspected 2026-11-02"]),
    ((1920, 1080), 52, ["LECTOR READS TEXT", "from live camera frames", "and publishes it as JSON",
                        "Quick brown fox jumps", "over 12 lazy dogs"]),
]


def render(size, font_size, lines):
    """A light page on a darker desk, text left-aligned, a bold first line."""
    image = Image.new("L", size, 90)
    draw = ImageDraw.Draw(image)
    margin_x, margin_y = int(size[0] * 0.06), int(size[1] * 0.07)
    draw.rectangle([margin_x, margin_y, size[0] - margin_x, size[1] - margin_y], fill=228)
    y = int(size[1] * 0.14)
    for index, line in enumerate(lines):
        font = ImageFont.truetype(BOLD if index == 0 else FONT, font_size)
        draw.text((int(size[0] * 0.12), y), line, fill=30, font=font)
        y += int(font_size * 1.55)
    return image


def main():
    os.makedirs(OUT, exist_ok=True)
    for size, font_size, lines in FRAMES:
        name = "text-%dx%d" % size
        render(size, font_size, lines).save(os.path.join(OUT, name + ".png"), optimize=True)
        with open(os.path.join(OUT, name + ".txt"), "w") as handle:
            handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
