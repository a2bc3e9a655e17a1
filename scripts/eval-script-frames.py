#!/usr/bin/python3
"""Measures, on the frames of scripts/make-script-frames.py, what `--lang auto` (issue 28)
has to match and what it would start from: per frame, the script Tesseract's OSD
(`tesseract --psm 0` with min_characters_to_try=5, osd.traineddata) names, and lectord's character recall and
reported block languages with each fixed `--lang` given (default: the right one, eng,
and chi_sim+jpn for Han).

Recall: the truth's characters (spaces left out) found in the text read, counted as
multisets, over the truth's characters.

Usage: scripts/eval-script-frames.py FRAMES_DIR [--lectord .build/debug/lectord] [--lang L ...]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import time


def recall(truth, read):
    want = collections.Counter(c for c in "".join(truth) if not c.isspace())
    got = collections.Counter(c for c in read if not c.isspace())
    return sum(min(n, got[c]) for c, n in want.items()) / max(1, sum(want.values()))


def read_with(lectord, frame, lang):
    started = time.time()
    result = subprocess.run([lectord, "--replay", frame, "--stdout", "--max-frames", "1", "--lang", lang,
                             "--socket", "/tmp/eval-script-frames-%d.sock" % os.getpid()],
                            capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    for line in result.stdout.splitlines():
        message = json.loads(line)
        if message.get("class") == "TEXT":
            languages = sorted({b.get("language", "?") for b in message.get("blocks", [])})
            return message.get("text", ""), languages, time.time() - started
    raise RuntimeError("no TEXT from lectord --lang %s on %s: %s" % (lang, frame, result.stderr[-800:]))


def osd(frame):
    # OSD's default min_characters_to_try (50) skips a sign of a few large characters
    # ("Too few characters"): every non-Latin frame here. 5 lets it judge them.
    result = subprocess.run(["tesseract", frame, "-", "--psm", "0", "--dpi", "300", "-c", "min_characters_to_try=5"],
                            capture_output=True, text=True, timeout=120)
    script = re.search(r"Script: (\S+)", result.stdout)
    confidence = re.search(r"Script confidence: ([0-9.]+)", result.stdout)
    return (script.group(1) if script else "?"), (float(confidence.group(1)) if confidence else 0.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("frames")
    parser.add_argument("--lectord", default=".build/debug/lectord")
    parser.add_argument("--lang", action="append", help="a --lang to read every frame with (besides the right one)")
    args = parser.parse_args()
    with open(os.path.join(args.frames, "truth.json")) as f:
        truth = json.load(f)
    print("| frame | OSD script (confidence) | --lang | recall | block languages | s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for lang, entry in truth.items():
        frame = os.path.join(args.frames, "%s.jpg" % lang)
        script, confidence = osd(frame)
        langs = [lang] + (args.lang or (["eng"] if lang != "eng" else []))
        if lang in ("chi_sim", "jpn") and not args.lang:
            langs.append("chi_sim+jpn")
        for other in langs:
            text, languages, seconds = read_with(args.lectord, frame, other)
            print("| %s | %s (%.1f)%s | %s | %.2f | %s | %.1f |" % (
                lang, script, confidence, "" if script == entry["script"] else " ≠ " + entry["script"], other,
                recall(entry["lines"], text), ",".join(languages), seconds), flush=True)


if __name__ == "__main__":
    main()
