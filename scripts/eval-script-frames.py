#!/usr/bin/python3
"""Measures `--lang auto` (issues 28 and 41) on the frames of scripts/make-script-frames.py:
per frame, the script Tesseract's OSD names (`tesseract --psm 0` with
min_characters_to_try=5, osd.traineddata; with --osd), and lectord's reads with
`--lang auto` and with the right fixed `--lang` (and any --lang given): the character
recall, the characters in order, the block languages; then per script, how many signs
auto reads within 0.05 of the fixed language with each block's language right, and
how many give an empty TEXT where the fixed language reads text.

Recall: the truth's characters (spaces left out) found in the text read, counted as
multisets, over the truth's characters; in order: the longest common subsequence over
the same (scripts/script_signs.py).

Usage: scripts/eval-script-frames.py FRAMES_DIR [--lectord .build/debug/lectord] [--lang L ...] [--osd]
"""
import argparse
import collections
import os
import re
import subprocess
import time

from script_signs import frames, in_order, languages_right, read, recall

TOLERANCE = 0.05


def osd(frame):
    # OSD's default min_characters_to_try (50) skips a sign of a few large characters
    # ("Too few characters"): every non-Latin frame here. 5 lets it judge them.
    result = subprocess.run(["tesseract", frame, "-", "--psm", "0", "--dpi", "300", "-c", "min_characters_to_try=5"],
                            capture_output=True, text=True, timeout=120)
    script = re.search(r"Script: (\S+)", result.stdout)
    confidence = re.search(r"Script confidence: ([0-9.]+)", result.stdout)
    return "%s (%.1f)" % (script.group(1) if script else "?", float(confidence.group(1)) if confidence else 0.0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("frames")
    parser.add_argument("--lectord", default=".build/debug/lectord")
    parser.add_argument("--lang", action="append", default=[], help="a --lang to read every frame with (besides auto and the right one)")
    parser.add_argument("--osd", action="store_true", help="say the script OSD names")
    args = parser.parse_args()
    socket = "/tmp/eval-script-frames-%d.sock" % os.getpid()
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    print("| frame | lines | OSD | --lang | recall | in order | block languages | s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    totals = collections.defaultdict(lambda: collections.Counter())
    for frame, entry in frames(args.frames):
        name = os.path.basename(frame)[:-4]
        script = osd(frame) if args.osd else ""
        scores = {}
        for lang in [entry["lang"], "auto"] + args.lang:
            started = time.time()
            text, languages, _ = read(args.lectord, frame, lang, socket, env)
            seconds = time.time() - started
            scores[lang] = (recall(entry["lines"], text), in_order(entry["lines"], text), languages, text)
            print("| %s | %s | %s | %s | %.2f | %.2f | %s | %.1f |" % (
                name, " / ".join(entry["lines"]), script, lang, scores[lang][0], scores[lang][1], ",".join(languages) or "(empty)",
                seconds), flush=True)
        fixed, auto = scores[entry["lang"]], scores["auto"]
        count = totals[entry["lang"] + (" (kanji only)" if entry.get("kanji_only") else "")]
        count["signs"] += 1
        count["within"] += auto[0] >= fixed[0] - TOLERANCE and auto[1] >= fixed[1] - TOLERANCE
        count["languages"] += languages_right(entry, auto[2])
        count["empty"] += not auto[3].strip() and bool(fixed[3].strip())
        count["auto"] += auto[0]
        count["fixed"] += fixed[0]
    print()
    print("| signs | auto within %.2f of fixed (recall and order) | languages right | empty where fixed reads | mean recall auto / fixed |" % TOLERANCE)
    print("| --- | --- | --- | --- | --- |")
    for key, count in totals.items():
        print("| %s | %d/%d | %d/%d | %d | %.2f / %.2f |" % (key, count["within"], count["signs"], count["languages"], count["signs"],
                                                          count["empty"], count["auto"] / count["signs"], count["fixed"] / count["signs"]))


if __name__ == "__main__":
    main()
