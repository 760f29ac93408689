"""The client-side viewer's graph model (printing/view_model.py, issue 28): a 12-layer
MLP's training function built as a user writes it, checked against what the user wrote
(which call got which parameter, which ops one call built), never against the model's
own bookkeeping."""

import json

import math

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from symnb.printing.values import value_stats
from symnb.printing.view_model import view_model

DEPTH = 12


def layer(x, W, b):
    return T.nnet.relu(T.dot(x, W) + b)


def mlp_training(depth=DEPTH, width=6, batch=4, profile=False):
    """The issue's user: ``layer`` in a loop, softmax and cross-entropy, sn.grad, SGD
    updates in a list comprehension; returns the compiled function and the parameters
    in the order the loop passed them."""
    rng = np.random.default_rng(0)
    X = T.matrix("X", test_value=rng.random((batch, 5), dtype="float32"))
    Y = T.ivector("Y", test_value=rng.integers(0, 3, batch).astype("int32"))
    sizes = [5] + [width] * (depth - 1) + [3]
    params, h = [], X
    for i in range(depth):
        W = sn.shared((rng.standard_normal((sizes[i], sizes[i + 1])) * 0.3).astype("float32"), name=f"W{i}")
        b = sn.shared(np.zeros(sizes[i + 1], "float32"), name=f"b{i}")
        params += [W, b]
        h = layer(h, W, b)
    loss = T.nnet.categorical_crossentropy(T.nnet.softmax(h), Y).mean()
    grads = sn.grad(loss, params)
    updates = [(p, p - 0.1 * g) for p, g in zip(params, grads)]
    return sn.function([X, Y], loss, updates=updates, profile=profile), params


@pytest.fixture(scope="module")
def trained():
    f, params = mlp_training()
    return f, params, view_model(f)


def _by_id(model):
    return {n["id"]: n for n in model["nodes"]}, {g["id"]: g for g in model["groups"]}


def _ancestors(groups, group_id):
    chain = []
    while group_id is not None:
        chain.append(group_id)
        group_id = groups[group_id]["parent"]
    return chain


def test_the_model_is_json_and_every_edge_joins_known_nodes(trained):
    _, _, model = trained
    nodes, groups = _by_id(model)
    assert json.loads(json.dumps(model)) == model
    for edge in model["edges"]:
        assert edge["src"] in nodes and edge["dst"] in nodes
        assert edge["out"] < len(nodes[edge["src"]]["outs"])
    for node in model["nodes"]:
        assert node["group"] is None or node["group"] in groups


def test_a_twelve_layer_training_function_opens_in_at_most_twenty_boxes(trained):
    _, _, model = trained
    top = [n for n in model["nodes"] if n["group"] is None] + [g for g in model["groups"] if g["parent"] is None]
    assert len(top) <= 20, [n.get("label") for n in top]


def test_the_layers_fold_into_one_series_whose_items_are_the_calls_in_order(trained):
    f, params, model = trained
    nodes, groups = _by_id(model)
    forward = [g for g in model["groups"] if g["kind"] == "series" and g["region"] == "forward"]
    assert len(forward) == 1 and forward[0]["parent"] is None
    series = forward[0]
    assert series["label"] == f"layer() x{DEPTH}" and series["series"]["count"] == DEPTH
    # The i-th item is the call the loop passed W{i} to: W{i}'s node sits inside it.
    for i, item in enumerate(series["series"]["items"]):
        holder = [n for n in model["nodes"] if n["name"] == f"W{i}" and n["kind"] == "shared"]
        assert len(holder) == 1 and item in _ancestors(groups, holder[0]["group"])
        assert groups[item]["parent"] == series["id"]


def test_calls_are_labelled_by_the_parameter_they_were_passed(trained):
    _, _, model = trained
    nodes, groups = _by_id(model)
    for node in model["nodes"]:
        if node["kind"] == "shared" and node["name"].startswith("W"):
            call = next(g for g in _ancestors(groups, node["group"]) if groups[g]["kind"] == "call")
            assert groups[call]["label"] == f"layer({node['name']})"


def test_the_gradient_mirrors_the_forward_series_call_by_call(trained):
    _, _, model = trained
    _, groups = _by_id(model)
    forward = next(g for g in model["groups"] if g["kind"] == "series" and g["region"] == "forward")
    backward = [g for g in model["groups"] if g["kind"] == "series" and g["region"] == "gradient"]
    assert len(backward) == 1 and backward[0]["mirrors"] == forward["id"]
    assert groups[backward[0]["parent"]]["kind"] == "grad"
    pairs = zip(backward[0]["series"]["items"], forward["series"]["items"])
    for gradient_call, forward_call in pairs:
        assert groups[gradient_call]["mirrors"] == forward_call
        assert groups[gradient_call]["label"] == groups[forward_call]["label"]
        assert groups[gradient_call]["region"] == "gradient"


def test_the_updates_are_their_own_region(trained):
    f, params, model = trained
    nodes, groups = _by_id(model)
    # Reference: the nodes computing the new parameter values and nothing else are
    # those not feeding the loss (the function's first output).
    loss_nodes = {id(n) for n in toposort([f.maker.fgraph.outputs[0]])}
    only_updates = [f"n{i}" for i, n in enumerate(f.nodes) if id(n) not in loss_nodes
                    and not any(e.kind in ("grad", "grad_of") for e in n.site.scoping.scopes)]
    assert only_updates
    for node_id in only_updates:
        assert nodes[node_id]["region"] == "updates"
    updates = [g for g in model["groups"] if g["region"] == "updates"]
    assert updates and all(g["kind"] == "call" and g["label"] == "updates (for p, g)" for g in updates)
    # The list comprehension updates every layer's parameters: it mirrors the layers' series.
    series = next(g for g in model["groups"] if g["kind"] == "series" and g["region"] == "forward")
    assert [g["mirrors"] for g in updates] == [series["id"]]


def test_one_layers_update_mirrors_that_layer():
    W = sn.shared(np.eye(3, dtype="float32"), name="W")
    b = sn.shared(np.zeros(3, "float32"), name="b")
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    loss = layer(x, W, b).sum()
    f = sn.function([x], loss, updates=sgd(loss, [W, b]))
    model = view_model(f)
    nodes, groups = _by_id(model)
    home = next(n["group"] for n in model["nodes"] if n["name"] == "W")
    call = next(g for g in _ancestors(groups, home) if groups[g]["kind"] == "call")
    updates = [g for g in model["groups"] if g["region"] == "updates"]
    assert [g["label"] for g in updates if g["parent"] is None] == ["sgd()"]  # its listcomp inside
    assert groups[call]["label"] == "layer()" and all(g["mirrors"] == call for g in updates)


def sgd(loss, params):
    return [(p, p - 0.1 * g) for p, g in zip(params, sn.grad(loss, params))]


def test_a_constant_used_by_several_layers_is_drawn_inside_each_and_joins_no_groups(trained):
    _, _, model = trained
    nodes, groups = _by_id(model)
    constants = [n for n in model["nodes"] if n["kind"] == "constant"]
    assert any("copy_of" in n for n in constants)  # relu's 0.5, merged across the layers
    for edge in model["edges"]:
        if nodes[edge["src"]]["kind"] == "constant":
            assert nodes[edge["src"]]["group"] == nodes[edge["dst"]]["group"], edge


def test_no_edge_joins_two_forward_layers_except_the_data_path(trained):
    _, _, model = trained
    nodes, groups = _by_id(model)
    series = next(g for g in model["groups"] if g["kind"] == "series" and g["region"] == "forward")
    items = series["series"]["items"]
    call_of = {}
    for node in model["nodes"]:
        chain = _ancestors(groups, node["group"])
        call_of[node["id"]] = next((items.index(g) for g in chain if g in items), None)
    crossing = {(call_of[e["src"]], call_of[e["dst"]]) for e in model["edges"]
                if call_of[e["src"]] is not None and call_of[e["dst"]] is not None
                and call_of[e["src"]] != call_of[e["dst"]]}
    assert crossing == {(i, i + 1) for i in range(DEPTH - 1)}


def test_relu_is_one_op_call_group_holding_the_ops_it_built(trained):
    _, _, model = trained
    nodes, groups = _by_id(model)
    relus = [g for g in model["groups"] if g["kind"] == "opcall" and g["label"] == "relu"]
    assert len(relus) == DEPTH  # one per layer
    # Reference: the ops T.nnet.relu builds, on a fresh variable.
    v = T.matrix("v", test_value=np.ones((2, 2), "float32"))
    expected = sorted(n.op.public_name() for n in toposort([T.nnet.relu(v)], [v]))
    for group in relus:
        inside = sorted(n["op"] for n in model["nodes"] if n["group"] == group["id"] and n["kind"] == "op")
        assert inside == expected
        assert all(n["label"] != "T.nnet.relu(T.dot(x, W) + b)" for n in model["nodes"] if n["group"] == group["id"])


def test_flatten_written_once_is_one_box_named_flatten():
    x = T.tensor4("x", test_value=np.ones((2, 3, 4, 5), "float32"))
    y = T.flatten(x, 2)
    z = (y * 2).sum()
    model = view_model(z)
    built = [n for n in toposort([y], [x])]
    flats = [g for g in model["groups"] if g["kind"] == "opcall" and g["label"] == "flatten"]
    if len(built) < 2:
        pytest.skip("flatten builds one node here: nothing to group")
    assert len(flats) == 1
    inside = [n for n in model["nodes"] if n["group"] == flats[0]["id"] and n["kind"] == "op"]
    assert len(inside) == len(built)


def test_calls_without_a_telling_parameter_are_numbered_from_zero_as_the_loop_counts():
    W = sn.shared(np.eye(3, dtype="float32"), name="W")  # one weight, tied across calls
    b = sn.shared(np.zeros(3, "float32"), name="b")
    h = x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    outputs = []
    for _ in range(3):
        h = layer(h, W, b)
        outputs.append(h)
    model = view_model(h.sum())
    nodes, groups = _by_id(model)
    by_output = {}
    for i, out in enumerate(outputs):  # the node computing the i-th call's result
        ops = [n for n in model["nodes"] if n["id"] == f"n{toposort([h.sum()]).index(out.owner)}"]
        by_output[i] = next(g for g in _ancestors(groups, ops[0]["group"]) if groups[g]["kind"] == "call")
    assert [groups[by_output[i]]["label"] for i in range(3)] == ["layer() #0", "layer() #1", "layer() #2"]


def test_names_are_plain_text_never_html():
    name = '<img src=x onerror="alert(1)">&amp;'
    x = T.vector(name, test_value=np.ones(2, "float32"))
    model = view_model((x * 2).sum())
    node = next(n for n in model["nodes"] if n["kind"] == "input")
    assert node["label"] == name and node["name"] == name


# -- overlays ---------------------------------------------------------------------------

def test_value_overlays_are_numpys_numbers_of_the_test_values():
    values = np.array([[1.0, -4.0, np.nan], [np.inf, 2.0, 0.5]], "float32")
    a = T.matrix("a", test_value=values)
    b = T.exp(a) * 2
    model = view_model(b)
    overlays = model["overlays"]
    node_a = next(n["id"] for n in model["nodes"] if n["name"] == "a")
    node_b = next(n["id"] for n in model["nodes"] if n["kind"] == "op" and n["is_output"])
    finite = values[np.isfinite(values)]
    assert overlays["nan_count"]["values"][node_a] == 1 and overlays["inf_count"]["values"][node_a] == 1
    assert overlays["max_abs"]["values"][node_a] == pytest.approx(4.0, rel=1e-3)
    assert overlays["mean"]["values"][node_a] == pytest.approx(finite.mean(), rel=1e-2)
    assert overlays["std"]["values"][node_a] == pytest.approx(finite.std(), rel=1e-2)
    with np.errstate(all="ignore"):
        reference = np.exp(values) * 2
    assert overlays["inf_count"]["values"][node_b] == int(np.isinf(reference).sum())
    assert overlays["bytes"]["values"][node_b] == reference.nbytes
    assert overlays["mean"]["source"] == "test values"


def test_the_max_abs_of_zeros_is_plus_zero():
    """A parameter of zeros (a bias before training) has max |value| 0, not -0.0."""
    b = sn.shared(np.zeros(4, "float32"), name="b")
    model = view_model(b * 2)
    node_b = next(n["id"] for n in model["nodes"] if n["name"] == "b")
    value = model["overlays"]["max_abs"]["values"][node_b]
    assert value == np.abs(np.zeros(4)).max() and math.copysign(1.0, value) == 1.0


def test_the_gradient_norm_of_each_parameter_says_which_layer_vanished(trained):
    f, params, model = trained
    nodes, _ = _by_id(model)
    norms = model["overlays"]["grad_norm"]["values"]
    # Reference: the gradients' values from finite differences would be slow; the
    # gradient's own test values are sn.grad's, recomputed here through a fresh sn.grad.
    loss = f.plan.construction["outputs"]
    fresh = sn.grad(loss, params)
    for param, gradient in zip(params, fresh):
        node_id = next(i for i, n in nodes.items() if n["kind"] == "shared" and n["name"] == param.name)
        expected = float(np.linalg.norm(gradient.test_value.astype(np.float64)))
        assert norms[node_id] == pytest.approx(expected, rel=6e-3, abs=1e-12)  # 3 digits kept


def test_a_failed_calls_values_colour_the_nodes():
    p = T.vector("p", test_value=np.array([0.2, 0.5, 0.3], "float32"))
    entropy = -(p * T.log(p)).sum()
    from symnb.compile import NanGuardMode
    from symnb.compile.nanguard import NanGuardError

    guarded = sn.function([p], entropy, mode=NanGuardMode())
    call = np.array([0.0, 0.5, 0.5], "float32")
    with pytest.raises(NanGuardError) as info:
        guarded(call)
    model = view_model(info.value)
    # The log failed inside the fused chain p * log(p): that chain's node is marked.
    holder = next(i for i, n in enumerate(guarded.nodes) if n.op.inner_graphs
                  and info.value.node in n.op.inner_graphs[0].nodes)
    failing = [n for n in model["nodes"] if n["failing"]]
    assert [n["id"] for n in failing] == [f"n{holder}"]
    overlay = model["overlays"]["std"]
    assert "failed call" in overlay["source"]
    argument = next(n["id"] for n in model["nodes"] if n["name"] == "p")
    assert overlay["values"][argument] == pytest.approx(call.std(), rel=5e-3)  # not the test value's
    # The failing chain and what follows it: the call replayed on past the NaN check, the
    # NaN spreading as the call would have made it (NumPy: 0 * log(0) is NaN). The NaN
    # notebook's colouring by NaN count showed 0 everywhere: the replay had stopped inside
    # the failing chain, so no computed node had a number.
    with np.errstate(all="ignore"):
        chain = call * np.log(call)
    nan_count = model["overlays"]["nan_count"]["values"]
    assert nan_count[f"n{holder}"] == int(np.isnan(chain).sum()) == 1
    output = next(n["id"] for n in model["nodes"] if n["kind"] == "op" and n["id"] != f"n{holder}"
                  and int(n["id"][1:]) == len(guarded.nodes) - 1)
    assert nan_count[output] == int(np.isnan(-chain.sum())) == 1
    assert nan_count[argument] == 0


def test_a_fused_xla_operation_is_timed_as_one_unit_on_the_group_of_its_nodes(monkeypatch):
    from symnb.compile.profiling.records import Operation, ProfileReport

    f, _ = mlp_training(depth=2, profile=True)
    model = view_model(f)
    relu = next(g for g in model["groups"] if g["kind"] == "opcall" and g["label"] == "relu")
    members = sorted(int(n["id"][1:]) for n in model["nodes"] if n["group"] == relu["id"] and n["kind"] == "op")
    assert len(members) == 3
    others = [i for i in range(len(f.nodes)) if i not in members]
    # One XLA operation of 0.3 s fused the relu's three nodes; each other node ran 0.05 s
    # alone, and the first relu node also 0.02 s of its own; 0.1 s outside the program.
    operations = [Operation("fusion", 0.3, tuple(members), ())]
    operations += [Operation(f"op{i}", 0.05, (i,), ()) for i in others]
    operations += [Operation("own", 0.02, (members[0],), ())]
    program = 0.32 + 0.05 * len(others)
    report = ProfileReport("a test's", program + 0.1, program, 0.1, tuple(operations),
                           len(f.nodes), None, [], program)
    # The profile's report, made by hand (a real call's times are not known in advance).
    monkeypatch.setattr(f.profile, "report", lambda *args, **kwargs: report)
    overlay = view_model(f)["overlays"]["time_share"]
    shares = overlay["values"]
    whole = report.call_seconds
    assert shares[relu["id"]] == pytest.approx(0.3 / whole, rel=1e-2)
    assert shares[f"n{members[0]}"] == pytest.approx(0.02 / whole, rel=1e-2)
    assert all(f"n{i}" not in shares for i in members[1:])  # no invented per-node share
    assert all(shares[f"n{i}"] == pytest.approx(0.05 / whole, rel=1e-2) for i in others)
    assert overlay["outside"] == pytest.approx(0.1 / whole, rel=1e-2)
    assert overlay["fused"] == [{"name": "fusion", "share": pytest.approx(0.3 / whole, rel=1e-2),
                                 "members": [f"n{i}" for i in members], "group": relu["id"]}]
    assert sum(shares.values()) + overlay["outside"] == pytest.approx(1.0, abs=0.01)


# -- the saved form ---------------------------------------------------------------------

def _depth(groups, group_id):
    return len(_ancestors(groups, group_id))


def test_a_model_within_its_budget_is_saved_whole(trained):
    from symnb.printing.view_encode import decode_view_model, encode_view_model

    _, _, model = trained
    assert decode_view_model(encode_view_model(model)) == model
    # The pieces a trimmed model is joined from make the whole model when nothing is left out.
    from symnb.printing.view_encode import _WHOLE, _Pieces

    joined = json.loads(_Pieces(model).text(_WHOLE))
    assert sorted(joined["nodes"], key=lambda n: n["id"]) == sorted(model["nodes"], key=lambda n: n["id"])
    assert {**joined, "nodes": model["nodes"]} == model


def test_past_the_budget_the_deepest_groups_details_are_left_out_and_named(trained):
    from symnb.printing.view_encode import decode_view_model, encode_view_model

    _, _, model = trained
    whole = len(encode_view_model(model))
    budget = int(whole * 0.85)
    saved = decode_view_model(encode_view_model(model, budget_bytes=budget))
    assert len(encode_view_model(model, budget_bytes=budget)) <= budget
    # The structure is whole: every node, edge and group, as they were.
    assert saved["edges"] == model["edges"] and saved["groups"] == model["groups"]
    nodes, groups = _by_id(model)
    saved_nodes = {n["id"]: n for n in saved["nodes"]}  # listed by depth, each as it was
    assert len(saved_nodes) == len(saved["nodes"]) and saved_nodes.keys() == nodes.keys()
    for node_id, node in saved_nodes.items():
        assert node == {**nodes[node_id], "summary": node["summary"], "code": node["code"]}
    assert saved["not_saved"] and "source lines and value summaries" in saved["not_saved"][0]
    kept = [_depth(groups, n["group"]) for n in saved_nodes.values() if n["summary"] is not None]
    dropped = [_depth(groups, n["group"]) for i, n in saved_nodes.items()
               if nodes[i]["summary"] is not None and n["summary"] is None]
    assert dropped and kept and max(kept) < min(dropped)  # the deepest went first


def test_past_every_detail_the_deepest_overlay_numbers_go_next(trained):
    from symnb.printing.view_encode import _compressed, _omissions, _Pieces, decode_view_model, encode_view_model

    _, _, model = trained
    pieces = _Pieces(model)
    bare = len(_compressed(pieces.text(_omissions(pieces.deepest)[-1])))  # no details, no numbers
    encoded = encode_view_model(model, budget_bytes=bare + 200)
    saved = decode_view_model(encoded)
    assert len(encoded) <= bare + 200
    assert any(line.startswith("overlay numbers mean, std") for line in saved["not_saved"])
    assert all(n["summary"] is None and n["code"] is None for n in saved["nodes"])
    _, groups = _by_id(model)
    depth = {n["id"]: _depth(groups, n["group"]) for n in model["nodes"]}
    for key, overlay in saved["overlays"].items():
        dropped = set(model["overlays"][key]["values"]) - set(overlay["values"])
        if dropped and overlay["values"]:
            assert max(depth[i] for i in overlay["values"]) < min(depth[i] for i in dropped)
    # The statistics (many digits) go before the NaN and Inf counts.
    if len(saved["overlays"]["nan_count"]["values"]) < len(model["overlays"]["nan_count"]["values"]):
        assert not any(saved["overlays"][k]["values"] for k in ("mean", "std", "max_abs"))


def test_a_budget_too_small_for_the_structure_says_so(trained):
    from symnb.printing.view_encode import encode_view_model

    _, _, model = trained
    with pytest.raises(ValueError, match="budget_bytes"):
        encode_view_model(model, budget_bytes=1000)


@pytest.mark.slow
def test_a_50000_node_graph_fits_two_megabytes():
    import sys
    from pathlib import Path

    from symnb.printing.view_encode import decode_view_model, encode_view_model

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from bench_explorer import training_graph

    outputs = training_graph(2000)
    count = len(toposort(outputs))
    assert count > 45_000
    model = view_model(outputs)
    encoded = encode_view_model(model, budget_bytes=2_000_000)
    assert len(encoded) <= 2_000_000
    saved = decode_view_model(encoded)
    assert len([n for n in saved["nodes"] if n["kind"] == "op"]) == count
    assert len(saved["edges"]) == len(model["edges"])


# -- series beyond one function's calls -------------------------------------------------

class Dense:
    """A layer library's layer: an object with a name of its own (Keras's dense_1)."""

    def __init__(self, name, n_in, n_out, rng):
        self.name = name
        self.W = sn.shared((rng.standard_normal((n_in, n_out)) * 0.3).astype("float32"), name=f"{name}/W")
        self.b = sn.shared(np.zeros(n_out, "float32"), name=f"{name}/b")

    def __call__(self, x):
        return T.nnet.relu(T.dot(x, self.W) + self.b)


def test_layers_of_one_class_with_one_structure_fold_into_a_series_of_the_class():
    rng = np.random.default_rng(1)
    h = x = T.matrix("x", test_value=rng.random((2, 3), dtype="float32"))
    layers = [Dense(f"dense_{i + 1}", 3, 3, rng) for i in range(5)]
    for dense in layers:
        h = dense(h)
    model = view_model(h.sum())
    nodes, groups = _by_id(model)
    series = [g for g in model["groups"] if g["kind"] == "series"]
    assert [g["label"] for g in series] == ["Dense x5"]
    items = series[0]["series"]["items"]
    assert [groups[i]["label"] for i in items] == [d.name for d in layers]
    for dense, item in zip(layers, items):  # each layer's own weights sit in its item
        holder = next(n for n in model["nodes"] if n["name"] == dense.W.name)
        assert item in _ancestors(groups, holder["group"])


def test_a_long_series_opens_to_runs_of_twenty_calls():
    h = x = T.vector("x", test_value=np.ones(2, "float32"))
    for _ in range(45):
        h = layer_1d(h)
    model = view_model(h.sum())
    _, groups = _by_id(model)
    series = next(g for g in model["groups"] if g["kind"] == "series")
    assert series["label"] == "layer_1d() x45" and series["series"]["count"] == 45
    runs = [g for g in model["groups"] if g["parent"] == series["id"]]
    assert [g["label"] for g in runs] == ["layer_1d() #0\u2013#19", "layer_1d() #20\u2013#39", "layer_1d() #40\u2013#44"]
    for k, item in enumerate(series["series"]["items"]):
        assert groups[item]["parent"] == runs[k // 20]["id"] and groups[item]["label"] == f"layer_1d() #{k}"


def layer_1d(h):
    return T.tanh(h * 2 + 1)


def test_calls_of_one_function_that_built_different_ops_do_not_fold():
    h = x = T.vector("x", test_value=np.ones(2, "float32"))
    for power in (1, 1, 1, 2, 2, 2):
        h = shaped(h, power)
    model = view_model(h.sum())
    series = [g for g in model["groups"] if g["kind"] == "series"]
    assert sorted(g["series"]["count"] for g in series) == [3, 3]


def shaped(h, power):
    return T.tanh(h) if power == 1 else T.exp(T.tanh(h))


def test_forward_work_the_gradient_shares_is_drawn_in_the_forward_region():
    """``log(softmax(s))`` becomes one ``LogSoftmax`` made while ``sn.grad`` ran and shared
    with the loss: the loss needs it, so it is forward (no forward edge out of the gradient)."""
    rng = np.random.default_rng(0)
    x = T.matrix("x", test_value=rng.random((4, 3), dtype="float32"))
    y = T.ivector("y", test_value=np.array([0, 1, 1, 0], "int32"))
    W = sn.shared(rng.standard_normal((3, 2)).astype("float32"), name="W")
    p = T.softmax(T.dot(x, W))
    loss = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    train = sn.function([x, y], loss, updates=[(W, W - np.float32(0.1) * sn.grad(loss, W))])
    model = view_model(train)
    region = {n["id"]: n["region"] for n in model["nodes"]}
    assert "gradient" in region.values()
    assert not [e for e in model["edges"] if region[e["src"]] == "gradient" and region[e["dst"]] == "forward"]
    log_softmax = [n for n in model["nodes"] if n["op"] == "log_softmax"]
    assert log_softmax and all(n["region"] == "forward" for n in log_softmax)


def tanh_loop(steps):
    """A top-level loop on one line, the JupyterLab test's 2,000-node graph in small:
    ``steps`` x (mul, add, tanh) on one line of this file."""
    x = T.vector("x", test_value=np.ones(3, "float32"))
    w = x
    for _ in range(steps):
        w = T.tanh(w * np.float32(0.5) + x)
    return x, w


def test_a_top_level_loop_of_hundreds_of_nodes_opens_to_a_few_boxes_cut_into_parts():
    """Every node built on one line is no group in a small graph, but a loop that built
    hundreds of them at the top level must not open as hundreds of boxes (the 2,000-node
    graph's first view was 1,502 boxes: 22 s in the browser): one line group, cut into
    parts of 40."""
    x, w = tanh_loop(150)
    applies = toposort([w])
    assert len(applies) == 450  # 150 x (mul, add, tanh)
    model = view_model(w)
    assert model["open"] == []
    top = [g for g in model["groups"] if g["parent"] is None] + [n for n in model["nodes"] if n["group"] is None]
    assert len(top) <= 5, [t["id"] for t in top]
    line = next(g for g in model["groups"] if g["kind"] == "line" and g["parent"] is None)
    parts = [g for g in model["groups"] if g["kind"] == "part" and g["parent"] == line["id"]]
    assert len(parts) == math.ceil(450 / 40)
    groups = {g["id"]: g for g in model["groups"]}

    def inside_line(group):
        while group is not None:
            if group == line["id"]:
                return True
            group = groups[group]["parent"]
        return False

    ops = [n for n in model["nodes"] if n["kind"] == "op"]
    assert len(ops) == 450 and all(inside_line(n["group"]) for n in ops)


def test_one_call_in_a_loop_is_one_op_call_not_every_steps_call_merged():
    """``T.tanh(...)`` run 30 times at one instruction is 30 calls: no op-call group holds
    two of them (it read as one ``tanh`` box holding every step, with edges in and out of
    it at each step). relu's parts, which read each other, stay one call each."""
    x, w = tanh_loop(30)
    model = view_model(w)
    by_group = {}
    for n in model["nodes"]:
        if n["op"] and "tanh" in n["op"].lower():
            by_group.setdefault(n["group"], []).append(n["id"])
    opcalls = {g["id"] for g in model["groups"] if g["kind"] == "opcall"}
    assert sum(len(v) for v in by_group.values()) == 30
    assert all(len(v) == 1 for g, v in by_group.items() if g in opcalls), by_group
    h = x
    for _ in range(3):
        h = T.nnet.relu(h * np.float32(0.5))
    relus = [g for g in view_model(h)["groups"] if g["kind"] == "opcall" and g["label"] == "relu"]
    assert len(relus) == 3


def _step_scan():
    """``h_t = tanh(x_t + 0.5 * h)`` over three rows: the notebook 06 loop."""
    xs = T.matrix("xs", test_value=np.array([[1, 2], [3, 4], [5, 6]], "float32"))
    h0 = T.vector("h0", test_value=np.zeros(2, "float32"))
    hs, _ = sn.scan(lambda x_t, h: T.tanh(x_t + 0.5 * h), sequences=[xs], outputs_info=[h0], name="step")
    return hs


def test_a_loops_body_is_an_inner_group_holding_its_steps_nodes():
    hs = _step_scan()
    model = view_model(hs)
    loop = hs.owner
    holder = next(n for n in model["nodes"] if n["op"] == loop.op.public_name())
    bodies = [g for g in model["groups"] if g["kind"] == "inner"]
    assert [(g["holder"], g["label"], g["parent"]) for g in bodies] == [(holder["id"], "scan(step) body",
                                                                           holder["group"])]
    body = bodies[0]["id"]
    assert body not in model["open"]  # closed: the loop's box stands for it
    graph, = loop.op.inner_graphs
    inside = [n for n in model["nodes"] if n["group"] == body]
    steps = toposort(graph.outputs, graph.inputs)
    assert sorted(n["op"] for n in inside if n["kind"] == "op") == sorted(s.op.public_name() for s in steps)
    assert sum(n["kind"] == "inner_input" for n in inside) == len(graph.inputs)
    # The edges among them are the step's wiring: tanh reads add, add reads mul and x_t.
    ids = {n["id"] for n in inside}
    inner_edges = [e for e in model["edges"] if e["dst"] in ids]
    assert all(e["src"] in ids for e in inner_edges)
    assert len(inner_edges) == sum(len(s.inputs) for s in steps)
    # The test values: x_t is the first row; tanh(x_0 + 0.5 * 0).
    tanh = next(n for n in inside if n["kind"] == "op" and "tanh" in n["op"])
    assert tanh["summary"] == value_stats(np.tanh(np.array([1, 2], "float32")))
    assert tanh["outs"] == [{"dtype": "float32", "shape": [2]}]


def test_a_failing_node_in_a_loop_body_is_drawn_with_its_failing_iterations_inputs():
    from tests.widgets.test_failure_view import E_VALUE, FAILING, INDICES, make_scan_error

    err = make_scan_error()
    model = view_model(err)
    nodes = {n["id"]: n for n in model["nodes"]}
    failing = [n for n in model["nodes"] if n["failing"]]
    inner = [n for n in failing if n["group"] is not None and n["id"].count("/") == 2]
    assert len(inner) == 1 and inner[0]["label"] == "E[i_t]"
    body = next(g for g in model["groups"] if g["id"] == inner[0]["group"])
    assert body["kind"] == "inner" and nodes[body["holder"]]["failing"]  # the loop marked too
    assert body["id"] in model["open"]  # opened around the failing node
    assert inner[0]["summary"] is None  # it failed: no value
    # Its inputs show the failing iteration's values (NumPy: i_t = INDICES[FAILING], E).
    sources = [nodes[e["src"]] for e in model["edges"] if e["dst"] == inner[0]["id"]]
    summaries = {n["summary"] for n in sources}
    assert value_stats(np.int64(INDICES[FAILING])) in summaries
    assert value_stats(E_VALUE) in summaries


def test_a_failing_node_in_a_nested_loop_marks_every_loop_and_opens_both_bodies():
    from tests.widgets.test_failure_view import NESTED_PICKS as picks, NESTED_ROWS as rows, make_nested_scan_error

    info = make_nested_scan_error()
    model = view_model(info.value)
    nodes = {n["id"]: n for n in model["nodes"]}
    groups = {g["id"]: g for g in model["groups"]}
    failing = [n for n in model["nodes"] if n["failing"]]
    assert [n["op"] for n in failing] == ["scan(outer)", "scan(inner)", info.value.node.op.public_name()]
    inner_body = groups[failing[-1]["group"]]
    outer_body = groups[inner_body["parent"]]
    assert (outer_body["label"], inner_body["label"]) == ("scan(outer) body", "scan(inner) body")
    assert inner_body["holder"] == failing[1]["id"] and outer_body["holder"] == failing[0]["id"]
    bodies_open = [g for g in model["open"] if g in groups and groups[g]["kind"] == "inner"]
    assert bodies_open == [outer_body["id"], inner_body["id"]]
    # What it read at that iteration (NumPy): j = picks[1][2] and the row X[1].
    read = {nodes[e["src"]]["summary"] for e in model["edges"] if e["dst"] == failing[-1]["id"]}
    assert value_stats(np.int64(picks[1][2])) in read and value_stats(rows[1]) in read


def test_parts_name_what_every_id_stands_for_inside_a_fused_chain_too():
    """``view_model_parts``: each model id's node, and the ids of a fused chain's nodes
    (which the model draws as one box) by the one id rule: ``n0/0/n1``."""
    from symnb.printing.view_model import view_model_parts
    x = T.vector("x", test_value=np.arange(3, dtype="float32"))
    f = sn.function([x], T.tanh(T.exp(x) * 2))
    parts = view_model_parts(f)
    fused = f.nodes[0]
    assert parts.obj_of("n0") is fused and fused.op.inner_graphs
    inner = fused.op.inner_graphs[0]
    inner_ops = [node.op.public_name() for node in inner.nodes]
    found = [parts.obj_of(f"n0/0/n{k}") for k in range(len(inner.nodes))]
    assert [node.op.public_name() for node in found] == inner_ops  # execution order
    assert parts.inner_ids(found[0]) == ["n0/0/n0"]
    assert parts.obj_of("n0/0/n99") is None and parts.obj_of("n0/7/n0") is None
    assert parts.obj_of("n0/0/v0") is inner.inputs[0]
