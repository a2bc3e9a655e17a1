#!/usr/bin/python3
"""Camera-like frames holding QR codes and barcodes (issue 48), with their truth.

Each code is rendered by Debian's `zint` (one pixel a module, no quiet zone), scaled to
a whole number of pixels a module (2 to 6), put on a white label with a line of text
beside it, and the label laid on a textured desk: turned a little (hand-held jitter),
tilted in perspective (up to 40 degrees), blurred, with sensor noise and a glare spot,
and saved as JPEG (what an MJPEG camera sends). Some frames hold two codes.

    scripts/make-code-scenes.py OUT [--per-format N] [--seed S] [--formats qr,ean13,...]
    scripts/make-code-scenes.py OUT --sequence FORMAT:SECONDS_IN,SECONDS_OUT,SECONDS_IN --fps N

The first writes OUT/NNNN.jpg and OUT/truth.json: per frame its codes (format, text as
Lector's CODE gives it, module pixels, tilt, blur radius, glare spot in the frame) and
whether a phone's scanner would read it (`readable`: at least 2 pixels a module once
tilted, blur under half a module). Contents differ from frame to frame (each frame's codes
are new appearances). The second writes a hand-held sequence at N frames a second: one
code in view, taken away, shown again. Only Debian's zint and python3-pil are used.
"""
import argparse
import io
import json
import math
import os
import random
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WIDTH, HEIGHT = 1280, 720

# Lector's format name: (zint's symbology, linear?)
FORMATS = {
    "qr": (58, False), "micro_qr": (97, False), "data_matrix": (71, False), "aztec": (92, False),
    "pdf417": (55, False), "ean13": (13, True), "ean8": (13, True), "upc_a": (34, True), "upc_e": (37, True),
    "code128": (20, True), "code39": (8, True), "code93": (25, True), "itf": (3, True), "codabar": (18, True),
}


def gtin_check(digits):
    """The GS1 check digit of `digits` (EAN-13, EAN-8, UPC-A)."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return str((10 - total % 10) % 10)


def upce_to_upca(body):
    """UPC-A's 11 digits for UPC-E's number system 0 and 6 digits (zero suppression)."""
    d = body
    if d[5] in "012":
        return "0" + d[0:2] + d[5] + "0000" + d[2:5]
    if d[5] == "3":
        return "0" + d[0:3] + "00000" + d[3:5]
    if d[5] == "4":
        return "0" + d[0:4] + "00000" + d[4]
    return "0" + d[0:5] + "0000" + d[5]


def content(fmt, rng):
    """(what zint is given, the text ZXing decodes) for a random content of `fmt`."""
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n))
    upper = lambda n: "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(n))
    if fmt == "ean13":
        body = digits(12)
        return body, body + gtin_check(body)
    if fmt == "ean8":
        body = digits(7)
        return body, body + gtin_check(body)
    if fmt == "upc_a":
        body = digits(11)
        return body, body + gtin_check(body)
    if fmt == "upc_e":
        body = digits(5) + rng.choice("56789")
        if body[4] == "0":  # zero suppression: a last digit of 5-9 needs a 5th digit other than 0 (zint refuses it)
            body = body[:4] + "1" + body[5]
        return "0" + body, "0" + body + gtin_check(upce_to_upca(body))
    if fmt == "itf":
        data = digits(10)
        return data, data
    if fmt == "codabar":
        data = digits(8)
        return "A" + data + "B", data
    if fmt == "micro_qr":
        data = digits(6)
        return data, data
    if fmt in ("code39", "code93"):
        data = upper(7)
        return data, data
    if fmt == "qr":
        data = "https://lector.example/p/" + upper(8)
        return data, data
    data = "LOT-" + upper(8)
    return data, data


def render(fmt, data, module):
    """The code as zint draws it, `module` pixels a module, on white with a quiet zone."""
    symbology, linear = FORMATS[fmt]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "code.png")
        command = ["zint", "-b", str(symbology), "-d", data, "--scale=0.5", "--notext", "-o", path]
        if linear:
            command.insert(-2, "--height=40")
        subprocess.run(command, check=True, capture_output=True)
        code = Image.open(path).convert("L")
    code = code.resize((code.width * module, code.height * module), Image.NEAREST)
    quiet = module * (10 if linear else 4)
    label = Image.new("L", (code.width + 2 * quiet, code.height + 2 * quiet), 250)
    label.paste(code, (quiet, quiet))
    return label


def perspective(image, tilt, rng):
    """`image` tilted by `tilt` degrees about its vertical or horizontal axis (a
    perspective, the far side shorter), on transparent ground; its new size."""
    w, h = image.size
    shrink = math.cos(math.radians(tilt))
    far = (1 - shrink) / 2
    if rng.random() < 0.5:  # about the vertical axis: the right side further away
        new_w = int(w * shrink) + 1
        corners = [(0, 0), (new_w, h * far), (new_w, h * (1 - far)), (0, h)]
    else:
        new_w = w
        corners = [(w * far, 0), (w * (1 - far), 0), (w, h * shrink), (0, h * shrink)]
    out_h = h if corners[0][1] == 0 and corners[3][1] == h else int(h * shrink) + 1
    coefficients = find_coefficients(corners, [(0, 0), (w, 0), (w, h), (0, h)])
    rgba = image.convert("RGBA")
    warped = rgba.transform((max(1, int(new_w)), max(1, out_h)), Image.PERSPECTIVE, coefficients, Image.BICUBIC)
    return warped


def find_coefficients(target, source):
    """PIL's perspective coefficients mapping `target` corners to `source` corners."""
    matrix, vector = [], []
    for (x, y), (u, v) in zip(target, source):
        matrix.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        matrix.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        vector += [u, v]
    return solve(matrix, vector)


def solve(a, b):
    """Gaussian elimination for the 8x8 system."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col] != 0:
                factor = m[r][col] / m[col][col]
                m[r] = [x - factor * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def desk(rng):
    """A textured, unevenly lit desk."""
    base = rng.randint(90, 170)
    image = Image.effect_noise((WIDTH, HEIGHT), rng.randint(8, 20)).point(lambda p: base + (p - 128) // 3)
    light = Image.linear_gradient("L").resize((WIDTH, HEIGHT)).point(lambda p: p // 6)
    return Image.blend(image, light, 0.25)


def label_with_text(code, rng, words):
    """A white label holding `code` with a line of text beside it."""
    font = ImageFont.truetype(FONT, rng.randint(22, 34))
    text_w = int(font.getlength(words)) + 20
    label = Image.new("L", (code.width + text_w + 20, max(code.height, 60) + 20), 245)
    label.paste(code, (10, 10))
    ImageDraw.Draw(label).text((code.width + 20, 10 + code.height // 2 - 15), words, fill=25, font=font)
    return label


def camera_effects(image, rng, blur, noise, glare):
    """Blur, sensor noise and a glare spot."""
    if blur > 0:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    if noise > 0:
        grain = Image.effect_noise(image.size, noise)
        image = Image.blend(image, grain, 0.08)
    if glare:
        spot = Image.new("L", image.size, 0)
        x, y = rng.randint(0, WIDTH), rng.randint(0, HEIGHT)
        r = rng.randint(60, 160)
        ImageDraw.Draw(spot).ellipse((x - r, y - r, x + r, y + r), fill=110)
        spot = spot.filter(ImageFilter.GaussianBlur(r / 2))
        image = Image.composite(Image.new("L", image.size, 255), image, spot)
    return image


def place(scene, label, rng, taken):
    """Pastes `label` (RGBA) where it fits without overlapping `taken`; its box, or None."""
    for _ in range(40):
        if label.width >= WIDTH - 20 or label.height >= HEIGHT - 20:
            return None
        x = rng.randint(10, WIDTH - label.width - 10)
        y = rng.randint(10, HEIGHT - label.height - 10)
        box = (x, y, x + label.width, y + label.height)
        if all(box[2] < t[0] or box[0] > t[2] or box[3] < t[1] or box[1] > t[3] for t in taken):
            scene.paste(label.convert("L"), (x, y), label.split()[-1])
            return box
    return None


def frame(formats, rng, words="PARCEL 4711"):
    """One scene with a code of each of `formats`: the image and its truth."""
    scene = desk(rng)
    truth, taken = [], []
    blur = rng.choice([0, 0, 0.4, 0.7, 1.0])
    for fmt in formats:
        data, text = content(fmt, rng)
        linear = FORMATS[fmt][1]
        module = rng.choice([2, 3, 4, 5, 6] if not linear else [2, 3, 3, 4])
        tilt = rng.uniform(0, 40)
        code = render(fmt, data, module)
        label = label_with_text(code, rng, words) if len(formats) == 1 else code
        warped = perspective(label, tilt, rng).rotate(rng.uniform(-6, 6), expand=True, resample=Image.BICUBIC)
        box = place(scene, warped, rng, taken)
        if box is None:
            continue
        taken.append(box)
        effective = module * math.cos(math.radians(tilt))
        truth.append({"format": fmt, "text": text, "module": module, "tilt": round(tilt, 1), "box": box,
                      "blur": blur, "readable": effective >= 2.0 and blur <= 0.5 * module})
    noise, glare = rng.randint(0, 30), rng.random() < 0.3
    scene = camera_effects(scene, rng, blur, noise, glare)
    for code in truth:
        code["glare"] = glare
    return scene, truth


def jpeg(image, path, quality):
    image.convert("RGB").save(path, "JPEG", quality=quality)


def sequence(out, spec, fps, rng):
    """A code held in view, taken away, shown again (SECONDS_IN,SECONDS_OUT,SECONDS_IN,...;
    a first span of 0 starts without it), hand-held: the label moves a few pixels from
    frame to frame, beside a notice whose text stays in view."""
    fmt, seconds = spec.split(":")
    spans = [float(s) for s in seconds.split(",")]
    data, text = content(fmt, rng)
    code = label_with_text(render(fmt, data, 4), rng, "SHELF 12")
    background = desk(rng)
    # A notice that stays in view: text is read all along.
    font = ImageFont.truetype(FONT, 30)
    for row, words in enumerate(["AISLE 7 BAY 3 LEVEL 2", "RETURNS ACCEPTED UNTIL 18:00", "KEEP THIS AREA CLEAR"]):
        ImageDraw.Draw(background).text((760, 420 + 50 * row), words, fill=20, font=font)
    index = 0
    # In view, out of view, in view, ... (the spans alternate, however many are given).
    for number, span in enumerate(spans):
        shown = number % 2 == 0
        for _ in range(int(span * fps)):
            scene = background.copy()
            if shown:
                scene.paste(code, (300 + rng.randint(-3, 3), 200 + rng.randint(-3, 3)))
            jpeg(camera_effects(scene, rng, 0.3, 10, False), os.path.join(out, "%04d.jpg" % index), 85)
            index += 1
    json.dump({"format": fmt, "text": text, "fps": fps, "spans": spans}, open(os.path.join(out, "truth.json"), "w"), indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--per-format", type=int, default=4)
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--pairs", type=int, default=0, help="extra frames holding two codes")
    parser.add_argument("--sequence")
    parser.add_argument("--fps", type=float, default=5)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    if args.sequence:
        sequence(args.out, args.sequence, args.fps, rng)
        return
    formats = args.formats.split(",")
    plan = [[f] for f in formats for _ in range(args.per_format)]
    plan += [rng.sample(formats, 2) for _ in range(args.pairs)]
    frames = []
    for index, wanted in enumerate(plan):
        image, truth = frame(wanted, rng)
        name = "%04d.jpg" % index
        jpeg(image, os.path.join(args.out, name), rng.randint(60, 90))
        frames.append({"file": name, "codes": truth})
    json.dump({"frames": frames}, open(os.path.join(args.out, "truth.json"), "w"), indent=1)
    print("%d frames in %s" % (len(frames), args.out))


if __name__ == "__main__":
    sys.exit(main())
