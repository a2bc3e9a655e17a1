#!/usr/bin/env python3
"""The line engines' language routing through a real lectord (see tests/engines/run).

Each check prints "ok   NAME" or "FAIL NAME: detail"; the last line is "N passed, N failed"
(tests/lectortest.py).
"""
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lectortest import ENV, LECTORD, ROOT, SkipTest, Suite, workdir  # noqa: E402

suite = Suite("engines", timed=False)
check = suite.check
WORK = workdir("lector-engines-")
FRAMES = os.path.join(WORK, "signs")
MODELS = "/usr/local/share/lector/models"
TESSDATA = "/usr/share/tesseract-ocr/5/tessdata"
ROWS = []


def make_frames():
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts/make-sign-frames.py"), FRAMES], check=True)
    with open(os.path.join(FRAMES, "truth.tsv"), encoding="utf-8") as f:
        ROWS.extend(tuple(line.rstrip("\n").split("\t")) for line in f if line.strip())


def read(name, language, *extra):
    """(text, engines of its lines) of lectord reading one frame with its defaults and `extra`."""
    command = [LECTORD, "--replay", os.path.join(FRAMES, name), "--stdout", "--max-frames", "1", "--lang", language,
               "--socket", os.path.join(WORK, "lector.sock"), "--log-level", "warning", *extra]
    result = subprocess.run(command, capture_output=True, timeout=300, env=ENV)
    text, engines = [], []
    for line in result.stdout.decode().splitlines():
        if line.startswith("{"):
            message = json.loads(line)
            if message.get("class") == "TEXT":
                text.append(message["text"])
                engines += [ln.get("engine") for b in message["blocks"] for ln in b.get("lines", [])]
    return "\n".join(text), engines


def characters_read(truth, text):
    """Characters of `truth` found in `text` (each once; spaces ignored: Tesseract spaces CJK characters)."""
    found = collections.Counter(c for c in text if not c.isspace())
    return sum(min(n, found[c]) for c, n in collections.Counter(c for c in truth if not c.isspace()).items())


def score(language, *extra):
    rows = [row for row in ROWS if row[1] == language]
    right = total = 0
    details, engines = [], collections.Counter()
    for name, _, truth in rows:
        text, used = read(name, language, *extra)
        right += characters_read(truth, text)
        total += len([c for c in truth if not c.isspace()])
        engines.update(used)
        details.append((truth, text))
    return right, total, engines, details


def needs(language):
    missing = [f for f in (f"{TESSDATA}/{language}.traineddata",) if not os.path.exists(f)]
    if missing:
        raise SkipTest(f"missing {', '.join(missing)} (scripts/setup)")


def test_chinese_and_japanese_read_by_the_neural_engine():
    """--lang chi_sim and jpn: the full neural model reads >= 0.95 of the signs' characters with the defaults."""
    if not any(os.path.exists(f"{MODELS}/{name}") for name in ("PP-OCRv6_rec_small.onnx", "PP-OCRv6_rec_small_opencv.onnx")):
        raise SkipTest("the neural line recognizer's model is not installed (scripts/fetch-engine-model)")
    for language in ("chi_sim", "jpn"):
        needs(language)
        right, total, engines, details = score(language)
        base_right, _, _, _ = score(language, "--engine", "tesseract")
        share = right / total if total else 0
        check(f"{language}: {right}/{total} characters = {share:.3f} (>= 0.95; Tesseract on the same lines "
              f"{base_right}/{total}), lines by {dict(engines)}",
              share >= 0.95 and engines["neural"] > 0, [d for d in details if characters_read(d[0], d[1]) < len(d[0])])


def test_korean_and_hindi_stay_with_tesseract():
    """--lang kor and hin: no line goes to the neural engine, and the signs read as well as with --layout tesseract."""
    for language in ("kor", "hin"):
        needs(language)
        right, total, engines, details = score(language)
        page_right, _, _, page_details = score(language, "--layout", "tesseract")
        check(f"{language}: Tesseract reads every line ({dict(engines)}); {right}/{total} characters, "
              f"--layout tesseract {page_right}/{total}",
              engines["neural"] == 0 and right >= page_right, (details, page_details))


def test_onnx_runtime_writes_nothing_home():
    """The networks' runtime keeps no usage record: PyPI's ONNX Runtime writes a device id and an event database
    in ~/.cache/Microsoft unless its telemetry is off, which lectord sets (and a service's home may be /)."""
    if not any(os.path.exists(f"{MODELS}/{name}") for name in ("PP-OCRv6_rec_small.onnx", "PP-OCRv6_rec_small_opencv.onnx")):
        raise SkipTest("the neural line recognizer's model is not installed (scripts/fetch-engine-model)")
    home = os.path.join(WORK, "home")
    os.makedirs(home, exist_ok=True)
    environment = {k: v for k, v in ENV.items() if k != "ORT_DISABLE_TELEMETRY"}
    environment.update(HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"))
    result = subprocess.run([LECTORD, "--replay", os.path.join(FRAMES, ROWS[0][0]), "--stdout", "--max-frames", "1",
                             "--layout", "detector", "--engine", "neural", "--socket", os.path.join(WORK, "home.sock"),
                             "--log-level", "warning"], capture_output=True, timeout=300, env=environment)
    left = [os.path.relpath(os.path.join(d, f), home) for d, _, files in os.walk(home) for f in files]
    check(f"lectord read with the detector and the neural engine (exit {result.returncode}) and left nothing in its home "
          f"({left or 'nothing'})", result.returncode == 0 and b'"class":"TEXT"' in result.stdout and not left,
          result.stderr.decode()[-500:])


for function in (test_chinese_and_japanese_read_by_the_neural_engine, test_korean_and_hindi_stay_with_tesseract,
                 test_onnx_runtime_writes_nothing_home):
    suite.test(function)

if __name__ == "__main__":
    sys.exit(suite.main(setup=make_frames))
