#!/usr/bin/env python3
"""Renders the known text the pi suite reads: a 640x480 gray page as JPEG (for
libcamera's virtual camera) and as an 8-bit grayscale PNG (for vivid's frames, through
tests/vm/make-frames.py), plus the words in a .txt.

usage: render-text.py OUTDIR   (needs Pillow and DejaVu: python3-pil, fonts-dejavu-core)
"""
import os
import sys

from PIL import Image, ImageDraw, ImageFont

LINES = [
    "Raspberry Pi cameras",
    "speak libcamera today",
    "Lector reads this page",
    "from a virtual camera",
    "seven quick zebras jump",
]
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
image = Image.new("L", (640, 480), 235)
draw = ImageDraw.Draw(image)
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 36)
for row, line in enumerate(LINES):
    draw.text((40, 50 + row * 78), line, fill=25, font=font)
image.save(os.path.join(out, "text.jpg"), quality=95)
image.save(os.path.join(out, "text.png"))
with open(os.path.join(out, "text.txt"), "w") as f:
    f.write("\n".join(LINES) + "\n")
