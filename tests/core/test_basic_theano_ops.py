"""Theano tensor.basic's ops of core/tensor/basic_theano_ops.py (Default, MaxAndArgmax,
Choose, PermuteRowElements, AllocEmpty, Rebroadcast, Tile, MakeVector), Theano's
``SpecifyShape()(x, shape)``, ``Join()(axis, ...)``, ``NoneConst``, ``numeric_grad`` and the
scalar ops chi2sf, conj, complex_from_polar: compiled values against NumPy/SciPy, the
NumPy reference (test values) alike, gradients against finite differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad

RNG = np.random.RandomState(3)


def _both(inputs, outputs, values):
    """The compiled values and the test values (NumPy perform) of ``outputs``."""
    compiled = sn.function(inputs, outputs)(*values)
    for var, value in zip(inputs, values):
        var.tag.test_value = value
    return compiled


def test_default_is_x_and_checks_types():
    x, y = T.dscalars("x", "y")
    assert sn.function([x, y], T.default(x, y))(1.5, 2.0) == 1.5
    with pytest.raises(TypeError, match="same type"):
        T.default(x, T.fscalar("z"))


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 2], (2, 1), -1])
def test_max_and_argmax_equals_numpy(axis):
    x = T.dtensor3("x")
    value = RNG.rand(3, 4, 5)
    mx, ax = T.max_and_argmax(x, axis)
    assert isinstance(mx.owner.op, T.MaxAndArgmax)
    got_max, got_arg = sn.function([x], [mx, ax])(value)
    axes = (0, 1, 2) if axis is None else tuple(sorted(np.atleast_1d(axis) % 3))
    kept = [d for d in range(3) if d not in axes]
    blocks = np.transpose(value, kept + list(axes)).reshape([value.shape[d] for d in kept] + [-1])
    np.testing.assert_array_equal(got_max, blocks.max(-1))
    np.testing.assert_array_equal(got_arg, blocks.argmax(-1))
    assert got_arg.dtype == np.int64


def test_max_and_argmax_none_const_keepdims_and_grad():
    x = T.dmatrix("x")
    value = RNG.rand(3, 4)
    got = sn.function([x], T.max_and_argmax(x, T.NoneConst.clone()))(value)
    assert got[0] == value.max() and got[1] == value.argmax()
    kept = sn.function([x], T.max_and_argmax(x, 1, keepdims=True))(value)
    np.testing.assert_array_equal(kept[0], value.max(1, keepdims=True))
    np.testing.assert_array_equal(kept[1], value.argmax(1)[:, None])
    verify_grad(lambda v: T.max_and_argmax(v, 0)[0], [value], rng=RNG)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_equals_numpy(mode):
    a, c = T.lmatrix("a"), T.dtensor3("c")
    index = RNG.randint(0, 3, size=(2, 4)) if mode == "raise" else RNG.randint(-4, 7, size=(2, 4))
    choices = RNG.rand(3, 2, 4)
    got = sn.function([a, c], T.choose(a, c, mode=mode))(index, choices)
    np.testing.assert_array_equal(got, np.choose(index, choices, mode=mode))


def test_choose_list_and_out_of_range():
    a, p, q = T.lvector("a"), T.dvector("p"), T.dvector("q")
    f = sn.function([a, p, q], T.choose(a, [p, q]))
    pv, qv = RNG.rand(3), RNG.rand(3)
    np.testing.assert_array_equal(f(np.array([1, 0, 1]), pv, qv), np.choose([1, 0, 1], [pv, qv]))
    with pytest.raises(Exception, match="out of range"):
        f(np.array([0, 2, 1]), pv, qv)


@pytest.mark.parametrize("inverse", [0, 1])
def test_permute_row_elements_equals_numpy(inverse):
    x, y = T.dmatrix("x"), T.lmatrix("y")
    xv = RNG.rand(3, 5)
    yv = np.array([RNG.permutation(5) for _ in range(3)])
    got = sn.function([x, y], T.permute_row_elements(x, y, inverse))(xv, yv)
    want = np.empty_like(xv)
    for r in range(3):
        if inverse:
            want[r, yv[r]] = xv[r]
        else:
            want[r] = xv[r, yv[r]]
    np.testing.assert_array_equal(got, want)
    verify_grad(lambda v: T.permute_row_elements(v, T.constant(yv), inverse), [xv], rng=RNG)


def test_permute_row_elements_broadcast_and_inverse_permutation():
    x, y = T.dvector("x"), T.lmatrix("y")
    xv, yv = RNG.rand(4), np.array([RNG.permutation(4) for _ in range(2)])
    got = sn.function([x, y], T.permute_row_elements(x, y))(xv, yv)
    np.testing.assert_array_equal(got, xv[yv])
    p = T.lvector("p")
    perm = RNG.permutation(6)
    np.testing.assert_array_equal(sn.function([p], T.inverse_permutation(p))(perm), np.argsort(perm))


def test_alloc_empty_rebroadcast_tile_make_vector():
    n = T.lscalar("n")
    out = sn.function([n], T.AllocEmpty("float32")(n, 3))(2)
    assert out.shape == (2, 3) and out.dtype == np.float32
    x = T.dmatrix("x")
    r = T.Rebroadcast((0, True))(x)
    assert r.type.shape[0] == 1
    np.testing.assert_array_equal(sn.function([x], r)(np.ones((1, 3))), np.ones((1, 3)))
    with pytest.raises(Exception, match="length 2 along axis 0"):
        sn.function([x], r)(np.ones((2, 3)))
    v = T.dvector("v")
    value = RNG.rand(3)
    np.testing.assert_array_equal(sn.function([v], T.Tile(2)(v, np.array([2, 3])))(value),
                                  np.tile(value, [2, 3]))
    a, b = T.lscalars("a", "b")
    mv = T.opt.make_vector(a, b)
    np.testing.assert_array_equal(sn.function([a, b], mv)(4, 5), [4, 5])
    with pytest.raises(TypeError, match="without loss"):
        T.opt.MakeVector("int32")(a)


def test_specify_shape_and_join_with_theano_signatures():
    x = T.dmatrix("x")
    s = T.SpecifyShape()(x, [2, 3])
    assert s.type.shape == (2, 3)
    with pytest.raises(ValueError, match="expected"):
        sn.function([x], s)(np.ones((3, 3)))
    with pytest.raises(NotImplementedError, match="symbolic"):
        T.SpecifyShape()(x, T.lvector("shape"))
    y = T.dmatrix("y")
    xv, yv = RNG.rand(2, 3), RNG.rand(2, 1)
    got = sn.function([x, y], T.Join()(1, x, y))(xv, yv)
    np.testing.assert_array_equal(got, np.concatenate([xv, yv], axis=1))


def test_variadic_add_mul_and_theano_names():
    x, y, z = T.dscalars("x", "y", "z")
    assert sn.function([x, y, z], [T.add(x, y, z), T.mul(x, y, z)])(2.0, 3.0, 4.0) == [9.0, 24.0]
    assert str(T.add) == "Elemwise{add,no_inplace}" and str(T.sgn) == "Elemwise{sgn,no_inplace}"
    assert str(T.erfc) == "Elemwise{erfc,no_inplace}"


def test_chi2sf_conj_complex_from_polar():
    scipy_stats = pytest.importorskip("scipy.stats")
    x, k = T.dvectors("x", "k")
    xv, kv = RNG.rand(4) * 3, RNG.randint(1, 5, size=4).astype("float64")
    np.testing.assert_allclose(sn.function([x, k], T.chi2sf(x, k))(xv, kv),
                               scipy_stats.chi2.sf(xv, kv), rtol=1e-10)
    np.testing.assert_array_equal(sn.function([x], T.conj(x))(xv), xv)
    # Theano's chi2sf is float64 whatever its inputs (upgrade_to_float64), as SciPy computes
    fx, fk = T.fvector("fx"), T.fscalar("fk")
    fxv = (RNG.rand(4) * 3).astype("float32")
    assert T.chi2sf(fx, fk).dtype == "float64"
    got = _both([fx, fk], T.chi2sf(fx, fk), [fxv, np.float32(2)])
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, scipy_stats.chi2.sf(fxv.astype("float64"), 2.0), rtol=1e-7)
    np.testing.assert_allclose(T.chi2sf(fx, fk).tag.test_value, got, rtol=1e-12)
    r, a = T.fvectors("r", "a")
    rv, av = RNG.rand(3).astype("float32"), RNG.rand(3).astype("float32")
    got = sn.function([r, a], T.complex_from_polar(r, a))(rv, av)
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, rv * np.exp(1j * av), rtol=1e-6)


def test_numeric_grad_matches_the_derivative():
    def f(v):
        return float(np.sum(v ** 2))

    point = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(sn.gradient.numeric_grad(f, point).gf, 2 * point, atol=1e-6)
    ng = sn.gradient.numeric_grad(f, [point])  # a list: gf is a list, as max_err needs
    wrong = 2 * point
    wrong[1] += 1.0  # the largest error, where max_err must point
    assert ng.max_err([wrong], 1e-4, 1e-4)[:2] == (0, 1)


def test_an_op_without_perform_raises_method_not_defined():
    from symnb.core.graph.op import Op
    from symnb.gof.utils import MethodNotDefined

    class NoPerform(Op):
        pass

    with pytest.raises(MethodNotDefined, match="NoPerform has no NumPy perform"):
        NoPerform().perform(None, [])
    assert issubclass(MethodNotDefined, NotImplementedError)


def test_switch_is_an_elemwise_op_whose_condition_is_not_promoted():
    c, x = T.ivector("c"), T.fvector("x")
    out = T.switch(c, x, 0.5)
    assert str(T.switch) == "Elemwise{switch,no_inplace}" and out.dtype == "float32"
    got = sn.function([c, x], out)(np.array([1, 0], "int32"), np.array([3, 4], "float32"))
    np.testing.assert_array_equal(got, np.where([1, 0], np.float32([3, 4]), np.float32(0.5)))


def test_max_and_argmax_of_an_empty_kept_axis():
    # Theano's test_zero_shape: (0, 4) reduced along axis 1 is two empty vectors
    x = T.fmatrix("x")
    mx, ax = T.max_and_argmax(x, axis=1)
    got = _both([x], [mx, ax], [np.zeros((0, 4), "float32")])
    assert got[0].shape == (0,) and got[0].dtype == np.float32
    assert got[1].shape == (0,) and got[1].dtype == np.int64
    assert mx.tag.test_value.shape == (0,) and ax.tag.test_value.shape == (0,)
