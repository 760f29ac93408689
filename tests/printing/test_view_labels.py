"""Labels in the user's words (issue 40): every label of the tutorials' graphs, in the
viewer's model and in the static overview, is what the user wrote or the op's public
name -- never Theano's internal spelling (``Elemwise{add,no_inplace}``, ``Subtensor{?}``,
``Shape_i``, ``Composite{...}``, ``listcomp at line 17``). Checked by walking every node
and group of real graphs, and against the expressions the user wrote."""

import functools
import html
import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from symnb.printing.graph_model import GraphPicture
from symnb.printing.view_model import view_model
from symnb.printing.view_overview import overview_svg
from tests.browser.cnn09 import cnn09_train
from tests.browser.mlp12 import mlp12_train


def rnn():
    """Notebook 02's loop: a step indexing a shared bias by the step counter."""
    xs = T.tensor3("xs", test_value=np.ones((6, 2, 4), "float32"))
    Wr = sn.shared(np.full((4, 4), 0.1, "float32"), name="Wr")
    bias = sn.shared(np.array([0.1, 0.2, 0.3, 0.4], "float32"), name="bias")

    def step(x_t, t, h_prev):
        return T.tanh(T.dot(x_t, Wr) + h_prev + bias[t % 4])

    hs, _ = sn.scan(step, sequences=[xs, T.arange(xs.shape[0])], outputs_info=[T.zeros((2, 4))])
    return hs


def indexing():
    x = T.matrix("x", test_value=np.ones((5, 3), "float32"))
    idx = T.ivector("idx", test_value=np.array([0, 2], "int32"))
    y = (x[idx] ** 2).sum() + x[1:3].sum()
    return [y, sn.grad(y, x)]


def comprehension():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    parts = [T.tanh(x * k) for k in range(3)]
    return sum(parts)


GRAPHS = {"mlp12": lambda: mlp12_train(3), "cnn09": cnn09_train, "rnn": rnn,
          "indexing": indexing, "comprehension": comprehension}


def _class_names(graph) -> set[str]:
    """The op classes of ``graph`` (a compiled function or variables) and of its inner
    graphs: the spellings no label may show."""
    nodes = list(getattr(graph, "nodes", None) or toposort(graph if isinstance(graph, list) else [graph]))
    names = set()
    while nodes:
        node = nodes.pop()
        names.add(type(node.op).__name__)
        for inner in node.op.inner_graphs:
            nodes.extend(inner.nodes)
    return names


def _internal(text: str, classes: set[str]) -> list[str]:
    """The internal spellings in ``text``: braces of a display name, an op's class name
    (``Subtensor``, ``Shape_i``'s ``ShapeI``, ``Elemwise``, ``Composite``), a Python
    frame's ``<listcomp>``."""
    found = [c for c in classes | {"Elemwise", "Composite", "Shape_i", "Subtensor"}
             if re.search(rf"\b{re.escape(c)}\b", text)]
    found += re.findall(r"\w+\{[^}]*\}?|listcomp|genexpr|<lambda>", text)
    return found


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def graph(request):
    return request.param, GRAPHS[request.param]()


def test_no_label_of_the_view_model_spells_an_internal_op(graph):
    name, obj = graph
    model = view_model(obj)
    classes = _class_names(obj)
    texts = [(n["id"], key, n[key]) for n in model["nodes"] for key in ("label", "op") if n.get(key)]
    texts += [(g["id"], "group", g["label"]) for g in model["groups"]]
    assert len(texts) > 10
    bad = [(where, key, text) for where, key, text in texts if _internal(text, classes)]
    assert not bad, f"{name}: {bad}"


def test_no_label_of_the_static_overview_spells_an_internal_op(graph):
    name, obj = graph
    classes = _class_names(obj)
    opened = GraphPicture(obj, opened=[g.id for g in GraphPicture(obj).tree.groups()])  # every group open
    bad = [(node.id, node.label, node.sublabel) for node in opened.nodes.values()
           if _internal(f"{node.label} {node.sublabel if node.kind == 'apply' else ''}", classes)]
    assert not bad, f"{name}: {bad}"


def _labels(model) -> dict[str, str]:
    return {n["id"]: n["label"] for n in model["nodes"]}


def test_indexing_and_its_gradient_read_as_written():
    model = view_model(indexing())
    labels = set(_labels(model).values())
    # What the user wrote, and the gradient of each indexing named by it.
    assert {"x[idx]", "x[1:3]", "x[idx] ** 2", "grad of x[idx]", "grad of x[1:3]", "grad of pow"} <= labels
    ops = {n["op"] for n in model["nodes"] if n["kind"] == "op"}
    assert {"getitem", "inc_subtensor", "pow", "sum", "add"} <= ops


def test_a_loop_reads_as_its_step_and_counts_its_steps_as_n_steps():
    model = view_model(rnn())
    labels = set(_labels(model).values())
    assert {"bias[t % 4]", "xs.shape[0]", "n_steps", "scan(step)"} <= labels
    assert "minimum" not in labels  # the step count: one word, as scan names it
    (body,) = [g for g in model["groups"] if g["kind"] == "inner"]
    assert body["label"] == "scan(step) body"


def test_a_comprehension_is_named_by_its_variable_and_what_it_assigns():
    model = view_model(mlp12_train(3))
    titles = {g["label"] for g in model["groups"]}
    # mlp12.py: ``updates = [(p, p - np.float32(0.1) * g) for p, g in zip(params, grads)]``
    assert "updates (for p, g)" in titles
    picture = view_model(comprehension())
    assert "parts (for k)" in {g["label"] for g in picture["groups"]}


def test_a_vectors_shape_is_written_as_a_python_tuple():
    obj = indexing()
    picture = GraphPicture(obj)
    idx_edges = [e for e in picture.edges if e.variables and e.variables[0].name == "idx"]
    assert idx_edges and all(e.label.endswith("int32 (2,)") for e in idx_edges)


def test_a_graph_of_an_unnamed_variable_is_titled_in_the_users_words():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    t = T.iscalar("t", test_value=1)
    assert view_model(x[t])["title"] == "x[t]"
    assert view_model(T.exp(x) * 2)["title"] == "T.exp(x) * 2"  # its source text


def test_every_view_spells_the_loops_step_count_and_its_shapes_alike():
    hs = rnn()
    model = view_model(hs)
    every_group_open = GraphPicture(hs, opened=[g.id for g in GraphPicture(hs).tree.groups()])
    overview = html.unescape(overview_svg(model))
    texts = {"viewer": set(_labels(model).values()),
             "picture": {n.label for n in every_group_open.nodes.values()},
             "overview": set(re.findall(r">([^<>]+)</text>", overview))}
    assert "n_steps" in texts["viewer"] and "n_steps" in texts["picture"]
    assert not any("minimum" in t for where in texts.values() for t in where)
    # xs.shape is a length-3 vector: (3,) in the overview as in the picture's edges, never (3).
    shape_of_shape = [t for t in texts["overview"] if t.startswith("int64 (3")]
    assert shape_of_shape == ["int64 (3,)  shape"], texts["overview"]
    assert not re.search(r"\(\d+\)", " ".join(texts["overview"] - {"21 nodes"}))


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):  # a decorator's wrapper, as Keras's legacy interfaces write it
        return fn(*args, **kwargs)
    return wrapper


@_logged
def _dense(x, k):
    w = sn.shared(np.full((3, 3), 0.1 * k, "float32"), name=f"W{k}")
    return T.tanh(T.dot(x, w) + 1)


def test_a_decorated_functions_calls_are_named_by_it_not_by_its_wrapper():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    y = _dense(_dense(x, 1), 2).sum()
    groups = view_model(y)["groups"]
    assert sorted(g["label"] for g in groups) == ["_dense(W1)", "_dense(W2)"]
    assert all(g["parent"] is None for g in groups)  # no wrapper level around them
    # The values are the undecorated function's (the wrapper changes nothing computed).
    w1, w2 = np.full((3, 3), 0.1, "float32"), np.full((3, 3), 0.2, "float32")
    expected = np.tanh(np.tanh(np.ones(3, "float32") @ w1 + 1) @ w2 + 1).sum()
    np.testing.assert_allclose(y.test_value, expected, rtol=1e-6)


def test_a_comprehension_over_several_lines_and_a_named_lambda_read_as_written():
    x = T.vector("x", test_value=np.arange(3, dtype="float32"))
    parts = [T.tanh(x * k)
             for k in range(3)]
    scaled = lambda v: T.tanh(v) * 2  # noqa: E731 (a user's lambda, named)
    y = sum(parts) + scaled(x) + scaled(x * 2)
    titles = sorted(g["label"] for g in view_model(y)["groups"])
    assert "parts (for k)" in titles  # not "listcomp at line N"
    assert {"scaled() #1", "scaled() #2"} <= set(titles)  # not "lambda at line N"
    assert not [t for t in titles if _internal(t, set())]
    v = np.arange(3, dtype="float32")
    expected = sum(np.tanh(v * k) for k in range(3)) + np.tanh(v) * 2 + np.tanh(v * 2) * 2
    np.testing.assert_allclose(y.test_value, expected, rtol=1e-6)
