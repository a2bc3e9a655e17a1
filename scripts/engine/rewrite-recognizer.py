#!/usr/bin/env python3
"""Rewrites PP-OCRv6's text-line recognizer so that Debian's OpenCV reads it (4.6 in
Debian 12, 4.10 in Debian 13: one file for both), and writes its character list beside
it; optionally trims its classes to Latin script.

usage: rewrite-recognizer.py IN.onnx OUT.onnx CHARACTERS.txt [--latin]

OpenCV 4.6's ONNX importer refuses the model as shipped ("dynamic 'zero' shapes are
not supported" at Shape.0), and computes two of its layers wrongly; OpenCV 4.10's works
out every layer's shapes when it reads the model, with the line's width (the input's
last dimension, dynamic) taken as 0, and refuses what that makes of the MatMuls and of
a Squeeze. Six rewrites (../shared/DESIGN.md, "A neural line recognizer"):
  1. a Reshape whose target shape is computed at run time gets a constant target: the
     leading dimensions copied from the input's own shape become 0 ("keep"), the one
     computed dimension -1 ([0,0,-1] and [0,1,-1,120] in this model);
  2. LayerNorm's gamma, a Mul of an [N,L,C] tensor by a C-vector, becomes a MatMul by
     the diagonal matrix (OpenCV scales axis 1 instead: it fails, or when L == C
     silently computes the wrong thing);
  3. ReduceMean over axes [2,3] of an NCHW tensor becomes GlobalAveragePool, and over
     the last axis a MatMul by a column of 1/C (OpenCV's Reduce gives NaN there);
  4. nodes and initializers nothing uses any more are removed;
  5. the [N,L,K] input of each MatMul by a constant K-row matrix is first reshaped to
     [0,-1,K] (OpenCV 4.10 checks K against the matrix when it reads the model, and
     with a width of 0 finds 0: "invalid dimension K");
  6. the Squeeze of axis 2 of an [N,C,1,W] tensor becomes a Reshape to [0,0,-1] (OpenCV
     4.10 makes a rank-2 tensor of it at a width of 0, which the Transpose after it
     refuses).
Rewrites 5 and 6 change nothing on OpenCV 4.6 (the same output, bit for bit), and 4.10
computes what 4.6 does (within 1e-4; measured at widths 80 to 640, the best class the
same at every step).
The output is unchanged in meaning: per time step, a softmax over the classes blank (0),
the model's characters (class i is character i-1) and a final space class.

CHARACTERS.txt receives the characters of the output classes 1 ... N-2, one per line
(UTF-8, nothing trimmed): the recognizer's class i is line i (counting from 1).

--latin keeps only the classes of Latin script (Basic Latin through IPA Extensions,
Latin Extended Additional, general punctuation, currency and letterlike symbols; blank
and space stay): the final MatMul and Add are sliced, so the network is cheaper, and
the character list (file and the model's metadata "character") is the trimmed one.
Needs Debian's python3-onnx (and numpy).
"""
import sys

import numpy
import onnx
from onnx import helper, numpy_helper, shape_inference

# Code point ranges kept by --latin (end exclusive).
LATIN = [(0x0000, 0x02B0), (0x1E00, 0x1F00), (0x2000, 0x2070), (0x20A0, 0x20D0), (0x2100, 0x2150)]


def fail(message):
    raise SystemExit(f"rewrite-recognizer: {message}")


class Graph:
    def __init__(self, model):
        self.model = model
        self.graph = model.graph
        self.initializers = {t.name: t for t in self.graph.initializer}
        self.producers = {output: node for node in self.graph.node for output in node.output}

    def constant(self, name):
        """The value of `name` when it is an initializer or a Constant's output (through Identity), else None."""
        node = self.producers.get(name)
        while node is not None and node.op_type == "Identity":
            name = node.input[0]
            node = self.producers.get(name)
        if name in self.initializers:
            return numpy_helper.to_array(self.initializers[name])
        if node is not None and node.op_type == "Constant":
            return numpy_helper.to_array(node.attribute[0].t)
        return None

    def source(self, name):
        """The node producing `name`, looking through Identity nodes."""
        node = self.producers.get(name)
        while node is not None and node.op_type == "Identity":
            node = self.producers.get(node.input[0])
        return node

    def add_initializer(self, name, array):
        tensor = numpy_helper.from_array(array, name)
        self.graph.initializer.append(tensor)
        self.initializers[name] = tensor
        return name


def shapes_of(model):
    """Each tensor's rank and dimensions (ints where known) with the input fixed at 1x3x48x320."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    dims = probe.graph.input[0].type.tensor_type.shape.dim
    for index, value in ((0, 1), (3, 320)):
        dims[index].ClearField("dim_param")
        dims[index].dim_value = value
    inferred = shape_inference.infer_shapes(probe)
    shapes = {}
    for value in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        shapes[value.name] = [d.dim_value if d.HasField("dim_value") else None for d in value.type.tensor_type.shape.dim]
    return shapes


def constant_reshape_targets(g):
    """Rewrite 1. A computed target that is Concat(pieces): a constant piece is kept, a
    Slice of the input's own Shape from 0 becomes zeros (keep those dimensions), one
    other computed piece becomes -1."""
    count = 0
    for node in g.graph.node:
        if node.op_type != "Reshape" or g.constant(node.input[1]) is not None:
            continue
        concat = g.source(node.input[1])
        if concat is None or concat.op_type != "Concat":
            fail(f"{node.name}: its target shape is computed, but not by a Concat")
        target, unknown = [], 0
        for piece in concat.input:
            value = g.constant(piece)
            if value is not None:
                target += [int(v) for v in value.reshape(-1)]
                continue
            producer = g.source(piece)
            if producer is not None and producer.op_type == "Slice" and g.source(producer.input[0]) is not None \
                    and g.source(producer.input[0]).op_type == "Shape" \
                    and g.source(producer.input[0]).input[0] == node.input[0]:
                start, end = int(g.constant(producer.input[1])[0]), int(g.constant(producer.input[2])[0])
                if start != 0 or len(target) != 0:
                    fail(f"{node.name}: a slice of the input's shape that is not its leading dimensions")
                target += [0] * (end - start)
                continue
            unknown += 1
            target.append(-1)
        if unknown > 1 or target.count(-1) > 1:
            fail(f"{node.name}: more than one computed dimension ({target})")
        node.input[1] = g.add_initializer(f"{node.name}.constant_shape", numpy.array(target, dtype=numpy.int64))
        print(f"rewrite-recognizer: {node.name} reshapes to the constant {target}", file=sys.stderr)
        count += 1
    return count


def gamma_as_matmul(g, shapes):
    """Rewrite 2. Mul(x [N,L,C], gamma [C]) -> MatMul(x, diag(gamma))."""
    count = 0
    for node in g.graph.node:
        if node.op_type != "Mul":
            continue
        for data, weight in ((0, 1), (1, 0)):
            gamma = g.constant(node.input[weight])
            rank = shapes.get(node.input[data])
            if gamma is None or rank is None or len(rank) != 3 or gamma.ndim != 1 or gamma.shape[0] < 2 \
                    or rank[2] != gamma.shape[0]:
                continue
            matrix = g.add_initializer(f"{node.name}.diagonal", numpy.diag(gamma).astype(numpy.float32))
            x = node.input[data]
            node.op_type = "MatMul"
            del node.input[:]
            node.input.extend([x, matrix])
            count += 1
            break
    return count


def reduce_means(g, shapes):
    """Rewrite 3. ReduceMean over [2,3] -> GlobalAveragePool; over the last axis -> MatMul by 1/C."""
    pools, matmuls = 0, 0
    for node in g.graph.node:
        if node.op_type != "ReduceMean":
            continue
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        axes, keep = list(attributes.get("axes", [])), attributes.get("keepdims", 1)
        shape = shapes.get(node.input[0])
        if shape is None or keep != 1:
            fail(f"{node.name}: no shape known, or keepdims 0")
        rank = len(shape)
        axes = [a % rank for a in axes]
        if rank == 4 and sorted(axes) == [2, 3]:
            node.op_type = "GlobalAveragePool"
            del node.attribute[:]
            pools += 1
        elif axes == [rank - 1] and shape[-1]:
            channels = shape[-1]
            column = g.add_initializer(f"{node.name}.mean_column", numpy.full((channels, 1), 1.0 / channels, dtype=numpy.float32))
            node.op_type = "MatMul"
            del node.attribute[:]
            node.input.append(column)
            matmuls += 1
        else:
            fail(f"{node.name}: ReduceMean over {axes} of rank {rank} is not one this script rewrites")
    return pools, matmuls


def known_matmul_widths(g, shapes):
    """Rewrite 5. MatMul(x [N,L,K], W [K,M]) -> MatMul(Reshape(x, [0,-1,K]), W). The
    Reshape is placed right before its MatMul (the graph stays in topological order)."""
    nodes, count = [], 0
    for node in g.graph.node:
        weights = g.constant(node.input[1]) if node.op_type == "MatMul" else None
        shape = shapes.get(node.input[0]) if weights is not None else None
        if shape is not None and weights.ndim == 2 and len(shape) == 3:  # a shape only with weights
            target = g.add_initializer(f"{node.name}.known_width", numpy.array([0, -1, weights.shape[0]], dtype=numpy.int64))
            reshaped = f"{node.name}.input_known_width"
            nodes.append(helper.make_node("Reshape", [node.input[0], target], [reshaped], name=f"{node.name}.known_width"))
            node.input[0] = reshaped
            count += 1
        nodes.append(node)
    del g.graph.node[:]
    g.graph.node.extend(nodes)
    return count


def squeezes_as_reshapes(g, shapes):
    """Rewrite 6. Squeeze(x [N,C,1,W], axes [2]) -> Reshape(x, [0,0,-1]) (the same
    whenever the Squeeze is valid: axis 2 is then 1)."""
    count = 0
    for node in g.graph.node:
        if node.op_type != "Squeeze":
            continue
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        shape = shapes.get(node.input[0])
        if list(attributes.get("axes", [])) != [2] or shape is None or len(shape) != 4:
            continue
        node.op_type = "Reshape"
        del node.attribute[:]
        node.input.append(g.add_initializer(f"{node.name}.constant_shape", numpy.array([0, 0, -1], dtype=numpy.int64)))
        count += 1
    return count


def prune(g):
    """Rewrite 4. Nodes whose outputs nothing reads, then unused initializers."""
    removed = 0
    while True:
        used = {name for node in g.graph.node for name in node.input} | {o.name for o in g.graph.output}
        dead = [node for node in g.graph.node if not any(output in used for output in node.output)]
        if not dead:
            break
        for node in dead:
            g.graph.node.remove(node)
        removed += len(dead)
    used = {name for node in g.graph.node for name in node.input}
    unused = [t for t in g.graph.initializer if t.name not in used]
    for tensor in unused:
        g.graph.initializer.remove(tensor)
    return removed, len(unused)


def trim_to_latin(g, characters):
    """Slices the classifier (the last MatMul and its Add before the Softmax) to blank,
    the Latin characters and space. Returns the kept characters."""
    softmax = [n for n in g.graph.node if n.op_type == "Softmax" and n.output[0] == g.graph.output[0].name]
    if len(softmax) != 1:
        fail("no Softmax produces the output")
    add = g.source(softmax[0].input[0])
    if add is None or add.op_type != "Add":
        fail("the output's Softmax does not follow an Add")
    matmul = g.source(add.input[0])
    if matmul is None or matmul.op_type != "MatMul":
        fail("the classifier's Add does not follow a MatMul")
    weights, bias = g.constant(matmul.input[1]), g.constant(add.input[1])
    if weights is None or bias is None or weights.shape[1] != len(characters) + 2 or bias.shape != (len(characters) + 2,):
        fail("the classifier's weights do not match the character list")
    kept = [i for i, c in enumerate(characters) if any(low <= ord(c) < high for low, high in LATIN)]
    classes = [0] + [i + 1 for i in kept] + [len(characters) + 1]
    matmul.input[1] = g.add_initializer(matmul.input[1] + ".latin", weights[:, classes].astype(numpy.float32))
    add.input[1] = g.add_initializer(add.input[1] + ".latin", bias[classes].astype(numpy.float32))
    output = g.graph.output[0].type.tensor_type.shape.dim
    output[2].dim_value = len(classes)
    # The shapes recorded for the classifier's tensors name the old class count.
    def names_old_count(value):
        dims = value.type.tensor_type.shape.dim
        return len(dims) > 0 and dims[-1].dim_value == weights.shape[1]
    for value in [v for v in g.graph.value_info if names_old_count(v)]:
        g.graph.value_info.remove(value)
    return [characters[i] for i in kept]


def main():
    arguments = [a for a in sys.argv[1:] if a != "--latin"]
    latin = "--latin" in sys.argv[1:]
    if len(arguments) != 3:
        fail(__doc__.strip().splitlines()[3])
    model = onnx.load(arguments[0])
    metadata = {p.key: p.value for p in model.metadata_props}
    if "character" not in metadata:
        fail("the model has no character list (metadata_props 'character')")
    characters = metadata["character"].split("\n")
    g = Graph(model)
    shapes = shapes_of(model)
    reshapes = constant_reshape_targets(g)
    gammas = gamma_as_matmul(g, shapes)
    pools, means = reduce_means(g, shapes)
    squeezes = squeezes_as_reshapes(g, shapes)
    if latin:
        characters = trim_to_latin(g, characters)
        for prop in model.metadata_props:
            if prop.key == "character":
                prop.value = "\n".join(characters)
    matmuls = known_matmul_widths(g, shapes)
    removed, initializers = prune(g)
    if (reshapes, gammas, pools, means, matmuls, squeezes) != (2, 5, 5, 10, 24, 1):
        fail(f"expected 2 reshapes, 5 LayerNorm gammas, 5 + 10 ReduceMeans, 24 MatMuls, 1 Squeeze; found {reshapes}, "
             f"{gammas}, {pools} + {means}, {matmuls}, {squeezes}: not the model this script was written for")
    onnx.save(model, arguments[1])
    with open(arguments[2], "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(c + "\n" for c in characters))
    print(f"rewrite-recognizer: {reshapes} reshapes, {gammas} gammas, {pools} + {means} ReduceMeans, {matmuls} MatMul "
          f"inputs, {squeezes} Squeeze rewritten, "
          f"{removed} nodes and {initializers} initializers pruned; {len(characters) + 2} classes"
          f"{' (Latin)' if latin else ''}", file=sys.stderr)


if __name__ == "__main__":
    main()
