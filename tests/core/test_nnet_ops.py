"""Theano's T.nnet ops (core/tensor/nnet_ops.py) and functions (core/tensor/nnet_functions.py):
values against NumPy on both paths (perform and XLA), gradients against finite differences,
class indices out of range refused when the function runs."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from tests.reference import check_paths

RNG = np.random.default_rng(38)
X = RNG.normal(size=(4, 5)) * 3
B = RNG.normal(size=5)
Y = np.array([0, 4, 2, 1], "int64")
ROWS = np.arange(4)


def _softmax(a):
    e = np.exp(a - a.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_softmax_ops_row_by_row():
    check_paths(T.nnet.softmax_op, [X], _softmax)
    check_paths(T.nnet.logsoftmax_op, [X], lambda a: np.log(_softmax(a)))
    with pytest.warns(UserWarning, match="DEPRECATION: If x is a vector"):  # Theano 1.0's warning
        check_paths(lambda v: T.nnet.Softmax()(v), [X[0]], lambda v: _softmax(v[None]))  # 1 x n
    check_paths(T.nnet.SoftmaxWithBias(), [X, B], lambda a, b: _softmax(a + b))
    dy = RNG.normal(size=(4, 5))
    sm = _softmax(X)
    check_paths(T.nnet.softmax_grad, [dy, sm],
                lambda d, s: d * s - (d * s).sum(1, keepdims=True) * s)
    assert isinstance(T.nnet.softmax(T.matrix()).owner.op, T.nnet.Softmax)  # what Theano's graph held


def test_softmax_ops_gradients():
    verify_grad(lambda a: T.nnet.softmax_op(a)[:, 1], [X])
    verify_grad(lambda a: T.nnet.logsoftmax_op(a), [X])
    verify_grad(lambda a, b: T.nnet.SoftmaxWithBias()(a, b)[:, 2], [X, B])
    verify_grad(lambda d, s: T.nnet.softmax_grad(d, s), [RNG.normal(size=(4, 5)), _softmax(X)])


def test_crossentropy_softmax_argmax_1hot_with_bias():
    def reference(a, b, y):
        sm = _softmax(a + b)
        return [-np.log(sm[ROWS, y]), sm, np.argmax(a + b, 1)]

    x, b, y = T.dmatrix("x"), T.dvector("b"), T.lvector("y")
    outs = T.nnet.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)
    for got, want in zip(sn.function([x, b, y], outs)(X, B, Y), reference(X, B, Y)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    x.tag.test_value, b.tag.test_value, y.tag.test_value = X, B, Y
    for got, want in zip(T.nnet.crossentropy_softmax_argmax_1hot_with_bias(x, b, y), reference(X, B, Y)):
        np.testing.assert_allclose(got.test_value, want, rtol=1e-12)
    # Theano's Op.__call__ hands keywords to make_node: y_idx by name, a NumPy array
    outs = T.nnet.crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx=Y)
    for got, want in zip(sn.function([x, b], outs)(X, B), reference(X, B, Y)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    verify_grad(lambda a, c: T.nnet.crossentropy_softmax_1hot_with_bias(a, c, Y)[0], [X, B])
    verify_grad(lambda a, c: T.nnet.crossentropy_softmax_1hot_with_bias(a, c, Y)[1], [X, B])
    verify_grad(lambda a: T.nnet.crossentropy_softmax_1hot(a, Y)[0], [X])


def test_crossentropy_softmax_1hot_with_bias_dx():
    dy, sm = RNG.random(4), _softmax(X)

    def reference(d, s, y):
        out = d[:, None] * s
        out[ROWS, y] -= d
        return out

    check_paths(lambda d, s, y: T.nnet.crossentropy_softmax_1hot_with_bias_dx(d, s, y), [dy, sm, Y],
                reference)
    verify_grad(lambda d, s: T.nnet.crossentropy_softmax_1hot_with_bias_dx(d, s, Y), [dy, sm])


def test_crossentropy_categorical_1hot_op_and_its_grad():
    p = _softmax(X)
    check_paths(lambda a, y: T.nnet.CrossentropyCategorical1Hot()(a, y), [p, Y],
                lambda a, y: -np.log(a[ROWS, y]))
    g = RNG.random(4)

    def grad_reference(gy, a, y):
        out = np.zeros_like(a)
        out[ROWS, y] = -gy / a[ROWS, y]
        return out

    check_paths(lambda gy, a, y: T.nnet.crossentropy_categorical_1hot_grad(gy, a, y), [g, p, Y],
                grad_reference)
    verify_grad(lambda a: T.nnet.CrossentropyCategorical1Hot()(a, Y), [p])


@pytest.mark.parametrize("build", [
    lambda x, b, y: T.nnet.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)[0],
    lambda x, b, y: T.nnet.CrossentropyCategorical1Hot()(x, y),
    lambda x, b, y: T.nnet.crossentropy_softmax_1hot_with_bias_dx(b[:4], x, y),
], ids=["argmax_1hot_with_bias", "categorical_1hot", "1hot_with_bias_dx"])
@pytest.mark.parametrize("bad", [-1, 5])
def test_class_index_out_of_range_raises_value_error(build, bad):
    x, b, y = T.dmatrix("x"), T.dvector("b"), T.lvector("y")
    f = sn.function([x, b, y], build(x, b, y), on_unused_input="ignore")
    labels = Y.copy()
    labels[1] = bad
    with pytest.raises(ValueError, match="out of bounds"):
        f(np.abs(X), B, labels)


def test_prepend_ops():
    check_paths(T.nnet.Prepend_scalar_constant_to_each_row(4.), [X],
                lambda a: np.concatenate([np.full((4, 1), 4.), a], 1))
    check_paths(lambda s, a: T.nnet.Prepend_scalar_to_each_row()(s, a), [np.float64(5), X],
                lambda s, a: np.concatenate([np.full((4, 1), s), a], 1))
    verify_grad(lambda a: T.nnet.prepend_1_to_each_row(a), [X])
    verify_grad(lambda s, a: T.nnet.prepend_scalar_to_each_row(s, a), [np.float64(2.), X])


def test_functions_against_numpy():
    check_paths(T.nnet.softmax_graph, [X], lambda a: np.exp(a) / np.exp(a).sum(-1, keepdims=True))
    check_paths(T.nnet.logsoftmax, [X], lambda a: np.log(_softmax(a)))
    # Theano's selu writes its constants as Python floats: floatX (float32) constants
    alpha, scale = (float(np.float32(c)) for c in (1.6732632423543772848170429916717,
                                                   1.0507009873554804934193349852946))
    check_paths(T.nnet.selu, [X], lambda a: scale * np.where(a > 0, a, alpha * np.expm1(a)))
    actual, pred = np.array([2, 0, 2, 2, 0, 1], "int64"), np.array([0, 0, 2, 2, 0, 2], "int64")
    a, p = T.lvector("a"), T.lvector("p")
    conf, order = sn.function([a, p], T.nnet.confusion_matrix(a, p))(actual, pred)
    np.testing.assert_array_equal(order, [0, 1, 2])
    np.testing.assert_array_equal(conf, [[2, 0, 0], [0, 0, 1], [1, 0, 2]])


def test_h_softmax_against_numpy():
    batch, hidden, n_classes, per_class = 3, 4, 3, 2
    n_outputs = n_classes * per_class - 1
    x_v = RNG.normal(size=(batch, hidden))
    W1_v, b1_v = RNG.normal(size=(hidden, n_classes)), RNG.normal(size=n_classes)
    W2_v, b2_v = RNG.normal(size=(n_classes, hidden, per_class)), RNG.normal(size=(n_classes, per_class))
    target_v = np.array([0, 4, 3], "int64")
    class_p = _softmax(x_v @ W1_v + b1_v)
    within = np.stack([_softmax(x_v @ W2_v[c] + b2_v[c]) for c in range(n_classes)], 1)
    all_p = (class_p[:, :, None] * within).reshape(batch, -1)[:, :n_outputs]
    x, W1, b1, W2, b2 = T.dmatrix(), T.dmatrix(), T.dvector(), T.dtensor3(), T.dmatrix()
    target = T.lvector()
    full = T.nnet.h_softmax(x, batch, n_outputs, n_classes, per_class, W1, b1, W2, b2)
    picked = T.nnet.h_softmax(x, batch, n_outputs, n_classes, per_class, W1, b1, W2, b2, target)
    f = sn.function([x, W1, b1, W2, b2, target], [full, picked])
    got_full, got_picked = f(x_v, W1_v, b1_v, W2_v, b2_v, target_v)
    np.testing.assert_allclose(got_full, all_p, rtol=1e-12)
    np.testing.assert_allclose(got_picked, all_p[np.arange(batch), target_v], rtol=1e-12)
