"""sn.printing.to_model_explorer: Model Explorer's graph JSON and node data, checked on the
JSON itself against facts computed apart (the code's own call structure, NumPy's shapes
and values), and against Model Explorer's own dataclasses when its package is installed."""

import json

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing.view_model import view_model

rng = np.random.default_rng(3)
X = rng.normal(size=(2, 4)).astype("float32")
W1_VALUE = rng.normal(size=(4, 5)).astype("float32")
B1_VALUE = rng.normal(size=(5,)).astype("float32")
W2_VALUE = rng.normal(size=(5, 3)).astype("float32")
B2_VALUE = rng.normal(size=(3,)).astype("float32")


def layer(x, W, b):
    return T.tanh(T.dot(x, W) + b)


def mlp(x, params):
    W1, b1, W2, b2 = params
    h = layer(x, W1, b1)
    return layer(h, W2, b2)


def _model():
    params = [sn.shared(v, name=n) for v, n in
              ((W1_VALUE, "W1"), (B1_VALUE, "b1"), (W2_VALUE, "W2"), (B2_VALUE, "b2"))]
    x = T.matrix("x", test_value=X)
    y = mlp(x, params)
    loss = T.mean(y ** 2)
    return x, params, y, loss


def _numpy_forward(x):
    h = np.tanh(x @ W1_VALUE + B1_VALUE)
    y = np.tanh(h @ W2_VALUE + B2_VALUE)
    return h, y, np.mean(y ** 2)


def _nodes(graph, label=None):
    return [n for n in graph["nodes"] if label is None or n["label"] == label]


def _meta(node, key, output=0):
    return {a["key"]: a["value"] for a in node["outputsMetadata"][output]["attrs"]}[key]


def _attr(node, key):
    return {a["key"]: a["value"] for a in node["attrs"]}[key]


def _shape_text(array):
    return f"{array.dtype}[{','.join(map(str, array.shape))}]"


def test_groups_are_namespaces_and_shapes_come_from_the_values():
    x, params, y, loss = _model()
    grads = sn.grad(loss, params[::2])
    result = sn.printing.to_model_explorer([loss, *grads])
    graph = result.graph
    h, out, _ = _numpy_forward(X)
    tanh = _nodes(graph, "tanh")
    # One tanh per call of layer(), each in its call's namespace inside mlp()'s, inside
    # _model()'s (the test function calling _model() is the top level: no group); a call
    # named by the weight that tells it from its sibling, as the viewer labels it.
    assert [n["namespace"] for n in tanh] == ["_model()/mlp()/layer(W1)", "_model()/mlp()/layer(W2)"]
    viewer_labels = {g["label"] for g in view_model([loss, *grads])["groups"]}
    assert {"_model()", "mlp()", "layer(W1)", "layer(W2)"} <= viewer_labels
    assert [_meta(n, "tensor_shape") for n in tanh] == [_shape_text(h), _shape_text(out)]
    # The loss was built in _model() itself; the gradient (built here) mirrors the calls.
    assert _nodes(graph, "mean")[0]["namespace"] == "_model()"
    gradient_namespaces = {n["namespace"] for n in graph["nodes"] if n["namespace"].startswith("\u2202")}
    assert gradient_namespaces >= {"\u2202loss\u2215\u2202(W1, W2)/_model()/mlp()/layer(W1)",
                                   "\u2202loss\u2215\u2202(W1, W2)/_model()/mlp()/layer(W2)"}
    # The gradients' shapes are the weights' (NumPy's shapes of the values).
    grad_shapes = {_meta(n, "tensor_shape") for n in graph["nodes"]
                   if n["namespace"].endswith("layer(W1)") and n["namespace"].startswith("\u2202")}
    assert _shape_text(W1_VALUE) in grad_shapes
    # Each group says what made it and on which line.
    groups = graph["groupNodeAttributes"]
    assert groups["_model()/mlp()/layer(W2)"]["kind"] == "call of layer()"
    assert "return layer(h, W2, b2)" in groups["_model()/mlp()/layer(W2)"]["source"]


def test_edges_attributes_and_source_lines():
    x, params, y, loss = _model()
    graph = sn.printing.to_model_explorer(y).graph
    by_id = {n["id"]: n for n in graph["nodes"]}
    dot = _nodes(graph, "dot")[0]
    sources = [(by_id[e["sourceNodeId"]]["label"], e["targetNodeInputId"]) for e in dot["incomingEdges"]]
    assert sources == [("x", "0"), ("W1", "1")]
    assert "T.dot(x, W)" in _attr(dot, "source")
    assert _attr(by_id[dot["incomingEdges"][1]["sourceNodeId"]], "kind") == "shared"
    assert _meta(dot, "dtype") == "float32"
    # Every edge leaves a node of the graph.
    assert all(e["sourceNodeId"] in by_id for n in graph["nodes"] for e in n["incomingEdges"])


def test_node_data_from_test_values_and_a_call_match_numpy():
    x, params, y, loss = _model()
    f = sn.function([x], loss)
    batch = rng.normal(size=(7, 4)).astype("float32")
    result = sn.printing.to_model_explorer(f, values=("test_values", "call"), args=[batch], stat="max")
    graph_id = result.graph["id"]
    loss_id = _nodes(result.graph, "mean")[0]["id"]
    x_id = next(n["id"] for n in result.graph["nodes"] if n["label"] == "x")
    test_values = result.node_data["test values: max"][graph_id]["results"]
    called = result.node_data["call: max"][graph_id]["results"]
    np.testing.assert_allclose(test_values[loss_id]["value"], _numpy_forward(X)[2], rtol=1e-5)
    np.testing.assert_allclose(called[loss_id]["value"], _numpy_forward(batch)[2], rtol=1e-5)
    np.testing.assert_allclose(called[x_id]["value"], batch.max(), rtol=1e-6)
    # The function has not been called: its edges carry the test values' shapes.
    x_node = next(n for n in result.graph["nodes"] if n["label"] == "x")
    assert _meta(x_node, "tensor_shape") == _shape_text(X)


def test_node_data_of_the_profiled_last_call_and_its_times():
    x, params, y, loss = _model()
    f = sn.function([x], loss, profile=True)
    batch = rng.normal(size=(6, 4)).astype("float32")
    f(batch)
    f(batch)
    result = sn.printing.to_model_explorer(f, values=("call", "profile"), stat="l2")
    graph = result.graph
    loss_node = _nodes(graph, "mean")[0]
    called = result.node_data["call: l2"][graph["id"]]["results"]
    np.testing.assert_allclose(called[loss_node["id"]]["value"], _numpy_forward(batch)[2], rtol=1e-5)
    assert _meta(loss_node, "shape from") == "last call"
    x_node = next(n for n in graph["nodes"] if n["label"] == "x")
    assert _meta(x_node, "tensor_shape") == _shape_text(batch)
    times = result.node_data["profile: seconds per call"][graph["id"]]["results"]
    apply_ids = {n["id"] for n in graph["nodes"] if n["id"].startswith("n")}
    assert set(times) == apply_ids and all(t["value"] >= 0 for t in times.values())


def test_nonfinite_counts_and_no_nan_in_the_json():
    v = T.vector("v", test_value=np.array([1.0, -1.0, 0.0, 4.0], "float32"))
    with pytest.warns(sn.errors.NonFiniteTestValueWarning):  # symnb says so at this line
        out = T.log(v)
    for stat, expected in (("nonfinite", 2.0), ("mean", None)):
        result = sn.printing.to_model_explorer(out, stat=stat)
        data = next(iter(result.node_data.values()))[result.graph["id"]]["results"]
        log_id = _nodes(result.graph, "log")[0]["id"]
        if expected is None:  # the mean is NaN: no entry rather than invalid JSON
            assert log_id not in data
        else:
            with np.errstate(all="ignore"):
                assert data[log_id]["value"] == np.sum(~np.isfinite(np.log(v.tag.test_value)))
        json.loads(json.dumps(result.node_data, allow_nan=False))


def test_a_loop_body_is_a_subgraph_and_save_writes_what_it_holds(tmp_path):
    v = T.vector("v", test_value=np.arange(3, dtype="float32"))
    outputs, _ = sn.scan(lambda a, acc: acc + a, sequences=v, outputs_info=T.zeros_like(v[0]))
    result = sn.printing.to_model_explorer(outputs)
    graphs = {g["id"]: g for g in result.collection["graphs"]}
    loop = next(n for n in result.graph["nodes"] if n.get("subgraphIds"))
    body = graphs[loop["subgraphIds"][0]]
    assert [n["label"] for n in body["nodes"] if n["id"].startswith("n")] == ["add"]
    paths = result.save(tmp_path / "scan.json")
    assert json.loads(open(paths[0]).read()) == result.collection
    assert [json.loads(open(p).read()) for p in paths[1:]] == list(result.node_data.values())


def test_bad_arguments_are_named():
    x, params, y, loss = _model()
    with pytest.raises(ValueError, match="stat='median' is not one of mean"):
        sn.printing.to_model_explorer(y, stat="median")
    with pytest.raises(ValueError, match="values='grads' is not one of"):
        sn.printing.to_model_explorer(y, values="grads")
    f = sn.function([x], y)
    with pytest.raises(ValueError, match="profile=True"):
        sn.printing.to_model_explorer(f, values="profile")
    with pytest.raises(TypeError, match="needs a compiled function"):
        sn.printing.to_model_explorer(y, values="call")


def test_the_json_is_model_explorers_own_graph_and_node_data():
    graph_builder = _model_explorer_module("graph_builder")
    node_data_builder = _model_explorer_module("node_data_builder")
    dacite = pytest.importorskip("dacite", reason="dacite (a model_explorer dependency) is missing")
    x, params, y, loss = _model()
    f = sn.function([x], [loss, *sn.grad(loss, params)], profile=True)
    f(X)
    result = sn.printing.to_model_explorer(f, values=("test_values", "profile"))
    strict = dacite.Config(strict=True)
    collection = dacite.from_dict(graph_builder.GraphCollection, result.collection, config=strict)
    assert len(collection.graphs[0].nodes) == len(result.graph["nodes"])
    for overlay in result.node_data.values():
        for graph_data in overlay.values():
            dacite.from_dict(node_data_builder.GraphNodeData, graph_data, config=strict)


def test_visualize_without_the_package_says_what_to_install(tmp_path):
    try:
        import model_explorer  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("model_explorer is installed: visualize() would start its server")
    x, params, y, loss = _model()
    with pytest.raises(ImportError, match=r"pip install 'symnb\[model-explorer\]'"):
        sn.printing.to_model_explorer(y).visualize(tmp_path / "g.json")


def _model_explorer_module(name):
    try:
        module = __import__(f"model_explorer.{name}", fromlist=[name])
    except ImportError as error:
        pytest.skip(f"Google's model_explorer package is not installed here ({error}); "
                    f"pip install 'symnb[model-explorer]' to check the JSON against its dataclasses")
    return module


def test_the_graph_is_the_view_models_nodes_and_edges():
    x, params, y, loss = _model()
    grads = sn.grad(loss, params[::2])
    result = sn.printing.to_model_explorer([loss, *grads])
    model = view_model([loss, *grads])
    graph = result.graph
    assert [n["id"] for n in graph["nodes"]] == [n["id"] for n in model["nodes"]]
    drawn = sorted((e["sourceNodeId"], n["id"]) for n in graph["nodes"] for e in n["incomingEdges"])
    assert drawn == sorted((e["src"], e["dst"]) for e in model["edges"])
    # A constant read in several groups is a node in each (as the viewer draws it), in
    # its group's namespace; a copy of a node computed from constants only carries the
    # node's number.
    copies = [n for n in model["nodes"] if n.get("copy_of")]
    assert copies
    by_id = {n["id"]: n for n in graph["nodes"]}
    groups = {g["id"]: g for g in model["groups"]}
    for copy in copies:
        if copy["group"] is not None and groups[copy["group"]]["kind"] not in ("series", "part", "opcall"):
            assert by_id[copy["id"]]["namespace"].endswith(groups[copy["group"]]["label"].replace("/", "\u2215"))


def _scaled(v, k):
    return v * k


def test_a_copy_of_a_node_computed_from_constants_carries_its_number():
    v = T.vector("v", test_value=np.arange(3, dtype="float32"))
    k = T.constant(np.float32(2.0)) + np.float32(1.5)  # computed from constants only
    out = _scaled(v, k) + _scaled(v, k)
    result = sn.printing.to_model_explorer(out)
    copies = [n for n in view_model(out)["nodes"] if n.get("copy_of", "").startswith("n")]
    assert len(copies) == 2
    data = result.node_data["test values: mean"][result.graph["id"]]["results"]
    assert [data[c["id"]]["value"] for c in copies] == [3.5, 3.5]  # 2 + 1.5, by hand
