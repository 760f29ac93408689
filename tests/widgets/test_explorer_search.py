"""GraphExplorer's search walks the whole graph, nodes inside closed groups included,
and selecting such a hit opens its groups; describe() reads the same ids. The expected
hits are computed here by walking the graph (toposort) and naming each node."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply, toposort
from symnb.core.graph.errors import label
from symnb.printing.labels import role_label
from symnb.widgets import GraphExplorer

rng = np.random.RandomState(0)


def _init(n_in, n_out, name):
    W = sn.shared(rng.uniform(-0.2, 0.2, (n_in, n_out)).astype("float32"), name="W_" + name)
    b = sn.shared(np.zeros(n_out, "float32"), name="b_" + name)
    return W, b


def _layer(inp, W, b, act=T.nnet.relu):
    return act(T.dot(inp, W) + b)


@pytest.fixture(scope="module")
def mlp():
    x = T.matrix("x", test_value=rng.randn(16, 20).astype("float32"))
    y = T.ivector("y", test_value=rng.randint(0, 3, 16).astype("int32"))
    W1, b1 = _init(20, 64, "h1")
    W2, b2 = _init(64, 64, "h2")
    W3, b3 = _init(64, 64, "h3")
    W4, b4 = _init(64, 3, "out")
    h1 = _layer(x, W1, b1)
    h2 = _layer(h1, W2, b2, T.tanh)
    h3 = _layer(h2, W3, b3, T.nnet.sigmoid)
    p_y = T.nnet.softmax(T.dot(h3, W4) + b4)
    nll = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y])
    cost = nll + 1e-4 * sum((W ** 2).sum() for W in [W1, W2, W3, W4])
    grads = T.grad(cost, [W1, b1, W2, b2, W3, b3, W4, b4])
    return [cost] + grads


def _walk(outputs):
    """(Apply nodes in execution order, the roots they read): the graph, walked here."""
    order = toposort(outputs)
    roots = []
    for node in order:
        roots += [v for v in node.inputs if v.owner is None and all(v is not r for r in roots)]
    return order, roots


def _closed_around(explorer, obj):
    """The groups holding ``obj`` that the explorer's picture draws closed."""
    picture = explorer.picture
    return [g.id for g in picture.tree.group_of(obj).ancestors() if g.id not in picture.opened]


def test_search_finds_nodes_inside_closed_groups(mlp):
    explorer = GraphExplorer(mlp)
    order, roots = _walk(mlp)
    # A parameter and the tanh live inside closed groups (the calls of _layer, the gradient).
    assert _closed_around(explorer, roots[[label(r) for r in roots].index("W_h2")])
    hits = explorer.search("W_H2")
    model = explorer.view_model()
    nodes = {n["id"] for n in model["nodes"]}
    assert [explorer.model_parts().obj_of(h) for h in hits if h in nodes] == [r for r in roots if label(r) == "W_h2"]
    groups = {g["id"]: g["label"] for g in model["groups"]}  # the groups named after it: the calls reading it
    assert all("w_h2" in groups[h].lower() for h in hits if h not in nodes)
    tanh_nodes = [n for n in order if "tanh" in n.op.display_name().lower()]
    assert tanh_nodes and set(explorer.search("tanh")) >= {explorer.picture.node_id(n) for n in tanh_nodes}
    drawn = set(explorer.node_ids())
    assert not {h for h in hits if h in nodes} & drawn  # before this change, search answered [] here


def test_search_hits_the_nodes_whose_name_or_op_match_then_those_whose_line_does(mlp):
    """The viewer's rule (tests/browser/test_viewer.py checks the two answer alike): a
    node named so, or whose op or role is, then the groups so labelled, then the nodes
    whose source line holds the query. Expected from the graph walked here."""
    explorer = GraphExplorer(mlp)
    picture = explorer.picture
    model = {n["id"]: n for n in explorer.view_model()["nodes"]}
    order, roots = _walk(mlp)
    for query in ("dot", "softmax", "b_", "x", "grad of", "uniform"):
        named = [picture.node_id(root) for root in roots if query in (root.name or "").lower()]
        named += [picture.node_id(node) for node in order  # its user's name, its op, what made it (sn.grad)
                  if any(query in n.lower() for n in [node.outputs[0].name or "",
                                                      node.op.public_name(), role_label(node, picture.origins) or ""])]
        hits = explorer.search(query)
        assert hits == explorer.search(query.upper())
        assert set(named) <= {h.split("@")[0] for h in hits}, query  # a constant's copies: v3@g5
        lines = [h for h in hits if h in model and query not in
                 "\1".join(str(model[h][k] or "") for k in ("label", "name", "op")).lower()]
        assert all(query in model[h]["code"].lower() for h in lines), query  # matched by its line
        assert hits[len(hits) - len(lines):] == lines  # after every name's hit
    assert [h for h in explorer.search("uniform") if h in model]  # the Ws' line: np.random.uniform


def test_selecting_a_hit_inside_closed_groups_opens_them(mlp):
    explorer = GraphExplorer(mlp)
    hit = explorer.search("W_h2")[0]
    groups = _closed_around(explorer, explorer.model_parts().obj_of(hit))
    assert groups
    details = explorer.select(hit)
    assert explorer.selected == hit and explorer.picture.find(hit) is not None
    assert set(groups) <= set(explorer.opened)
    assert "W_h2" in details and "float32 (64, 64)" in details


def test_describe_accepts_the_ids_search_and_node_ids_return(mlp):
    explorer = GraphExplorer(mlp)
    W = next(v for v in _walk(mlp)[1] if label(v) == "W_out")
    text = explorer.describe(explorer.search("W_out")[0])
    assert text.startswith("W_out") and str(W.get_value().shape).replace(" ", "") in text.replace(" ", "")
    for node_id in explorer.node_ids():
        assert explorer.describe(node_id)  # groups, applies and roots alike
    with pytest.raises(KeyError, match="no node 'n9999'"):
        explorer.describe("n9999")
    assert explorer.describe(0) == explorer.describe(explorer.picture.node_id(mlp[0].owner))


def test_a_gradient_group_counts_the_gradients_it_produces(mlp):
    explorer = GraphExplorer(mlp)
    grad_boxes = [n for n in explorer.picture.nodes.values()
                  if n.kind == "group" and n.obj.kind == "grad"]
    assert grad_boxes
    produced = {id(g) for g in mlp[1:]}
    outs = {id(v) for v in grad_boxes[0].group_outputs}
    assert produced <= outs and f"{len(outs)} out" in grad_boxes[0].sublabel


def test_a_groups_details_list_its_values_one_line_each(mlp):
    explorer = GraphExplorer(mlp)
    model = explorer.view_model()
    grad = next(g for g in model["groups"] if g["kind"] == "grad")
    details = explorer.select(grad["id"])
    assert "<img" not in details  # no heatmaps: one summary line per value
    # What enters the group: the values its nodes read from nodes outside it (constants
    # are drawn inside each group using them), read off the model's edges here.
    parents = {g["id"]: g["parent"] for g in model["groups"]}

    def inside(group):
        while group is not None and group != grad["id"]:
            group = parents[group]
        return group is not None

    members = {n["id"] for n in model["nodes"] if inside(n["group"])}
    entering = {(e["src"], e["out"]) for e in model["edges"] if e["dst"] in members and e["src"] not in members}
    assert f"\u00b7 {len(entering)} in \u00b7" in details
    leaving = int(details.split(" in \u00b7 ")[1].split(" out")[0])
    rows = details.count("<tr>") - 2 - 2  # minus the card's rows and the two headers
    assert rows == len(entering) + leaving and leaving >= len(mlp) - 1  # each gradient leaves it


def test_a_pending_test_value_is_computed_from_the_details():
    data = np.arange(6, dtype="float32").reshape(2, 3)
    x = T.matrix("x", test_value=data)
    f = sn.function([x], T.tanh(T.exp(x) * 2).sum())  # its rewritten nodes compute lazily
    explorer = GraphExplorer(f)
    total = next(i for i in explorer.node_ids() if i.startswith("n")
                 and explorer.model_parts().obj_of(i).op.display_name().startswith("Sum"))
    details = explorer.select(total)
    assert "pending" in details
    from symnb.printing.values import value_stats
    computed = explorer.compute(total)
    assert "pending" not in computed
    assert value_stats(np.tanh(np.exp(data) * 2)) in computed  # the input, fused, now known
