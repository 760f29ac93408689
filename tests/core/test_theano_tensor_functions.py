"""Theano's tensor functions (issue 10): each against NumPy on both paths (test value
and compiled program), and gradients against finite differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from tests.reference import check_paths

RNG = np.random.default_rng(10)
M32 = RNG.normal(size=(3, 4)).astype("float32")
M64 = RNG.normal(size=(3, 4))
I32 = RNG.integers(-5, 6, size=(3, 4)).astype("int32")


@pytest.mark.parametrize("value", [M32, M64, I32, np.zeros((0, 4)), np.ones((1, 1), "float32")])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_cumprod(value, axis):
    check_paths(lambda x: T.cumsum(x, axis), [value], lambda v: np.cumsum(v, axis))
    check_paths(lambda x: T.cumprod(x, axis), [value], lambda v: np.cumprod(v, axis))


@pytest.mark.parametrize("value", [M32, M64, I32, np.array([[3.0, np.nan, 1.0, 1.0]])])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_sort_argsort(value, axis):
    check_paths(lambda x: T.sort(x, axis), [value], lambda v: np.sort(v, axis))
    check_paths(lambda x: T.argsort(x, axis), [value],
                lambda v: np.argsort(v, axis, kind="stable").astype("int64"))


def test_tan_sgn_and_elementwise_checks():
    values = np.array([-1.0, 0.0, 0.5, np.inf, np.nan])
    check_paths(T.tan, [M64], np.tan)
    check_paths(T.tan, [M32], np.tan)
    check_paths(T.sgn, [values], np.sign)
    check_paths(T.isnan, [values], np.isnan)
    check_paths(T.isinf, [values], np.isinf)


def test_isclose_allclose():
    a = np.array([1.0, np.inf, -np.inf, np.nan, 1e-9, 2.0])
    b = np.array([1.0 + 1e-7, np.inf, np.inf, np.nan, 0.0, 2.1])
    check_paths(T.isclose, [a, b], np.isclose)
    check_paths(lambda x, y: T.isclose(x, y, equal_nan=True), [a, b],
                lambda x, y: np.isclose(x, y, equal_nan=True))
    check_paths(lambda x, y: T.isclose(x, y, rtol=0.1), [a, b], lambda x, y: np.isclose(x, y, rtol=0.1))
    check_paths(T.allclose, [a[:2], b[:2]], lambda x, y: np.asarray(np.allclose(x, y)))
    check_paths(T.allclose, [a, b], lambda x, y: np.asarray(np.allclose(x, y)))


@pytest.mark.parametrize("value", [M32, M64, I32])
def test_shapes_of_tile_repeat_roll(value):
    check_paths(lambda x: T.tile(x, (2, 3)), [value], lambda v: np.tile(v, (2, 3)))
    check_paths(lambda x: T.tile(x, (2, 1, 2)), [value], lambda v: np.tile(v, (2, 1, 2)))
    check_paths(lambda x: T.tile(x, (2,)), [value], lambda v: np.tile(v, (2,)))
    check_paths(lambda x: T.repeat(x, 2, axis=1), [value], lambda v: np.repeat(v, 2, axis=1))
    check_paths(lambda x: T.repeat(x, 3), [value], lambda v: np.repeat(v, 3))
    check_paths(lambda x: T.repeat(x, [0, 2, 1], axis=0), [value],
                lambda v: np.repeat(v, [0, 2, 1], axis=0))
    for shift, axis in [(1, 0), (-5, 1), (7, None), (0, 1)]:
        check_paths(lambda x: T.roll(x, shift, axis), [value], lambda v: np.roll(v, shift, axis))


def test_roll_with_a_symbolic_shift():
    x, s = T.dmatrix("x"), T.lscalar("s")
    f = sn.function([x, s], T.roll(x, s, axis=1))
    for shift in (-7, 0, 2, 9):
        np.testing.assert_array_equal(f(M64, shift), np.roll(M64, shift, 1))


@pytest.mark.parametrize("value", [M32, M64, I32, RNG.normal(size=(2, 3, 3))])
@pytest.mark.parametrize("k", [0, 1, -2])
def test_triangles(value, k):
    check_paths(lambda x: T.triu(x, k), [value], lambda v: np.triu(v, k))
    check_paths(lambda x: T.tril(x, k), [value], lambda v: np.tril(v, k))


@pytest.mark.parametrize("k", [0, 1, -2, 5])
def test_diag(k):
    check_paths(lambda x: T.diag(x, k), [M64], lambda v: np.diag(v, k))
    check_paths(lambda x: T.diag(x, k), [M64.T], lambda v: np.diag(v, k))
    check_paths(lambda x: T.diag(x, k), [M32[0]], lambda v: np.diag(v, k))


def test_join_and_padding_and_max_and_argmax():
    check_paths(lambda a, b: T.join(1, a, b, a), [M64, M64[:, :2]],
                lambda a, b: np.concatenate([a, b, a], axis=1))
    check_paths(lambda a: T.shape_padleft(a, 2), [M32], lambda a: a[None, None])
    check_paths(lambda a: T.shape_padright(a), [M32], lambda a: a[..., None])
    check_paths(lambda a: T.shape_padaxis(a, 1), [M32], lambda a: a[:, None])
    check_paths(lambda a: T.max_and_argmax(a, axis=1)[0], [M64], lambda a: np.max(a, 1))
    check_paths(lambda a: T.max_and_argmax(a, axis=1)[1], [M64], lambda a: np.argmax(a, 1))
    check_paths(lambda a: T.argmax(a, axis=0, keepdims=True), [I32],
                lambda a: np.argmax(a, 0, keepdims=True).astype("int64"))


def test_batched_dot():
    a3, b3 = RNG.normal(size=(5, 2, 3)), RNG.normal(size=(5, 3, 4))
    a2, b2 = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3))
    check_paths(T.batched_dot, [a3, b3], lambda a, b: np.einsum("bij,bjk->bik", a, b))
    check_paths(T.batched_dot, [a2, b2], lambda a, b: np.einsum("bi,bi->b", a, b))
    check_paths(T.batched_dot, [a3, b3[:, :, 0]], lambda a, b: np.einsum("bij,bj->bi", a, b))
    check_paths(T.batched_dot, [a2, b3], lambda a, b: np.einsum("bj,bjk->bk", a, b))
    check_paths(T.batched_dot, [a2[:, 0], b3], lambda a, b: a[:, None, None] * b)


def test_xlogx():
    values = np.array([0.0, 0.5, 1.0, 3.0])
    check_paths(T.xlogx.xlogx, [values], lambda v: np.where(v == 0, 0.0, v * np.log(np.where(v == 0, 1, v))))
    check_paths(T.xlogx.xlogy0, [values, values + 1], lambda x, y: np.where(x == 0, 0.0, x * np.log(y)))
    x = T.dvector("x")
    g = sn.function([x], T.grad(T.sum(T.xlogx.xlogx(x)), x))(values)
    np.testing.assert_allclose(g, [0.0, np.log(0.5) + 1, 1.0, np.log(3.0) + 1])


def test_specify_shape_and_broadcast_patterns():
    x = T.dmatrix("x")
    y = T.specify_shape(x, (3, 4))
    assert y.type.shape == (3, 4)
    f = sn.function([x], y * 2)
    np.testing.assert_array_equal(f(M64), M64 * 2)
    with pytest.raises(Exception, match=r"specify_shape.*\(3, 4\)"):
        f(M64[:2])
    row = T.addbroadcast(T.dmatrix("r"), 0)
    assert row.type.shape == (1, None) and row.broadcastable == (True, False)
    assert T.unbroadcast(row, 0).type.shape == (None, None)
    assert T.patternbroadcast(x, (False, True)).type.shape == (None, 1)
    g = sn.function([x], T.addbroadcast(x, 0) + 1)
    np.testing.assert_array_equal(g(M64[:1]), M64[:1] + 1)
    with pytest.raises(Exception, match="specify_shape"):
        g(M64)


@pytest.mark.parametrize("fn", [
    lambda x: T.cumsum(x, 1), lambda x: T.cumprod(x, 0), lambda x: T.sort(x, 1),
    lambda x: T.sort(x, 0), lambda x: T.tile(x, (2, 1)), lambda x: T.repeat(x, 2, 1),
    lambda x: T.roll(x, 2, 1), lambda x: T.triu(x, 1), lambda x: T.diag(x),
    lambda x: T.diag(x[0]), lambda x: T.tan(x * 0.3), lambda x: T.batched_dot(x, x),
    lambda x: T.specify_shape(x, (3, 4)), lambda x: T.xlogx.xlogx(x * x + 0.1),
])
def test_gradients(fn):
    verify_grad(fn, [M64 + 0.01])


def test_constructors():
    r, c = T.row("r"), T.col("c")
    assert r.type.shape == (1, None) and c.type.shape == (None, 1) and r.dtype == sn.config.floatX
    assert T.drow("d").dtype == "float64" and T.icol().type.shape == (None, 1)
    a, b = T.dmatrices("a", "b")
    assert (a.name, b.name, a.dtype, a.ndim) == ("a", "b", "float64", 2)
    x, y = T.dscalars("xy")                          # one input per character, as Theano
    assert (x.name, y.name) == ("x", "y")
    assert T.fvectors("v").name == "v"               # a lone one-character name: one input
    assert len(T.imatrices(3)) == 3 and T.imatrices(3)[0].dtype == "int32"
    t = T.TensorType("float64", (False, True))("t")
    assert t.type.shape == (None, 1) and t.name == "t" and t.dtype == "float64"
    assert T.TensorType("int32", (False,))().dtype == "int32"


def test_copy_is_an_identity_node_with_a_name():
    # Theano's TensorVariable.copy(name) is tensor_copy(x), named (Keras's K.identity).
    x = T.dmatrix("x", test_value=M64)
    c = x.copy(name="c")
    assert c is not x and c.name == "c" and c.owner.inputs == [x]
    assert x.copy().name is None
    check_paths(lambda v: v.copy("copied") * 2, [M32], lambda v: v * 2)
    check_paths(T.tensor_copy, [I32], lambda v: v.copy())
    g = sn.function([x], sn.grad((x.copy() * x).sum(), x))(M64)
    np.testing.assert_allclose(g, 2 * M64)
    w = sn.shared(M32, name="w")
    np.testing.assert_array_equal(sn.function([], w.copy("w_copy"))(), M32)


@pytest.mark.parametrize("value", [M32, I32, M64[0]])
def test_tile_takes_reps_as_theano_did(value):
    # an int (Keras's K.tile(x, n)), a NumPy int, a constant vector, a longer ndim
    check_paths(lambda x: T.tile(x, 3), [value], lambda v: np.tile(v, 3))
    check_paths(lambda x: T.tile(x, np.int64(2)), [value], lambda v: np.tile(v, 2))
    check_paths(lambda x: T.tile(x, np.array([2, 1])), [value], lambda v: np.tile(v, (2, 1)))
    check_paths(lambda x: T.tile(x, [2], ndim=3), [value],
                lambda v: np.tile(v, 2).reshape((1,) * (3 - v.ndim) + np.tile(v, 2).shape))


def test_tile_with_symbolic_counts():
    x = T.dmatrix("x", test_value=M64)
    k = T.lscalar("k", test_value=np.int64(3))
    f = sn.function([x, k], T.tile(x, k))
    np.testing.assert_array_equal(T.tile(x, k).test_value, np.tile(M64, 3))
    np.testing.assert_array_equal(f(M64, 2), np.tile(M64, 2))
    np.testing.assert_array_equal(sn.function([x, k], T.tile(x, [k, 2]))(M64, 2), np.tile(M64, (2, 2)))
    fixed = T.lvector("fixed", shape=(2,), test_value=np.array([2, 3]))
    g = sn.function([x, fixed], T.tile(x, fixed))
    np.testing.assert_array_equal(g(M64, [1, 2]), np.tile(M64, (1, 2)))
    # a vector of unknown length needs ndim; counts missing in front are 1 (Theano's padding)
    reps = T.lvector("reps", test_value=np.array([2, 3]))
    np.testing.assert_array_equal(T.tile(x, reps, ndim=3).test_value, np.tile(M64, (1, 2, 3)))
    with pytest.raises(ValueError, match="tile: reps 'reps' is a vector of unknown length; give ndim"):
        T.tile(x, reps)
    with pytest.raises(AssertionError, match="tile: reps has more counts than ndim"):
        T.tile(x, T.lvector("long", test_value=np.array([1, 2, 3])), ndim=2)


def test_tile_refuses_what_theano_refused():
    x = T.dmatrix("x")
    with pytest.raises(ValueError, match="tile: reps must hold integers; got 2.0"):
        T.tile(x, 2.0)
    with pytest.raises(ValueError, match=r"tile: the counts in reps must be ints or int scalars; got 2.0"):
        T.tile(x, [2.0])
    with pytest.raises(ValueError, match="tile: ndim=1 is smaller than the 2 dimension"):
        T.tile(x, 2, ndim=1)
    with pytest.raises(ValueError, match="tile: reps has 3 counts, more than ndim=2"):
        T.tile(x, [1, 2, 3], ndim=2)
