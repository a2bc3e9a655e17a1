#!/usr/bin/env python3
"""Share of known words lectord read: for each TEXT message in lectord's --stdout
output, the fraction of the known words (case-insensitive, punctuation stripped) found
among the words it read; prints the best frame's "read/known" and the fraction.

usage: count-words.py KNOWN.txt STDOUT-FILE   (exit 0 always; the caller judges)
"""
import json
import re
import sys

def words(text):
    return [w for w in re.sub(r"[^a-z0-9 ]", " ", text.lower()).split() if w]

known = words(open(sys.argv[1]).read())
best, frames = 0, 0
for line in open(sys.argv[2], errors="replace"):
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("class") != "TEXT":
        continue
    frames += 1
    read = set(words(message.get("text", "")))
    best = max(best, sum(1 for w in known if w in read))
print(f"{best} {len(known)} {best / max(len(known), 1):.3f} {frames}")
