"""``GraphExplorer.details(id)``: the card the browser asks the kernel for, answered from
the view model for any of its ids (a folded series, a loop body's node, a constant's copy),
with no picture drawn; ``describe`` and ``select`` take the same ids. Values checked
against NumPy computed here."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.printing.values import value_stats
from symnb.widgets import GraphExplorer

rng = np.random.default_rng(5)
X = rng.normal(size=(2, 4)).astype("float32")
WEIGHTS = [rng.normal(size=(4, 4)).astype("float32") for _ in range(3)]


def layer(h, W, half):
    return T.tanh(T.dot(h, W) * half)


def stack():
    x = T.matrix("x", test_value=X)
    half = T.constant(np.float32(0.5))  # one constant, read by every call
    h = x
    for k, value in enumerate(WEIGHTS):
        h = layer(h, sn.shared(value, name=f"W{k}"), half)
    return h


def test_a_series_card_lists_what_enters_and_leaves_it():
    out = stack()
    explorer = GraphExplorer(out)
    model = explorer.view_model()
    series = next(g for g in model["groups"] if g["kind"] == "series")
    assert series["label"] == "layer() x3"
    card = explorer.details(series["id"])
    # Three calls of 3 ops each (dot, mul, tanh), each holding its weight and a copy of
    # the constant: only x enters, only the last tanh leaves.
    assert "9 nodes \u00b7 1 in \u00b7 1 out" in card
    assert ">x<" in card and ">W0<" not in card
    h = X
    for value in WEIGHTS:
        h = np.tanh(h @ value * np.float32(0.5))
    assert value_stats(h) in card  # the output's value, as NumPy computes it
    assert explorer.describe(series["id"]).startswith("layer() x3: calls of one function side by side")
    assert explorer._picture is None  # no kernel picture was drawn for any of it


def test_select_takes_a_series_and_a_constants_copy():
    out = stack()
    explorer = GraphExplorer(out)
    model = explorer.view_model()
    series = next(g["id"] for g in model["groups"] if g["kind"] == "series")
    explorer.select(series)
    assert explorer.selected == series and explorer.view_state()["selected"] == series
    copies = [n for n in model["nodes"] if n.get("copy_of")]
    assert len(copies) == 3  # the 0.5 read by each call: drawn in each
    card = explorer.select(copies[1]["id"])
    assert explorer.selected == copies[1]["id"] and "0.5" in card and "constant" in card
    assert explorer._picture is None


def test_details_of_a_node_in_a_closed_loop_body_and_the_unknown():
    xs = T.matrix("xs", test_value=X)
    steps, _ = sn.scan(lambda row: T.exp(row) * 2, sequences=xs)
    explorer = GraphExplorer(steps)
    body = next(n for n in explorer.view_model()["nodes"] if "/" in n["id"] and n["op"] == "exp")
    card = explorer.details(body["id"])
    assert value_stats(np.exp(X[0])) in card  # the first step's, as the test values run it
    assert explorer.expanded == [] and explorer._picture is None
    assert "Click a node" in explorer.details("n999")


def test_a_constant_drawn_as_copies_only_answers_to_its_own_id_too():
    explorer = GraphExplorer(stack())
    copies = [n for n in explorer.view_model()["nodes"] if n.get("copy_of")]
    base = copies[0]["copy_of"]  # the picture's id of the constant (node_ids(), id_of)
    assert all(n["id"] != base for n in explorer.view_model()["nodes"])
    card = explorer.select(base)
    assert "0.5" in card and explorer.view_state()["selected"] == copies[0]["id"]
    assert explorer.describe(base).startswith("constant 0.5: constant")
