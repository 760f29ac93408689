"""DebugMode: each node's XLA lowering against its NumPy perform; rewrites checked too."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode
from symnb.compile.debugmode import DebugModeError, DebugModeNote
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.rewriting import passes
from symnb.core.graph.rewriting import LocalPass, node_rewriter
from symnb.core.tensor import elemwise as ew
from symnb.lower_xla import lower


class Triple(Op):
    """3 * x; its lowering rule below is deliberately wrong."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] * 3]


@lower.register(Triple)
def _wrong_triple(op, node):
    return lambda x: x * 2  # the bug DebugMode must find


def test_a_correct_graph_passes_and_gives_numpy_values(rng):
    x = T.matrix("x")
    y = T.tanh(T.dot(x, x.T)).sum(axis=0) / 3 + T.log1p(T.exp(x)).max()
    f = sn.function([x], y, mode=DebugMode())
    value = rng.normal(size=(3, 3)).astype("float32")
    expected = np.tanh(value @ value.T).sum(axis=0) / 3 + np.log1p(np.exp(value)).max()
    np.testing.assert_allclose(f(value), expected, rtol=1e-5)


def test_a_wrong_lowering_rule_is_caught_with_the_nodes_line():
    x = T.vector("x")
    tripled = Triple()(x)
    f = sn.function([x], tripled + 1, mode=DebugMode())
    with pytest.raises(DebugModeError) as info:
        f(np.ones(2, "float32"))
    message = str(info.value)
    assert "XLA lowering of Triple disagrees with its NumPy perform" in message
    assert "tripled = Triple()(x)" in message
    assert "2.0" in message and "3.0" in message


def test_theanos_keywords_and_check_c_code_false_skips_the_comparison():
    # Theano's DebugMode(check_c_code=False) (its docs' example) compares no C code with
    # Python: here no node's lowering with its perform, node by node; the program's results
    # are still checked against the graph's NumPy reference after the call.
    x = T.vector("x")
    tripled = Triple()(x)
    for off in (dict(check_c_code=False), dict(check_py_code=False)):
        f = sn.function([x], tripled + 1, mode=DebugMode(**off))
        with pytest.raises(DebugModeError, match="optimized program differs from the unoptimized "
                                                 "graph's NumPy reference"):
            f(np.ones(2, "float32"))
    mode = DebugMode(stability_patience=3, check_preallocated_output=["c_contiguous"],
                     require_matching_strides=0, linker=None)
    with pytest.raises(DebugModeError):
        sn.function([x], tripled + 1, mode=mode)(np.ones(2, "float32"))


def test_a_rewrite_that_changes_values_is_named(monkeypatch):
    @node_rewriter([ew.Mul], name="bad_mul_to_add")
    def bad(fgraph, node):
        return [T.add(*node.inputs)]

    monkeypatch.setitem(passes.PASSES, "canonicalize", LocalPass("canonicalize", [bad]))
    x = T.vector("x")
    product = x * 3
    f = sn.function([x], product, mode=DebugMode(optimizer="fast_run"))
    with pytest.raises(DebugModeError) as info:
        f(np.ones(2, "float32"))
    message = str(info.value)
    assert "rewrite 'bad_mul_to_add' changed the value" in message
    assert "product = x * 3" in message


def test_the_readme_example_passes_with_negative_inputs():
    # exp(log(x)) used to become x under fast_run, and DebugMode blamed the rewrite.
    x = T.vector("x")
    y = T.exp(T.log(x)) * 2
    # log of a negative is NaN: check_isfinite (on by default, as in Theano) would stop there
    f = sn.function([x], y, mode=DebugMode(optimizer="fast_run", check_isfinite=False))
    values = np.array([-1.0, -0.0, 0.5, 3.0], "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DebugModeNote)
        result = f(values)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(result, np.exp(np.log(values)) * 2, rtol=1e-6)
    assert f.maker.notes == []


def test_an_inexact_rewrite_outside_its_domain_is_a_note_not_an_error():
    # Theano's x / x -> 1 stays; at x = 0 it changes NaN into 1, as it declares.
    x = T.vector("x")
    ratio = x / x
    f = sn.function([x], ratio * 3, mode=DebugMode(optimizer="fast_run"))
    with pytest.warns(DebugModeNote) as caught:
        result = f(np.array([0.0, 2.0], "float32"))
    np.testing.assert_array_equal(result, [3.0, 3.0])  # the optimized program's values
    (note,) = [str(w.message) for w in caught if w.category is DebugModeNote]
    assert "rewrite 'local_div_self'" in note and "exact only where x is finite and non-zero" in note
    assert "ratio = x / x" in note and "nan" in note
    assert f.maker.notes == [note]
    with warnings.catch_warnings():  # the same rewrite and node again: noted once
        warnings.simplefilter("error", DebugModeNote)
        f(np.array([1.0, 0.0], "float32"))
    assert len(f.maker.notes) == 1
    f(np.array([1.0, 2.0], "float32"))  # inside its domain: nothing to note


def test_a_declared_inexact_rewrite_is_noted_and_an_exact_one_that_changes_values_raises(monkeypatch):
    @node_rewriter([ew.Mul], name="mul_to_add_where_two", exact="where both operands are 2")
    def noted(fgraph, node):
        return [T.add(*node.inputs)]

    monkeypatch.setitem(passes.PASSES, "canonicalize", LocalPass("canonicalize", [noted]))
    x = T.vector("x")
    f = sn.function([x], x * 3, mode=DebugMode(optimizer="fast_run"))
    with pytest.warns(DebugModeNote, match="'mul_to_add_where_two', exact only where both operands are 2"):
        np.testing.assert_array_equal(f(np.ones(2, "float32")), [4.0, 4.0])
    assert len(f.maker.notes) == 1


def test_an_exact_rewrite_is_not_blamed_for_an_inexact_one_after_it():
    # Fuzz finding: merge joined the two pow nodes; later x / x -> 1 edited the kept
    # node's input, so merge's replaced value (pow(x, x / x), NaN at -inf) and its
    # replacing one (now pow(x, 1), -inf) differed, and DebugMode blamed merge.
    x = T.vector("x", dtype="float64")
    ratio = x / x
    first = T.pow(x, ratio)
    second = T.pow(x, ratio)
    f = sn.function([x], [second, first ** 3.0],  # -inf is an input: check_isfinite off
                    mode=DebugMode(optimizer="fast_run", check_isfinite=False))
    with pytest.warns(DebugModeNote) as caught:
        f(np.array([1.5, -np.inf]))
    notes = [str(w.message) for w in caught if w.category is DebugModeNote]
    assert len(notes) == 1 and "'local_div_self'" in notes[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DebugModeNote)
        np.testing.assert_allclose(f(np.array([1.5, 2.0]))[1], np.array([1.5, 2.0]) ** 3)


def test_a_loop_of_no_steps_read_at_its_last_step_is_a_note():
    # scan_keep_last_step returns the initial state where out[-1] of no steps is an
    # IndexError; it declares so, and DebugMode says it instead of failing.
    k = T.iscalar("k")
    a = T.vector("a")
    out, _ = sn.scan(lambda prev, a: prev * a, outputs_info=T.ones_like(a), non_sequences=a, n_steps=k)
    last = out[-1]
    f = sn.function([a, k], last, mode=DebugMode(optimizer="fast_run"))
    np.testing.assert_array_equal(f(np.full(2, 2, "float32"), np.int32(3)), [8.0, 8.0])
    with pytest.warns(DebugModeNote, match="'scan_keep_last_step', exact only where the loop runs at least one step"):
        np.testing.assert_array_equal(f(np.full(2, 2, "float32"), np.int32(0)), [1.0, 1.0])


def test_an_invalid_inner_reshape_removed_by_a_rewrite_is_a_note():
    x = T.vector("x")
    n = T.lscalar("n")
    y = x.reshape((n, -1)).reshape((6,))
    f = sn.function([x, n], y, mode=DebugMode(optimizer="fast_run"))
    np.testing.assert_array_equal(f(np.arange(6, dtype="float32"), 2), np.arange(6))
    with pytest.warns(DebugModeNote, match="'local_reshape_reshape', exact only where the inner reshape is valid"):
        f(np.arange(6, dtype="float32"), 4)  # 6 values cannot be 4 rows: the graph as written raises
