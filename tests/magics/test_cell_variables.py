"""Which variables %%symgraph shows, and under what names: lists, tuples and dicts of
variables are shown element by element; what cannot be shown is named with the reason."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.magics.cell_variables import (
    SymgraphUsageError, assigned_variables, named_variables, snapshot,
)


@pytest.fixture
def parts():
    x = T.vector("x", test_value=np.arange(3, dtype="float32"))
    W = sn.shared(np.ones((3, 2), "float32"), name="W")
    return x, W


def test_elements_of_lists_tuples_and_dicts_are_named_by_their_place(parts):
    x, W = parts
    y = x * 2
    namespace = {"n": 3, "y": y, "pair": (x, [y, "not symbolic"]), "upd": {W: W * 2, "k": y}}
    found = assigned_variables(namespace, {"n": snapshot({"n": 3})["n"]})
    names = [name for name, _ in found.shown]
    assert names == ["y", "pair[0]", "pair[1][0]", "upd[W]", "upd['k']"]
    assert [v for _, v in found.shown][:3] == [y, x, y]
    assert found.notes == []


def test_what_cannot_be_shown_is_named_with_the_reason(parts):
    x, W = parts
    deep = [[[x * 3, x]]]
    found = assigned_variables({"s": {x, W}, "deep": deep, "big": [x + i for i in range(70)]}, {})
    notes = "\n".join(found.notes)
    assert "s: a set of 2 symbolic variable(s) is not shown: its elements have no order" in notes
    assert "deep[0][0]: 2 symbolic variable(s) nested more than 2 levels deep are not shown" in notes
    assert "big: 70 symbolic variables; the first 64 are shown and compiled, big[64] and the 5 after" in notes
    assert [name for name, _ in found.shown] == [f"big[{i}]" for i in range(64)]


def test_a_list_grown_in_place_counts_as_reassigned(parts):
    x, _ = parts
    updates = [x]
    namespace = {"updates": updates, "same": [x]}
    before = snapshot(namespace)
    updates.append(x + 1)
    assert [name for name, _ in assigned_variables(namespace, before).shown] == ["updates[0]", "updates[1]"]


def test_show_takes_containers_and_refuses_what_holds_nothing_symbolic(parts):
    x, _ = parts
    found = named_variables({"gs": [x, x * 2]}, ["gs"])
    assert [name for name, _ in found.shown] == ["gs[0]", "gs[1]"]
    with pytest.raises(SymgraphUsageError, match="'ns' is of type list, not a symbolic variable nor a list"):
        named_variables({"ns": [1, 2]}, ["ns"])
