#!/usr/bin/env python3
"""Measures lectord on real camera photos: ../shared/testdata/realworld/ (issue 17).

Runs the built lectord once per image, with its defaults, `--replay IMAGE --stdout
--max-frames 1 --lang LANG` (the language from truth.tsv), for each layout asked
(`--layout tesseract`, `--layout detector`), and prints one row per layout. A layout
may name a line engine too, `detector/tesseract` (`--layout detector --engine tesseract`),
and `default` is lectord's defaults (the detector with `--engine auto`, issue 26):

  layout     docs R/P       scene n/22  scene R/P  plates n/40  crops n/60  ms/doc frame

Scoring (the data's README): bag-of-words recall and precision over all document
images, case-insensitive, every non-alphanumeric character removed, each truth word
matched once; scene: truth words matched, and the share of the words read that are
truth words (precision); a plate counts as read when its string
appears in the output with everything but letters and digits removed. ms/doc frame is
the mean `recognize_ms` of the FRAME lines of the document photos.

With --engines, it compares the line engines instead (issue 26): lector-bench's
`engines` section detects each photo's lines once and reads every line with Tesseract
(page segmentation 7) and with each installed neural model; this script scores each
engine with the same rules, and the cascades "Tesseract first, the neural model where
Tesseract's line confidence is below T" (each also with "lines shorter than --short
times their thickness to the neural model at once"; and with "also where a word, or a
word running digits into letters, is below --least-word"), one row each:

  engine                docs R/P       scene  plates  crops  ms/line  cpu ms  doc ms  neural

doc ms: ms/line of the document photos' lines alone; neural: lines the neural model read.
ms/line is the mean wall time over every line of every set (a cascade: Tesseract's
plus the neural reads it made), cpu ms the same in the reading thread's CPU time (steadier
on a shared machine). --lines FILE scores a file lector-bench already wrote.

Side by side with RapidOCR (issue 40): when a Python with rapidocr is there
(--rapidocr PYTHON, default .build/rapidocr-venv/bin/python3; `pip install
rapidocr==3.10.0 onnxruntime==1.32.0`), RapidOCR reads the same photos on one thread
and a second table gives per set the CPU per image of the first layout's lectord and
of RapidOCR, timed the same way on both sides twice, and both recalls:

  set        lector process  RapidOCR process  lector read  RapidOCR read  lector  RapidOCR

Both run a process per image (RapidOCR: scripts/bench-rapidocr.py, one image), and
"process" is its CPU, start included. "read" is that less the start, the least over
the run on each side: for lectord the CPU of the same lectord reading a blank 64×64
image (the process, Tesseract and the networks loaded), for RapidOCR the CPU of its
process once loaded (Python, the imports and its three sessions). Both starts are
printed above the table; each read is in a fresh process's memory on both sides.

The images stay where they are: nothing is copied into the repository. Another set
laid out the same way (truth.tsv with its scene photos) is scored with --data: the 100
ICDAR 2015 frames, `--data ../shared/testdata/scene-ic15 --sets scene` (issue 46).

usage: scripts/eval-realworld.py [--lectord PATH] [--data DIR] [--layouts tesseract,detector]
                                 [--sets docphoto,scene,platefull,platecrop] [--verbose] [--rapidocr PYTHON]
                                 [-- LECTORD-ARGS...]
       scripts/eval-realworld.py --engines [--bench PATH] [--lines FILE] [--data DIR] [--thresholds 0.5,0.9] [--short 4]
                                 [--least-word 0.85,0.9]
"""
import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from realworld import ROOT, SETS, alnum, read_image, score, truth_rows, words  # noqa: E402  (the shared scoring)


def built(program):
    """The built `program` (the release build first), or None."""
    for build in ("release", "debug"):
        candidate = os.path.join(ROOT, ".build", build, program)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def score_engine(rows, texts, sets):
    """One engine's reads of the detected lines, scored over the sets: (recall, precision, scene matched, scene truth, plates {set: [read, count]}) of `texts` {(set, name): text}."""
    docs = {"truth": 0, "output": 0, "matched": 0}
    scene = {"truth": 0, "matched": 0}
    plates = {"platefull": [0, 0], "platecrop": [0, 0]}
    for set_name, name, _, truth in rows:
        if set_name not in sets or (set_name, name) not in texts:
            continue
        text = texts[(set_name, name)]
        if set_name in ("docphoto", "scene"):
            want, got = collections.Counter(words(truth)), collections.Counter(words(text))
            matched = sum((want & got).values())
            target = docs if set_name == "docphoto" else scene
            target["truth"] += sum(want.values())
            target["matched"] += matched
            if set_name == "docphoto":
                docs["output"] += sum(got.values())
        else:
            plates[set_name][0] += int(alnum(truth) != "" and alnum(truth) in alnum(text))
            plates[set_name][1] += 1
    recall = docs["matched"] / docs["truth"] if docs["truth"] else 0
    precision = docs["matched"] / docs["output"] if docs["output"] else 0
    return recall, precision, scene, plates


def digits_and_letters(word):
    """A word with both digits and letters ("500g", "230V"), as LinePolicy tells them."""
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def short_first(record, name, short, otherwise):
    """A line shorter than `short` times its thickness read by the neural model `name`
    alone (LinePolicy.neuralFirst); other lines as `otherwise(record)` says."""
    if record["length"] < short * record["thickness"]:
        return record[name]["text"], [name]
    return otherwise(record)


def compare_engines(args):
    """The --engines mode: lector-bench reads every detected line with each engine; scored here."""
    lines_path = args.lines
    if lines_path is None or not os.path.exists(lines_path):
        bench = args.bench or built("lector-bench")
        if bench is None:
            sys.exit("eval-realworld: no built lector-bench (swift build -c release --product lector-bench), or give --bench")
        if lines_path is None:
            lines_path = f"/tmp/lector-eval-lines-{os.getpid()}.jsonl"
        print(f"# {bench} --only engines --realworld {os.path.realpath(args.data)} --lines {lines_path}", flush=True)
        subprocess.run([bench, "--only", "engines", "--realworld", args.data, "--lines", lines_path], check=True,
                       stdout=sys.stderr)
    rows = truth_rows(args.data)
    sets = args.sets.split(",")
    records = []
    with open(lines_path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if "line" in record:
                records.append(record)
    engines = [name for name in ("tesseract", "neural-full", "neural-latin") if records and name in records[0]]
    print(f"# data {os.path.realpath(args.data)}; {len(records)} detected lines; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'engine':<40} {'docs R/P':<14} {'scene':>6} {'plates':>7} {'crops':>6} {'ms/line':>8} {'cpu ms':>7} {'doc ms':>8} {'neural':>7}")

    def row(label, choose):
        """`choose(record)` -> (text, [engines that read it]) per line."""
        texts, total_ms, total_cpu, neural = collections.defaultdict(list), 0.0, 0.0, 0
        doc_ms, doc_lines = 0.0, 0
        for record in records:
            text, read = choose(record)
            texts[(record["set"], record["image"])].append(text)
            total_ms += sum(record[name]["ms"] for name in read)
            if record["set"] == "docphoto":
                doc_ms += sum(record[name]["ms"] for name in read)
                doc_lines += 1
            total_cpu += sum(record[name].get("cpu_ms", 0) for name in read)
            neural += int(any(name != "tesseract" for name in read))
        recall, precision, scene, plates = score_engine(rows, {key: "\n".join(value) for key, value in texts.items()}, sets)
        print(f"{label:<40} {f'{recall:.3f} / {precision:.3f}':<14} {scene['matched']:>3}/{scene['truth']:<2} "
              f"{plates['platefull'][0]:>4}/{plates['platefull'][1]:<2} {plates['platecrop'][0]:>3}/{plates['platecrop'][1]:<2} "
              f"{total_ms / max(len(records), 1):>8.1f} {total_cpu / max(len(records), 1):>7.1f} {doc_ms / max(doc_lines, 1):>8.1f} {neural:>7}", flush=True)

    for name in engines:
        row(name, lambda r, name=name: (r[name]["text"], [name]))
    for name in [e for e in engines if e != "tesseract"]:
        for threshold in [float(t) for t in args.thresholds.split(",")]:
            def cascade(r, name=name, threshold=threshold):
                first = r["tesseract"]
                if first["confidence"] >= threshold:
                    return first["text"], ["tesseract"]
                return r[name]["text"], ["tesseract", name]
            row(f"tesseract, {name} < {threshold:.2f}", cascade)
            # Short lines (a plate, a number, a word on a sign) straight to the neural model.
            row(f"  {name} if shorter than {args.short:g}x", lambda r, name=name, cascade=cascade:
                short_first(r, name, args.short, cascade))
        # A line's mean hides one unsure word ("500g" at 0.84 in a line at 0.92): the
        # neural model also where a word is below T, or where a word running digits into
        # letters is (LinePolicy: a number and its unit read as one word).
        for least in [float(t) for t in args.least_word.split(",") if t]:
            for label, counts in (("a word", lambda word: True), ("a digits-and-letters word", digits_and_letters)):
                def unsure(r, name=name, least=least, counts=counts):
                    first = r["tesseract"]
                    if first["confidence"] >= 0.9 and not any(counts(w) and c < least for w, c in first.get("words", [])):
                        return first["text"], ["tesseract"]
                    return r[name]["text"], ["tesseract", name]
                row(f"  {name} if short, line < 0.90, {label} < {least:.2f}", lambda r, name=name, unsure=unsure:
                    short_first(r, name, args.short, unsure))
        # The better-confident of both (both always read): an upper bound of a confidence vote.
        row(f"both, higher confidence ({name})",
            lambda r, name=name: ((r[name] if r[name]["confidence"] >= r["tesseract"]["confidence"] else r["tesseract"])["text"],
                                  ["tesseract", name]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lectord", default=None, help="lectord to run (default .build/release/lectord, else .build/debug)")
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "testdata", "realworld"))
    parser.add_argument("--layouts", default="default,detector/tesseract,tesseract",
                        help="LAYOUT or LAYOUT/ENGINE, comma-separated; default: lectord's defaults")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--verbose", action="store_true", help="print each image's score")
    parser.add_argument("--engines", action="store_true", help="compare the line engines on the detector's lines (lector-bench)")
    parser.add_argument("--bench", default=None, help="lector-bench to run (default .build/release, else .build/debug)")
    parser.add_argument("--lines", default=None, help="the lines lector-bench wrote (read when it exists, else written there)")
    parser.add_argument("--least-word", default="0.85,0.9",
                        help="word confidences below which a cascade (line < 0.90, short lines too) re-reads as well")
    parser.add_argument("--thresholds", default="0.5,0.7,0.8,0.9,0.95", help="Tesseract line confidences below which a cascade re-reads")
    parser.add_argument("--short", type=float, default=4,
                        help="a cascade's line shorter than this many times its thickness goes to the neural model at once")
    parser.add_argument("--rapidocr", default=os.path.join(ROOT, ".build", "rapidocr-venv", "bin", "python3"),
                        help="a Python with rapidocr: the CPU per image side by side (none: skipped)")
    parser.add_argument("extra", nargs="*", help="more lectord arguments (after --)")
    args = parser.parse_args()
    if args.engines:
        compare_engines(args)
        return
    lectord = args.lectord or built("lectord")
    if lectord is None:
        sys.exit("eval-realworld: no built lectord (swift build -c release), or give --lectord")
    sets = args.sets.split(",")
    print(f"# lectord {lectord}; data {os.path.realpath(args.data)}; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          f"load average {os.getloadavg()[0]:.1f}")
    header = (f"{'layout':<20} {'docs R/P':<14} {'scene':>8} {'scene R/P':>14} {'plates':>8} {'crops':>8} "
              f"{'ms/doc frame':>13} {'s/image':>8}")
    print(header)
    first = None  # the first layout's reads per set: [(cpu seconds, matched, total)]
    for layout in args.layouts.split(","):
        per_set = collections.defaultdict(list)
        docs = {"truth": 0, "output": 0, "matched": 0}
        scene = {"truth": 0, "output": 0, "matched": 0}
        plates = {"platefull": [0, 0], "platecrop": [0, 0]}
        doc_ms, seconds, problems = [], [], []
        for set_name, name, lang, truth in truth_rows(args.data):
            if set_name not in sets:
                continue
            path = os.path.join(args.data, set_name, name)
            chosen, _, engine = layout.partition("/")
            extra = (["--engine", engine] if engine else []) + list(args.extra)
            cpu_before = children_cpu()
            text, recognize, elapsed, problem = read_image(lectord, path, lang, None if chosen == "default" else chosen,
                                                           extra, args.timeout)
            per_set[set_name].append((children_cpu() - cpu_before,) + score(set_name, truth, text))
            seconds.append(elapsed)
            if problem:
                problems.append(f"{set_name}/{name}: {problem}")
            if set_name in ("docphoto", "scene"):
                matched, total = score(set_name, truth, text)
                if set_name == "docphoto":
                    docs["truth"] += total
                    docs["output"] += len(words(text))
                    docs["matched"] += matched
                    if recognize is not None:
                        doc_ms.append(recognize)
                else:
                    scene["truth"] += total
                    scene["output"] += len(words(text))
                    scene["matched"] += matched
                if args.verbose:
                    print(f"  {layout} {set_name}/{name}: {matched}/{total} truth words, "
                          f"{len(words(text))} read, {recognize} ms", file=sys.stderr)
            else:
                hit = score(set_name, truth, text)[0] == 1
                plates[set_name][0] += int(hit)
                plates[set_name][1] += 1
                if args.verbose:
                    print(f"  {layout} {set_name}/{name}: {'read' if hit else 'missed'} {truth!r} in {text!r}", file=sys.stderr)
        recall = docs["matched"] / docs["truth"] if docs["truth"] else 0
        precision = docs["matched"] / docs["output"] if docs["output"] else 0
        ms = sum(doc_ms) / len(doc_ms) if doc_ms else 0
        mean_s = sum(seconds) / len(seconds) if seconds else 0
        docs_text = f"{recall:.3f} / {precision:.3f}"
        scene_text = f"{scene['matched']}/{scene['truth']}"
        scene_rp = (f"{scene['matched'] / max(scene['truth'], 1):.3f} / "
                    f"{scene['matched'] / scene['output'] if scene['output'] else 0:.3f}")
        full_text = f"{plates['platefull'][0]}/{plates['platefull'][1]}"
        crop_text = f"{plates['platecrop'][0]}/{plates['platecrop'][1]}"
        print(f"{layout:<20} {docs_text:<14} {scene_text:>8} {scene_rp:>14} {full_text:>8} {crop_text:>8} {ms:>13.0f} "
              f"{mean_s:>8.2f}", flush=True)
        for problem in problems[:10]:
            print(f"  problem: {problem}", file=sys.stderr)
        if first is None:
            first = per_set
            start = start_cpu(lectord, None if chosen == "default" else chosen, extra, args.timeout)
    if first and os.access(args.rapidocr, os.X_OK):
        compare_rapidocr(args, sets, first, start)
    elif first:
        print(f"# RapidOCR: no {args.rapidocr} (pip install rapidocr==3.10.0 onnxruntime==1.32.0 in a venv there): skipped")


def children_cpu():
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def start_cpu(lectord, layout, extra, timeout):
    """The least CPU seconds of three reads of a blank 64×64 image: lectord's start."""
    blank = f"/tmp/lector-eval-blank-{os.getpid()}.pgm"
    with open(blank, "wb") as handle:
        handle.write(b"P5\n64 64\n255\n" + b"\xff" * 64 * 64)
    times = []
    for _ in range(3):
        before = children_cpu()
        read_image(lectord, blank, "eng", layout, extra, timeout)
        times.append(children_cpu() - before)
    os.unlink(blank)
    return min(times)


def compare_rapidocr(args, sets, lector, start):
    """RapidOCR on the same photos, one thread; the CPU per image and recall per set
    beside lectord's (`lector`: per set, [(cpu seconds, matched, total)]; `start`: the
    CPU seconds of lectord's start)."""
    rapid, rapid_starts = collections.defaultdict(list), []
    for set_name, name, _, truth in truth_rows(args.data):
        if set_name not in sets:
            continue
        # A process per image, as lectord's: its start and a read in fresh memory.
        peer = subprocess.Popen([args.rapidocr, os.path.join(ROOT, "scripts", "bench-rapidocr.py")],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        start_s = json.loads(peer.stdout.readline() or "{}").get("start_s")
        peer.stdin.write(os.path.join(args.data, set_name, name) + "\n")
        peer.stdin.close()
        answer = json.loads(peer.stdout.readline() or "{}")
        peer.wait()
        if start_s is None or "cpu_s" not in answer:
            print(f"  problem: RapidOCR on {set_name}/{name}: {answer.get('error', 'no answer')}", file=sys.stderr)
            continue
        rapid_starts.append(start_s)
        rapid[set_name].append((start_s + answer["cpu_s"],) + score(set_name, truth, answer["text"]))
    rapid_start = min(rapid_starts, default=0.0)
    print(f"# start: lectord {start:.2f} s of CPU (a blank 64x64 image), RapidOCR {rapid_start:.2f} s (loaded)")
    print(f"{'set':<10} {'lector process':>15} {'RapidOCR process':>17} {'lector read':>12} {'RapidOCR read':>14} "
          f"{'lector':>8} {'RapidOCR':>9}")
    for set_name in sets:
        def summary(reads):
            cpu = sum(r[0] for r in reads) / max(len(reads), 1)
            matched, total = sum(r[1] for r in reads), sum(r[2] for r in reads)
            recall = f"{matched / max(total, 1):.3f}" if set_name == "docphoto" else f"{matched}/{total}"
            return cpu, recall
        (lector_cpu, lector_recall), (rapid_cpu, rapid_recall) = summary(lector[set_name]), summary(rapid[set_name])
        print(f"{set_name:<10} {lector_cpu:>13.2f} s {rapid_cpu:>15.2f} s {lector_cpu - start:>10.2f} s "
              f"{rapid_cpu - rapid_start:>12.2f} s {lector_recall:>8} {rapid_recall:>9}", flush=True)


if __name__ == "__main__":
    main()
