#!/usr/bin/python3
"""Renders camera-like frames of signs in five scripts, for `--lang` measurements
(issues 28 and 41): Chinese (simplified), Japanese (kanji and kana, and kanji alone),
Korean (Hangul), Hindi (Devanagari) and English (Latin), one 960x540 JPEG each, with
the truth.

A sign seen by a webcam: text of one or two lines in a Noto font (CJK Sans or Serif,
Regular or Bold, the language's face; Devanagari Sans or Serif; Latin Noto Sans, Noto
Serif or DejaVu) on a card that does not fill the frame, in one of a few colour pairs
(dark on light, light on dark, coloured), seen at a slight perspective, light falling
off towards one side, a little out of focus, with sensor noise, stored as JPEG (what an
MJPEG camera gives). Deterministic: each sign's look comes from its seed.

Without --held-out: the suite's signs (tests/languages), each text below in SUITE, one
sign each, seeds from --seed (28000). With --held-out: --signs random signs per
script, their lines drawn from HELD_OUT (texts the suite never shows), seeds from
--seed: signs the suite's own do not produce, for measuring.

Writes OUT_DIR/<lang>-<n>.jpg (lang: chi_sim, jpn, kor, hin, eng, the traineddata that
reads it) and OUT_DIR/truth.json: {frame: {"lang", "script" (what OSD should name:
Han for Chinese and for Japanese whose kanji outnumber its kana), "lines", "seed",
"font", "kanji_only"}}.

Usage: scripts/make-script-frames.py OUT_DIR [--held-out] [--signs 8] [--seed N]

Needs Pillow and numpy (Debian: python3-pil python3-numpy) and the fonts of Debian's
fonts-noto-cjk, fonts-noto-core and fonts-dejavu-core.
"""
import argparse
import json
import os
import random

import numpy
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from noto_fonts import CJK_ALL, CJK_FACE, DEVANAGARI_ALL, LATIN_ALL

# The suite's signs: each entry one sign (its lines). The hard cases of issue 41 are here:
# simplified forms Japanese writes otherwise (边/辺, 时/時), kanji-only Japanese.
SUITE = {
    "chi_sim": [["出口在左侧", "请勿吸烟", "营业时间上午九点"], ["请勿吸烟", "出口在左边"], ["出口在左边", "营业时间"],
                ["禁止停车"]],
    "jpn": [["東京駅はこちら", "お手洗いは二階です", "立入禁止"], ["出口", "東京駅"], ["営業中"]],
    "kor": [["비상구는 왼쪽", "금연 구역", "영업 시간 안내"], ["출구"]],
    "hin": [["आपका स्वागत है", "प्रवेश निषेध", "कृपया धूम्रपान न करें"], ["निकास द्वार"]],
    "eng": [["Platform 4 departs 10:42", "Next stop: Central Station", "Mind the gap"], ["Exit"]],
}
# Lines no suite sign holds: a held-out sign is one or two of them.
HELD_OUT = {
    "chi_sim": ["欢迎光临", "小心地滑", "前方施工请绕行", "售票处在二楼", "地铁站入口", "请排队上车", "洗手间在右边",
                "禁止拍照", "办公时间", "电梯故障请走楼梯", "安全出口", "北京西站", "人民广场", "请保持安静",
                "停车场已满", "儿童乐园"],
    "jpn": ["きっぷうりば", "非常口", "足元にご注意ください", "新宿三丁目", "タクシー乗り場", "駐車場", "大阪城公園",
            "本日休業", "受付は右です", "関係者以外立入禁止", "改札口", "禁煙席", "お会計はこちら", "渋谷駅",
            "南口", "地下鉄のりば"],
    "kor": ["입구", "화장실은 이층", "서울역", "주차장 만차", "영업중", "환영합니다", "지하철 타는 곳", "매표소",
            "미끄럼 주의", "금연"],
    "hin": ["शौचालय", "स्वागत है", "बाज़ार बंद है", "रेलवे स्टेशन", "पार्किंग", "दिल्ली", "टिकट घर", "कृपया शांत रहें"],
    "eng": ["Way out", "Ticket office", "Please queue here", "Opening hours 9-17", "No smoking", "Toilets upstairs",
            "Platform 2", "Lift out of order", "Welcome", "Keep left"],
}
# The traineddata that reads each script, with the fonts it is drawn in ((path, face index)).
FONTS = {
    "chi_sim": [(path, CJK_FACE["chi_sim"]) for path in CJK_ALL],
    "jpn": [(path, CJK_FACE["jpn"]) for path in CJK_ALL],
    "kor": [(path, CJK_FACE["kor"]) for path in CJK_ALL],
    "hin": [(path, 0) for path in DEVANAGARI_ALL],
    "eng": [(path, 0) for path in LATIN_ALL],
}
# (text, card) colours: dark on light, light on dark, coloured cards.
COLOURS = [((40, 40, 40), (228, 228, 228)), ((70, 70, 70), (200, 200, 200)), ((245, 245, 245), (30, 90, 160)),
           ((250, 250, 250), (30, 110, 60)), ((20, 20, 20), (240, 200, 40)), ((255, 255, 255), (190, 30, 30)),
           ((230, 230, 230), (50, 50, 50))]
WIDTH, HEIGHT = 960, 540


def is_kana(c):
    return "\u3040" <= c <= "\u30ff"


def is_han(c):
    return "\u4e00" <= c <= "\u9fff"


def script_of(lang, lines):
    if lang in ("chi_sim", "jpn"):
        text = "".join(lines)
        return "Japanese" if sum(map(is_kana, text)) > sum(map(is_han, text)) else "Han"
    return {"kor": "Korean", "hin": "Devanagari", "eng": "Latin"}[lang]


def perspective(image, rng, fill):
    """`image` seen slightly from one side: each corner moved by up to 2.5% of the frame."""
    def jitter(x, y):
        return x + rng.uniform(-0.025, 0.025) * WIDTH, y + rng.uniform(-0.025, 0.025) * HEIGHT
    corners = [(0, 0), (WIDTH, 0), (WIDTH, HEIGHT), (0, HEIGHT)]
    moved = [jitter(x, y) for x, y in corners]
    # The coefficients that map output corners to input ones (PIL's PERSPECTIVE data).
    rows, rhs = [], []
    for (x, y), (u, v) in zip(moved, corners):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs += [u, v]
    coefficients = numpy.linalg.solve(numpy.array(rows, dtype=float), numpy.array(rhs, dtype=float))
    return image.transform((WIDTH, HEIGHT), Image.PERSPECTIVE, tuple(coefficients), Image.BICUBIC, fillcolor=fill)


def render(lang, lines, seed, pinned_style=False):
    """One sign; `pinned_style`: the look of issue 28's signs (dark grey on light grey,
    the first font), else one drawn from the seed."""
    rng = random.Random(seed)
    path, index = FONTS[lang][0] if pinned_style else rng.choice(FONTS[lang])
    ink, card = COLOURS[0] if pinned_style else rng.choice(COLOURS)
    longest = max(len(line) for line in lines)
    # Large characters, the longest line filling at most about 3/4 of the card.
    size = 46 if pinned_style else min(rng.randint(40, 72), int(700 / max(1, longest) * (2 if lang in ("eng", "hin") else 1)))
    font = ImageFont.truetype(path, size, index=index)
    background = (70, 70, 70) if pinned_style else tuple(int(c * 0.3) + 30 for c in card)
    image = Image.new("RGB", (WIDTH, HEIGHT), background)
    draw = ImageDraw.Draw(image)
    draw.rectangle([60, 50, WIDTH - 60, HEIGHT - 50], fill=card)
    step = max(size * 2, 100) if len(lines) < 3 else 120
    y = (HEIGHT - step * (len(lines) - 1) - size) // 2 if not pinned_style else 100
    for line in lines:
        draw.text((110 + rng.randint(-6, 6), y), line, font=font, fill=ink)
        y += step
    image = image.rotate(rng.uniform(-1.2, 1.2), resample=Image.BICUBIC, fillcolor=background)
    if not pinned_style:
        image = perspective(image, rng, background)
    pixels = numpy.asarray(image, dtype=numpy.float32)
    # Light falling off from left to right, defocus, sensor noise.
    falloff = numpy.linspace(1.0, 0.72 if pinned_style else rng.uniform(0.68, 0.85), WIDTH, dtype=numpy.float32)[None, :, None]
    pixels = pixels * falloff
    blurred = Image.fromarray(numpy.clip(pixels, 0, 255).astype(numpy.uint8)).filter(
        ImageFilter.GaussianBlur(1.1 if pinned_style else rng.uniform(0.7, 1.4)))
    noise = numpy.random.default_rng(seed).normal(0, 7, (HEIGHT, WIDTH, 1)).astype(numpy.float32)
    noisy = numpy.asarray(blurred, dtype=numpy.float32) + noise
    return Image.fromarray(numpy.clip(noisy, 0, 255).astype(numpy.uint8)), "%s:%d" % (os.path.basename(path), index)


def signs(held_out, count, seed):
    """(lang, frame name, lines, seed, pinned style) of each sign to render."""
    for number, lang in enumerate(SUITE):
        if held_out:
            for n in range(count):
                sign_seed = seed + 100 * number + n
                rng = random.Random(sign_seed)
                yield lang, "%s-%d" % (lang, n), rng.sample(HELD_OUT[lang], rng.choice([1, 2, 2])), sign_seed, False
        else:
            for n, lines in enumerate(SUITE[lang]):
                # The first sign of each script is issue 28's, with its look and seed.
                yield lang, "%s-%d" % (lang, n), lines, seed + number + 100 * n, n == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--held-out", action="store_true", help="random signs of texts the suite never shows")
    parser.add_argument("--signs", type=int, default=8, help="held-out signs per script")
    parser.add_argument("--seed", type=int, help="the first sign's seed (default: 28000, held out 41000)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else (41000 if args.held_out else 28000)
    os.makedirs(args.out, exist_ok=True)
    truth = {}
    for lang, name, lines, sign_seed, pinned in signs(args.held_out, args.signs, seed):
        image, font = render(lang, lines, sign_seed, pinned_style=pinned)
        image.save(os.path.join(args.out, "%s.jpg" % name), quality=88)
        text = "".join(lines)
        truth[name] = {"lang": lang, "script": script_of(lang, lines), "lines": lines, "seed": sign_seed, "font": font,
                       "kanji_only": lang == "jpn" and not any(map(is_kana, text))}
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth, f, ensure_ascii=False, indent=1)
    print("wrote %d frames to %s" % (len(truth), args.out))


if __name__ == "__main__":
    main()
