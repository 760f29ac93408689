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
    # Theano's truncate_gradient=k: the backward pass visits only the last k steps.
    x, y = X[1], Y[1]
    assert len(x) > 4
    U, V, W = values([truncated.U, truncated.V, truncated.W])
    states, s = [np.zeros(6)], np.zeros(6)
    for word in x:
        s = np.tanh(U[:, word] + W @ s)
        states.append(s)
    dU, dV, dW, carry = np.zeros_like(U), np.zeros_like(V), np.zeros_like(W), np.zeros(6)
    for t in range(len(x) - 1, len(x) - 5, -1):
        d_out = softmax(V @ states[t + 1]) - np.eye(8)[y[t]]
        dV += np.outer(d_out, states[t + 1])
        d_pre = (V.T @ d_out + carry) * (1 - states[t + 1] ** 2)
        dU[:, x[t]] += d_pre
        dW += np.outer(d_pre, states[t])
        carry = W.T @ d_pre
    for got, want in zip(truncated.bptt(x, y), [dU, dV, dW]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
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
    affine, doubled2, affine_grad = d.props_page(x.astype(np.float64))
    np.testing.assert_array_equal(affine, 4 * x + 5)
    np.testing.assert_array_equal(doubled2, 2 * x)
    np.testing.assert_array_equal(affine_grad, np.full_like(x, 4))
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


# -- Kim (2014)'s sentence CNN -------------------------------------------------------------

def test_kim_sentence_cnn():
    from tests.theano_compat.programs import sentence_cnn
    U, X, y = sentence_cnn.make_data()
    model = sentence_cnn.build(U.copy())
    costs = sentence_cnn.train(model, X, y)
    assert costs[-1] < costs[0] - 1e-3, costs
    Words = model['Words'].get_value()
    np.testing.assert_array_equal(Words[0], 0)        # set_zero after each step
    predict = theano.function([model['x']], model['classifier'].p_y_given_x)
    # Two batches: the layers were built for input_shape (4, 1, 7, 5), as the program's.
    probs = np.concatenate([predict(X[:4].astype(np.float32)), predict(X[4:].astype(np.float32))])

    # NumPy: Theano's conv2d is a convolution (the filter flipped), valid mode; a ReLU,
    # the max over the sentence, then the softmax with the weights scaled by 1 - p.
    features = []
    image = Words[X].astype(np.float64)                  # (sentences, length, width)
    for layer in model['conv_layers']:
        W, b = (np.asarray(a, np.float64) for a in (layer.W.get_value(), layer.b.get_value()))
        kernel = W[:, 0, ::-1, ::-1]                      # (maps, height, width)
        height = kernel.shape[1]
        out = np.stack([np.einsum('nhw,fhw->nf', image[:, i:i + height], kernel)
                        for i in range(image.shape[1] - height + 1)], axis=2)
        features.append(np.maximum(0, out + b[None, :, None]).max(axis=2))
    hidden = np.concatenate(features, axis=1)
    Wc = model['classifier_dropout'].W.get_value() * 0.5
    bc = model['classifier_dropout'].b.get_value()
    expected = softmax(hidden @ Wc + bc)
    np.testing.assert_allclose(probs, expected, rtol=1e-5, atol=1e-6)
    nll = -np.log(expected[np.arange(len(y)), y])
    assert costs[-1] == pytest.approx(nll.mean(), rel=1e-5)   # the mean of two batches' means


# -- the variational autoencoder -------------------------------------------------------------

def vae_lower_bound(p, x, eps):
    relu = lambda z: np.maximum(z, 0)
    h = relu(x @ p['W_xh'] + p['b_xh'])
    mu, log_sigma = h @ p['W_hmu'] + p['b_hmu'], h @ p['W_hsigma'] + p['b_hsigma']
    z = mu + np.exp(0.5 * log_sigma) * eps
    out = sigmoid(relu(z @ p['W_zh'] + p['b_zh']) @ p['W_hxmu'] + p['b_hxmu'])
    log_pxz = (x * np.log(out) + (1 - x) * np.log(1 - out)).sum(axis=1)
    kld = 0.5 * (1 + log_sigma - mu ** 2 - np.exp(log_sigma)).sum(axis=1)
    return (log_pxz + kld).mean()


def test_variational_autoencoder():
    from tests.theano_compat.programs import vae
    rng = np.random.RandomState(0)
    X = (rng.rand(8, 6) > 0.5).astype(np.float32)
    model = vae.VAE(False, 5, 5, 2, X)
    names = list(model.params)
    before = {k: np.asarray(v.get_value(), np.float64) for k, v in model.params.items()}
    bound, eps = model.likelihood(X)
    assert eps.shape == (8, 2) and eps.std() > 0.3          # standard normal draws
    assert bound == pytest.approx(vae_lower_bound(before, X, eps), rel=1e-5)

    # One Adam step on batch 0 (epoch 1) from zero moments, with the eps it drew.
    bound, eps = model.update(0, 1)
    batch = X[:4].astype(np.float64)
    assert bound == pytest.approx(vae_lower_bound(before, batch, eps), rel=1e-5)
    grads = numeric_grads(lambda ps: vae_lower_bound(dict(zip(names, ps)), batch, eps),
                          [before[k].copy() for k in names])
    gamma = np.sqrt(1 - 0.999) / (1 - 0.95)
    for k, g in zip(names, grads):
        m, v = 0.05 * g, 0.001 * g ** 2
        np.testing.assert_allclose(model.params[k].get_value(),
                                   before[k] + 0.01 * gamma * m / (np.sqrt(v) + 1e-8),
                                   rtol=1e-4, atol=2e-5)
    first = model.likelihood(X)[0]
    for epoch in range(2, 30):
        model.update(0, epoch)
        model.update(1, epoch)
    assert model.likelihood(X)[0] > first + 0.1              # the bound rises (noisy, by a margin)
    assert model.encode(X).shape == (8, 2) and model.decode(np.zeros((3, 2), np.float32)).shape == (3, 6)


# -- the attention NMT (dl4mt) -------------------------------------------------------------

def nmt_cost(p, x, x_mask, y, y_mask):
    """The per-sentence negative log-likelihood of dl4mt's model, in NumPy."""
    dim = p['encoder_Ux'].shape[1]

    def gru(prefix, below, mask):
        h, hs = np.zeros((below.shape[1], dim)), []
        for t in range(below.shape[0]):
            pre = sigmoid(h @ p[prefix + '_U'] + below[t] @ p[prefix + '_W'] + p[prefix + '_b'])
            r, u = pre[:, :dim], pre[:, dim:]
            cand = np.tanh((h @ p[prefix + '_Ux']) * r + below[t] @ p[prefix + '_Wx'] + p[prefix + '_bx'])
            new = u * h + (1 - u) * cand
            h = mask[t][:, None] * new + (1 - mask[t])[:, None] * h
            hs.append(h)
        return np.array(hs)

    emb = p['Wemb'][x]
    ctx = np.concatenate([gru('encoder', emb, x_mask),
                          gru('encoder_r', emb[::-1], x_mask[::-1])[::-1]], axis=2)
    ctx_mean = (ctx * x_mask[:, :, None]).sum(0) / x_mask.sum(0)[:, None]
    h = np.tanh(ctx_mean @ p['ff_state_W'] + p['ff_state_b'])
    emb_y = p['Wemb_dec'][y]
    shifted = np.zeros_like(emb_y)
    shifted[1:] = emb_y[:-1]
    pctx = ctx @ p['decoder_Wc_att'] + p['decoder_b_att']
    cost = np.zeros(y.shape[1])
    for t in range(y.shape[0]):
        att = np.tanh(pctx + (h @ p['decoder_W_comb_att'])[None])
        alpha = np.exp((att @ p['decoder_U_att'])[..., 0] + p['decoder_c_tt']) * x_mask
        alpha = alpha / alpha.sum(0, keepdims=True)
        c_t = (ctx * alpha[:, :, None]).sum(0)
        pre = sigmoid(h @ p['decoder_U'] + shifted[t] @ p['decoder_W'] + p['decoder_b'] + c_t @ p['decoder_Wc'])
        r, u = pre[:, :dim], pre[:, dim:]
        cand = np.tanh((h @ p['decoder_Ux']) * r + shifted[t] @ p['decoder_Wx'] + p['decoder_bx']
                       + c_t @ p['decoder_Wcx'])
        new = u * h + (1 - u) * cand
        h = y_mask[t][:, None] * new + (1 - y_mask[t])[:, None] * h
        probs = softmax(h @ p['ff_logit_W'] + p['ff_logit_b'])
        cost += -np.log(probs[np.arange(y.shape[1]), y[t]]) * y_mask[t]
    return cost


def test_attention_nmt():
    from tests.theano_compat.programs import attention_nmt
    run = attention_nmt.train()
    names = list(run['params'])
    params = {k: np.asarray(v, np.float64) for k, v in run['params'].items()}
    batch = run['batch']
    np.testing.assert_allclose(run['log_probs'], nmt_cost(params, *batch), rtol=1e-5)
    x_mask = batch[1]
    alphas = run['alphas']                                   # (target steps, samples, source steps)
    np.testing.assert_allclose(alphas.sum(axis=2), 1, rtol=1e-5)
    assert np.all(alphas[:, x_mask.T == 0] == 0)             # no attention past a source's end
    costs = run['costs']
    assert costs[0] == pytest.approx(nmt_cost(params, *batch).mean(), rel=1e-5)
    assert all(b < a for a, b in zip(costs, costs[1:])), costs


def test_attention_nmt_gradient():
    from tests.theano_compat.programs import attention_nmt
    import symnb.tensor as tensor
    options = dict(dim_word=3, dim=2, n_words=4, n_words_src=5)
    params = attention_nmt.init_params(options, np.random.RandomState(3))
    tparams = attention_nmt.init_tparams(params)
    x, x_mask, y, y_mask, _, cost = attention_nmt.build_model(tparams, options)
    grads = theano.function([x, x_mask, y, y_mask],
                            tensor.grad(cost.mean(), wrt=list(tparams.values())))
    batch = attention_nmt.prepare_data([[1, 2, 3], [4, 1]], [[2, 3], [1, 1, 3]])
    names = list(params)
    expected = numeric_grads(
        lambda ps: nmt_cost(dict(zip(names, ps)), *batch).mean(),
        [np.asarray(params[k], np.float64) for k in names])
    for name, got, want in zip(names, grads(*batch), expected):
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-6, err_msg=name)


# -- the dropout MLP and the stacked denoising autoencoders ---------------------------------

def test_dropout_mlp():
    from tests.theano_compat.programs import dropout_mlp
    data = dropout_mlp.make_data()
    X, y = (np.asarray(d.get_value(), np.float64) for d in data)
    # Rates 0: every mask keeps every unit, so one step has an exact NumPy reference.
    model = dropout_mlp.build(data, dropout_rates=(0.0, 0.0, 0.0))
    params = values(model['classifier'].params)              # W1, b1, W2, b2

    def cost(p, rows=slice(0, 4)):
        hidden = np.maximum(0, X[rows] @ p[0] + p[1])
        probs = softmax(hidden @ p[2] + p[3])
        return -np.log(probs[np.arange(len(probs)), y[rows].astype(int)]).mean()
    assert model['test_model'](0)[0] == pytest.approx(cost(params), rel=1e-6)
    grads = numeric_grads(cost, [p.copy() for p in params])
    model['train_model'](1, 0)                               # epoch 1, minibatch 0
    mom = 0.5 * (1 - 1 / 500) + 0.99 * (1 / 500)             # the ifelse's first branch
    for shared, p, g, velocity in zip(model['classifier'].params, params, grads, model['gparams_mom']):
        step = -(1 - mom) * 1.0 * g
        np.testing.assert_allclose(velocity.get_value(), step, rtol=1e-3, atol=1e-7)
        stepped = p + step
        if p.ndim == 2:
            norms = np.sqrt((stepped ** 2).sum(axis=0))
            stepped = stepped * (np.clip(norms, 0, np.sqrt(15.0)) / (1e-7 + norms))
        np.testing.assert_allclose(shared.get_value(), stepped, rtol=1e-4, atol=1e-7)
    assert model['decay_learning_rate']() == 1.0             # the value before the update
    assert model['learning_rate'].get_value() == pytest.approx(0.998)

    dropped = dropout_mlp.build(dropout_mlp.make_data())
    costs = dropout_mlp.train(dropped, n_batches=2, n_epochs=4)
    assert costs[-1] < costs[0] - 0.1, costs


def test_stacked_denoising_autoencoders():
    from tests.theano_compat.programs import stacked_da
    X, y = stacked_da.make_data()
    train_set = stacked_da.shared_dataset((X, y))
    sda = stacked_da.SdA(numpy_rng=np.random.RandomState(89677), n_ins=6,
                         hidden_layers_sizes=[5, 4], n_outs=3)
    pretrain = sda.pretraining_functions(train_set[0], batch_size=4)
    W, b = values(sda.sigmoid_layers[0].params)
    b_prime = values([sda.dA_layers[0].b_prime])[0]

    def reconstruction_cost(p, rows=slice(4, 8)):
        W, b, b_prime = p
        z = sigmoid(sigmoid(X[rows] @ W + b) @ W.T + b_prime)
        return -(X[rows] * np.log(z) + (1 - X[rows]) * np.log(1 - z)).sum(axis=1).mean()
    grads = numeric_grads(reconstruction_cost, [W.copy(), b.copy(), b_prime.copy()])
    # corruption 0: the binomial mask keeps every input, so the step is exact.
    got = pretrain[0](index=1, corruption=0.0, lr=0.5)
    assert got == pytest.approx(reconstruction_cost([W, b, b_prime]), rel=1e-5)
    for shared, p, g in zip(sda.dA_layers[0].params, [W, b, b_prime], grads):
        np.testing.assert_allclose(shared.get_value(), p - 0.5 * g, rtol=1e-4, atol=1e-6)
    first = [float(pretrain[1](index=0)) for _ in range(1)][0]   # the In defaults: 0.2, 0.1
    for _ in range(20):
        pretrain[1](index=0, corruption=0.0)
    assert float(pretrain[1](index=0, corruption=0.0, lr=0.0)) < first

    train_fn, valid_score = sda.build_finetune_functions([train_set, train_set], 4, 0.1)
    losses = [float(train_fn(i % 2)) for i in range(12)]
    assert losses[-2] + losses[-1] < losses[0] + losses[1], losses
    hidden = X
    for layer in sda.sigmoid_layers:
        hidden = sigmoid(hidden @ layer.W.get_value() + layer.b.get_value())
    predictions = softmax(hidden @ sda.logLayer.W.get_value() + sda.logLayer.b.get_value()).argmax(1)
    np.testing.assert_allclose(valid_score(), [np.mean(predictions[:4] != y[:4]),
                                               np.mean(predictions[4:] != y[4:])])
