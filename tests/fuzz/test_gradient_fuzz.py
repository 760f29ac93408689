"""Gradient fuzz: ``sn.grad`` of a random projection of random differentiable float64
programs, against central finite differences of the programs' own NumPy references.

The programs (``smooth_ops``) stay where every function is smooth with a wide margin;
the projection weights are drawn too. The gradient is compiled at a drawn optimizer
level, and its test value (the NumPy ``perform`` path) is checked as well.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from tests.fuzz.branch_ops import count_choices, switch_form
from tests.fuzz.graphs import BRANCH_FAMILIES, gradient_programs

pytestmark = pytest.mark.slow(minutes=2)  # 500 examples: run with --run-slow (CI does)

#: Central differences in float64 with this step (relative to the value's magnitude):
#: truncation error ~ STEP**2, rounding ~ 1e-16 / STEP.
STEP = 1e-6
RTOL, ATOL = 1e-5, 1e-7


@st.composite
def projected_programs(draw):
    program = draw(gradient_programs())
    weights = [draw(hnp.arrays(np.float64, program.refs[i].shape, elements=st.floats(-1, 1)))
               for i in program.outputs]
    level = draw(st.sampled_from(["fast_run", "fast_compile", None]))
    return program, weights, level


def _cost(program, weights, values) -> float:
    results = program.evaluate(values)
    return float(sum(np.sum(results[i] * w) for i, w in zip(program.outputs, weights)))


def _finite_differences(program, weights, position: int) -> np.ndarray:
    values = [item.value.copy() for item in program.inputs]
    point = values[position]
    grad = np.zeros(point.shape)
    for index in np.ndindex(point.shape):
        original = point[index]
        h = STEP * max(1.0, abs(original))
        point[index] = original + h
        up = _cost(program, weights, values)
        point[index] = original - h
        down = _cost(program, weights, values)
        point[index] = original
        grad[index] = (up - down) / (2 * h)
    return grad


@given(projected_programs())
def test_gradients_equal_central_differences(case):
    program, weights, level = case
    note(repr(program))
    note(f"weights: {[w.tolist() for w in weights]}, optimizer={level!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        inputs, variables = program.build()
        cost = sum(T.sum(variables[i] * T.constant(w)) for i, w in zip(program.outputs, weights))
        wrt = [(position, var) for position, var in enumerate(inputs) if var.dtype == "float64"]
        grads = sn.grad(cost, [var for _, var in wrt], disconnected_inputs="ignore")
    f = sn.function(inputs, grads, mode=Mode(optimizer=level), on_unused_input="ignore")
    results = f(*[item.value for item in program.inputs])
    for (position, _), grad, result in zip(wrt, grads, results):
        item = program.inputs[position]
        expected = _finite_differences(program, weights, position)
        scale = ATOL * (1 + np.max(np.abs(expected), initial=0.0))
        for what, value in (("compiled", result), ("test value", grad.test_value)):
            assert value.dtype == np.float64, f"d cost / d {item.name}: {what} dtype {value.dtype}"
            np.testing.assert_allclose(value, expected, rtol=RTOL, atol=scale,
                                       err_msg=f"d cost / d {item.name} ({what}, optimizer={level!r})")


@st.composite
def branching_programs(draw):
    program = draw(gradient_programs(max_steps=6, families=tuple(BRANCH_FAMILIES)))
    weights = [draw(hnp.arrays(np.float64, program.refs[i].shape, elements=st.floats(-1, 1)))
               for i in program.outputs]
    return program, weights


def _gradient_program_size(program, weights) -> int:
    """The number of operations (jaxpr equations, branches' included) of the compiled
    gradient of the program's projection."""
    inputs, variables = program.build()
    cost = sum(T.sum(variables[i] * T.constant(w)) for i, w in zip(program.outputs, weights))
    wrt = [var for var in inputs if var.dtype == "float64"]
    grads = sn.grad(cost, wrt, disconnected_inputs="ignore")
    f = sn.function(inputs, grads, on_unused_input="ignore")
    text = f.lowered_text("jaxpr", *[item.value for item in program.inputs])
    return sum(" = " in line for line in text.splitlines())


@settings(max_examples=150)  # two compiles per example
@given(branching_programs())
def test_gradients_through_stacked_and_nested_ifelse_stay_the_size_of_the_switch_form(case):
    # A branch's gradient reads the values it shares with the rest as the cond's
    # operands (never copies of them): the program through ``ifelse`` is at most the
    # switch form's (which computes both branches), plus a few operations per cond
    # (the predicate, the cond) and what two branches on one condition both compute.
    program, weights = case
    choices = count_choices(program)
    assume(choices > 0)
    note(repr(program))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        size = _gradient_program_size(program, weights)
        with switch_form():
            reference = _gradient_program_size(program, weights)
    note(f"{choices} ifelse: {size} operations, {reference} with T.switch")
    assert size <= 2 * reference + 6 * choices, (size, reference, choices)
