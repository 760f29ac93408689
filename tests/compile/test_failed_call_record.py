"""A failed call's values enter the error's record (``err.record``), and both the message
and the HTML are drawn from that record."""

import dataclasses
import html

import numpy as np

import symnb.printing  # noqa: F401 -- registers the errors' HTML
from symnb.core.graph.error_record import LoopLevel
from symnb.core.graph.errors import message_of
from tests.error_corpus import CASES


def test_the_issues_loop_case_records_iteration_three_and_its_inputs():
    error = CASES["index_seven_at_iteration_three"]()  # idx = [0, 1, 2, 7, 1], E: ones (5, 8)
    record = error.record
    assert record.in_call and record.loops == (LoopLevel("Scan{step}", 3),)
    assert record.where == "iteration 3 of Scan{step}"
    E, i_t = record.inputs
    assert (E.name, E.shape) == ("E", (5, 8))
    np.testing.assert_array_equal(E.value, np.ones((5, 8), "float32"))
    assert (i_t.name, i_t.shape, int(i_t.value)) == ("idx[t]", (), 7)
    assert [(v.name, v.computed) for v in record.outputs] == [("E[i_t]", False)]
    assert str(error) == message_of(record)


def test_every_level_of_a_nested_loop_is_recorded():
    # rows [[0, 1], [1, 0], [0, 5]]: the outer loop's iteration 2, the inner one's 1 reads 5.
    record = CASES["index_in_a_nested_loop"]().record
    assert record.loops == (LoopLevel("Scan{outer}", 2), LoopLevel("Scan{inner}", 1))
    assert int(record.inputs[1].value) == 5
    assert "at iteration 1 of Scan{inner}, in iteration 2 of Scan{outer}" in message_of(record)


def test_the_html_is_drawn_from_the_record_not_the_message():
    error = CASES["dot_called_with_shapes_that_do_not_fit"]()
    error.record = dataclasses.replace(error.record, problem="a problem only the record says")
    page = html.unescape(error._repr_html_())
    assert "a problem only the record says" in page and "a problem only the record says" not in str(error)
    # The values are in tables, not repeated as the message's text lines.
    assert "(err.call_values;" not in page
    assert "input #0" in page and "float32 (7, 2)" in page and "not computed" in page


def test_the_html_of_a_loop_failure_names_the_iteration_of_its_values():
    page = html.unescape(CASES["index_seven_at_iteration_three"]()._repr_html_())
    assert "Failing node Subtensor{?} at iteration 3 of Scan{step}" in page
    assert "iteration 2" not in page
