"""``err.record``: every symnb error's structured record, from which its message is drawn."""

import dataclasses

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.error_record import ErrorRecord, LoopLevel, ValueRecord
from symnb.core.graph.errors import message_of


def test_a_build_error_records_its_node_inputs_and_line():
    x = T.matrix("x", shape=(2, 3))
    w = T.matrix("w", shape=(4, 5))
    with pytest.raises(sn.TestValueError) as info:
        T.dot(x, w)  # the line
    record = info.value.record
    assert (record.kind, record.op) == ("ValueError", "dot")
    assert record.problem.startswith("x has shape (2, 3) and w has shape (4, 5)")
    assert [(v.position, v.name, v.dtype, v.shape) for v in record.inputs] == [
        (0, "x", "float32", (2, 3)), (1, "w", "float32", (4, 5))]
    assert record.inputs[0].built.startswith("input created at test_error_record.py:")
    assert record.site.frame.line == "T.dot(x, w)  # the line"
    assert record.loops == () and not record.in_call
    assert str(info.value) == message_of(record)


def test_a_test_value_error_records_the_test_values_shapes():
    a = T.vector("a", test_value=np.ones(3, "float32"))
    b = T.vector("b", test_value=np.ones(4, "float32"))
    with pytest.raises(sn.TestValueError) as info:
        a + b  # noqa: B018
    record = info.value.record
    assert [(v.name, v.shape) for v in record.inputs] == [("a", (3,)), ("b", (4,))]
    assert record.values_from == "test values"


def test_an_error_made_from_a_message_has_a_record_of_it():
    error = sn.DynamicShapeError("a length depends on a value")
    assert error.record == ErrorRecord("a length depends on a value")
    assert error.record.text() == str(error)


def test_the_message_is_drawn_from_the_record():
    record = ErrorRecord(
        "x has shape (7, 2)", "ValueError", node=object(), op="dot", context=" while running f",
        inputs=(ValueRecord(0, "x", "float32", (7, 2), "input created at m.py:1: x = ..."),
                ValueRecord(1, "W", "float32", (None, 4), "")),
        outputs=(ValueRecord(0, "y", "float32", (None, None), computed=False),),
        values_from="this call", loops=(LoopLevel("Scan{outer}", 2), LoopLevel("Scan{inner}", 1)),
        notes=("a note",), details=("Toposort index: 0 of 1",))
    record = dataclasses.replace(record, inputs=(dataclasses.replace(record.inputs[0], value=np.ones((7, 2))),
                                                 record.inputs[1]))
    text = record.text()
    assert text.splitlines() == [
        "ValueError in dot while running f: x has shape (7, 2)",
        "  (the node was built by symnb itself, not on a user's line)",
        "Inputs of dot (shapes in this call):",
        "  #0 x  float32 (7, 2)     input created at m.py:1: x = ...",
        "  #1 W  float32 (?, 4)     ",
        "a note",
        "Values of this call at dot at iteration 1 of Scan{inner}, in iteration 2 of Scan{outer} "
        "(err.call_values; the graph replayed in NumPy with the call's arguments):",
        "  input #0 'x': float64 (7, 2) min=1 max=1",
        "  input #1 'W': not computed",
        "  output #0 'y': not computed",
    ]
    assert "Toposort" in record.text("high") and "Toposort" not in text
    assert record.text("low").splitlines() == text.splitlines()[:2]
    assert "Values of this call" not in record.text(values=False)


def test_a_test_value_failure_in_nested_loops_records_every_level():
    rows = T.lmatrix("rows", test_value=np.array([[0, 1], [1, 0], [0, 5]]))
    table = T.vector("table", test_value=np.ones(3, "float32"))

    def inner(k, table):
        return table[k]  # the read

    def outer(row, table):
        picked, _ = sn.scan(inner, sequences=[row], non_sequences=[table], name="inner")
        return picked.sum()

    with pytest.raises(sn.TestValueError) as info:
        sn.scan(outer, sequences=[rows], non_sequences=[table], name="outer")
    record = info.value.record
    # rows[2][1] = 5: the outer loop's iteration 2, the inner one's iteration 1.
    assert record.loops == (LoopLevel("scan 'outer'", 2), LoopLevel("scan 'inner'", 1))
    assert str(info.value).splitlines()[0].startswith(
        "IndexError in Subtensor{?} at iteration 1 of scan 'inner', in iteration 2 of scan 'outer': index 5 ")
    assert record.site.frame.line == "return table[k]  # the read"
    assert [v.shape for v in record.inputs] == [(3,), ()]
