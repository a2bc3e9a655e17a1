#!/usr/bin/python3
"""Trains the segments engine's network (issue 44): a small CTC line recognizer for
seven-segment and LCD digits, from displays scripts/segment_displays.py renders, and
exports it to ONNX for lectord (models/segments/lector-segments.onnx and its character
list lector-segments.txt).

The network and its input are scripts/segment_net.py's (the line resized to 48 px high,
as lectord's lector_lr_input gives any line model; blank, 0-9, '.', space out).

Fine-tuning on real displays (`--resume NET --real LABELS`): start from a network's
weights (the committed ONNX: its folded BatchNorm statistics are kept), and make
`--real-share` of every batch real display lines (the lines `lector-bench --only segments`
cut out of photos as lectord reads them, pseudo-labelled by
scripts/label-segment-lines.py), each drawn and augmented from a Generator of the
batch's seed (segment_lines.augmented); `--half A|B` keeps only one cross-validation
half's photos. The rendered lines of a batch stay those of its seed.

Reproducible: the training lines come from numpy Generators seeded from --seed (one
per batch), torch is seeded and runs on one thread; the same --steps give the same
network on the same torch. Debian's python3-torch (`apt-get install python3-torch`) or
PyPI's torch CPU; the ONNX export needs only torch.

The network trained on renders alone: `--steps 2000 --batch 32 --lr 3e-3` (the rest the
defaults), about 28 minutes on a loaded 2-core machine. The committed network is that one
fine-tuned on the pump photos (docs/engines.md says how).

usage: /usr/bin/python3 scripts/train-segments.py [--steps 3000] [--batch 48] [--seed 44] [--lr 2e-3]
                                                  [--words-share 0] [--threads 1]
                                                  [--resume NET] [--real LABELS [--half A|B] [--real-share 0.5]]
                                                  [--out models/segments/lector-segments.onnx]
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import segment_displays  # noqa: E402
import segment_lines  # noqa: E402
from segment_net import CHARACTERS, HEIGHT, MIN_WIDTH, SegmentNet, export, freeze_norms, greedy, line_input, load, padded  # noqa: E402,F401

def batch(seed, size, min_width=MIN_WIDTH, words_share=0.0, real=None, real_share=0.0):
    """One training batch: inputs N × 1 × 48 × W (padded on the right with 0 to the
    widest line, at least `min_width`), targets, their lengths, the texts. With `real`
    (real display lines and their labels, scripts/label-segment-lines.py), `real_share`
    of the batch are those lines, drawn and augmented (segment_lines.augmented) from a
    second Generator of the same seed; the rendered lines stay those of the seed."""
    rng = np.random.default_rng(seed)
    count = round(size * real_share) if real else 0
    lines, texts = [], []
    for _ in range(size - count):
        words = words_share > 0 and rng.random() < words_share
        image, text = segment_displays.render_words(rng) if words else segment_displays.render(rng)
        lines.append(line_input(image))
        texts.append(text)
    if count:
        real_rng = np.random.default_rng([seed, 1])
        for _ in range(count):
            pixels, text = real[real_rng.integers(len(real))]
            lines.append(segment_lines.augmented(pixels, real_rng))
            texts.append(text)
    targets = [CHARACTERS.index(c) + 1 for text in texts for c in text]
    lengths = [len(text) for text in texts]
    return padded(lines, min_width), torch.tensor(targets), torch.tensor(lengths), texts


class Batches(torch.utils.data.IterableDataset):
    """The training batches, made in a worker process while the network trains: batch
    `step` from seed `seed`·10⁶ + step."""

    def __init__(self, seed, steps, size, words_share, real=None, real_share=0.0):
        self.seed, self.steps, self.size, self.words_share = seed, steps, size, words_share
        self.real, self.real_share = real, real_share

    def __iter__(self):
        for step in range(self.steps):
            yield batch(self.seed * 1_000_000 + step, self.size, min_width=0, words_share=self.words_share,
                        real=self.real, real_share=self.real_share)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=48)
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--words-share", type=float, default=0.0,
                        help="the share of training lines that are printed words (LITRES), labelled empty (the committed "
                             "network: 0; 0.12 was started, not finished in time)")
    parser.add_argument("--resume", help="start from this network's weights (an .onnx of this script, or its .pt); its "
                                         "BatchNorm statistics are kept")
    parser.add_argument("--real", help="real display lines to train on: the labels scripts/label-segment-lines.py wrote "
                                       "(beside the lines lector-bench --only segments wrote)")
    parser.add_argument("--half", choices=("A", "B"), help="only the real lines of photos of this half (segment_lines.half)")
    parser.add_argument("--real-share", type=float, default=0.5, help="the share of each batch that are real lines")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "models", "segments", "lector-segments.onnx"))
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    net = load(args.resume) if args.resume else SegmentNet()
    real = segment_lines.labelled(args.real, half=args.half) if args.real else None
    if real is not None:
        print(f"{len(real)} real lines ({args.real}{', half ' + args.half if args.half else ''})", flush=True)
    print(f"{sum(p.numel() for p in net.parameters())} parameters", flush=True)
    optimizer = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    started = time.time()
    # Validation lines: seeds no training batch uses (training seeds are seed·10⁶ + step).
    check = batch(args.seed * 1_000_000 - 1, 200)
    real_check = (padded([line_input_of(p) for p, _ in real]), [t for _, t in real]) if real else None
    batches = torch.utils.data.DataLoader(Batches(args.seed, args.steps, args.batch, args.words_share, real, args.real_share),
                                          batch_size=None, num_workers=1)
    for step, (x, targets, lengths, _) in enumerate(batches):
        net.train()
        if args.resume:
            freeze_norms(net)
        logits = net(x)
        log_probs = F.log_softmax(logits, dim=1).permute(2, 0, 1)  # T × N × C
        steps = torch.full((x.shape[0],), log_probs.shape[0], dtype=torch.long)
        loss = ctc(log_probs, targets, steps, lengths)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        optimizer.step()
        schedule.step()
        if step % 100 == 0 or step == args.steps - 1:
            net.eval()
            with torch.no_grad():
                read = greedy(net(check[0]))
                real_read = greedy(net(real_check[0])) if real_check else []
            exact = sum(a == b for a, b in zip(read, check[3])) / len(read)
            real_exact = f" real lines exact {sum(a == b for a, b in zip(real_read, real_check[1])) / len(real_read):.3f}" if real_check else ""
            print(f"step {step} loss {loss.item():.3f} exact {exact:.3f}{real_exact} ({time.time() - started:.0f} s)", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    export(net, args.out)
    torch.save(net.state_dict(), os.path.splitext(args.out)[0] + ".pt")  # to train on from (--resume); not committed
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


def line_input_of(pixels):
    """A real line's pixels (48 × w, 8 bits) as the network's input."""
    return pixels.astype(np.float32) * (2.0 / 255.0) - 1.0


if __name__ == "__main__":
    main()
