#!/usr/bin/python3
"""Trains the segments engine's network (issue 44): a small CTC line recognizer for
seven-segment and LCD digits, from displays scripts/segment_displays.py renders, and
exports it to ONNX for lectord (models/segments/lector-segments.onnx and its character
list lector-segments.txt).

The network takes what lectord's line recognizer input gives any line model
(CTextDetector's lector_lr_input: 1 × 3 × 48 × W floats, gray as three equal channels,
(x / 255 − 0.5) / 0.5, the line resized to 48 px high and padded on the right with 0 to
at least 320 columns) and gives 1 × W/4 × 13 softmax probabilities: blank, 0-9, '.',
space (the layout of NeuralLineEngine's models, so that its CTC decoding, per-character
confidences and boxes serve it unchanged).

Reproducible: the training lines come from numpy Generators seeded from --seed (one
per batch), torch is seeded and runs on one thread; the same --steps give the same
network on the same torch. Debian's python3-torch (`apt-get install python3-torch`) or
PyPI's torch CPU; the ONNX export needs only torch.

The committed network: `--steps 2000 --batch 32 --lr 3e-3` (the rest the defaults),
about 28 minutes on a loaded 2-core machine.

usage: /usr/bin/python3 scripts/train-segments.py [--steps 3000] [--batch 48] [--seed 44] [--lr 2e-3]
                                                  [--words-share 0] [--threads 1]
                                                  [--out models/segments/lector-segments.onnx]
"""
import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import segment_displays  # noqa: E402

CHARACTERS = "0123456789."
HEIGHT = 48
MIN_WIDTH = 320


class SegmentNet(nn.Module):
    """Conv layers to a 1-row feature map at a quarter of the width, then 1-D context."""

    def __init__(self):
        super().__init__()

        def block(cin, cout, pool):
            layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
            if pool:
                layers.append(nn.MaxPool2d(pool))
            return layers

        self.features = nn.Sequential(
            nn.AvgPool2d(2),             # 24 × W/2: segments need no more
            *block(1, 16, (2, 2)),       # 12 × W/4
            *block(16, 32, (2, 1)),      # 6
            *block(32, 64, (2, 1)),      # 3
            nn.Conv2d(64, 96, (3, 1), bias=False), nn.BatchNorm2d(96), nn.ReLU(inplace=True),  # 1
        )
        self.context = nn.Sequential(
            nn.Conv1d(96, 96, 5, padding=2), nn.ReLU(inplace=True),
            nn.Conv1d(96, 96, 5, padding=2), nn.ReLU(inplace=True),
        )
        self.classify = nn.Conv1d(96, len(CHARACTERS) + 2, 1)

    def forward(self, x):
        x = x.mean(dim=1, keepdim=True)            # three equal channels → gray
        x = self.features(x).squeeze(2)            # N × 96 × T
        x = x + self.context(x)
        return self.classify(x)                    # N × classes × T (logits)


class Exported(nn.Module):
    """What lectord runs: N × T × classes probabilities."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return F.softmax(self.net(x), dim=1).permute(0, 2, 1)


def line_input(image):
    """A rendered line (gray PIL) as lector_lr_input gives it: 48 × width floats."""
    width = max(1, round(image.width * HEIGHT / image.height))
    resized = np.asarray(image.resize((width, HEIGHT), 2), dtype=np.float32)  # bilinear
    return resized * (2.0 / 255.0) - 1.0


def batch(seed, size, min_width=MIN_WIDTH, words_share=0.0):
    """One training batch: inputs N × 1 × 48 × W (padded on the right with 0 to the
    widest line, at least `min_width`), targets, their lengths, the texts."""
    rng = np.random.default_rng(seed)
    lines, texts = [], []
    for _ in range(size):
        words = words_share > 0 and rng.random() < words_share
        image, text = segment_displays.render_words(rng) if words else segment_displays.render(rng)
        lines.append(line_input(image))
        texts.append(text)
    width = max(min_width, max(line.shape[1] for line in lines) + 16)
    width = (width + 3) // 4 * 4
    x = np.zeros((size, 1, HEIGHT, width), dtype=np.float32)
    for i, line in enumerate(lines):
        x[i, 0, :, : line.shape[1]] = line
    targets = [CHARACTERS.index(c) + 1 for text in texts for c in text]
    lengths = [len(text) for text in texts]
    return torch.from_numpy(x), torch.tensor(targets), torch.tensor(lengths), texts


class Batches(torch.utils.data.IterableDataset):
    """The training batches, made in a worker process while the network trains: batch
    `step` from seed `seed`·10⁶ + step."""

    def __init__(self, seed, steps, size, words_share):
        self.seed, self.steps, self.size, self.words_share = seed, steps, size, words_share

    def __iter__(self):
        for step in range(self.steps):
            yield batch(self.seed * 1_000_000 + step, self.size, min_width=0, words_share=self.words_share)


def greedy(logits):
    """Greedy CTC decoding of N × classes × T logits: the strings."""
    out = []
    for row in logits.argmax(1).tolist():
        text, last = "", 0
        for k in row:
            if k != last and 0 < k <= len(CHARACTERS):
                text += CHARACTERS[k - 1]
            last = k
        out.append(text)
    return out


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
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "models", "segments", "lector-segments.onnx"))
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    net = SegmentNet()
    print(f"{sum(p.numel() for p in net.parameters())} parameters", flush=True)
    optimizer = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    started = time.time()
    # Validation lines: seeds no training batch uses (training seeds are seed·10⁶ + step).
    check = batch(args.seed * 1_000_000 - 1, 200)
    batches = torch.utils.data.DataLoader(Batches(args.seed, args.steps, args.batch, args.words_share), batch_size=None, num_workers=1)
    for step, (x, targets, lengths, _) in enumerate(batches):
        net.train()
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
            exact = sum(a == b for a, b in zip(read, check[3])) / len(read)
            print(f"step {step} loss {loss.item():.3f} exact {exact:.3f} ({time.time() - started:.0f} s)", flush=True)
    net.eval()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    example = torch.zeros(1, 3, HEIGHT, MIN_WIDTH)
    torch.onnx.export(Exported(net), example, args.out, input_names=["x"], output_names=["probabilities"],
                      dynamic_axes={"x": {0: "n", 3: "width"}, "probabilities": {0: "n", 1: "steps"}}, opset_version=13)
    with open(os.path.splitext(args.out)[0] + ".txt", "w") as handle:
        handle.write("".join(c + "\n" for c in CHARACTERS))
    torch.save(net.state_dict(), os.path.splitext(args.out)[0] + ".pt")  # to train on from (--resume); not committed
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
