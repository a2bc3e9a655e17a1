#!/usr/bin/env python3
"""Renders the frames Lector ships with known text.

- Sources/LectorCapture/Resources/demo/: the frames `lectord --demo` replays.
- Tests/Fixtures/: frames the tests read, with their text in a sidecar .txt.

Text is drawn at camera-like sizes (cap height 20-40 px) on 640x480 and 1280x720
frames, some with sensor-like noise and blur. Re-run after changing it:
    python3 -m pip install pillow && python3 scripts/make-fixtures.py
The outputs are committed, so users and CI never need Pillow.
"""
import os
import random

from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def render(lines, size, font_path=FONT, font_size=34, noise=0.0, blur=0.0, seed=1, background=235, ink=25):
    """Draws `lines` left-aligned from a margin; returns a gray PIL image."""
    rng = random.Random(seed)
    image = Image.new("L", size, background)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(font_path, font_size)
    y = int(size[1] * 0.15)
    for line in lines:
        draw.text((int(size[0] * 0.08), y), line, fill=ink, font=font)
        y += int(font_size * 1.6)
    if blur:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    if noise:
        pixels = image.load()
        for yy in range(size[1]):
            for xx in range(size[0]):
                value = pixels[xx, yy] + int(rng.gauss(0, noise))
                pixels[xx, yy] = max(0, min(255, value))
    return image


def save(image, folder, name, lines):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if name.endswith(".jpg"):
        image.save(path, quality=85)
    else:
        image.save(path, optimize=True)
    if lines is not None:
        with open(os.path.splitext(path)[0] + ".txt", "w") as handle:
            handle.write("\n".join(lines) + "\n")


DEMO = [
    ["LECTOR READS TEXT", "from live camera frames", "and publishes it as JSON."],
    ["Platform 4 departs 10:42", "Next stop: Central Station", "Mind the gap"],
    ["Meter reading 004217 kWh", "Serial number A7-3391", "Inspected 2026-11-02"],
    ["Open Monday to Friday", "Saturday 9am to 1pm", "Closed on Sundays"],
]

FIXTURES = {
    "hello-640x480.png": (["HELLO LECTOR", "Quick brown fox", "jumps over 12 lazy dogs"], (640, 480), {}),
    "noisy-1280x720.png": (["Camera frames are noisy", "but the text is readable"], (1280, 720),
                           {"font_size": 44, "noise": 6.0, "blur": 0.8}),
    "small-1280x720.png": (["Small text stays readable", "when auto downscale is on"], (1280, 720),
                           {"font_size": 26}),
    # Pages with enough letters for Tesseract's orientation detection (--rotation auto).
    "page-640x480.png": (["Orientation is found from the text",
                          "itself: Tesseract looks at the",
                          "shapes of the letters in every",
                          "quarter turn and keeps the one",
                          "that reads best, so a page held",
                          "sideways still reads upright."], (640, 480), {"font_size": 26}),
    "page-1280x720.png": (["Camera frames turned sideways",
                           "are read the right way up when",
                           "the rotation is automatic, and",
                           "checked again when scenes change."], (1280, 720),
                          {"font_size": 40, "noise": 5.0, "blur": 0.6, "seed": 5}),
}


def main():
    demo = os.path.join(ROOT, "Sources/LectorCapture/Resources/demo")
    for index, lines in enumerate(DEMO):
        image = render(lines, (640, 480), font_path=BOLD if index % 2 == 0 else FONT,
                       noise=4.0 if index % 2 else 0.0, blur=0.6 if index % 2 else 0.0, seed=index)
        save(image, demo, "frame-%02d.png" % index, None)
    fixtures = os.path.join(ROOT, "Tests/Fixtures")
    for name, (lines, size, style) in FIXTURES.items():
        save(render(lines, size, **style), fixtures, name, lines)
    # The same page as JPEG, for the MJPEG decoder.
    lines, size, style = FIXTURES["hello-640x480.png"]
    save(render(lines, size, **style), fixtures, "hello-640x480.jpg", lines)


if __name__ == "__main__":
    main()
