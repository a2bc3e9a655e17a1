#!/usr/bin/env python3
"""How many known words lectord read, from its --stdout output (TEXT and FRAME lines).

usage: count-words.py KNOWN.txt STDOUT-FILE
KNOWN holds one page of text, or several separated by blank lines (the demo's frames).
Each TEXT message is matched to the page it shares most words with; a page's score is
its best TEXT's count of its known words (case-insensitive, punctuation stripped).
Prints: "<read> <known> <fraction> <text-frames> <accounting> <pages-seen>/<pages>" over
the pages some TEXT matched (a live source may drop a whole page), and <accounting> is "ok" when the last
FRAME's counters satisfy captured = recognized + dropped + rejected + unchanged + at most
one in flight, else the numbers. Exit 0 always: the caller judges.
"""
import json
import re
import sys
from collections import Counter


def words(text):
    return [w for w in re.sub(r"[^a-z0-9 ]", " ", text.lower()).split() if w]


pages = [Counter(words(p)) for p in open(sys.argv[1]).read().split("\n\n") if p.strip()]
best = [0] * len(pages)
frames, last = 0, None
for line in open(sys.argv[2], errors="replace"):
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("class") == "TEXT":
        frames += 1
        read = Counter(words(message.get("text", "")))
        scores = [sum(min(n, read[w]) for w, n in page.items()) for page in pages]
        page = max(range(len(pages)), key=lambda i: scores[i])
        best[page] = max(best[page], scores[page])
    elif message.get("class") == "FRAME":
        last = message
seen = [i for i in range(len(pages)) if best[i] > 0]
read = sum(best[i] for i in seen)
total = sum(sum(pages[i].values()) for i in seen) if seen else sum(sum(p.values()) for p in pages)
accounting = "none"
if last:
    c = {k: last.get(k, 0) for k in ("captured", "recognized", "dropped", "rejected", "unchanged")}
    in_flight = c["captured"] - c["recognized"] - c["dropped"] - c["rejected"] - c["unchanged"]
    accounting = "ok" if 0 <= in_flight <= 1 else ",".join(f"{k}={v}" for k, v in c.items())
print(f"{read} {total} {read / max(total, 1):.3f} {frames} {accounting} {len(seen)}/{len(pages)}")
