"""Differential fuzz: random programs over the tensor API, compiled at the three
optimizer levels, against each step's own NumPy reference and against the test values.

For every generated program (see ``graphs`` for what is drawn and what is left out):

- every value's declared dtype is the NumPy reference's;
- every value's test value (symnb's ``perform`` path) equals the reference within
  its error bound (``bounds``): NaN for NaN, infinities and integers exactly;
- built again with a test-value memory budget of 0 (every computed value but the
  newest dropped as soon as another is stored, and computed again when read), every
  test value is the same as with no limit;
- the compiled outputs equal it too, with the declared dtype, under ``'fast_run'``,
  ``'fast_compile'`` and ``None``. Under the levels that rewrite (``'fast_run'``, and
  ``'fast_compile'``, which stabilizes too) a difference is accepted only where a
  rewrite that declared itself inexact (Theano's ``x / x -> 1``, the stabilizations of
  the written ``log(sigmoid(x))``...) changed a value on these inputs: DebugMode's own
  check says which. ``None`` computes the graph as written, as the test values do.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import event, given, note

import symnb as sn
from symnb.compile import Mode
from symnb.compile.debugmode import check_rewrites
from symnb.core.graph import test_value_memory
from tests.fuzz.bounds import difference
from tests.fuzz.graphs import programs

pytestmark = pytest.mark.slow  # 500 examples: run with --run-slow (CI does)

LEVELS = ["fast_run", "fast_compile", None]


@given(programs())
def test_compiled_programs_equal_numpy_and_the_test_values(program):
    note(repr(program))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, on NaN and inf values
        inputs, variables = program.build()
    arrays = [item.value for item in program.inputs]
    for position, (var, ref, err) in enumerate(zip(variables, program.refs, program.errs)):
        name = program.order[position].name
        assert var.dtype == ref.dtype, f"{name}: declared dtype {var.dtype}, NumPy gives {ref.dtype}"
        problem = difference(var.test_value, ref, err)
        assert problem is None, f"{name}: the test value differs from NumPy: {problem}"
    outputs = [variables[i] for i in program.outputs]
    for level in LEVELS:
        with warnings.catch_warnings():
            # JAX truncating a 64-bit dtype to 32 bits is a silent wrong number here.
            warnings.filterwarnings("error", message="Explicitly requested dtype .* is not available")
            f = sn.function(inputs, outputs, mode=Mode(optimizer=level), on_unused_input="ignore")
            results = f(*arrays)
        problems = [_problem(program, i, result) for i, result in zip(program.outputs, results)]
        problems = [p for p in problems if p is not None]
        if problems and level is not None and \
                _explained_by_inexact_rewrites(f, outputs, inputs, arrays, results):
            event(f"{level} differs where an inexact rewrite changed a value")
            continue
        assert not problems, f"optimizer={level!r}: " + "; ".join(problems)


@given(programs())
def test_test_values_dropped_to_save_memory_are_computed_again_the_same(program):
    note(repr(program))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, on NaN and inf values
        with sn.config.change_flags(test_value_memory_mb=100_000):  # nothing dropped
            _, held = program.build()
            expected = [var.test_value for var in held]
        # 0 drops every computed value but the newest; 0.001 (the figure) drops
        # those of 1 kB and more and keeps the smaller ones.
        for budget in (0, 0.001):
            with sn.config.change_flags(test_value_memory_mb=budget):
                _, variables = program.build()
                if budget == 0:
                    computed = {id(var): var for var in variables if var.owner is not None}
                    # (An empty value takes no memory: it fits any budget. A value whose
                    # recomputation ran long is kept as a checkpoint, outside the budget.)
                    still_held = [var for var in computed.values()
                                  if var._test_value is not None and var._test_value.nbytes
                                  and id(var) not in test_value_memory.checkpoints]
                    assert len(still_held) <= 1, f"{len(still_held)} computed values held, not dropped"
                # Backwards (each read recomputes up to the inputs), then forwards.
                positions = [*reversed(range(len(variables))), *range(len(variables))]
                for position in positions:
                    name = f"{program.order[position].name} (budget {budget} MB)"
                    value = variables[position].test_value
                    assert value.dtype == expected[position].dtype, name
                    np.testing.assert_array_equal(value, expected[position], err_msg=name)


def _problem(program, index, result) -> str | None:
    problem = difference(np.asarray(result), program.refs[index], program.errs[index])
    return None if problem is None else f"{program.order[index].name}: {problem}"


def _explained_by_inexact_rewrites(f, outputs, inputs, arrays, results) -> bool:
    """True when DebugMode's rewrite check notes a declared-inexact rewrite that changed
    a value on these inputs (it raises if an exact rewrite did)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        notes = check_rewrites(f.maker.fgraph, outputs, inputs, arrays, results)
    return bool(notes)
