"""The segments engine's network (issue 44): its layers, its exported form, its input
and its greedy decoding, shared by scripts/train-segments.py (which trains it) and
scripts/label-segment-lines.py (which labels and scores real display lines with it).

The network takes what lectord's line recognizer input gives any line model
(CTextDetector's lector_lr_input: 1 × 3 × 48 × W floats, gray as three equal channels,
(x / 255 − 0.5) / 0.5, the line resized to 48 px high and padded on the right with 0 to
at least 320 columns) and gives 1 × W/4 × 13 softmax probabilities: blank, 0-9, '.',
space (the layout of NeuralLineEngine's models).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

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


def load(path):
    """A SegmentNet with the weights of `path`: a state dict (.pt, as train-segments.py
    saves beside its ONNX) or an exported ONNX network, whose convolutions carry their
    batch normalization folded in (torch's export folds it): each BatchNorm is then set
    to pass its input through (mean 0, variance 1 − eps, scale 1) with the folded bias as
    its shift. Train such a network with its BatchNorm layers in eval mode (``freeze_norms``)."""
    net = SegmentNet()
    if not path.endswith(".onnx"):
        net.load_state_dict(torch.load(path))
        return net
    import onnx
    from onnx import numpy_helper
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in onnx.load(path).graph.initializer}
    state = net.state_dict()
    for name in ("context.0.weight", "context.0.bias", "context.2.weight", "context.2.bias", "classify.weight", "classify.bias"):
        state[name] = weights["net." + name]
    # The four folded convolutions, in graph order: (weight, bias) pairs of unnamed initializers.
    folded = [weights[name] for name in weights if not name.startswith("net.")]
    convs = [m for m in net.features if isinstance(m, nn.Conv2d)]
    norms = [m for m in net.features if isinstance(m, nn.BatchNorm2d)]
    assert len(folded) == 2 * len(convs), "not a segments network exported by train-segments.py"
    prefix = {id(m): f"features.{k}." for k, m in net.features.named_children()}
    for index, (conv, norm) in enumerate(zip(convs, norms)):
        weight, bias = folded[2 * index], folded[2 * index + 1]
        assert tuple(weight.shape) == tuple(conv.weight.shape), f"conv {index}: {tuple(weight.shape)}"
        state[prefix[id(conv)] + "weight"] = weight
        state[prefix[id(norm)] + "weight"] = torch.ones_like(bias)
        state[prefix[id(norm)] + "bias"] = bias
        state[prefix[id(norm)] + "running_mean"] = torch.zeros_like(bias)
        state[prefix[id(norm)] + "running_var"] = torch.full_like(bias, 1.0 - norm.eps)
    net.load_state_dict(state)
    return net


def freeze_norms(net):
    """Puts the BatchNorm layers in eval mode (their statistics kept): call after net.train()."""
    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


def export(net, out):
    """Writes `net` as lectord's ONNX network (opset 13) and its character list beside it."""
    import os
    net.eval()
    example = torch.zeros(1, 3, HEIGHT, MIN_WIDTH)
    torch.onnx.export(Exported(net), example, out, input_names=["x"], output_names=["probabilities"],
                      dynamic_axes={"x": {0: "n", 3: "width"}, "probabilities": {0: "n", 1: "steps"}}, opset_version=13)
    with open(os.path.splitext(out)[0] + ".txt", "w") as handle:
        handle.write("".join(c + "\n" for c in CHARACTERS))


def line_input(image):
    """A line (gray PIL image) as lector_lr_input gives it: 48 × width floats."""
    width = max(1, round(image.width * HEIGHT / image.height))
    if image.height != HEIGHT or image.width != width:
        image = image.resize((width, HEIGHT), 2)  # bilinear
    return np.asarray(image, dtype=np.float32) * (2.0 / 255.0) - 1.0


def padded(lines, min_width=MIN_WIDTH):
    """Lines (48 × w arrays) as one N × 1 × 48 × W batch, padded on the right with 0."""
    width = max(min_width, max(line.shape[1] for line in lines) + 16)
    width = (width + 3) // 4 * 4
    x = np.zeros((len(lines), 1, HEIGHT, width), dtype=np.float32)
    for i, line in enumerate(lines):
        x[i, 0, :, : line.shape[1]] = line
    return torch.from_numpy(x)


def greedy(logits):
    """Greedy CTC decoding of N × classes × T logits: the strings."""
    out = []
    for row in logits.argmax(1).tolist():
        text, last = "", 0
        for k in row:
            if k != last and 0 < k <= len(CHARACTERS):
                text += CHARACTERS[k - 1]
            elif k != last and k == len(CHARACTERS) + 1:
                text += " "
            last = k
        out.append(" ".join(text.split()))
    return out
