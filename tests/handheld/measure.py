#!/usr/bin/python3
"""Live text on a hand-held camera (issue 25 point 6), through the real daemon.

Each still scene of scripts/make-live-sequences.py `--shake independent` (every frame
shifted and turned on its own, defocus and noise varying; ground truth in its .json) is
replayed as a camera of its own lectord, `--replay SCENE.mjpeg --fps F --stdout`, with
the defaults otherwise, a few at a time. Per scene it counts:

- recognitions after settling: FRAMEs (each one recognition) after the first FRAME at or
  past the last `new` track's last sighting (a scene with no track: after its stack first
  filled), against the scene's captured frames;
- the deepest stack: the largest `stacked` of the scene's FRAMEs;
- track churn: `new` and `gone` events per line of the scene's text;
- the settled recall: the truth words found in the tracks' last announced texts.

- the recognized share: the scene's FRAMEs against its captured frames, settling included.

Checks (issue 25, "Done when"): recognitions after settling <= 10 % of the captured
frames, stacks reaching >= 8 frames, at most 2 `new` and 2 `gone` per line, on every
scene; and (issue 49) the recognized share <= 10 % on every scene: a still scene whose
gate never settles (read in most frames) fails it even when its tracks settle early.

    measure.py LECTORD SEQ_DIR [SEQ_DIR...] [--fps 15] [--jobs 3] [--extra-args "..."] [--json FILE]
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from lectortest import Suite, recall, replay_to_end, words  # noqa: E402

AFTER_SETTLING_SHARE = 0.10
RECOGNIZED_SHARE = 0.10
STACK_DEPTH = 8
EVENTS_PER_LINE = 2


def scene_figures(name, truth, messages):
    """The figures of one scene from its lectord's messages."""
    lines = truth["scenes"][0]["lines"]
    frames = [m for _, m in messages if m["class"] == "FRAME"]
    tracks = [m for _, m in messages if m["class"] == "TRACK"]
    news = [m for m in tracks if m["event"] == "new"]
    gones = [m for m in tracks if m["event"] == "gone"]
    # Settled: at the last `new` track's last sighting; a scene of which no line was
    # read settles when its stack first fills (more reads of it are the cost checked).
    if news:
        settled = max(m["last_seen"] for m in news)
        settle_seq = min((f["seq"] for f in frames if f["time"] >= settled), default=None)
    else:
        deepest = max((f.get("stacked", 0) for f in frames), default=0)
        settle_seq = min((f["seq"] for f in frames if f.get("stacked", 0) >= deepest), default=None)
    after = None if settle_seq is None else sum(1 for f in frames if f["seq"] > settle_seq)
    announced = {}
    for m in tracks:
        if m["event"] in ("new", "changed"):
            announced[m["id"]] = m["text"]
        elif m["event"] == "gone":
            announced.pop(m["id"], None)
    return {"scene": name, "kind": truth["scenes"][0]["kind"], "lines": len(lines),
            "captured": truth["frames"], "recognized": len(frames),
            "share": round(len(frames) / max(1, truth["frames"]), 3),
            "after_settling": after, "stack_max": max((f.get("stacked", 0) for f in frames), default=0),
            "new": len(news), "gone": len(gones),
            "settled_recall": round(recall(words(" ".join(lines)), " ".join(announced.values())), 3)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lectord")
    parser.add_argument("seq_dirs", nargs="+", metavar="seq_dir")
    parser.add_argument("--fps", type=float, default=15)
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--extra-args", default="")
    parser.add_argument("--json", help="write the figures here")
    options = parser.parse_args()
    # Scenes of the first folder are named still-NN; of the others FOLDER/still-NN.
    truths, paths = {}, {}
    for index, folder in enumerate(options.seq_dirs):
        for name in sorted(os.listdir(folder)):
            if name.startswith("still-") and name.endswith(".json"):
                scene = name[:-5] if index == 0 else os.path.basename(folder.rstrip("/")) + "/" + name[:-5]
                truths[scene] = json.load(open(os.path.join(folder, name)))
                paths[scene] = os.path.join(folder, name[:-5] + ".mjpeg")
    args = ["--fps", str(options.fps)] + shlex.split(options.extra_args)

    def run(name):
        return scene_figures(name, truths[name], replay_to_end(options.lectord, [paths[name]], args))

    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        rows = list(pool.map(run, truths))
    checks = Suite("handheld")
    print("     scene                kind  lines captured recognized share after-settling stack-max new gone settled-recall")
    for r in rows:
        print(f"     {r['scene']:20} {r['kind']:5} {r['lines']:5} {r['captured']:8} {r['recognized']:10} {r['share']:5.3f} "
              f"{str(r['after_settling']):>13} {r['stack_max']:9} {r['new']:3} {r['gone']:4} {r['settled_recall']:14.3f}")
    unsettled = [r["scene"] for r in rows if r["after_settling"] is None]  # no FRAME at all
    busy = [f"{r['scene']} {r['after_settling']}/{r['captured']}" for r in rows
            if r["after_settling"] is not None and r["after_settling"] > AFTER_SETTLING_SHARE * r["captured"]]
    checks.check(f"recognitions after settling <= {AFTER_SETTLING_SHARE:.0%} of the captured frames on each of "
                 f"{len(rows)} scenes" + (f" (over: {', '.join(busy)})" if busy else "")
                 + (f" (no FRAME: {', '.join(unsettled)})" if unsettled else ""),
                 not busy and not unsettled)
    costly = [f"{r['scene']} {r['share']:.3f}" for r in rows if r["share"] > RECOGNIZED_SHARE]
    checks.check(f"recognized share <= {RECOGNIZED_SHARE:.2f} of the captured frames on each of {len(rows)} scenes"
                 + (f" (over: {', '.join(costly)})" if costly else ""), not costly)
    shallow = [f"{r['scene']} {r['stack_max']}" for r in rows if r["stack_max"] < STACK_DEPTH]
    checks.check(f"stacks reach >= {STACK_DEPTH} frames on every scene" + (f" (below: {', '.join(shallow)})" if shallow else ""),
                 not shallow)
    churn = [f"{r['scene']} {r['new']} new {r['gone']} gone for {r['lines']} lines" for r in rows
             if r["new"] > EVENTS_PER_LINE * r["lines"] or r["gone"] > EVENTS_PER_LINE * r["lines"]]
    checks.check(f"at most {EVENTS_PER_LINE} `new` and {EVENTS_PER_LINE} `gone` per line of text per scene"
                 + (f" (over: {'; '.join(churn)})" if churn else ""), not churn)
    if options.json:
        json.dump(rows, open(options.json, "w"), indent=1)
    sys.exit(checks.finish())


if __name__ == "__main__":
    main()
