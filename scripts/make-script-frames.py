#!/usr/bin/python3
"""Renders camera-like frames of signs in five scripts, for `--lang` measurements
(issue 28): Chinese (simplified), Japanese (kanji and kana), Korean (Hangul), Hindi
(Devanagari) and English (Latin), one 960x540 JPEG each, with the truth.

A sign seen by a webcam: dark text in a Noto font on a light card that does not fill
the frame, light falling off towards one side, turned by a fraction of a degree, a
little out of focus, with sensor noise, stored as JPEG (what an MJPEG camera gives).
Deterministic (a fixed seed per frame).

Writes OUT_DIR/<lang>.jpg (lang: chi_sim, jpn, kor, hin, eng, the traineddata that reads
it) and OUT_DIR/truth.json: {lang: {"script": the script OSD names, "lines": [...]}}
(OSD names the Japanese sign Han: its kanji outnumber its kana).

Usage: scripts/make-script-frames.py OUT_DIR

Needs Pillow and numpy (Debian: python3-pil python3-numpy) and the fonts of Debian's
fonts-noto-cjk and fonts-noto-core.
"""
import json
import os
import random
import sys

import numpy
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from noto_fonts import CJK_FACE, CJK_SANS, DEVANAGARI_SANS, LATIN_SANS

SIGNS = {
    "chi_sim": ("Han", (CJK_SANS, CJK_FACE["chi_sim"]), ["出口在左侧", "请勿吸烟", "营业时间上午九点"]),
    "jpn": ("Han", (CJK_SANS, CJK_FACE["jpn"]), ["東京駅はこちら", "お手洗いは二階です", "立入禁止"]),
    "kor": ("Korean", (CJK_SANS, CJK_FACE["kor"]), ["비상구는 왼쪽", "금연 구역", "영업 시간 안내"]),
    "hin": ("Devanagari", (DEVANAGARI_SANS, 0), ["आपका स्वागत है", "प्रवेश निषेध", "कृपया धूम्रपान न करें"]),
    "eng": ("Latin", (LATIN_SANS, 0), ["Platform 4 departs 10:42", "Next stop: Central Station", "Mind the gap"]),
}
WIDTH, HEIGHT = 960, 540


def render(lang, font_spec, lines, seed):
    rng = random.Random(seed)
    path, index = font_spec
    font = ImageFont.truetype(path, 46, index=index)
    card = Image.new("L", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(card)
    # The card: light, not filling the frame; the background darker and uneven.
    draw.rectangle([60, 50, WIDTH - 60, HEIGHT - 50], fill=228)
    y = 100
    for line in lines:
        draw.text((110 + rng.randint(-6, 6), y), line, font=font, fill=40)
        y += 120
    card = card.rotate(rng.uniform(-1.2, 1.2), resample=Image.BICUBIC, fillcolor=0)
    pixels = numpy.asarray(card, dtype=numpy.float32)
    background = pixels == 0
    pixels[background] = 70
    # Light falling off from left to right, defocus, sensor noise.
    falloff = numpy.linspace(1.0, 0.72, WIDTH, dtype=numpy.float32)[None, :]
    pixels *= falloff
    blurred = Image.fromarray(numpy.clip(pixels, 0, 255).astype(numpy.uint8)).filter(ImageFilter.GaussianBlur(1.1))
    noise = numpy.random.default_rng(seed).normal(0, 7, (HEIGHT, WIDTH)).astype(numpy.float32)
    noisy = numpy.asarray(blurred, dtype=numpy.float32) + noise
    return Image.fromarray(numpy.clip(noisy, 0, 255).astype(numpy.uint8))


def main(out):
    os.makedirs(out, exist_ok=True)
    truth = {}
    for number, (lang, (script, font, lines)) in enumerate(SIGNS.items()):
        render(lang, font, lines, 28_000 + number).save(os.path.join(out, "%s.jpg" % lang), quality=88)
        truth[lang] = {"script": script, "lines": lines}
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, ensure_ascii=False, indent=1)
    print("wrote %d frames to %s" % (len(SIGNS), out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
