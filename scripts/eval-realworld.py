#!/usr/bin/env python3
"""Measures lectord on real camera photos: ../shared/testdata/realworld/ (issue 17).

Runs the built lectord once per image, with its defaults, `--replay IMAGE --stdout
--max-frames 1 --lang LANG` (the language from truth.tsv), for each layout asked
(`--layout tesseract`, `--layout detector`), and prints one row per layout:

  layout     docs R/P       scene n/22  plates n/40  crops n/60  ms/doc frame

Scoring (the data's README): bag-of-words recall and precision over all document
images, case-insensitive, every non-alphanumeric character removed, each truth word
matched once; scene: truth words matched; a plate counts as read when its string
appears in the output with everything but letters and digits removed. ms/doc frame is
the mean `recognize_ms` of the FRAME lines of the document photos.

The images stay where they are: nothing is copied into the repository.

usage: scripts/eval-realworld.py [--lectord PATH] [--data DIR] [--layouts tesseract,detector]
                                 [--sets docphoto,scene,platefull,platecrop] [--verbose] [-- LECTORD-ARGS...]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from realworld import ROOT, SETS, read_image, score, truth_rows, words  # noqa: E402  (the shared scoring)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lectord", default=None, help="lectord to run (default .build/release/lectord, else .build/debug)")
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "testdata", "realworld"))
    parser.add_argument("--layouts", default="tesseract,detector")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--verbose", action="store_true", help="print each image's score")
    parser.add_argument("extra", nargs="*", help="more lectord arguments (after --)")
    args = parser.parse_args()
    lectord = args.lectord
    if lectord is None:
        for build in ("release", "debug"):
            candidate = os.path.join(ROOT, ".build", build, "lectord")
            if os.access(candidate, os.X_OK):
                lectord = candidate
                break
    if lectord is None:
        sys.exit("eval-realworld: no built lectord (swift build -c release), or give --lectord")
    sets = args.sets.split(",")
    print(f"# lectord {lectord}; data {os.path.realpath(args.data)}; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; "
          f"load average {os.getloadavg()[0]:.1f}")
    header = f"{'layout':<10} {'docs R/P':<14} {'scene':>8} {'plates':>8} {'crops':>8} {'ms/doc frame':>13} {'s/image':>8}"
    print(header)
    for layout in args.layouts.split(","):
        docs = {"truth": 0, "output": 0, "matched": 0}
        scene = {"truth": 0, "matched": 0}
        plates = {"platefull": [0, 0], "platecrop": [0, 0]}
        doc_ms, seconds, problems = [], [], []
        for set_name, name, lang, truth in truth_rows(args.data):
            if set_name not in sets:
                continue
            path = os.path.join(args.data, set_name, name)
            text, recognize, elapsed, problem = read_image(lectord, path, lang, layout, args.extra, args.timeout)
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
        full_text = f"{plates['platefull'][0]}/{plates['platefull'][1]}"
        crop_text = f"{plates['platecrop'][0]}/{plates['platecrop'][1]}"
        print(f"{layout:<10} {docs_text:<14} {scene_text:>8} {full_text:>8} {crop_text:>8} {ms:>13.0f} {mean_s:>8.2f}", flush=True)
        for problem in problems[:10]:
            print(f"  problem: {problem}", file=sys.stderr)


if __name__ == "__main__":
    main()
