"""The bug corpus: one small program per kind of mistake symnb reports, each run until it
raises. Tests read every case's error (its message, its HTML, its record): what a user
sees of each bug (``tests/test_error_corpus.py``).

Each case is a function returning the error it raised; the cases are cheap (small
graphs, one compiled function at most).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.compile import NanGuardMode

CASES: dict[str, Callable[[], BaseException]] = {}


def case(function: Callable[[], None]) -> Callable[[], None]:
    """Register ``function`` (a bug that raises) under its name."""

    def raised() -> BaseException:
        try:
            function()
        except sn.SymnbError as error:
            return error
        raise AssertionError(f"the bug {function.__name__} raised nothing")

    CASES[function.__name__] = raised
    return function


@case
def dot_of_static_shapes_that_do_not_fit():
    x = T.matrix("x", shape=(2, 3))
    w = T.matrix("w", shape=(4, 5))
    T.dot(x, w)


@case
def add_of_test_values_that_do_not_broadcast():
    a = T.vector("a", test_value=np.ones(3, "float32"))
    b = T.vector("b", test_value=np.ones(4, "float32"))
    a + b  # noqa: B018 -- the bug


@case
def dot_called_with_shapes_that_do_not_fit():
    x, W = T.matrix("x"), T.matrix("W")
    f = sn.function([x, W], T.dot(x, W))
    f(np.ones((7, 2), "float32"), np.ones((3, 4), "float32"))


@case
def concatenate_called_with_shapes_that_do_not_fit():
    x, y = T.matrix("x"), T.matrix("y")
    f = sn.function([x, y], T.concatenate([x, y]))
    f(np.ones((2, 3), "float32"), np.ones((2, 4), "float32"))


def index_seven_at_iteration_three():
    """The issue's case: a step reads ``E[i_t]`` with ``i_t = 7`` at iteration 3; only the
    last step is read (``scan_keep_last_step`` rewrites the loop)."""
    E, idx = T.matrix("E"), T.lvector("idx")

    def step(i_t, acc, E):
        return acc + E[i_t].sum()

    out, _ = sn.scan(step, sequences=[idx], outputs_info=[T.constant(np.float32(0))], non_sequences=[E])
    f = sn.function([idx, E], out[-1])
    f(np.array([0, 1, 2, 7, 1]), np.ones((5, 8), "float32"))


case(index_seven_at_iteration_three)


@case
def index_of_an_unnamed_state():
    E = T.vector("E")

    def step(acc, E):
        return acc + 1, E[acc]

    (_, read), _ = sn.scan(step, outputs_info=[T.constant(np.int64(0)), None], non_sequences=[E],
                           n_steps=3)
    f = sn.function([E], read)
    f(np.ones(2, "float32"))  # acc = 2 at iteration 2: out of range


def index_in_a_nested_loop():
    """An index out of range at iteration 1 of the inner loop, in iteration 2 of the outer."""
    rows, table = T.lmatrix("rows"), T.vector("table")

    def inner(k, table):
        return table[k]

    def outer(row, table):
        picked, _ = sn.scan(inner, sequences=[row], non_sequences=[table], name="inner")
        return picked.sum()

    out, _ = sn.scan(outer, sequences=[rows], non_sequences=[table], name="outer")
    f = sn.function([rows, table], out)
    f(np.array([[0, 1], [1, 0], [0, 5]]), np.ones(3, "float32"))


case(index_in_a_nested_loop)


@case
def assert_inside_a_loop():
    x = T.vector("x")

    def step(v, total):
        return total + T.Assert("steps must be positive")(v, T.gt(v, 0))

    out, _ = sn.scan(step, sequences=[x], outputs_info=[T.constant(np.float32(0))])
    f = sn.function([x], out)
    f(np.array([1.0, -2.0, 4.0], "float32"))


@case
def shape_mismatch_in_a_loop_body():
    x, w = T.matrix("x"), T.vector("w")

    def step(xt, w):
        return T.tanh(xt * 2) + w

    out, _ = sn.scan(step, sequences=[x], non_sequences=[w])
    f = sn.function([x, w], out)
    f(np.ones((2, 3), "float32"), np.ones(4, "float32"))


@case
def nan_under_nanguardmode():
    x = T.vector("x")
    y = T.log(x)
    f = sn.function([x], y * 2, mode=NanGuardMode())
    f(np.array([1.0, -1.0], "float32"))


@case
def test_value_failure_while_tracing_a_step():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    w = T.vector("w", test_value=np.ones(4, "float32"))

    def step(xt, w):
        return xt + w

    sn.scan(step, sequences=[x], non_sequences=[w])


@case
def scan_taps_that_are_not_negative():
    x = T.vector("x")
    sn.scan(lambda a, b: a + b, sequences=[x], outputs_info=[dict(initial=T.vector("h0"), taps=[1])])


@case
def test_value_index_in_a_nested_loop():
    rows = T.lmatrix("rows", test_value=np.array([[0, 1], [1, 0], [0, 5]]))
    table = T.vector("table", test_value=np.ones(3, "float32"))

    def inner(k, table):
        return table[k]

    def outer(row, table):
        picked, _ = sn.scan(inner, sequences=[row], non_sequences=[table], name="inner")
        return picked.sum()

    sn.scan(outer, sequences=[rows], non_sequences=[table], name="outer")


@case
def shape_mismatch_in_a_fused_chain():
    x, y = T.vector(), T.vector()  # unnamed: labelled by their lines
    z = x + x
    z = z + y
    f = sn.function([x, y], z)  # fast_run fuses both additions into one operation
    f(np.array([1, 2], "float32"), np.array([3, 4, 5], "float32"))
