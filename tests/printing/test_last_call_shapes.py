"""A compiled function's picture shows its last call's shapes on the edges (recorded
while JAX traces: ``Function.last_shapes``), the test values' before any call."""

import re

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.evaluate import evaluate
from symnb.printing.graph_model import GraphPicture
from symnb.printing.html import node_details_html
from symnb.printing.view_model import view_model_parts

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


def test_an_input_without_test_value_gets_its_shape_from_the_call():
    x = T.matrix("x")  # no test value: the picture knows only the static type
    y = T.exp(x) * 2
    f = sn.function([x], [y, y.sum(axis=0)])
    assert {e.label for e in GraphPicture(f).edges} <= {"float32 (?, ?)", "float32 (?,)"}
    value = RNG.random((5, 3), dtype="float32")
    full, column = f(value)
    reference = np.exp(value) * 2
    np.testing.assert_allclose(full, reference, rtol=1e-6)
    np.testing.assert_allclose(column, reference.sum(axis=0), rtol=1e-5)
    labels = {label_shape(e.label) for e in GraphPicture(f).edges}
    assert f"float32 {reference.shape}" in labels
    assert labels <= {f"float32 {reference.shape}", f"float32 {reference.sum(axis=0).shape}"}
    assert f.last_shapes[f.maker.fgraph.inputs[0]] == ("float32", (5, 3))
    assert {f.last_shapes[o] for o in f.maker.fgraph.outputs} == {
        ("float32", reference.shape), ("float32", reference.sum(axis=0).shape)}


def test_the_details_card_says_where_the_shape_came_from():
    x = T.vector("x", test_value=np.arange(3, dtype="float32"))
    f = sn.function([x], T.tanh(x) * 3)
    node_id = "n0"  # the one node: tanh(x) * 3 fused
    card = node_details_html(view_model_parts(f), node_id)
    assert "shape (test value)" in card and "float32 (3,)" in card
    f(np.ones(40, "float32"))
    card = node_details_html(view_model_parts(f), node_id)
    assert "shape (last call)" in card and "float32 (40,)" in card
    assert "float32 (?,)" in card  # the static type stays in the details


def test_calls_record_nothing_only_traces_do():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    f = sn.function([x], T.exp(x).sum(axis=1))
    assert f._invoke.__module__ == "symnb.compile.fast_path"  # the call path is the usual fast one
    f(np.ones((4, 5), "float32"))
    record = f._program.last_trace
    for _ in range(3):  # same shapes: no trace, so the very same record
        f(RNG.random((4, 5), dtype="float32"))
    assert f._program.last_trace is record
    assert f._invoke.__module__ == "symnb.compile.fast_path"
    f(np.ones((6, 7), "float32"))  # new shapes: traced again, recorded again
    assert f._program.last_trace is not record
    assert f.last_shapes[f.maker.fgraph.outputs[0]] == ("float32", (6,))


def test_a_loops_outer_edges_show_the_call_and_its_body_still_draws():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    s0 = T.scalar("s0", test_value=np.float32(0))
    sums, _ = sn.scan(lambda x_t, acc: acc + x_t, sequences=[x], outputs_info=[s0])
    f = sn.function([x, s0], sums)
    value = RNG.random(11, dtype="float32")
    np.testing.assert_allclose(f(value, np.float32(0)), np.cumsum(value), rtol=1e-5)
    picture = GraphPicture(f)
    loop = next(n for n in picture.nodes.values() if n.has_inner)
    outer = {label_shape(e.label) for e in picture.edges}
    assert f"float32 {np.cumsum(value).shape}" in outer and "float32 (3,)" not in outer
    # Loop bodies are not recorded (outer nodes are enough): they draw as before.
    opened = GraphPicture(f, expanded=[loop.id])
    body = [e for inner in opened.find(loop.id).inner for e in inner.picture.edges]
    assert body and all("float32 ()" in e.label for e in body)
