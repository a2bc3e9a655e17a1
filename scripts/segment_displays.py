"""Renders seven-segment and LCD digit displays as a camera sees them (issue 44).

Shared by scripts/train-segments.py (the segments engine's training lines) and
scripts/make-lcd-crops.py (electricity-meter crops to measure on). Everything is drawn
from one numpy Generator, so a seed gives the same images on every machine.

A display: 3 to 9 digit positions, each a seven-segment digit (segments with gaps,
bevelled or square ends, thin or thick), an optional decimal point after a position,
unlit positions (blank leading positions) and unlit segments drawn faintly ("ghost"
segments), slanted; then the camera: LCD backgrounds (gray, green, blue-gray), uneven
light, glare, low contrast, the display's frame at the edges, a small rotation and
keystone, blur, noise, a lower resolution and JPEG.

render(rng) returns (image: 8-bit gray PIL image, text: what the display shows, the
blank positions left out, the point as '.').
"""
import io
import math

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

# Segments: a top, b top right, c bottom right, d bottom, e bottom left, f top left, g middle.
DIGITS = {
    "0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc",
    "5": "afgcd", "6": "afgedc", "7": "abc", "8": "abcdefg", "9": "abcdfg",
}
# Variants some displays use.
VARIANTS = {"7": ["abc", "abcf"], "6": ["afgedc", "fgedc"], "9": ["abcdfg", "abcfg"]}


def segment_polygons(x, y, w, h, t, gap, bevel):
    """The seven segments of a digit cell at (x, y), w × h, stroke t: name → polygon."""
    half = t / 2
    xl, xr = x + half, x + w - half
    yt, ym, yb = y + half, y + h / 2, y + h - half
    b = half if bevel else 0.0

    def horizontal(x0, x1, yc):
        x0, x1 = x0 + gap, x1 - gap
        return [(x0, yc), (x0 + b, yc - half), (x1 - b, yc - half), (x1, yc), (x1 - b, yc + half), (x0 + b, yc + half)] \
            if bevel else [(x0, yc - half), (x1, yc - half), (x1, yc + half), (x0, yc + half)]

    def vertical(xc, y0, y1):
        y0, y1 = y0 + gap, y1 - gap
        return [(xc, y0), (xc + half, y0 + b), (xc + half, y1 - b), (xc, y1), (xc - half, y1 - b), (xc - half, y0 + b)] \
            if bevel else [(xc - half, y0), (xc + half, y0), (xc + half, y1), (xc - half, y1)]

    return {
        "a": horizontal(xl, xr, yt), "g": horizontal(xl, xr, ym), "d": horizontal(xl, xr, yb),
        "f": vertical(xl, yt, ym), "b": vertical(xr, yt, ym), "e": vertical(xl, ym, yb), "c": vertical(xr, ym, yb),
    }


def random_text(rng, positions, meter=False):
    """What a display of `positions` digits shows: (cells, text). A cell is
    (digit or None for a blank position, point lit after it). `meter`: an electricity
    meter's (leading zeros printed, no point or one decimal)."""
    point_at = -1
    if rng.random() < (0.35 if meter else 0.75):
        decimals = 1 if meter else int(rng.integers(1, min(3, positions - 1) + 1))
        point_at = positions - 1 - decimals
    digits = [str(d) for d in rng.integers(0, 10, positions)]
    if meter and rng.random() < 0.7:  # a meter's leading positions are mostly zeros
        for i in range(int(rng.integers(1, positions - 2))):
            digits[i] = "0"
    leading_zeros = meter or rng.random() < 0.45  # electricity meters print them; pumps blank them
    first = 0
    if not leading_zeros:
        # blank leading zeros (and sometimes a few leading positions outright)
        limit = point_at if point_at >= 0 else positions - 1
        if rng.random() < 0.6:
            first = int(rng.integers(0, limit + 1))
        while first < limit and digits[first] == "0":
            first += 1
        if digits[first] == "0" and first < limit:
            first += 1
    cells = []
    for i in range(positions):
        cells.append((digits[i] if i >= first else None, i == point_at))
    text = "".join((d or "") + ("." if p else "") for d, p in cells)
    return cells, text


def render(rng, scale=1, meter=False):
    """One display line as a camera sees it: (gray PIL image, text). `meter`: an
    electricity meter's display (5 to 8 positions, leading zeros printed)."""
    positions = int(rng.integers(5, 9)) if meter else int(rng.integers(3, 10))
    cells, text = random_text(rng, positions, meter)
    ch = float(rng.uniform(40, 64)) * scale          # digit height
    cw = ch * float(rng.uniform(0.42, 0.66))          # digit width
    t = ch * float(rng.uniform(0.06, 0.17))           # stroke
    gap = t * float(rng.uniform(0.05, 0.45))
    pitch = cw * float(rng.uniform(1.2, 1.6))
    bevel = rng.random() < 0.7
    slant = math.radians(float(rng.uniform(-2, 13)))
    ghost = float(rng.uniform(0.0, 0.25)) if rng.random() < 0.75 else 0.0
    one_right = rng.random() < 0.8                     # a 1 on the cell's right segments
    margin_x = pitch * float(rng.uniform(0.05, 1.2))
    margin_top = ch * float(rng.uniform(0.05, 0.45))
    margin_bottom = ch * float(rng.uniform(0.05, 0.45))
    width = int(margin_x * 2 + pitch * positions + ch * 0.3)
    height = int(ch + margin_top + margin_bottom)
    ink = Image.new("F", (width, height), 0.0)        # 1 lit, ghost for unlit
    draw = ImageDraw.Draw(ink)
    shear = math.tan(slant)
    base_y = margin_top + ch

    def sheared(points):
        return [(px + (base_y - py) * shear, py) for px, py in points]

    dot = t * float(rng.uniform(1.0, 1.6))
    for i, (digit, point) in enumerate(cells):
        x = margin_x + i * pitch
        polys = segment_polygons(x, margin_top, cw, ch, t, gap, bevel)
        lit = ""
        if digit is not None:
            lit = rng.choice(VARIANTS[digit]) if digit in VARIANTS else DIGITS[digit]
        for name, poly in polys.items():
            value = 1.0 if name in lit else ghost
            if digit == "1" and not one_right and name in "bc":
                value = ghost
            if value > 0:
                draw.polygon(sheared(poly), fill=value)
        if digit == "1" and not one_right:
            for name in "fe":
                draw.polygon(sheared(polys[name]), fill=1.0)
        px = x + cw + (pitch - cw) / 2 - dot / 2
        value = 1.0 if point else ghost
        if value > 0:
            draw.polygon(sheared([(px, base_y - dot), (px + dot, base_y - dot), (px + dot, base_y), (px, base_y)]), fill=value)
    return camera(rng, np.asarray(ink, dtype=np.float32), scale, mild=meter), text


def camera(rng, ink, scale, mild=False):
    """The ink (1 lit, 0 background) as an LCD photographed: gray 8-bit PIL image.
    `mild`: no glare or contrast a person could not read through (the training lines
    go further)."""
    h, w = ink.shape
    background = float(rng.uniform(70, 235))
    contrast = float(rng.uniform(0.35 if mild else 0.25, 0.9)) * background
    inverted = rng.random() < 0.12
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 1.0 + float(rng.uniform(-0.25, 0.25)) * (xx / w - 0.5) + float(rng.uniform(-0.2, 0.2)) * (yy / h - 0.5)
    if inverted:
        img = (background * 0.25 + ink * contrast) * light
    else:
        img = (background - ink * contrast) * light
    if rng.random() < 0.5:  # glare: a bright blob that washes segments out
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        rx, ry = rng.uniform(0.1, 0.6) * w, rng.uniform(0.2, 1.0) * h
        blob = np.exp(-(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2))
        strength = float(rng.uniform(0.2, 0.6 if mild else 0.9))
        img = img * (1 - strength * blob) + 255 * strength * blob
    if rng.random() < 0.5:  # the display's frame at the top or bottom edge
        frame = float(rng.uniform(0, 255))
        band = int(rng.uniform(0.02, 0.12) * h)
        if rng.random() < 0.5:
            img[:band] = frame
        else:
            img[h - band:] = frame
    img = np.clip(img, 0, 255)
    image = Image.fromarray(img.astype(np.uint8), "L")
    image = geometry(rng, image)
    if rng.random() < 0.8:
        image = image.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.3, 2.5)) * scale))
    # to the size a camera gives: 14 to 60 px of digit height
    target_h = int(rng.uniform(20, 90))
    image = image.resize((max(8, int(image.width * target_h / image.height)), target_h), Image.BILINEAR)
    arr = np.asarray(image, dtype=np.float32)
    arr = arr + rng.normal(0, float(rng.uniform(0, 8)), arr.shape)
    image = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "L")
    if rng.random() < 0.7:
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=int(rng.integers(25, 95)))
        image = Image.open(io.BytesIO(buffer.getvalue())).convert("L")
    return image


def geometry(rng, image):
    """A small rotation and keystone, as a hand-held phone or a camera at an angle gives."""
    w, h = image.size
    k = float(rng.uniform(-0.06, 0.06)) * h
    r = float(rng.uniform(-0.04, 0.04)) * w
    # corners of the source quad for the output rectangle
    quad = (0 + r * 0, 0 - k, 0, h + k, w, h - k, w, 0 + k)
    if rng.random() < 0.5:
        image = image.transform((w, h), Image.QUAD, quad, Image.BILINEAR, fillcolor=int(np.asarray(image)[0, 0]))
    angle = float(rng.uniform(-3, 3))
    return image.rotate(angle, Image.BILINEAR, expand=False, fillcolor=int(np.asarray(image)[0, 0]))


# Printed words a display's line is found beside (a pump's LITRES): the segments
# reader learns to read nothing in them.
WORDS = ["LITRES", "LITERS", "LITRE", "PRICE", "TOTAL", "EUR", "SALE", "kWh", "VOLUME", "GALLONS", "AMOUNT", "Diesel",
         "UNLEADED", "PER LITRE", "m3", "TARIF", "T1", "T2", "Wh", "TOTAL kWh"]
FONTS = ["DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSansCondensed.ttf"]


def render_words(rng):
    """A line of printed words as a camera sees it: (gray PIL image, '')."""
    from PIL import ImageFont
    if rng.random() < 0.6:
        text = WORDS[int(rng.integers(0, len(WORDS)))]
    else:
        letters = "ABCDEFGHIJKLMNOPRSTUVWXYZ"
        text = "".join(letters[int(k)] for k in rng.integers(0, len(letters), int(rng.integers(2, 9))))
    size = int(rng.integers(28, 60))
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/" + FONTS[int(rng.integers(0, len(FONTS)))], size)
    left, top, right, bottom = font.getbbox(text)
    mx, my = int(rng.uniform(0.05, 0.8) * size), int(rng.uniform(0.05, 0.4) * size)
    ink = Image.new("F", (right - left + 2 * mx, bottom - top + 2 * my), 0.0)
    ImageDraw.Draw(ink).text((mx - left, my - top), text, font=font, fill=1.0)
    return camera(rng, np.asarray(ink, dtype=np.float32), 1), ""
