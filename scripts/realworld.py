"""The scoring of ../shared/testdata/realworld/ (issue 17), shared by the scripts and
suites that measure it (scripts/eval-realworld.py, scripts/slowcpu.py, tests/slowcpu).

The data's README's scoring: bag-of-words recall, case-insensitive, every
non-alphanumeric character removed, each truth word matched once; a plate counts as read
when its string appears in the output with everything but letters and digits removed.

Import it after putting scripts/ on the path:

    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import realworld
"""
import collections
import itertools
import json
import os
import subprocess
import time
import unicodedata

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DATA = os.path.join(ROOT, "..", "shared", "testdata", "realworld")
SETS = ["docphoto", "scene", "platefull", "platecrop"]
PLATE_SETS = ("platefull", "platecrop")
_READS = itertools.count(1)  # a socket of its own per read, also for reads run at once


def words(text):
    """Normalized words: case-folded, every non-alphanumeric character removed."""
    out = []
    for word in unicodedata.normalize("NFC", text).split():
        kept = "".join(c for c in word.casefold() if c.isalnum())
        if kept:
            out.append(kept)
    return out


def alnum(text):
    return "".join(c for c in unicodedata.normalize("NFC", text).upper() if c.isalnum())


def truth_rows(data=DATA):
    """The rows of `data`/truth.tsv: (set, file name, language, truth)."""
    rows = []
    with open(os.path.join(data, "truth.tsv"), encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                rows.append((parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
    return rows


def matched_words(truth, text):
    """(truth words matched, truth words, words read): each truth word matched once."""
    want, got = collections.Counter(words(truth)), collections.Counter(words(text))
    return sum((want & got).values()), sum(want.values()), sum(got.values())


def plate_read(truth, text):
    """True when the plate string `truth` appears in `text` (letters and digits only)."""
    return alnum(truth) != "" and alnum(truth) in alnum(text)


def score(set_name, truth, text):
    """(matched, total) of `text` against an image's truth: words for docphoto and scene
    (and any page with a word truth), 1 of 1 or 0 of 1 for a plate."""
    if set_name in PLATE_SETS:
        return int(plate_read(truth, text)), 1
    matched, total, _ = matched_words(truth, text)
    return matched, total


def read_image(lectord, path, lang, layout=None, extra=(), timeout=120):
    """(text, recognize_ms, seconds, problem) of lectord reading `path` once
    (`--replay PATH --stdout --max-frames 1`); `layout` None keeps lectord's default."""
    command = [lectord, "--replay", path, "--stdout", "--max-frames", "1", "--lang", lang,
               "--socket", f"/tmp/lector-eval-{os.getpid()}-{next(_READS)}.sock", "--log-level", "warning"]
    if layout:
        command += ["--layout", layout]
    command += list(extra)
    started = time.monotonic()
    try:
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, text=True)
    except subprocess.TimeoutExpired:
        return "", None, timeout, "timeout"
    elapsed = time.monotonic() - started
    text, recognize = [], None
    for line in run.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("class") == "TEXT":
            text.append(message.get("text", ""))
        elif message.get("class") == "FRAME" and "recognize_ms" in message:
            recognize = message["recognize_ms"]
    problem = None if run.returncode == 0 else f"exit {run.returncode}: {run.stderr.strip()[-300:]}"
    return "\n".join(text), recognize, elapsed, problem
