"""Ten real Theano programs (tests/theano_compat/programs/: tutorials and research code
as their authors wrote them for Theano 1.0, ``theano`` renamed ``symnb``) run, and their
numbers agree with an independent NumPy reference of the same computation: forward
passes, gradients by central differences, one optimiser step, a loss that decreases."""

import numpy as np
import pytest

import symnb as theano
from tests.theano_compat.programs.numeric import numeric_grads, sigmoid, softmax


def values(shared):
    return [np.asarray(s.get_value(), dtype=np.float64) for s in shared]


# -- the WildML RNN and GRU language models ----------------------------------------------

def rnn_forward(params, x):
    U, V, W = params
    s, o = np.zeros(U.shape[0]), []
    for word in x:
        s = np.tanh(U[:, word] + W @ s)
        o.append(softmax(V @ s))
    return np.array(o)


def test_wildml_rnn_language_model():
    from tests.theano_compat.programs import rnn_lm
    X, Y = rnn_lm.toy_corpus()
    model = rnn_lm.RNNTheano(8, hidden_dim=6, bptt_truncate=-1)
    params = values([model.U, model.V, model.W])
    np.testing.assert_allclose(model.forward_propagation(X[0]), rnn_forward(params, X[0]),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(model.predict(X[0]), rnn_forward(params, X[0]).argmax(axis=1))

    def loss(p):
        return -np.log(rnn_forward(p, X[1])[np.arange(len(Y[1])), Y[1]]).sum()
    assert model.ce_error(X[1], Y[1]) == pytest.approx(loss(params), rel=1e-5)
    expected = numeric_grads(loss, params)
    for got, want in zip(model.bptt(X[1], Y[1]), expected):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    model.sgd_step(X[1], Y[1], 0.1)
    for got, p, g in zip(values([model.U, model.V, model.W]), params, expected):
        np.testing.assert_allclose(got, p - 0.1 * g, rtol=1e-4, atol=1e-6)
    truncated = rnn_lm.RNNTheano(8, hidden_dim=6, bptt_truncate=4)
    losses = rnn_lm.train_with_sgd(truncated, X, Y, nepoch=3)
    assert all(b < a for a, b in zip(losses, losses[1:])), losses


def hard_sigmoid(z):
    return np.clip(0.2 * z + 0.5, 0, 1)


def gru_forward(params, x):
    E, U, W, V, b, c = params
    s1, s2, o = np.zeros(U.shape[1]), np.zeros(U.shape[1]), []
    for word in x:
        x_e = E[:, word]
        z = hard_sigmoid(U[0] @ x_e + W[0] @ s1 + b[0])
        r = hard_sigmoid(U[1] @ x_e + W[1] @ s1 + b[1])
        c1 = np.tanh(U[2] @ x_e + W[2] @ (s1 * r) + b[2])
        s1 = (1 - z) * c1 + z * s1
        z = hard_sigmoid(U[3] @ s1 + W[3] @ s2 + b[3])
        r = hard_sigmoid(U[4] @ s1 + W[4] @ s2 + b[4])
        c2 = np.tanh(U[5] @ s1 + W[5] @ (s2 * r) + b[5])
        s2 = (1 - z) * c2 + z * s2
        o.append(softmax(V @ s2 + c))
    return np.array(o)


def test_wildml_gru_language_model():
    from tests.theano_compat.programs import gru_lm, rnn_lm
    X, Y = rnn_lm.toy_corpus(n_sentences=4)
    model = gru_lm.GRUTheano(8)
    shared = [model.E, model.U, model.W, model.V, model.b, model.c]
    params = values(shared)
    np.testing.assert_allclose(model.predict(X[0]), gru_forward(params, X[0]), rtol=1e-5, atol=1e-6)

    def loss(p):
        return -np.log(gru_forward(p, X[1])[np.arange(len(Y[1])), Y[1]]).sum()
    expected = numeric_grads(loss, params)
    grads = model.bptt(X[1], Y[1])   # the program's order: dE, dU, dW, db, dV, dc
    for got, want in zip(grads, [expected[i] for i in (0, 1, 2, 4, 3, 5)]):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)
    # One RMSProp step (decay left at its In default, 0.9) from zero caches.
    model.sgd_step(X[1], Y[1], 0.01)
    for s, p, g in zip(shared, params, expected):
        cache = 0.1 * g ** 2
        np.testing.assert_allclose(s.get_value(), p - 0.01 * g / np.sqrt(cache + 1e-6),
                                   rtol=1e-3, atol=1e-4)
    losses = gru_lm.train_with_sgd(model, X, Y, nepoch=3)
    assert losses[-1] < losses[0] - 0.05, losses


# -- deeplearning.net's lstm.py ------------------------------------------------------------

def lstm_forward(params, x, mask, names):
    p = dict(zip(names, params))
    n_steps, n_samples = x.shape
    dim = p['Wemb'].shape[1]
    emb = p['Wemb'][x.reshape(-1)].reshape(n_steps, n_samples, dim)
    below = emb @ p['lstm_W'] + p['lstm_b']
    h, c, hs = np.zeros((n_samples, dim)), np.zeros((n_samples, dim)), []
    for t in range(n_steps):
        pre = h @ p['lstm_U'] + below[t]
        i, f, o = (sigmoid(pre[:, k * dim:(k + 1) * dim]) for k in range(3))
        c_new = f * c + i * np.tanh(pre[:, 3 * dim:])
        c = mask[t][:, None] * c_new + (1 - mask[t])[:, None] * c
        h_new = o * np.tanh(c)
        h = mask[t][:, None] * h_new + (1 - mask[t])[:, None] * h
        hs.append(h)
    proj = (np.array(hs) * mask[:, :, None]).sum(0) / mask.sum(0)[:, None]
    return softmax((proj * 0.5) @ p['U'] + p['b'])   # dropout off: scaled by 0.5


def test_deeplearning_lstm_sentiment():
    from tests.theano_compat.programs import lstm_sentiment
    run = lstm_sentiment.train_lstm()
    names = list(run['params'])
    params = [np.asarray(run['params'][k], np.float64) for k in names]
    x, mask, y = run['data']
    prob = lstm_forward(params, x, mask, names)
    np.testing.assert_allclose(run['prob'], prob, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(run['pred'], prob.argmax(axis=1))

    def cost(p):
        return -np.log(lstm_forward(p, x, mask, names)[np.arange(len(y)), y] + 1e-8).mean()
    assert run['cost'] == pytest.approx(cost(params), rel=1e-5)
    for got, want in zip(run['grads'], numeric_grads(cost, params)):
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-7)
    assert run['costs'][-1] < run['cost'] - 1e-3, (run['cost'], run['costs'])


# -- Theano's documentation pages ----------------------------------------------------------

def test_documentation_pages(tmp_path):
    from tests.theano_compat.programs import doc_pages as d
    A = np.array([1.5, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(d.power_by_scan(A, 3), A ** 3, rtol=1e-6)
    coefficients = np.array([1.0, 0.0, 2.0, -0.5], np.float32)
    assert d.polynomial(coefficients, np.float32(3)) == pytest.approx(
        np.polyval(coefficients[::-1], 3.0), rel=1e-6)
    np.testing.assert_array_equal(d.powers_until(45), [2, 4, 8, 16, 32, 64])   # the rows computed
    assert d.accumulate_with_shared(np.arange(5, dtype=np.float32)) == 10

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3)
    doubled, grad, rop, shape = d.double_op_page(x, v)
    np.testing.assert_array_equal(doubled, 2 * x)
    np.testing.assert_array_equal(grad, np.full_like(x, 2))
    np.testing.assert_allclose(rop, 2 * v)
    np.testing.assert_array_equal(shape, [2, 3])
    product, product_shape = d.as_op_page(x, x.T.copy())
    np.testing.assert_allclose(product, x @ x.T)
    np.testing.assert_array_equal(product_shape, [2, 2])

    predict, text, compiled_text, pretty, written = d.printing_page(tmp_path)
    data = np.array([[1.0, -2.0, 0.5], [-1.0, -1.0, -1.0]])
    np.testing.assert_array_equal(predict(data), sigmoid(data @ np.ones(3)) > 0.5)
    assert text.splitlines()[0].startswith("Elemwise{gt,no_inplace}") and "dot" in text
    assert "x" in compiled_text and "exp" in pretty
    assert written is None or written.stat().st_size > 0

    first, state, default, named = d.givens_page(2.0)
    assert (first, state) == (7, 0)                # 3 * 2 + 1, the shared state untouched
    assert (default, named) == ((2 + 1) * 2, (2 + 3) * 5)

    points = np.array([0.0, 1.0, -1.0], np.float32)
    out, profile = d.profile_page(points)          # exp(x) * y with y = x
    np.testing.assert_allclose(out, np.exp(points.astype(np.float64)) * points, rtol=1e-6)
    assert profile is not None

    value, error = d.test_value_page()
    assert value.shape == (20, 10)                 # func_of_W1's test value, computed
    assert isinstance(error, ValueError) and "func_of_W1" in str(error)

    dtype, total = d.floatx_page([1.0, 2.0])
    assert dtype == theano.config.floatX == "float32" and total == 5.0


# -- Hessian-free optimisation ---------------------------------------------------------------

def test_hessian_free_gauss_newton_and_scan_cg():
    from tests.theano_compat.programs import hessian_free as hf
    net = hf.MLP(3, 4, 3)
    X, y = hf.make_data()
    opt = hf.hf_optimizer(net.params, [net.x, net.y], net.s, [net.cost], cg_iterations=4)
    params = values(net.params)
    shapes = [p.shape for p in params]
    sizes = [p.size for p in params]

    def unflat(theta):
        return np.split(theta, np.cumsum(sizes)[:-1])

    def pre_softmax(theta):
        W1, b1, W2, b2 = (a.reshape(s) for a, s in zip(unflat(theta), shapes))
        return np.tanh(X @ W1 + b1) @ W2 + b2

    theta = np.concatenate([p.ravel() for p in params])
    eps = 1e-6
    J = np.stack([(pre_softmax(theta + eps * e) - pre_softmax(theta - eps * e)).ravel() / (2 * eps)
                  for e in np.eye(theta.size)], axis=1)       # d s / d theta, by differences
    p = softmax(pre_softmax(theta))
    n = len(y)
    H = np.zeros((p.size, p.size))                            # the loss's Hessian in s
    for i in range(n):
        block = slice(3 * i, 3 * i + 3)
        H[block, block] = (np.diag(p[i]) - np.outer(p[i], p[i])) / n
    G = J.T @ H @ J
    rng = np.random.RandomState(0)
    v = rng.randn(theta.size)
    vs = [a.reshape(s).astype(np.float32) for a, s in zip(unflat(v), shapes)]
    damped = opt.function_Gv(X, y, *vs, np.float32(0.5))
    np.testing.assert_allclose(np.concatenate([a.ravel() for a in damped]), G @ v + 0.5 * v,
                               rtol=1e-3, atol=1e-5)
    lop = opt.function_Lop_Gv(X, y, *vs)
    np.testing.assert_allclose(np.concatenate([a.ravel() for a in lop]), G @ v, rtol=1e-3, atol=1e-5)

    onehot = np.eye(3)[y]
    g = J.T @ ((p - onehot).ravel() / n)                      # the gradient, through J
    x, r = np.zeros_like(g), -g
    d, rr = r.copy(), r @ r
    A = G + 1.0 * np.eye(theta.size)
    for _ in range(4):
        Ad = A @ d
        alpha = rr / (d @ Ad)
        x, r = x + alpha * d, r - alpha * Ad
        rr_new = r @ r
        d, rr = r + rr_new / rr * d, rr_new
    direction, gflat = opt.f_cg(X, y, np.float32(1.0))
    np.testing.assert_allclose(gflat, g, rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(direction, x, rtol=2e-3, atol=1e-5)
    costs = opt.train((X, y))
    assert costs[0] == pytest.approx(-np.log(p[np.arange(n), y]).mean(), rel=1e-5)
    assert all(b < a for a, b in zip(costs, costs[1:])), costs
