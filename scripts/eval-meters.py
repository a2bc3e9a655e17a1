#!/usr/bin/env python3
"""Measures lectord on real fuel-pump LCD photos: ../shared/testdata/meters (issue 44).

Each photo is read by the built lectord on its own: a camera replaying the photo
(`loop = true`) with the engine asked (`--engine segments`: the whole frame, the
detector finds the line; `default`: lectord's defaults), for up to --frames frames,
and a camera-wide rule

    [rule pump/litres]
    match = ^\\d+\\.\\d\\d$
    decimals = 2

A photo counts when lectord gives a MATCH whose integer part is the photo's litres
(truth.tsv: the integer part only; the display shows two decimals), and is wrong
when its first MATCH's integer part is another. With a lectord that does not know
the rule key `decimals` (`lectord --check-config` says so), the script applies it
itself to the lines lectord read (TEXT), in frame order: the line's digits with the
point placed 2 from the right, whether or not the point was read, matched against
`^\\d+\\.\\d\\d$` (as `decimals = 2` does); the header says which.

Also prints per quality set (HQ, MQ, LQ) and the mean CPU per photo.
The photos stay where they are: nothing is copied into the repository.

`--half A` or `B` measures only the photos of that half (scripts/segment_lines.py's
`half`: by the file name's hash), the cross-validation halves of a network fine-tuned on
the other half's photos (scripts/train-segments.py `--real … --half`); `--model FILE`
has lectord read with that network (`engine_model`) instead of the installed one.

usage: scripts/eval-meters.py [--lectord PATH] [--data DIR] [--engine segments|default|neural]
                              [--frames 3] [--limit N] [--jobs 2] [--verbose] [--quota 0.33]
                              [--half A|B] [--model FILE]
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import segment_lines  # beside this script: the cross-validation halves, what `decimals` places

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PATTERN = re.compile(r"^\d+\.\d\d$")


def knows_decimals(lectord, work):
    conf = os.path.join(work, "probe.conf")
    with open(conf, "w") as handle:
        handle.write("[camera pump]\nreplay = /dev/null\n\n[rule pump/litres]\nmatch = ^\\d+$\ndecimals = 2\n")
    done = subprocess.run([lectord, "--config", conf, "--check-config"], capture_output=True, text=True)
    return done.returncode == 0


def config(photo, engine, decimals, model=None):
    lines = ["[camera pump]", f"replay = {photo}", "loop = true", "fps = 2"]
    if engine != "default":
        lines.append(f"engine = {engine}")
    if model:
        lines.append(f"engine_model = {os.path.abspath(model)}")
    lines += ["", "[rule pump/litres]", "match = ^\\d+\\.\\d\\d$"]
    if decimals:
        lines.append("decimals = 2")
    return "\n".join(lines) + "\n"


def line_texts(message):
    """The lines of a TEXT message (its children's text joined), in order."""
    out = []

    def walk(element):
        if element.get("level") == "line":
            out.append(element.get("text") or " ".join(w.get("text", "") for w in element.get("children", [])))
            return
        for child in element.get("children", []) or []:
            walk(child)

    for element in message.get("children", []) or message.get("blocks", []) or []:
        walk(element)
    if not out and message.get("text"):
        out = message["text"].split("\n")
    return out


def read_one(args, photo, decimals, work, quota):
    name = os.path.basename(photo)
    conf = os.path.join(work, name + ".conf")
    with open(conf, "w") as handle:
        handle.write(config(photo, args.engine, decimals, args.model))
    command = [args.lectord, "--config", conf, "--stdout", "--max-frames", str(args.frames)]
    if quota:
        command = [sys.executable, os.path.join(HERE, "cpuquota.py"), f"{quota * 100:g}", "--"] + command  # cpuquota.py takes percent
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.time()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    wall = time.time() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    matches, candidates, texts, first_match_at = [], [], [], None
    for line in done.stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("class") == "MATCH" and not message.get("rejected"):
            matches.append(message.get("text", ""))
            if first_match_at is None:
                first_match_at = time.time() - started
        elif message.get("class") == "TEXT":
            for text in line_texts(message):
                texts.append(text)
                value = segment_lines.placed(text)
                if value and PATTERN.match(value):
                    candidates.append(value)
    return {"photo": name, "matches": matches if decimals else candidates, "texts": texts, "rc": done.returncode,
            "stderr": done.stderr[-400:], "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
            "wall": wall}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lectord", default=os.path.join(ROOT, ".build", "release", "lectord"))
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "testdata", "meters"))
    parser.add_argument("--engine", default="segments")
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quota", type=float, default=0, help="run each lectord in this share of a core (scripts/cpuquota.py)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--half", choices=("A", "B"), help="only the photos of this cross-validation half")
    parser.add_argument("--model", help="the network lectord reads with (engine_model; default: the installed one)")
    args = parser.parse_args()
    truth = []
    with open(os.path.join(args.data, "truth.tsv")) as handle:
        for row in handle:
            parts = row.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[0].endswith(".jpg"):
                truth.append((parts[0], parts[1], parts[2]))
    if args.half:
        sys.path.insert(0, HERE)
        truth = [row for row in truth if segment_lines.half(row[0]) == args.half]
    if args.limit:
        truth = truth[: args.limit]
    work = tempfile.mkdtemp(prefix="eval-meters-")
    decimals = knows_decimals(args.lectord, work)
    print(f"engine {args.engine}" + (f" ({args.model})" if args.model else "") + (f", half {args.half}" if args.half else "")
          + f", {len(truth)} photos, rule ^\\d+\\.\\d\\d$ with decimals = 2 "
          + ("by lectord (MATCH)" if decimals else "applied by this script to lectord's lines (no 'decimals' key in this lectord)"))
    tally = collections.defaultdict(lambda: [0, 0, 0])  # right, wrong first, none
    cpu = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(read_one, args, os.path.join(args.data, "img", name), decimals, work, args.quota): (name, litres, quality)
                   for name, litres, quality in truth}
        for future in concurrent.futures.as_completed(futures):
            name, litres, quality = futures[future]
            result = future.result()
            cpu.append(result["cpu"])
            integers = [m.split(".")[0].lstrip("0") or "0" for m in result["matches"]]
            right = litres in integers
            wrong_first = bool(integers) and integers[0] != litres
            for key in (quality, "all"):
                tally[key][0 if right else (1 if wrong_first else 2)] += 1
            if args.verbose or (not right and args.verbose is not None and os.environ.get("EVAL_MISSES")):
                print(f"{'ok ' if right else 'BAD'} {name} truth {litres} matches {result['matches'][:3]} lines {result['texts'][:6]}"
                      + (f" rc {result['rc']} {result['stderr']}" if result["rc"] not in (0,) else ""), flush=True)
    print(f"{'set':6} {'right':>12} {'wrong first':>12} {'no match':>9}")
    for key in ("HQ", "MQ", "LQ", "all"):
        right, wrong, none = tally[key]
        n = max(1, right + wrong + none)
        print(f"{key:6} {right:5}/{n:<3} {right / n:.3f} {wrong:12} {none:9}")
    print(f"CPU per photo (lectord process, {args.frames} frames, start included): mean {sum(cpu) / max(1, len(cpu)):.2f} s")


if __name__ == "__main__":
    main()
