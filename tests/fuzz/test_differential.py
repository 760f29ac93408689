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

And with a random cut (random interior values given as the function's inputs, some
inputs made shared variables with a default update): the function needs and updates
only what lies below the cut, and computes the reference from the values given there.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from symnb.compile.debugmode import check_rewrites
from symnb.core.graph import test_value_memory
from symnb.errors import DynamicShapeError
from tests.fuzz.bounds import difference
from tests.fuzz.graphs import programs
from tests.fuzz.branch_ops import _choice
from tests.fuzz.program import Input, Step

pytestmark = pytest.mark.slow(minutes=7)  # 500 examples: run with --run-slow (CI does)

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


@given(programs(), st.data())
def test_a_random_cut_computes_the_graph_below_it(program, data):
    """Random interior values given as the function's inputs, some inputs made shared
    variables with a default update: the function is the graph between its inputs and
    its outputs (Theano's rule). It needs, and updates, only what lies below the cut
    (the recipe's own walk says what that is), and computes the reference from the
    values given there."""
    note(repr(program))
    input_positions = [p for p, item in enumerate(program.order) if isinstance(item, Input)]
    shared = data.draw(st.sets(st.sampled_from(input_positions)), label="shared inputs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's, on NaN and inf values
        _, variables = program.build(shared)
    for var, ref, item in zip(variables, program.refs, program.order):
        assert var.dtype == ref.dtype, f"{item.name}: declared dtype {var.dtype}, NumPy gives {ref.dtype}"
    # A step that returns its operand itself (an identity) is that operand, not a cut.
    cuttable = [p for p, var in enumerate(variables) if var.owner is not None
                and not any(var is other for other in variables[:p])]
    cut = data.draw(st.sets(st.sampled_from(cuttable), max_size=3) if cuttable else st.just(set()),
                    label="cut")
    # Values an ifelse may have copied into a branch are few among the steps: half the
    # programs that have one are cut there too.
    in_a_branch = [p for p in cuttable if p in _in_a_branch(program)]
    if in_a_branch and data.draw(st.booleans(), label="cut in a branch"):
        cut = cut | {data.draw(st.sampled_from(in_a_branch), label="cut in a branch at")}
    needed = program.needed(cut)
    arguments = sorted(p for p in needed if p in cut or (p in input_positions and p not in shared))
    next_values = {p: _default_update(variables[p]) for p in shared}
    outputs = [variables[i] for i in program.outputs]
    for level in ("fast_run", None):
        for p in shared:
            variables[p].set_value(program.refs[p])
        f = sn.function([variables[p] for p in arguments], outputs, mode=Mode(optimizer=level),
                        on_unused_input="ignore")
        arrays = [program.refs[p] for p in arguments]
        results = f(*arrays)
        problems = [_problem(program, i, result) for i, result in zip(program.outputs, results)]
        problems = [p for p in problems if p is not None]
        if problems and level is not None:
            # The graph compiled is the cut one: its own inputs (the given values, then
            # the shared variables' values before the call).
            given = {id(var): array for var, array in zip(f.inputs, arrays)}
            given.update({id(variables[p]): program.refs[p] for p in shared})
            cut_inputs, cut_outputs = f.maker.inputs, f.maker.outputs[:len(outputs)]
            if _explained_by_inexact_rewrites(f, cut_outputs, cut_inputs,
                                              [given[id(var)] for var in cut_inputs], results):
                event("fast_run differs where an inexact rewrite changed a value")
                continue
        assert not problems, f"optimizer={level!r}, cut {sorted(cut)}: " + "; ".join(problems)
        for p in shared:
            expected = next_values[p] if p in needed else program.refs[p]
            np.testing.assert_array_equal(
                variables[p].get_value(), expected,
                err_msg=f"{program.order[p].name} ({'below' if p in needed else 'above'} the cut)")
    _check_given_values_are_read(program, variables, shared, cut, arguments, f)


@given(programs(), st.data())
def test_a_cut_inside_an_ifelse_branch_reads_the_value_given(program, data):
    """A program's output chosen by an ``ifelse`` (against an input of its type): the
    branch holds copies of the program's steps, and a cut at random steps must reach
    them. With other values given there, the function equals the same graph built with
    fresh inputs at the cut, by hand, for both branches."""
    note(repr(program))
    output = data.draw(st.sampled_from(program.outputs), label="the output chosen")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, variables = program.build()
    # A constant, or a step returning its operand itself, is no place to cut.
    steps = [p for p in sorted(program.reached([output])) if isinstance(program.order[p], Step)
             and variables[p].owner is not None and not any(variables[p] is v for v in variables[:p])]
    if not steps:
        event("an output with no step")
        return
    cut = data.draw(st.sets(st.sampled_from(steps), min_size=1, max_size=2), label="cut")
    arguments = sorted(p for p in program.needed(cut) if p in cut or isinstance(program.order[p], Input))
    arguments = [p for p in arguments if p in program.reached([output], cut)]
    functions = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for free in ((), cut):
            _, variables = program.build(free=free)
            chosen = variables[output]
            c = T.iscalar("c", test_value=np.int32(1))
            other = T.tensor(chosen.dtype, shape=chosen.type.shape, name="other",
                             test_value=program.refs[output])
            picked = sn.ifelse(c, chosen, other)
            try:
                functions.append(sn.function([c, other, *(variables[p] for p in arguments)], picked,
                                             mode=Mode(optimizer=None), on_unused_input="ignore"))
            except DynamicShapeError:  # a length XLA needs from a branch's operands: refused
                functions.append(None)
    if None in functions:
        assert functions == [None, None], "only one of the two forms was refused"
        event("a run-time length inside the branch: both refused")
        return
    values = [_other_value(program.refs[p]) if p in cut else program.refs[p] for p in arguments]
    for taken in (1, 0):
        got, want = (f(taken, _other_value(program.refs[output]), *values) for f in functions)
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                                   rtol=1e-3, atol=1e-6, equal_nan=True,
                                   err_msg=f"cut {sorted(cut)}, branch {taken}")


def _check_given_values_are_read(program, variables, shared, cut, arguments, f) -> None:
    """The values given at the cut are the ones computed with (a copy of a cut value in
    an ifelse branch computing it from above would ignore them): with other values there,
    the function equals the same graph built with fresh inputs at the cut, by hand."""
    if not cut:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, by_hand = program.build(shared, free=cut)
    reference = sn.function([by_hand[p] for p in arguments], [by_hand[i] for i in program.outputs],
                            mode=Mode(optimizer=None), on_unused_input="ignore")
    values = [_other_value(program.refs[p]) if p in cut else program.refs[p] for p in arguments]
    for position in shared:  # both read the values the reference started from
        variables[position].set_value(program.refs[position])
    expected = reference(*values)
    results = f(*values)
    for i, got, want in zip(program.outputs, results, expected):
        np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                                   rtol=1e-3, atol=1e-6, equal_nan=True,
                                   err_msg=f"{program.order[i].name}, cut {sorted(cut)}, other values given")
    if set(cut) & _in_a_branch(program):
        event("other values given at a cut an ifelse branch may hold")


def _other_value(value: np.ndarray) -> np.ndarray:
    """A value of the same dtype and shape that differs from ``value`` everywhere."""
    value = np.asarray(value)
    if value.dtype == bool:
        return np.logical_not(value)
    if value.dtype.kind in "iu":
        return value ^ np.ones_like(value)
    return (value + 1).astype(value.dtype)


def _in_a_branch(program) -> set[int]:
    """The positions an ``ifelse`` step's branches read (through other steps): values
    ``ifelse`` may have copied into a branch as it was built, which the cut must reach
    (``core/graph/copies.py``)."""
    return program.reached([operand for item in program.order
                            if isinstance(item, Step) and item.build is _choice
                            for operand in item.operands[1:]])


def _default_update(var) -> np.ndarray:
    """Give shared variable ``var`` a default update that changes its value (where it
    has elements), and return that new value."""
    value = var.get_value()
    ones = bool(value.size) and bool(np.all(value == 1))
    var.default_update = T.zeros_like(var) if ones else T.ones_like(var)
    return np.zeros_like(value) if ones else np.ones_like(value)


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
