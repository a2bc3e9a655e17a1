"""Real display lines for the segments engine's network (issue 44): the lines
`lector-bench --only segments --crops DIR` cut out of photos as lectord's segments engine
cuts them (one 48 px high 8-bit PGM per line and DIR/lines.jsonl), their pseudo-labels
(scripts/label-segment-lines.py writes DIR/labels.jsonl), the photos' halves for
cross-validation, augmentation for training, and what lectord's pump rule makes of a
photo's lines (to score a network on the lines offline).

Shared by scripts/label-segment-lines.py, scripts/train-segments.py (`--real`) and
scripts/eval-meters.py (`--half`; any python3: numpy and PIL are imported only by the
functions that read pixels).
"""
import hashlib
import json
import os
import re

PATTERN = re.compile(r"^\d+\.\d\d$")


def half(photo):
    """The cross-validation half of a photo, "A" or "B", from its file name's SHA-256
    (its last bit): about half of each quality set falls in each (the meters: A 143,
    B 157 of 300)."""
    return "AB"[int(hashlib.sha256(photo.encode()).hexdigest(), 16) % 2]


def truth(data):
    """A photo folder's truth.tsv: photo → (litres, quality)."""
    out = {}
    with open(os.path.join(data, "truth.tsv")) as handle:
        for row in handle:
            parts = row.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[0].endswith(".jpg"):
                out[parts[0]] = (parts[1], parts[2])
    return out


def lines(crops):
    """The records of DIR/lines.jsonl, each with its pixels (48 × w uint8) as `pixels`."""
    import numpy as np
    from PIL import Image
    out = []
    with open(os.path.join(crops, "lines.jsonl")) as handle:
        for row in handle:
            record = json.loads(row)
            record["pixels"] = np.asarray(Image.open(os.path.join(crops, record["file"])).convert("L"), dtype=np.uint8)
            out.append(record)
    return out


def labelled(path, half=None):
    """The pseudo-labelled lines of a labels file (beside its crops): [(pixels, text)],
    only the photos of `half` when given."""
    import numpy as np
    from PIL import Image
    crops = os.path.dirname(os.path.abspath(path))
    out = []
    with open(path) as handle:
        for row in handle:
            record = json.loads(row)
            if half and record["half"] != half:
                continue
            pixels = np.asarray(Image.open(os.path.join(crops, record["file"])).convert("L"), dtype=np.uint8)
            out.append((pixels, record["text"]))
    return out


def augmented(pixels, rng):
    """A real line (48 × w uint8) changed a little as another photo of it would be: its
    width scaled by 0.85-1.15, the whole zoomed by 0.9-1.08 and shifted up or down (edge
    rows repeated), 0-3 columns cut at each end, contrast and brightness changed, blurred
    (half of the time) and noisy; as the network's input (−1…1 floats, 48 high)."""
    import numpy as np
    from PIL import Image, ImageFilter
    height, width = pixels.shape
    image = Image.fromarray(pixels)
    zoom = rng.uniform(0.9, 1.08)
    new_width = max(8, round(width * zoom * rng.uniform(0.85, 1.15)))
    new_height = max(8, round(height * zoom))
    image = image.resize((new_width, new_height), Image.BILINEAR)
    array = np.asarray(image, dtype=np.float32)
    if new_height < height:
        top = rng.integers(0, height - new_height + 1)
        array = np.pad(array, ((top, height - new_height - top), (0, 0)), mode="edge")
    elif new_height > height:
        top = rng.integers(0, new_height - height + 1)
        array = array[top : top + height]
    left, right = rng.integers(0, 4), rng.integers(0, 4)
    array = array[:, left : array.shape[1] - right] if array.shape[1] > 16 else array
    if rng.random() < 0.5:
        radius = rng.uniform(0.3, 1.3)
        array = np.asarray(Image.fromarray(np.clip(array, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(radius)),
                           dtype=np.float32)
    mean = array.mean()
    array = (array - mean) * rng.uniform(0.6, 1.3) + mean + rng.uniform(-25, 25)
    array = array + rng.normal(0, rng.uniform(0, 6), array.shape)
    return np.clip(array, 0, 255) * (2.0 / 255.0) - 1.0


def placed(text, decimals=2):
    """What a rule's `decimals = 2` makes of a line: its digits with the point 2 from the right."""
    digits = "".join(c for c in text if c.isdigit())
    if len(digits) <= decimals:
        return None
    return digits[:-decimals] + "." + digits[-decimals:]


def matches(texts):
    """The MATCHes of the pump rule (`^\\d+\\.\\d\\d$`, `decimals = 2`) for a photo's lines."""
    out = []
    for text in texts:
        value = placed(text)
        if value and PATTERN.match(value):
            out.append(value)
    return out


def right(texts, litres):
    """Whether a MATCH of these lines has the integer part `litres` (scripts/eval-meters.py's count)."""
    return litres in [m.split(".")[0].lstrip("0") or "0" for m in matches(texts)]
