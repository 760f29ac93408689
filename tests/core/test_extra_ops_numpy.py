"""Theano's extra_ops named after NumPy's functions (core/tensor/extra_ops_numpy.py,
core/tensor/multi_index.py): values against NumPy, gradients against finite
differences, the shape of each without running it (the shape rewrite)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor import extra_ops as E

RNG = np.random.default_rng(7)


def test_searchsorted_equals_numpy_with_sorter_and_side():
    x, v, s = T.dvector("x"), T.dmatrix("v"), T.ivector("s")
    a, b = RNG.random(20), RNG.random((3, 4))
    order = np.argsort(a).astype("int32")
    f = sn.function([x, v, s], [E.searchsorted(x, v, side="right", sorter=s), x.searchsorted(v)])
    right, left = f(a, b, order)
    np.testing.assert_array_equal(right, np.searchsorted(a, b, side="right", sorter=order))
    sa = np.sort(a)
    np.testing.assert_array_equal(f(sa, b, order)[1], np.searchsorted(sa, b))
    assert right.dtype == np.int64
    with pytest.raises(TypeError):
        E.searchsorted(x, v, sorter=T.fvector())
    with pytest.raises(ValueError):
        E.searchsorted(v, x)
    with pytest.raises(ValueError):
        E.SearchsortedOp(side="middle")


@pytest.mark.parametrize("n", [0, 1, 2, 6, 9])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_diff_equals_numpy(n, axis):
    m = T.dmatrix("m")
    value = RNG.random((5, 7))
    np.testing.assert_allclose(sn.function([m], E.diff(m, n=n, axis=axis))(value),
                               np.diff(value, n=n, axis=axis))


def test_diff_and_cumop_gradients():
    rng = np.random.RandomState(0)
    verify_grad(E.DiffOp(n=2, axis=0), [RNG.random((6, 3))], rng=rng)
    verify_grad(E.DiffOp(n=3), [RNG.random(8)], rng=rng)
    x = RNG.random((3, 4, 2)) + 0.5
    verify_grad(E.CumOp(mode="mul"), [x], rng=rng)
    verify_grad(E.CumOp(axis=-1), [x], rng=rng)


def test_cumop_without_axis_flattens_as_numpy():
    t = T.dtensor3("t")
    value = RNG.random((3, 4, 2))
    f = sn.function([t], [E.CumOp()(t), E.CumOp(axis=-2, mode="mul")(t)])
    flat, prod = f(value)
    np.testing.assert_allclose(flat, np.cumsum(value))
    np.testing.assert_allclose(prod, np.cumprod(value, axis=-2))
    with pytest.raises(ValueError):  # NumPy's AxisError, as Theano's ValueError
        E.cumsum(t, axis=3)


@pytest.mark.parametrize("M", [-1, 0, 1, 7])
def test_bartlett_equals_numpy(M):
    c = T.lscalar("c")
    np.testing.assert_allclose(sn.function([c], E.bartlett(c))(M), np.bartlett(M))


@pytest.mark.parametrize("shape", [(5, 8), (8, 5), (4, 4), (3, 3, 3)])
def test_fill_diagonal_equals_numpy_and_its_gradient(shape):
    a = T.TensorType("float64", (False,) * len(shape))("a")
    y = T.dscalar("y")
    value = RNG.random(shape)
    expected = value.copy()
    np.fill_diagonal(expected, 2.5)
    np.testing.assert_array_equal(sn.function([a, y], E.fill_diagonal(a, y))(value, 2.5), expected)
    verify_grad(E.fill_diagonal, [value, 0.3], rng=np.random.RandomState(1))
    with pytest.raises(TypeError):  # a float64 value would widen a float32 matrix
        E.fill_diagonal(T.fmatrix(), T.dscalar())


@pytest.mark.parametrize("shape", [(5, 8), (8, 5), (5, 5)])
@pytest.mark.parametrize("offset", [-5, -4, -1, 0, 1, 4, 5])
def test_fill_diagonal_offset_equals_numpy(shape, offset):
    m, y, o = T.dmatrix("m"), T.dscalar("y"), T.lscalar("o")
    value = RNG.random(shape)
    got = sn.function([m, y, o], E.fill_diagonal_offset(m, y, o))(value, 3.0, offset)
    expected = value.copy()
    rows = np.arange(max(0, -offset), min(shape[0], shape[1] - offset))
    expected[rows, rows + offset] = 3.0
    np.testing.assert_array_equal(got, expected)
    verify_grad(lambda a, v: E.fill_diagonal_offset(a, v, offset), [value, 0.3],
                rng=np.random.RandomState(2))


def test_bincount_compress_and_cpu_contiguous():
    iv, w, m = T.ivector("iv"), T.dvector("w"), T.dmatrix("m")
    data, weights = RNG.integers(0, 10, size=30).astype("int32"), RNG.random(30)
    np.testing.assert_array_equal(sn.function([iv], E.bincount(iv))(data), np.bincount(data))
    np.testing.assert_allclose(sn.function([iv, w], E.bincount(iv, weights=w, minlength=15))(data, weights),
                               np.bincount(data, weights, minlength=15))
    with pytest.raises(AssertionError):
        sn.function([iv], E.bincount(iv, assert_nonneg=True))(np.array([1, -1], "int32"))
    cond, value = [1, 0, 1, 0, 0, 1, 1], np.arange(14.0).reshape(2, 7)
    np.testing.assert_array_equal(sn.function([iv, m], E.compress(iv, m, axis=1))(cond, value),
                                  np.compress(cond, value, axis=1))
    np.testing.assert_array_equal(sn.function([iv, m], E.compress(iv, m))(cond, value),
                                  np.compress(cond, value))
    got = sn.function([m], E.cpu_contiguous(m[:, ::2]))(value)
    assert got.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(got, value[:, ::2])
    verify_grad(E.cpu_contiguous, [RNG.random((5, 7, 2))], rng=np.random.RandomState(3))


def test_repeat_op_with_a_vector_of_counts_and_its_gradient():
    x, r = T.dtensor3("x"), T.lvector("r")
    value = RNG.random((2, 3, 4))
    np.testing.assert_array_equal(sn.function([x, r], T.repeat(x, r, axis=1))(value, [1, 0, 3]),
                                  np.repeat(value, [1, 0, 3], axis=1))
    np.testing.assert_array_equal(sn.function([x, r], E.RepeatOp()(x, r))(value, np.arange(24) % 3),
                                  np.repeat(value, np.arange(24) % 3))
    np.testing.assert_array_equal(sn.function([x], T.repeat(x, [3], axis=2))(value),
                                  np.repeat(value, 3, axis=2))
    rng = np.random.RandomState(4)
    verify_grad(lambda v: E.RepeatOp(axis=1)(v, 3), [value], rng=rng)
    verify_grad(lambda v: E.RepeatOp()(v, 2), [value], rng=rng)
    with pytest.raises(TypeError):
        T.repeat(x, T.scalar(dtype="uint64"))
    assert E.RepeatOp(axis=1)(T.TensorType("float32", (False, True, False))(), 1).broadcastable \
        == (False, True, False)


@pytest.mark.parametrize("shape", [(3,), (3, 4), (3, 4, 5)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_and_ravel_multi_index_equal_numpy(shape, order):
    flat = np.arange(np.prod(shape))
    expected = np.unravel_index(flat, shape, order=order)
    for dims, ndim in [(shape, None), (sn.shared(np.array(shape)), len(shape))]:
        got = sn.function([], E.unravel_index(sn.shared(flat), dims, order=order, ndim=ndim))()
        np.testing.assert_array_equal(got, expected)
    for mode in ("raise", "wrap", "clip"):
        index = expected if mode == "raise" else (expected[0] - 1,) + expected[1:]
        got = sn.function([], E.ravel_multi_index([sn.shared(i) for i in index], shape, mode, order))()
        np.testing.assert_array_equal(got, np.ravel_multi_index(index, shape, mode, order))


def test_multi_index_out_of_range_raises_in_the_program():
    i, j = T.lvector("i"), T.lvector("j")
    f = sn.function([i], E.unravel_index(i, (3, 4)))
    with pytest.raises(ValueError, match="out of bounds"):
        f([1, 12])
    g = sn.function([i, j], E.ravel_multi_index([i, j], (3, 4)))
    np.testing.assert_array_equal(g([0, 2], [1, 3]), [1, 11])
    with pytest.raises(ValueError, match="out of bounds"):
        g([0, 3], [1, 3])
    with pytest.raises(ValueError):  # the number of index arrays is unknown
        E.unravel_index(T.ivector(), T.ivector())
    with pytest.raises(TypeError):
        E.unravel_index(T.fvector(), (3, 4))


@pytest.mark.parametrize("build", [lambda x: E.CumOp()(x), lambda x: E.DiffOp(n=2, axis=0)(x),
                                   lambda x: E.fill_diagonal(x, 1.0)])
def test_a_shape_does_not_run_the_op(build):
    x = T.dtensor3("x")
    out = build(x)
    f = sn.function([x], out.shape)
    assert not any(type(n.op) is type(out.owner.op) for n in f.maker.fgraph.toposort())
    value = np.ones((4, 4, 4))
    np.testing.assert_array_equal(f(value), sn.function([x], out)(value).shape)


def test_a_shape_of_a_mismatched_broadcast_still_raises():
    x, y = T.vector("x"), T.vector("y")
    f = sn.function([x, y], (x + y).shape)
    with pytest.raises(ValueError):
        f(np.ones(3, "float32"), np.ones(4, "float32"))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unique_along_another_axis_equals_numpy(axis):
    # The host run keeps the values' first axis apart from the count of distinct slices
    # (compile/split_program.py): its index and counts had the values' row count before.
    value = np.asarray([[2, 1], [3, 2], [2, 1]], dtype="float32")
    x = T.matrix()
    outputs = E.Unique(True, True, True, axis=axis)(x)
    for got, expected in zip(sn.function([x], outputs)(value), np.unique(value, True, True, True, axis=axis)):
        np.testing.assert_array_equal(got, np.ravel(expected) if got.ndim == 1 else expected)


def test_a_function_split_around_a_host_op_has_a_maker():
    x = T.dvector("x")
    f = sn.function([x], E.Unique()(x) * 2)
    assert any(isinstance(n.op, E.Unique) for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.array([3.0, 1.0, 3.0])), [2.0, 6.0])


@pytest.mark.parametrize("axis", [None, 0, -1])
def test_unique_shape_of_a_vector_without_running_it(axis):
    x = T.dvector("x")
    values, index, inverse, counts = E.Unique(True, True, True, axis=axis)(x)
    value = np.array([2.0, 1.0, 3.0, 2.0])
    f = sn.function([x], [values.shape, index.shape, inverse.shape, counts.shape])
    assert not any(isinstance(n.op, E.Unique) for n in f.maker.fgraph.toposort())
    expected = np.unique(value, True, True, True, axis=axis)
    np.testing.assert_array_equal([s[0] for s in f(value)], [np.size(e) for e in expected])
