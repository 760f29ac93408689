"""T.nnet with Theano's semantics, and Rop / Lop / jacobian through scan."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from tests.reference import check_paths

RNG = np.random.default_rng(11)
X = RNG.normal(size=(4, 5)) * 4


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _ultra_fast(v):
    u = np.abs(0.5 * v)
    z = np.where(u < 1.7, 1.5 * u / (1 + u),
                 np.where(u < 3, 0.935409070603099 + 0.0458812946797165 * (u - 1.7), 0.99505475368673))
    return 0.5 * (np.where(v >= 0, z, -z) + 1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activations_against_numpy(dtype):
    x = X.astype(dtype)
    check_paths(T.nnet.sigmoid, [x], lambda v: _sigmoid(v).astype(dtype))
    check_paths(T.nnet.softplus, [x], lambda v: np.log1p(np.exp(v)).astype(dtype))
    check_paths(T.nnet.ultra_fast_sigmoid, [x], lambda v: _ultra_fast(v).astype(dtype))
    check_paths(T.nnet.hard_sigmoid, [x], lambda v: np.clip(0.2 * v + 0.5, 0, 1).astype(dtype))
    check_paths(T.nnet.relu, [x], lambda v: np.maximum(v, 0))
    # Theano's leaky relu: 0.5 * (1 + alpha) * x + 0.5 * (1 - alpha) * |x|, the Python
    # floats 0.55 and 0.45 floatX (float32) constants, as Theano's autocast made them.
    check_paths(lambda v: T.nnet.relu(v, 0.1), [x],
                lambda v: (np.float32(0.5 * 1.1) * v + np.float32(0.5 * 0.9) * np.abs(v)).astype(dtype))
    check_paths(T.nnet.elu, [x], lambda v: np.where(v > 0, v, np.expm1(v)).astype(dtype))
    check_paths(T.nnet.softsign, [x], lambda v: (v / (1 + np.abs(v))).astype(dtype))
    assert np.max(np.abs(_ultra_fast(X) - _sigmoid(X))) < 0.03


def test_softmax_of_a_vector_is_a_row_as_in_theano():
    v = X[0]
    e = np.exp(v - v.max())
    out = check_paths(T.nnet.softmax, [v], lambda a: (e / e.sum())[None, :])
    assert out.shape == (1, 5)
    check_paths(T.nnet.softmax, [X], lambda a: np.exp(a) / np.exp(a).sum(1, keepdims=True))
    b = RNG.normal(size=5)
    check_paths(T.nnet.softmax_with_bias, [X, b],
                lambda a, c: np.exp(a + c) / np.exp(a + c).sum(1, keepdims=True))


def test_crossentropies_and_stable_gradients():
    y = np.array([0, 4, 2, 1], "int64")
    p = np.exp(X) / np.exp(X).sum(1, keepdims=True)
    check_paths(lambda a, t: T.nnet.crossentropy_categorical_1hot(T.nnet.softmax(a), t), [X, y],
                lambda a, t: -np.log(p[np.arange(4), t]))
    check_paths(lambda a, t: T.nnet.categorical_crossentropy(T.nnet.softmax(a), t), [X, y],
                lambda a, t: -np.log(p[np.arange(4), t]))
    # huge logits: the stable forms keep value and gradient finite at every optimizer level
    logits = T.dmatrix("logits")
    t = T.lvector("t")
    cost = T.mean(T.nnet.categorical_crossentropy(T.nnet.softmax(logits), t))
    # Theano's op, as written (-log of the softmax), made stable by compiling's rewrites
    cost_op = T.mean(T.nnet.crossentropy_categorical_1hot(T.nnet.softmax(logits), t))
    z = T.dvector("z")
    bce = T.mean(T.nnet.binary_crossentropy(T.nnet.sigmoid(z), np.array([1.0, 0.0])))
    for optimizer in ("fast_run", "fast_compile", None):
        mode = sn.compile.Mode(optimizer=optimizer)
        costs = (cost, cost_op) if optimizer else (cost,)
        for c in costs:
            f = sn.function([logits, t], [c, T.grad(c, logits)], mode=mode)
            value, g = f(X * 1000, y)
            assert np.isfinite(value) and np.all(np.isfinite(g))
        c, g = sn.function([z], [bce, T.grad(bce, z)], mode=mode)(np.array([-800.0, 800.0]))
        np.testing.assert_allclose(c, 800.0)
        assert np.all(np.isfinite(g))


@pytest.mark.parametrize("fn", [T.nnet.ultra_fast_sigmoid, T.nnet.hard_sigmoid, T.nnet.elu,
                                lambda x: T.nnet.relu(x, 0.2), T.nnet.softmax])
def test_activation_gradients(fn):
    # away from the kinks, where finite differences are exact
    verify_grad(fn, [np.array([[-5.3, -2.1, -0.7, 0.4, 1.9, 4.4]])])


def test_rop_and_lop_against_the_jacobian():
    W, V = T.dmatrix("W"), T.dmatrix("V")
    x, v, u = T.dvector("x"), T.dvector("v"), T.dvector("u")
    y = T.tanh(T.dot(W, x))
    f = sn.function([W, x, v, u, V], [T.Rop(y, x, v), T.Lop(y, x, u), T.Rop(y, W, V)])
    Wv, xv = RNG.normal(size=(2, 3)), RNG.normal(size=3)
    vv, uv = RNG.normal(size=3), RNG.normal(size=2)
    J = (1 - np.tanh(Wv @ xv) ** 2)[:, None] * Wv
    Vv = RNG.normal(size=(2, 3))
    rop, lop, rop_w = f(Wv, xv, vv, uv, Vv)
    np.testing.assert_allclose(rop, J @ vv)
    np.testing.assert_allclose(lop, uv @ J)
    np.testing.assert_allclose(rop_w, (1 - np.tanh(Wv @ xv) ** 2) * (Vv @ xv))  # along V


def test_jacobian_and_hessian_of_unknown_length_through_scan():
    x = T.dvector("x")
    J = sn.gradient.jacobian(T.exp(x) * x.sum(), x)
    H = sn.gradient.hessian(T.sum(x ** 3) + x[0] * x[1], x)
    xv = np.array([0.5, -1.0, 2.0])
    j, h = sn.function([x], [J, H])(xv)
    np.testing.assert_allclose(j, np.diag(np.exp(xv) * xv.sum()) + np.exp(xv)[:, None])
    expected = np.diag(6 * xv)
    expected[0, 1] = expected[1, 0] = 1.0
    np.testing.assert_allclose(h, expected)


def test_consider_constant_inside_a_scan_step():
    x, w = T.dvector("x"), T.dscalar("w")
    scale = w * 2

    def step(xt, scale, w):
        return T.grad(xt * scale * w, w, consider_constant=[scale])

    out, _ = sn.scan(step, sequences=x, non_sequences=[scale, w])
    np.testing.assert_allclose(sn.function([x, w], out)([1.0, 2.0], 3.0), [6.0, 12.0])


def test_softsign_where_theano_and_keras_import_it():
    import symnb.sandbox.softsign
    from symnb.tensor.nnet import nnet

    assert nnet.softsign is T.nnet.softsign is symnb.sandbox.softsign.softsign
    verify_grad(T.nnet.softsign, [X[:2, :3]])


def test_relu_of_a_numpy_array_is_numpy_arithmetic_as_in_theano():
    # Theano's relu(x) with alpha=0 was 0.5 * (x + abs(x)): NumPy in, NumPy out
    # (Lasagne's test_multiclass_hinge_loss rectifies its NumPy reference with it).
    values = np.array([-1.5, 0.0, 2.0], "float32")
    result = T.nnet.relu(values)
    assert isinstance(result, np.ndarray) and result.dtype == np.float32
    np.testing.assert_array_equal(result, np.maximum(values, 0))
    assert isinstance(T.nnet.relu(values, alpha=0.1), sn.Variable)  # a tensor alpha, as Theano's
