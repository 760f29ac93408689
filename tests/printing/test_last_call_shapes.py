"""A compiled function's picture shows its last call's shapes on the edges (recorded
while JAX traces: ``Function.last_shapes``), the test values' before any call."""

import re

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.evaluate import evaluate
from symnb.printing.graph_model import GraphPicture
from symnb.printing.html import node_details_html

RNG = np.random.default_rng(3)


def mlp(x, sizes=(784, 32, 10)):
    """The network and its weights (for the NumPy reference)."""
    h, weights = x, []
    for m, n in zip(sizes, sizes[1:]):
        W = RNG.standard_normal((m, n)).astype("float32") * 0.05
        b = RNG.standard_normal(n).astype("float32")
        h = T.tanh(T.dot(h, sn.shared(W)) + sn.shared(b))
        weights.append((W, b))
    return h, weights


def numpy_mlp(batch, weights):
    """Each layer's output, computed by NumPy."""
    values, h = [], batch
    for W, b in weights:
        h = np.tanh(h @ W + b)
        values.append(h)
    return values


def opened_picture(f):
    picture = GraphPicture(f, opened=[])
    return GraphPicture(f, opened=[g.id for g in picture.tree.groups()])


def label_shape(text):
    return re.sub(r"^(out \d+ \u2192 )?(\d+: )?", "", text)


def numpy_values(f, args):
    """Every value of ``f``'s optimized graph for ``args``, by the ops' NumPy code."""
    fgraph = f.maker.fgraph
    env = {id(v): np.asarray(a, dtype=v.dtype) for v, a in zip(fgraph.inputs, args)}
    env.update({id(v): np.asarray(v.get_value()) for v in fgraph.inputs[len(args):]})
    evaluate(fgraph.toposort(), env)
    return env


def test_edges_show_the_last_calls_shapes_and_the_test_values_before():
    x = T.matrix("x", test_value=RNG.random((2, 784), dtype="float32"))
    out, weights = mlp(x)
    f = sn.function([x], out.sum(axis=1))
    assert f.last_shapes == {}
    before = {label_shape(e.label) for e in opened_picture(f).edges}
    assert {"float32 (2, 784)", "float32 (2, 32)", "float32 (2, 10)"} <= before
    assert not any("256" in label for label in before)

    batch = RNG.random((256, 784), dtype="float32")
    hidden, last = numpy_mlp(batch, weights)
    np.testing.assert_allclose(f(batch), last.sum(axis=1), rtol=1e-4, atol=1e-4)

    env = numpy_values(f, [batch])
    after = opened_picture(f)
    checked = 0
    for edge in after.edges:
        value = env[id(edge.variable)]
        assert label_shape(edge.label) == f"{value.dtype} {value.shape}", edge.label
        checked += 1
    assert checked >= 5
    labels = {label_shape(e.label) for e in after.edges}
    assert {f"float32 {batch.shape}", f"float32 {hidden.shape}", f"float32 {last.shape}"} <= labels
    assert not any("(2, " in label for label in labels)
