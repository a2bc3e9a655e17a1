#!/usr/bin/python3
"""Renders camera-like frames of short signs in Chinese, Japanese, Korean and Hindi, with
their text, for the line engines' language routing (issue 26).

Each frame is a 640x480 street-like photo: a textured background, one sign board (a
coloured plate with a border) holding 2-8 characters in a Noto font, turned by a few
degrees and placed anywhere, then the camera: a slight defocus, sensor noise, uneven
light and JPEG compression. Frames are deterministic (fixed seed).

Usage:
    scripts/make-sign-frames.py OUT_DIR [--per-language 8] [--languages chi_sim,jpn,kor,hin] [--seed 11]

Writes OUT_DIR/LANG-NN.jpg and OUT_DIR/truth.tsv (file, language, text).
Needs Pillow and numpy, and Debian's fonts-noto-cjk (Chinese, Japanese, Korean) and
fonts-noto-core (Devanagari); scripts/setup installs them.
"""
import argparse
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from noto_fonts import CJK_FACE, CJK_FONTS, DEVANAGARI_FONTS

SIGNS = {
    "chi_sim": ["出口", "入口", "禁止吸烟", "停车场", "北京西站", "小心地滑", "营业时间", "欢迎光临", "地铁站", "洗手间",
                "请勿停车", "安全出口", "人民广场", "中山路", "售票处", "前方施工请绕行"],
    "jpn": ["出口", "東京駅", "立入禁止", "駐車場", "お手洗い", "きっぷうりば", "非常口", "営業中", "ようこそ", "のりば",
            "新宿三丁目", "足元注意", "タクシー乗り場", "コンビニ", "ラーメン", "大阪城公園"],
    "kor": ["출구", "입구", "화장실", "서울역", "주차장", "금연구역", "영업중", "환영합니다", "지하철", "매표소"],
    "hin": ["प्रवेश", "निकास", "शौचालय", "स्वागत", "बाज़ार", "रेलवे स्टेशन", "पार्किंग", "दिल्ली"],
}
BOARDS = [((20, 90, 40), (245, 245, 245)), ((30, 60, 150), (250, 250, 250)), ((235, 235, 225), (20, 20, 20)),
          ((200, 30, 30), (255, 255, 255)), ((250, 200, 40), (10, 10, 10))]


def font(language, size, rng):
    if language == "hin":
        path = rng.choice([p for p in DEVANAGARI_FONTS if os.path.exists(p)])
        return ImageFont.truetype(path, size)
    return ImageFont.truetype(rng.choice(CJK_FONTS), size, index=CJK_FACE[language])


def frame(language, text, rng):
    """One 640x480 RGB photo of a sign holding `text`."""
    w, h = 640, 480
    base = np.random.default_rng(rng.randint(0, 1 << 30))
    # Background: a blurred random texture with a light gradient (a wall, a street).
    texture = base.normal(120, 40, (h // 8, w // 8, 3)).clip(0, 255).astype(np.uint8)
    image = Image.fromarray(texture).resize((w, h), Image.BICUBIC).filter(ImageFilter.GaussianBlur(6))
    board, ink = rng.choice(BOARDS)
    size = rng.randint(38, 72)
    face = font(language, size, rng)
    box = ImageDraw.Draw(image).textbbox((0, 0), text, font=face)
    tw, th = box[2] - box[0], box[3] - box[1]
    margin = int(size * 0.45)
    sign = Image.new("RGBA", (tw + 2 * margin, th + 2 * margin), board + (255,))
    draw = ImageDraw.Draw(sign)
    draw.rectangle((3, 3, sign.width - 4, sign.height - 4), outline=ink + (255,), width=max(2, size // 16))
    draw.text((margin - box[0], margin - box[1]), text, font=face, fill=ink + (255,))
    sign = sign.rotate(rng.uniform(-6, 6), resample=Image.BICUBIC, expand=True)
    if sign.width > w - 20:
        sign = sign.resize((w - 20, int(sign.height * (w - 20) / sign.width)), Image.BICUBIC)
    x, y = rng.randint(10, w - sign.width - 10), rng.randint(10, h - sign.height - 10)
    image.paste(sign, (x, y), sign)
    # The camera: defocus, uneven light, noise.
    image = image.filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.3)))
    pixels = np.asarray(image).astype(np.float32)
    light = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.1), w)[None, :, None]
    pixels = pixels * light + base.normal(0, rng.uniform(4, 9), pixels.shape)
    return Image.fromarray(pixels.clip(0, 255).astype(np.uint8))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--per-language", type=int, default=8)
    parser.add_argument("--languages", default="chi_sim,jpn,kor,hin")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    rows = []
    for language in args.languages.split(","):
        texts = rng.sample(SIGNS[language], min(args.per_language, len(SIGNS[language])))
        for index, text in enumerate(texts):
            name = f"{language}-{index:02d}.jpg"
            frame(language, text, rng).save(os.path.join(args.out, name), quality=rng.randint(80, 92))
            rows.append(f"{name}\t{language}\t{text}\n")
    with open(os.path.join(args.out, "truth.tsv"), "w", encoding="utf-8") as f:
        f.writelines(rows)


if __name__ == "__main__":
    main()
