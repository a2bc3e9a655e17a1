#!/usr/bin/python3
"""Pseudo-labels real display lines for the segments engine's network from their photos'
truth, and scores a network on those lines offline (issue 44).

The lines are those `lector-bench --only segments --meters DIR --crops CROPS` cut out of
the photos as lectord's segments engine cuts them. A photo's truth is only the integer
part of what its display shows (`25` for `25.01`), so for every line of the photo and
every `dd` of 00-99 this scores `<litres>.<dd>` by its CTC likelihood under --model (a
forced alignment: the network's probability of reading exactly that), and also
`<litres − 1>.<50-99>` (some labels are the rounded value: `28.65` labelled 29; taken
only when below --max-rounded-nll); a
candidate without its point is scored too (a faint point) and the better of the two
counts. The best line and text of the photo is its label, kept when its negative log
likelihood is below --max-nll (else no line shows the display readably: dropped).
Writes CROPS/labels.jsonl (photo, half, file, text, nll, what the network read).

`--score` instead reads every line of the photos (of `--half`) with --model, greedy as
lectord decodes it (one point kept: the likeliest between digits), applies the pump
rule as lectord's `decimals = 2` does and counts a photo right as scripts/eval-meters.py
does (a MATCH whose integer part is the label): a quick check between trainings; the
measure is scripts/eval-meters.py.

usage: /usr/bin/python3 scripts/label-segment-lines.py --crops DIR [--data ../shared/testdata/meters]
                                                       [--model models/segments/lector-segments.onnx]
                                                       [--max-nll 10] [--max-rounded-nll 3] [--labels FILE] [--score [--half A|B]] [--verbose]
"""
import argparse
import collections
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import segment_lines  # noqa: E402
from segment_net import CHARACTERS, load, padded  # noqa: E402


def network_output(net, records):
    """Log-probabilities (T × classes) of each line, one line at a time (its own padding
    to 320 columns, as lectord gives it)."""
    out = []
    with torch.no_grad():
        for record in records:
            x = padded([record["pixels"].astype("float32") * (2.0 / 255.0) - 1.0])
            out.append(F.log_softmax(net(x), dim=1)[0].permute(1, 0))
    return out


def candidates(litres):
    """The texts a display labelled `litres` may show: (text with the point, without)."""
    texts = [f"{litres}.{dd:02d}" for dd in range(100)]
    if litres.isdigit() and int(litres) > 0:
        texts += [f"{int(litres) - 1}.{dd:02d}" for dd in range(50, 100)]
    return texts


def nlls(log_probs, texts):
    """CTC negative log likelihood of each text under one line's T × C log-probabilities."""
    steps = log_probs.shape[0]
    targets = torch.tensor([CHARACTERS.index(c) + 1 for text in texts for c in text])
    lengths = torch.tensor([len(text) for text in texts])
    expanded = log_probs.unsqueeze(1).expand(steps, len(texts), log_probs.shape[1])
    return F.ctc_loss(expanded, targets, torch.full((len(texts),), steps, dtype=torch.long), lengths,
                      blank=0, reduction="none", zero_infinity=True)


def decoded(log_probs):
    """Greedy CTC decoding as lectord's NeuralLineEngine does for this network: runs of a
    class collapse, blanks go, space splits words; of the points, only the likeliest
    with a digit on each side stays (SegmentsModel.keepingOnePoint)."""
    probabilities, classes = log_probs.exp().max(1)
    symbols, last = [], 0
    for k, p in zip(classes.tolist(), probabilities.tolist()):
        if k != last and k != 0:
            symbols.append([k, p])
        elif k == last and k != 0:
            symbols[-1][1] = max(symbols[-1][1], p)
        last = k
    space = len(CHARACTERS) + 1
    text = [(CHARACTERS[k - 1] if k != space else " ", p) for k, p in symbols]
    digits = [i for i, (c, _) in enumerate(text) if c.isdigit()]
    points = [i for i, (c, _) in enumerate(text) if c == "." and digits and digits[0] < i < digits[-1]]
    kept = max(points, key=lambda i: text[i][1]) if points else None
    return " ".join("".join(c for i, (c, _) in enumerate(text) if c != "." or i == kept).split())


def label(args, net, by_photo, truth):
    kept, dropped = [], []
    for photo, records in sorted(by_photo.items()):
        litres = truth[photo][0]
        texts = candidates(litres)
        bare = [t.replace(".", "") for t in texts]
        best = None
        for record, log_probs in zip(records, network_output(net, records)):
            scores = torch.minimum(nlls(log_probs, texts), nlls(log_probs, bare))
            # A rounded label's text only when the network reads it confidently.
            scores[100:] = torch.where(scores[100:] < args.max_rounded_nll, scores[100:], torch.full_like(scores[100:], 1e9))
            index = int(scores.argmin())
            if best is None or scores[index] < best[0]:
                best = (float(scores[index]), record, texts[index], decoded(log_probs))
        if best is None:
            dropped.append((photo, None))
            continue
        nll, record, text, read = best
        entry = {"photo": photo, "half": segment_lines.half(photo), "file": record["file"], "line": record["line"],
                 "text": text, "nll": round(nll, 3), "read": read, "quality": truth[photo][1]}
        (kept if nll < args.max_nll else dropped).append((photo, entry))
        if args.verbose:
            print(f"{'keep' if nll < args.max_nll else 'drop'} {photo} truth {litres} label {text} nll {nll:.2f} read {read!r}")
    out = args.labels or os.path.join(args.crops, "labels.jsonl")
    with open(out, "w") as handle:
        for _, entry in kept:
            handle.write(json.dumps(entry, sort_keys=True) + "\n")
    nll_values = sorted(e["nll"] for _, e in kept + dropped if e)
    quantiles = [nll_values[int(q * (len(nll_values) - 1))] for q in (0.1, 0.25, 0.5, 0.75, 0.9)] if nll_values else []
    print(f"{len(kept)} photos labelled, {len(dropped)} dropped (nll ≥ {args.max_nll} or no line); "
          f"best nll quantiles 10/25/50/75/90 %: {', '.join(f'{q:.2f}' for q in quantiles)}")
    print(f"labels whose text the network already reads exactly: {sum(e['read'] == e['text'] for _, e in kept)}; "
          f"rounded-label texts: {sum(not e['text'].startswith(truth[p][0] + '.') for p, e in kept)}")
    print(f"wrote {out}")


def score(args, net, by_photo, truth):
    tally = collections.defaultdict(lambda: [0, 0])
    for photo, records in sorted(by_photo.items()):
        texts = [decoded(log_probs) for log_probs in network_output(net, records)]
        litres, quality = truth[photo]
        ok = segment_lines.right(texts, litres)
        for key in (quality, "all"):
            tally[key][0] += ok
            tally[key][1] += 1
        if args.verbose:
            print(f"{'ok ' if ok else 'BAD'} {photo} truth {litres} matches {segment_lines.matches(texts)[:3]} lines {texts[:6]}")
    print(f"offline score of {args.model}" + (f", half {args.half}" if args.half else "") + ":")
    for key in ("HQ", "MQ", "LQ", "all"):
        good, count = tally[key]
        print(f"{key:4} {good:4}/{count:<4} {good / max(1, count):.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--crops", required=True, help="what lector-bench --only segments --crops wrote")
    parser.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "testdata", "meters"))
    parser.add_argument("--model", default=os.path.join(HERE, "..", "models", "segments", "lector-segments.onnx"))
    parser.add_argument("--max-nll", type=float, default=10.0, help="a photo whose best label is less likely is dropped")
    parser.add_argument("--max-rounded-nll", type=float, default=3.0,
                        help="a rounded label's text (<litres − 1>.<50-99>) is taken only below this")
    parser.add_argument("--score", action="store_true", help="score --model on the lines instead of labelling them")
    parser.add_argument("--half", choices=("A", "B"), help="only the photos of this half (segment_lines.half)")
    parser.add_argument("--labels", help="where the labels go (default: CROPS/labels.jsonl; keep them in CROPS)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    truth = segment_lines.truth(args.data)
    # Every photo of the truth (of the half), with the lines found in it (maybe none).
    by_photo = {photo: [] for photo in truth if not args.half or segment_lines.half(photo) == args.half}
    for record in segment_lines.lines(args.crops):
        if record["photo"] in by_photo:
            by_photo[record["photo"]].append(record)
    net = load(args.model)
    net.eval()
    (score if args.score else label)(args, net, by_photo, truth)


if __name__ == "__main__":
    main()
