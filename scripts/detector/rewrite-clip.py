#!/usr/bin/env python3
"""Rewrites an ONNX model's Clip nodes to the attribute form OpenCV 4.6 reads.

usage: rewrite-clip.py IN.onnx OUT.onnx

PP-OCRv4's text detector (opset 12) gives each Clip its min and max as inputs, from
Constant nodes; OpenCV 4.6's ONNX importer (Debian 12) wants them as the `min`/`max`
attributes of opset <= 10 and refuses the model otherwise. Only Clip nodes whose bounds
are constants (or initializers) are changed; Constant nodes left unused are removed.
Needs Debian's python3-onnx.
"""
import sys

import onnx
from onnx import helper, numpy_helper


def scalar(name, constants, initializers):
    if name == "":
        return None
    if name in constants:
        return float(numpy_helper.to_array(constants[name]).reshape(-1)[0])
    if name in initializers:
        return float(numpy_helper.to_array(initializers[name]).reshape(-1)[0])
    raise SystemExit(f"rewrite-clip: a Clip bound {name} is neither a constant nor an initializer")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.strip().splitlines()[2])
    model = onnx.load(sys.argv[1])
    graph = model.graph
    constants = {}
    for node in graph.node:
        if node.op_type == "Constant":
            for attribute in node.attribute:
                if attribute.name == "value":
                    constants[node.output[0]] = attribute.t
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    rewritten = 0
    for node in graph.node:
        if node.op_type != "Clip" or len(node.input) < 2:
            continue
        low = scalar(node.input[1], constants, initializers)
        high = scalar(node.input[2], constants, initializers) if len(node.input) > 2 else None
        del node.input[1:]
        del node.attribute[:]
        if low is not None:
            node.attribute.append(helper.make_attribute("min", low))
        if high is not None:
            node.attribute.append(helper.make_attribute("max", high))
        rewritten += 1
    used = {name for node in graph.node for name in node.input} | {output.name for output in graph.output}
    unused = [node for node in graph.node if node.op_type == "Constant" and node.output[0] not in used]
    for node in unused:
        graph.node.remove(node)
    onnx.save(model, sys.argv[2])
    print(f"rewrite-clip: {rewritten} Clip nodes rewritten, {len(unused)} unused constants removed", file=sys.stderr)


if __name__ == "__main__":
    main()
