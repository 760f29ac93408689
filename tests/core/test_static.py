"""``symnb.core.graph.static``: one notion of what is known ahead of the compiled program."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import static
from symnb.core.graph.basic import toposort
from symnb.core.graph.static import fold, known_while_tracing, may_run_ahead, static_value
from symnb.core.tensor.assertion import Assert
from symnb.core.tensor.print_op import Print


def test_static_value_of_constants_and_static_shapes():
    x = T.matrix("x", shape=(5, 3))
    assert static_value(T.constant(np.int64(7))) == 7
    np.testing.assert_array_equal(static_value(x.shape), np.array([5, 3]))
    n = x.shape[0] * 2 + x.shape[1]
    assert static_value(n) == 5 * 2 + 3 and static_value(n).dtype == np.int64


def test_static_value_is_none_for_what_needs_an_input_value():
    x, y = T.matrix("x", shape=(5, 3)), T.matrix("y")
    assert static_value(x) is None  # an input's value
    assert static_value(y.shape[0]) is None  # an unknown length
    assert static_value(x.sum()) is None  # x's values, not its shape
    assert static_value(x.shape[0] + y.shape[0]) is None


def test_static_shapes_cost_no_memory():
    with sn.config.change_flags(compute_test_value="off"):
        huge = T.matrix("huge", shape=(10**6, 10**6), dtype="float64")  # 8 TB if it existed
        size = huge.shape[0] * huge.shape[1]
    assert static_value(size) == 10**12


def test_static_value_goes_through_at_most_depth_nodes():
    x = T.vector("x", shape=(4,))
    n = x.shape[0]
    for _ in range(6):
        n = n + 1
    assert static_value(n) == 4 + 6  # Shape, Subtensor, then 6 additions: 8 nodes deep
    assert static_value(n, depth=7) is None
    assert static_value(n + 1) is None and static_value(n + 1, depth=9) == 11


def test_effects_and_failures_leave_the_value_unknown():
    x = T.vector("x", shape=(4,))
    checked = Assert("positive")(x.shape[0], T.gt(x.shape[0], 0))
    assert static_value(checked) is None  # an Assert must run in the program
    with sn.config.change_flags(compute_test_value="off"):
        bad = T.constant(np.array([1, 2], "int64"))[T.constant(np.int64(1)) + x.shape[0]]
    assert static_value(bad) is None  # out of range: the program reports it


def test_may_run_ahead():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    c = T.lscalar("c", test_value=np.int64(1))
    assert may_run_ahead((x + 1).owner.op)
    assert not may_run_ahead(Print("p").make_node(x).op)  # an effect
    assert not may_run_ahead(T.zeros((c, 2)).owner.op)  # Alloc: the result may be huge
    steps, _ = sn.scan(lambda v: v * 2, sequences=[x])
    assert not may_run_ahead(steps.owner.op)  # a loop
    pure = sn.ifelse(c, x * 2, x + 1)
    assert may_run_ahead(pure.owner.op)  # the branches decide: here they may
    printing = sn.ifelse(c, Print("p")(x), x + 1)
    assert not may_run_ahead(printing.owner.op)


def test_fold():
    a = T.constant(np.array([1.0, 2.0], "float32"))
    (value,) = fold((a * 3).owner)
    np.testing.assert_array_equal(value, np.array([3.0, 6.0], "float32"))
    assert value.dtype == np.float32
    assert fold((a * T.vector("x")).owner) is None  # not all inputs constant
    assert fold(Print("p").make_node(a)) is None  # an effect
    with np.errstate(divide="ignore"):  # its test value
        division = (a / T.constant(np.float32(0.0))).owner
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (inf,) = fold(division)  # NumPy's warning is the program's, not folding's
    assert np.all(np.isinf(inf))


def test_fold_keeps_large_results_out_of_the_program():
    limit = static.MAX_FOLDED_BYTES // 8  # float64 elements
    small = T.constant(np.zeros(limit))
    large = T.constant(np.zeros(limit + 1))
    assert fold((small + 1.0).owner) is not None
    assert fold((large + 1.0).owner) is None


def test_known_while_tracing():
    x = T.matrix("x")
    length = x.shape[0]
    doubled = length * 2
    checked = Assert("ok")(doubled, T.gt(doubled, 0))
    total = x.sum()
    nodes = toposort([checked, total])
    known = known_while_tracing(nodes)
    assert id(length) in known and id(doubled) in known  # shapes, and what follows from them
    assert id(checked) not in known  # an effect: runs in the program
    assert id(total) not in known  # a value of x


def test_inline_threshold():
    assert static.small_enough_to_inline((32, 32)) and not static.small_enough_to_inline((32, 33))
    assert static.MAX_INLINE_ELEMENTS == 32 * 32
    assert static.MAX_SPECIALIZED_ELEMENTS == 64 and static.MAX_FOLDED_BYTES == 2**20


@pytest.mark.parametrize("n", [1, 1024])
def test_small_fills_become_constants_of_the_program(n):
    y = T.vector("y", shape=(n,))
    f = sn.function([y], y / y)  # ones shaped like y
    assert [type(node.op).__name__ for node in f.maker.fgraph.toposort()] == []
    np.testing.assert_array_equal(f(np.full(n, 3.0, "float32")), np.ones(n, "float32"))


def test_a_larger_fill_is_built_when_the_program_runs():
    n = static.MAX_INLINE_ELEMENTS + 1
    y = T.vector("y", shape=(n,))
    f = sn.function([y], y / y)
    assert "Alloc" in [type(node.op).__name__ for node in f.maker.fgraph.toposort()]
    np.testing.assert_array_equal(f(np.full(n, 3.0, "float32")), np.ones(n, "float32"))
