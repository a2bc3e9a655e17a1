#!/usr/bin/python3
"""Measures `--lang auto` (issues 28 and 41) on the frames of scripts/make-script-frames.py:
per frame, lectord's reads with the right fixed `--lang` and with `--lang auto` (and any
--lang given): the character recall, the characters in order, the block languages, and
for auto its script check (`--log-level debug`'s "script checked": the script OSD named,
its confidence, the languages read); then per script, how many signs auto reads within
0.05 of the fixed language (recall and order) with each block's language right, and how
many give an empty TEXT where the fixed language reads text.

Recall: the truth's characters (spaces left out) found in the text read, counted as
multisets, over the truth's characters; in order: the longest common subsequence over
the same (scripts/script_signs.py).

Usage: scripts/eval-script-frames.py FRAMES_DIR [--lectord .build/debug/lectord] [--lang L ...]
"""
import argparse
import collections
import os
import re
import time

from script_signs import TOLERANCE, frames, in_order, languages_right, read, recall, within


def check(stderr):
    """auto's script check from lectord's debug log: "script (confidence) → languages read"."""
    found = re.search(r"script checked .*?script=(\S+) confidence=(\S+) tried=(\S+)", stderr)
    return "%s (%s) → %s" % found.groups() if found else ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("frames")
    parser.add_argument("--lectord", default=".build/debug/lectord")
    parser.add_argument("--lang", action="append", default=[], help="a --lang to read every frame with (besides auto and the right one)")
    args = parser.parse_args()
    socket = "/tmp/eval-script-frames-%d.sock" % os.getpid()
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    print("| frame | lines | --lang | script check | recall | in order | block languages | s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    totals = collections.defaultdict(lambda: collections.Counter())
    for frame, entry in frames(args.frames):
        name = os.path.basename(frame)[:-4]
        scores = {}
        for lang in [entry["lang"], "auto"] + args.lang:
            started = time.time()
            text, languages, stderr = read(args.lectord, frame, lang, socket, env, "--log-level", "debug")
            seconds = time.time() - started
            scores[lang] = (recall(entry["lines"], text), in_order(entry["lines"], text), languages, text)
            print("| %s | %s | %s | %s | %.2f | %.2f | %s | %.1f |" % (
                name, " / ".join(entry["lines"]), lang, check(stderr), scores[lang][0], scores[lang][1],
                ",".join(languages) or "(empty)", seconds), flush=True)
        fixed, auto = scores[entry["lang"]], scores["auto"]
        count = totals[entry["lang"] + (" (kanji only)" if entry.get("kanji_only") else "")]
        count["signs"] += 1
        count["within"] += within(entry, fixed[3], auto[3])
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
