"""The pictures' hierarchy (printing/groups.py): groups from the calls that built each
node, sn.name_scope blocks and sn.grad calls; big graphs drawn closed."""

import pickle
import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from symnb.printing.graph_model import OPEN_UP_TO, GraphPicture
from symnb.printing.groups import GroupTree
from symnb.printing.layout import layout
from symnb.printing.svg import picture_svg
from tests.optional_tools import needs_dot

RNG = np.random.default_rng(0)


def layer(h, W, b):
    return T.tanh(T.dot(h, W) + b)


def mlp(depth: int, width: int = 5):
    """x -> ``depth`` calls of layer -> loss; each call's output and the parameters."""
    x = T.matrix("x", test_value=RNG.random((3, width), dtype="float32"))
    params, calls, h = [], [], x
    for i in range(depth):
        W = sn.shared(RNG.standard_normal((width, width)).astype("float32"), name=f"W{i}")
        b = sn.shared(np.zeros(width, "float32"), name=f"b{i}")
        params += [W, b]
        out = layer(h, W, b)
        calls.append((h, W, b, out))
        h = out
    loss = T.mean(T.square(h))
    return x, params, calls, loss


def test_each_call_of_a_function_is_a_group_holding_the_nodes_it_built():
    x, params, calls, loss = mlp(12)
    order = toposort([loss])
    tree = GroupTree(order, [x] + params)
    layers = [g for g in tree.groups() if g.name == "layer"]
    assert [g.title for g in layers] == [f"layer() #{i}" for i in range(1, 13)]
    for group, (h, W, b, out) in zip(layers, calls):
        # Reference: the nodes between the call's arguments and its result.
        built = toposort([out], [h, W, b])
        assert {id(n) for n in group.nodes} == {id(n) for n in built} and group.size == 3
        assert W in group.roots and b in group.roots  # a parameter sits with its reader
    assert tree.group_of(x) is tree.top and tree.group_of(loss.owner) is tree.top


def test_a_call_group_says_where_it_was_called():
    x, params, calls, loss = mlp(2)
    tree = GroupTree(toposort([loss]), [x] + params)
    first = next(g for g in tree.groups() if g.title == "layer() #1")
    assert first.where().endswith("out = layer(h, W, b)") and "test_groups.py:" in first.where()


def test_name_scopes_nest_and_hold_the_calls_made_inside():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    with sn.name_scope("encoder") as name:
        assert name == "encoder"
        a = x * 2
        with sn.name_scope("inner"):
            b = T.exp(a)
        c = b + 1
    d = c.sum()
    tree = GroupTree(toposort([d]), [x])
    encoder = next(g for g in tree.groups() if g.name == "encoder")
    inner = next(g for g in tree.groups() if g.name == "inner")
    assert inner.parent is encoder and encoder.parent is tree.top
    assert [n.outputs[0] for n in inner.nodes] == [b]
    assert {id(n.outputs[0]) for n in encoder.nodes} == {id(a), id(c)}
    assert tree.group_of(d.owner) is tree.top


def test_a_scope_entered_inside_a_function_sits_in_that_call():
    def block(h):
        with sn.name_scope("inside"):
            return T.tanh(h)

    x = T.vector("x", test_value=np.ones(3, "float32"))
    y = block(x) + block(x)
    tree = GroupTree(toposort([y]), [x])
    insides = [g for g in tree.groups() if g.name == "inside"]
    assert len(insides) == 2 and all(g.parent.name == "block" for g in insides)
    assert insides[0].parent is not insides[1].parent


def test_name_scope_needs_a_name_and_is_public():
    assert "name_scope" in sn.__all__
    with pytest.raises(ValueError, match="non-empty string"):
        with sn.name_scope(" "):
            pass


def test_gradient_nodes_are_one_group_mirroring_the_forward_groups():
    x, params, calls, loss = mlp(3)
    grads = sn.grad(loss, params)
    forward = {id(n) for n in toposort([loss])}
    order = toposort([loss] + grads)
    tree = GroupTree(order, [x] + params)
    (gradient,) = [g for g in tree.groups() if g.kind == "grad"]
    assert gradient.title == "\u2202loss/\u2202(W0, b0, W1, b1, W2, b2)"
    inside = {id(n) for g in tree.groups() if gradient in g.ancestors() for n in g.nodes}
    assert inside == {id(n) for n in order} - forward  # every node sn.grad built, no other
    (model,) = [g for g in gradient.children if g.kind == "call"]
    mirrored = [g for g in model.children if g.kind == "call"]
    # Listed as sn.grad built them (last layer first), numbered as the forward calls.
    assert model.name == "mlp" and [g.title for g in mirrored] == ["layer() #3", "layer() #2", "layer() #1"]
    picture = GraphPicture([loss] + grads, opened=[g.id for g in tree.groups()])
    roles = {picture.nodes[picture.id_of(n)].label for n in order if id(n) not in forward}
    assert {"grad of tanh", "grad of dot", "grad of add", "grad of mean"} <= roles
    assert all(r.startswith(("grad of ", "grad: ")) for r in roles)


def test_the_sum_of_a_variables_gradient_terms_is_in_its_users_group():
    # z feeds two nodes of the call, so its gradient is a sum of two terms: that add is
    # the call's gradient (its mirror group), not loose in sn.grad's group.
    def rectify(h, W, b):
        z = T.dot(h, W) + b
        return 0.5 * (z + abs(z))

    x = T.matrix("x", test_value=RNG.random((3, 4), dtype="float32"))
    W = sn.shared(RNG.standard_normal((4, 4)).astype("float32"), name="W")
    b = sn.shared(np.zeros(4, "float32"), name="b")
    loss = T.mean(T.square(rectify(x, W, b)))
    grads = sn.grad(loss, [W, b])
    tree = GroupTree(toposort([loss] + grads), [x, W, b])
    (gradient,) = [g for g in tree.groups() if g.kind == "grad"]
    (mirror,) = [g for g in tree.groups() if g.kind == "call" and gradient in g.ancestors()]
    assert not any(type(n.op).__name__ == "Add" for n in gradient.nodes)
    assert any(type(n.op).__name__ == "Add" for n in mirror.nodes)
    np.testing.assert_allclose(  # and the sum is the gradient (reference: NumPy's)
        grads[1].test_value, _rectified_mean_square_grad_b(x.test_value, W.get_value()), rtol=1e-5)


def _rectified_mean_square_grad_b(x, W):
    z = x @ W
    out = np.maximum(z, 0)
    return (2 * out * (z > 0) / out.size).sum(axis=0)


def test_a_big_graph_opens_closed_and_its_snapshot_counts_the_boxes():
    x, params, calls, loss = mlp(12)
    grads = sn.grad(loss, params)
    assert len(toposort([loss] + grads)) > OPEN_UP_TO
    picture = GraphPicture([loss] + grads)
    groups = [n for n in picture.nodes.values() if n.kind == "group"]
    # mlp() (the forward graph) opened to its 12 layers: within the first picture's
    # budget; the gradient's 12 mirrored layers and its own nodes would not be.
    (model,) = [g for g in picture.tree.top.children if g.name == "mlp"]
    assert picture.opened == {model.id} and len(groups) == 13 and picture.count() <= 24
    for node in groups:
        size = node.obj.size
        assert node.sublabel.startswith(f"{size} nodes \u00b7 ")
    svg = picture_svg(picture, layout(picture, "layered"))
    drawn = svg.count('<g class="symnb-node')
    assert re.search(r'data-nodes="(\d+)"', svg).group(1) == str(drawn) == str(picture.count())
    # Opening one group draws its nodes in place of its box.
    first = next(n for n in groups if n.label == "layer() #1")
    opened = GraphPicture([loss] + grads, opened=picture.opened | {first.id})
    assert first.id not in opened.nodes
    assert opened.id_of(calls[0][3]) in opened.nodes and opened.count() == picture.count() + 2 + 2
    # A small graph opens with every group open.
    small = GraphPicture(mlp(2)[3])
    assert all(n.kind != "group" for n in small.nodes.values())


def test_edges_into_a_closed_group_are_merged_and_carry_every_variable():
    x, params, calls, loss = mlp(12)
    picture = GraphPicture([loss] + sn.grad(loss, params))
    pairs = [(e.source, e.target) for e in picture.edges]
    assert len(pairs) == len(set(pairs))
    second = next(n for n in picture.nodes.values() if n.label == "layer() #2")
    (into,) = [e for e in picture.edges if e.target == second.id]
    assert into.variables == [calls[0][3]] and into.label == "float32 (3, 5)"
    assert [v for v in second.group_inputs] == [calls[0][3]]


def test_the_error_node_is_always_in_sight():
    x, params, calls, loss = mlp(12)
    grads = sn.grad(loss, params)
    target = calls[5][3].owner
    picture = GraphPicture([loss] + grads, highlight=[target])
    assert picture.id_of(target) in picture.nodes and picture.nodes[picture.id_of(target)].error


def test_scoping_survives_pickling():
    x, params, calls, loss = mlp(2)
    copy = pickle.loads(pickle.dumps(loss))
    original = calls[1][3].owner.site.scoping
    out = copy.owner.inputs[0].owner.inputs[0].owner.site.scoping  # tanh of layer #2
    assert out.calls == original.calls
    assert copy.owner.site.frame.line == loss.owner.site.frame.line


def test_many_calls_side_by_side_are_cut_into_runs():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    outs = [T.tanh(x * float(i)) for i in range(3)]  # not calls: no group
    h = x
    for _ in range(45):
        h = T.tanh(double(h))
    tree = GroupTree(toposort([h] + outs), [x])
    runs = [g for g in tree.top.children if g.kind == "series"]
    assert [g.title for g in runs] == ["double() #1\u2013#20", "double() #21\u2013#40", "double() #41\u2013#45"]
    assert [len(g.children) for g in runs] == [20, 20, 5] and all(g.size == len(g.children) for g in runs)
    assert all(c.parent is g and c.name == "double" for g in runs for c in g.children)


def double(v):
    return v * 2


def test_a_top_level_line_that_built_several_nodes_is_a_group_named_as_it_assigns():
    x, params, calls, loss = mlp(12)
    total = T.nnet.categorical_crossentropy(T.nnet.softmax(calls[-1][3]), T.ivector("y", test_value=np.zeros(3, "int32"))).mean()
    tree = GroupTree(toposort([total, loss]), [x] + params)
    (line,) = [g for g in tree.groups() if g.kind == "line"]
    assert line.name == "total" and line.size >= 4
    assert line.where().endswith("total = T.nnet.categorical_crossentropy(T.nnet.softmax(calls[-1][3]), "
                                 'T.ivector("y", test_value=np.zeros(3, "int32"))).mean()')


def test_a_closed_group_is_timed_by_the_sum_of_its_nodes():
    x, params, calls, loss = mlp(12)
    grads = sn.grad(loss, params)
    order = toposort([loss] + grads)
    times = {node: 1e-3 * (i + 1) for i, node in enumerate(order)}  # made-up, distinct
    picture = GraphPicture([loss] + grads, times=times)
    groups = [n for n in picture.nodes.values() if n.kind == "group"]
    for node in groups:
        inside = [n for n in order if node.obj in picture.tree.group_of(n).ancestors()]
        assert node.seconds == pytest.approx(sum(times[n] for n in inside))
    drawn = [n for n in picture.nodes.values() if n.seconds is not None]
    assert sum(n.seconds for n in drawn) == pytest.approx(sum(times.values()))
    assert max(n.heat for n in drawn) == 1.0


def _nested_open_groups():
    """A picture with a loop's run of calls open, one call inside it open, and a scope
    open: the picture, the run's group and the inner call's group."""
    x = T.vector("x", test_value=np.ones(3, "float32"))
    h = x
    for _ in range(25):
        h = T.tanh(double(h))
    with sn.name_scope("head"):
        out = (h * 3).sum()
    tree = GraphPicture(out, opened=[]).tree
    (run,) = [g for g in tree.groups() if g.kind == "series" and g.title.endswith("#20")]
    inner = run.children[1]
    opened = {run.id, inner.id} | {g.id for g in tree.groups() if g.name == "head"}
    return GraphPicture(out, opened=opened), run, inner


def test_frames_of_open_groups_nest_as_the_groups_do():
    picture, run, inner = _nested_open_groups()
    frames = picture.frames()
    order = [f[0] for f in frames]
    parents = {f[0]: f[2] for f in frames}
    assert parents[inner.id] == run.id and order.index(run.id) < order.index(inner.id)


@needs_dot
def test_dots_frames_hold_their_groups_frames_and_boxes():
    picture, run, inner = _nested_open_groups()
    laid = layout(picture, "dot")
    ox, oy, ow, oh = laid.frames[run.id]
    ix, iy, iw, ih = laid.frames[inner.id]
    assert ox <= ix and oy <= iy and ix + iw <= ox + ow and iy + ih <= oy + oh
    for box_id in [f for f in picture.frames() if f[0] == inner.id][0][3]:
        bx, by, bw, bh = laid.boxes[box_id]
        assert ix <= bx and iy <= by and bx + bw <= ix + iw and by + bh <= iy + ih


def test_the_gradients_mirror_of_a_call_is_numbered_as_the_forward_call():
    # sn.grad builds the last layer's gradient first: its mirror groups were numbered in
    # that order, the gradient of the forward "layer() #3" titled "layer() #1".
    x, params, calls, loss = mlp(3)
    grads = sn.grad(loss, params)
    order = toposort([loss] + grads)
    tree = GroupTree(order, [x] + params)
    (gradient,) = [g for g in tree.groups() if g.kind == "grad"]
    (model,) = [g for g in gradient.children if g.kind == "call"]
    for k, (h, W, _b, _out) in enumerate(calls, start=1):
        (mirror,) = [g for g in model.children if g.title == f"layer() #{k}"]
        inside = [n for g in tree.groups() if g is mirror or mirror in g.ancestors() for n in g.nodes]
        read = {id(v) for n in inside for v in n.inputs}
        # The gradient of layer k reads that layer's own weights (for the gradient that
        # goes on to its input) or, the first, its input x (for W0's gradient).
        own = W if k > 1 else h
        assert id(own) in read, (k, [str(n) for n in inside])
        others = [c[1] for j, c in enumerate(calls, start=1) if j != k]
        assert not any(id(o) in read for o in others), k
