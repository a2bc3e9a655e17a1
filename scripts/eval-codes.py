#!/usr/bin/python3
"""Measures lectord's codes against the truth of scripts/make-code-scenes.py (issue 48).

    scripts/eval-codes.py FRAMES [--lectord PATH] [--json]

Replays FRAMES (each file one frame, read whole) through the real lectord with
`--codes on --stdout` and compares its CODE messages with FRAMES/truth.json: per format,
the share of readable codes found with the right text (a frame's codes are new
contents, so each is its own appearance); codes found that the frame does not hold;
and the frames whose label text and code were both published. Exits 1 when lectord
fails.

An EAN-13 whose first digit is 0 is bar for bar a UPC-A symbol (the 12 digits after the
0): a scanner that reads UPC-A reports it so (ZXing does when `upc_a` is among the
formats, as with `--codes on`), so such a UPC-A counts as that EAN-13 found.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(frames, lectord):
    """lectord's CODE and TEXT messages by frame sequence number."""
    command = [lectord, "--replay", frames, "--stdout", "--codes", "on", "--log-level", "warning"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit("lectord failed (%d)" % done.returncode)
    codes, texts = collections.defaultdict(list), {}
    for line in done.stdout.splitlines():
        message = json.loads(line)
        if message["class"] == "CODE":
            codes[message["seq"]].append(message)
        elif message["class"] == "TEXT":
            texts[message["seq"]] = message["text"]
    return codes, texts


def same_symbol(found):
    """`found` (format, text) as the generator names it: a UPC-A also as the EAN-13 with
    a leading 0 that is the same symbol."""
    names = {found}
    if found[0] == "upc_a":
        names.add(("ean13", "0" + found[1]))
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("frames")
    parser.add_argument("--lectord", default=os.path.join(HERE, "..", ".build", "debug", "lectord"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    truth = json.load(open(os.path.join(args.frames, "truth.json")))["frames"]
    codes, texts = run(args.frames, args.lectord)
    per_format = collections.defaultdict(lambda: [0, 0, 0, 0])  # readable, found; unreadable, found
    false_codes, both, labelled = 0, 0, 0
    for index, entry in enumerate(truth):
        wanted = {(c["format"], c["text"]) for c in entry["codes"]}
        found = set()
        for c in codes.get(index, []):
            names = same_symbol((c["format"], c["text"]))
            found |= names & wanted or names
        false_codes += len(found - wanted)
        for code in entry["codes"]:
            counts = per_format[code["format"]]
            hit = (code["format"], code["text"]) in found
            if code["readable"]:
                counts[0] += 1
                counts[1] += hit
            else:
                counts[2] += 1
                counts[3] += hit
        if len(entry["codes"]) == 1:
            labelled += 1
            both += bool(found & wanted) and "PARCEL" in texts.get(index, "")
    result = {"formats": {f: {"readable": c[0], "found": c[1], "recall": round(c[1] / c[0], 3) if c[0] else None,
                              "unreadable": c[2], "unreadable_found": c[3]} for f, c in sorted(per_format.items())},
              "false_codes": false_codes, "labelled_frames": labelled, "text_and_code": both}
    if args.json:
        print(json.dumps(result))
    else:
        for name, f in result["formats"].items():
            print("%-12s readable %3d found %3d recall %s   (unreadable %d, found %d)"
                  % (name, f["readable"], f["found"], f["recall"], f["unreadable"], f["unreadable_found"]))
        print("false codes %d; frames with label text and code both published %d of %d"
              % (false_codes, both, labelled))
    return 0


if __name__ == "__main__":
    sys.exit(main())
