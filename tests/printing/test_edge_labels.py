"""Edge labels carry concrete shapes and never overlap; gradient and rewrite nodes are
labelled by what made them (printing/labels.py, printing/label_places.py)."""

import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from symnb.printing.graph_model import GraphPicture
from symnb.printing.html import node_details_html
from symnb.printing.view_model import view_model_parts
from symnb.printing.labels import Shapes
from symnb.printing.layout import layout
from symnb.printing.svg import picture_svg
from tests.optional_tools import LAYOUT_ENGINES

RNG = np.random.default_rng(1)


def layer(h, W, b):
    return T.tanh(T.dot(h, W) + b)


def training(depth=4, batch=16, sizes=(12, 7)):
    x = T.matrix("x", test_value=RNG.random((batch, sizes[0]), dtype="float32"))
    params, h, widths = [], x, [sizes[0]] + [sizes[1]] * depth
    for m, n in zip(widths, widths[1:]):
        W = sn.shared(RNG.standard_normal((m, n)).astype("float32"))
        b = sn.shared(np.zeros(n, "float32"))
        params += [W, b]
        h = layer(h, W, b)
    loss = T.mean(T.square(h))
    return x, params, loss


def shape_of_label(text: str) -> str:
    return re.sub(r"^(out \d+ \u2192 )?(\d+: )?", "", text)


def test_edge_labels_are_the_test_values_shapes():
    x, params, loss = training()
    grads = sn.grad(loss, params)
    picture = GraphPicture([loss] + grads, opened=[])
    picture = GraphPicture([loss] + grads, opened=[g.id for g in picture.tree.groups()])
    assert len(picture.edges) > 50
    for edge in picture.edges:
        value = np.asarray(edge.variable.test_value)  # computed here: the reference
        assert shape_of_label(edge.label) == f"{value.dtype} {value.shape}"
    assert any("float32 (16, 12)" in e.label for e in picture.edges)


def test_a_rewritten_node_without_test_value_shows_the_shape_of_what_it_replaced():
    x, params, loss = training()
    f = sn.function([x], loss, updates=[(p, p - 0.1 * g) for p, g in zip(params, sn.grad(loss, params))])
    fgraph = f.maker.fgraph
    shapes = Shapes()
    checked = 0
    for record in fgraph.history:
        if record.new.owner is not None and record.new._test_value is None and record.old.owner is not None:
            reference = np.asarray(record.old.test_value).shape
            assert shapes.shape(record.new) == reference
            checked += 1
    assert checked >= 4
    picture = GraphPicture(f, opened=[])
    picture = GraphPicture(f, opened=[g.id for g in picture.tree.groups()])
    assert not [e.label for e in picture.edges if "?" in e.label]


def test_gradient_and_rewrite_nodes_are_labelled_by_what_made_them():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    y = T.exp(T.log(x)) * 2
    f = sn.function([x], [y, sn.grad(T.tanh(y).sum(), x)])
    picture = GraphPicture(f)
    names = {r.name for r in f.maker.fgraph.history}
    labels = [n.label for n in picture.nodes.values() if n.kind == "apply"]
    fused = [n for n in picture.nodes.values() if n.label.startswith("fused: ")]
    assert fused and all(n.role == n.label for n in fused)
    for node in fused:  # the ops listed are the fused chain's, in order
        inner = node.obj.op.inner_graphs[0].nodes
        expected = "fused: " + "\u00b7".join(i.op.public_name() for i in inner)
        assert node.label == (expected if len(expected) <= 40 else expected[:39] + "\u2026")
    rewritten = [n for n in picture.nodes.values() if n.role and not n.role.startswith(("fused", "grad"))]
    assert all(n.role.split(":")[0] in names for n in rewritten)
    assert "T.exp(T.log(x))" not in labels  # not the text of the line a rewrite replaced
    parts = view_model_parts(f)
    details = node_details_html(parts, parts.ids[id(fused[0].obj)])
    assert "made by" in details and "rewrite" in details


def test_ops_public_names_are_the_functions_building_them():
    x = T.matrix("x")
    assert T.tanh(x).owner.op.public_name() == "tanh"
    assert T.tensordot(x, x, axes=[[0], [0]]).owner.op.public_name() == "tensordot"
    assert T.dot(x, x).owner.op.public_name() == "dot"
    assert T.nnet.log_softmax(x).owner.op.public_name() == "log_softmax"


def test_an_indexing_and_a_length_read_as_the_user_writes_them():
    from symnb.core.tensor.shape import shape_i

    x, t = T.matrix("x"), T.iscalar("t")
    cases = {x[t]: "x[t]", x[1:3]: "x[1:3]", x[t:, 0]: "x[t:, 0]", (x + 1)[t]: "(x + 1)[t]",
             shape_i(x, 1): "x.shape[1]"}
    for var, text in cases.items():
        assert var.owner.op.words(var.owner, lambda v: v.name or "x + 1") == text  # operands named so


def rectangles_overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("engine", LAYOUT_ENGINES)
@pytest.mark.parametrize("state", ["closed", "open"])
def test_labels_overlap_no_box_and_no_other_label(engine, state):
    x, params, loss = training(depth=12)
    grads = sn.grad(loss, params)
    picture = GraphPicture([loss] + grads)
    if state == "open":
        picture = GraphPicture([loss] + grads, opened=[g.id for g in picture.tree.groups()])
    laid = layout(picture, engine)
    placed = [rect for rect in laid.labels if rect is not None]
    assert len(laid.labels) == len(picture.edges)
    single = [e for e in picture.edges if len(e.variables) == 1]  # several: in the tooltip
    assert len(placed) >= 0.6 * len(single)
    for i, rect in enumerate(placed):
        assert 0 <= rect[0] and rect[0] + rect[2] <= laid.width and 0 <= rect[1] and rect[1] + rect[3] <= laid.height
        assert not any(rectangles_overlap(rect, box) for box in laid.boxes.values())
        assert not any(rectangles_overlap(rect, other) for other in placed[i + 1:])
    svg = picture_svg(picture, laid)
    assert svg.count('class="symnb-edge-label"') == len(placed)


def test_no_labels_when_asked():
    x, params, loss = training(depth=2)
    picture = GraphPicture(loss)
    laid = layout(picture, "layered", with_labels=False)
    assert laid.labels == [] and 'class="symnb-edge-label"' not in picture_svg(picture, laid)


def test_the_node_an_error_names_gets_no_derived_shape():
    x = T.matrix("x", test_value=np.ones((3, 4), "float32"))
    w = sn.shared(np.ones((4, 2), "float32"), name="w")
    hidden = T.tanh(T.dot(x, w))
    with pytest.raises(Exception) as caught:
        T.dot(hidden, w)  # (3, 2) . (4, 2): the shapes do not fit
    node = caught.value.node
    picture = GraphPicture(node, highlight=[node])
    out = node.outputs[0]
    assert picture.shapes.text(out) == out.type.short() and "?" in out.type.short()
    parts = view_model_parts(node, highlight=[node])
    card = node_details_html(parts, parts.ids[id(node)])
    assert "<b>" in card and "the error names this node" in card
    assert f"{out.type.short()}</td>" in card
    # Its inputs keep their shapes (from their test values).
    assert picture.shapes.text(hidden) == "float32 (3, 2)"


def test_the_cards_inputs_table_keeps_a_values_summary_wide_enough_to_read():
    import html as html_module
    p = T.vector("p", test_value=np.array([0.2, 0.5, 0.3], "float32"))
    log_p = T.log(p)
    parts = view_model_parts(log_p)
    card = node_details_html(parts, parts.ids[id(log_p.owner)])
    inputs = card.split("<b>inputs</b>", 1)[1]
    # The input's value cell: its summary (as NumPy computes it) in a box with a floor
    # under its width (the one-line "created at" beside it squeezed it to a word a line).
    cell = re.search(r'<div style="min-width:(\d+)ch">(.*?)</div>', inputs, re.S)
    assert int(cell.group(1)) >= 40
    summary = html_module.unescape(re.search(r"<span>(.*?)</span>", cell.group(2)).group(1))
    assert f"mean={p.test_value.mean():.4g}" in summary and f"max={p.test_value.max():.4g}" in summary


@pytest.mark.parametrize("engine", LAYOUT_ENGINES)
def test_every_edge_starts_under_its_source_and_ends_over_its_target(engine):
    # dot ended x's edge into T.dot(x, w) 10 px left of the box, at its side: the arrow
    # pointed at empty space. Each end must lie on its box's edge, within its width.
    x = T.matrix("x", test_value=np.arange(12, dtype="float32").reshape(3, 4) / 4)
    w = sn.shared(np.linspace(-1, 1, 8, dtype="float32").reshape(4, 2), name="w")
    hidden = T.tanh(T.dot(x, w))
    with pytest.raises(sn.TestValueError) as caught:
        T.dot(hidden, w)
    picture = GraphPicture(caught.value.node, highlight=[caught.value.node])
    laid = layout(picture, engine)
    assert len(laid.paths) == len(picture.edges) == 5
    for edge, path in zip(picture.edges, laid.paths):
        (sx, sy, sw, sh), (tx, ty, tw, th) = laid.boxes[edge.source], laid.boxes[edge.target]
        (start_x, start_y), (end_x, end_y) = path[0], path[-1]
        assert sx <= start_x <= sx + sw and start_y == pytest.approx(sy + sh), (edge.source, path[0])
        assert tx <= end_x <= tx + tw and end_y == pytest.approx(ty), (edge.target, path[-1])
