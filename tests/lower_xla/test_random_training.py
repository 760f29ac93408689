"""Programs that draw while they train: dropout, a denoising autoencoder and an RBM
trained by CD-1 with a persistent Gibbs chain in scan; and DebugMode on random nodes."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode
from symnb.tensor.shared_randomstreams import RandomStreams


def _blobs(rng, n=256, d=8):
    """Two Gaussian blobs, labelled: a task an MLP learns quickly."""
    y = rng.integers(0, 2, size=n)
    x = rng.normal(size=(n, d)) + 2.0 * y[:, None]
    return x.astype("float32"), y.astype("float32")


def test_dropout_mlp_trains():
    rng = np.random.default_rng(0)
    x_data, y_data = _blobs(rng)
    srng = RandomStreams(seed=1)
    w1 = sn.shared((0.3 * rng.normal(size=(8, 16))).astype("float32"), name="w1")
    w2 = sn.shared((0.3 * rng.normal(size=16)).astype("float32"), name="w2")
    b1 = sn.shared(np.zeros(16, "float32"), name="b1")
    b2 = sn.shared(np.float32(0.0), name="b2")
    params = [w1, b1, w2, b2]
    x, y = T.fmatrix("x"), T.fvector("y")
    x.test_value, y.test_value = x_data, y_data
    h = T.tanh(T.dot(x, w1) + b1)
    h = h * srng.binomial(h.shape, p=0.5, dtype="float32") / 0.5
    p = T.sigmoid(T.dot(h, w2) + b2)
    cost = T.mean(T.binary_crossentropy(p, y))
    grads = sn.grad(cost, params)
    train = sn.function([x, y], cost, updates=[(w, w - 0.5 * g) for w, g in zip(params, grads)])
    costs = [float(train(x_data, y_data)) for _ in range(300)]
    assert np.mean(costs[-20:]) < 0.6 * costs[0]
    # Evaluated without dropout, the trained network classifies the data.
    clean = T.sigmoid(T.dot(T.tanh(T.dot(x, w1) + b1), w2) + b2)
    accuracy = np.mean((sn.function([x], clean)(x_data) > 0.5) == y_data)
    assert accuracy > 0.9


def test_denoising_autoencoder_cost_falls():
    rng = np.random.default_rng(1)
    prototypes = rng.random((4, 20)) > 0.5
    data = prototypes[rng.integers(0, 4, size=200)].astype("float32")
    srng = RandomStreams(seed=2)
    w = sn.shared((0.1 * rng.normal(size=(20, 8))).astype("float32"), name="W")
    b_hid = sn.shared(np.zeros(8, "float32"), name="b_hid")
    b_vis = sn.shared(np.zeros(20, "float32"), name="b_vis")
    x = T.fmatrix("x")
    x.test_value = data
    corrupted = x * srng.binomial(x.shape, n=1, p=0.7, dtype="float32")
    hidden = T.sigmoid(T.dot(corrupted, w) + b_hid)
    z = T.sigmoid(T.dot(hidden, w.T) + b_vis)
    cost = T.mean(T.sum(T.binary_crossentropy(z, x), axis=1))
    params = [w, b_hid, b_vis]
    grads = sn.grad(cost, params)
    train = sn.function([x], cost, updates=[(p, p - 0.1 * g) for p, g in zip(params, grads)])
    costs = [float(train(data)) for _ in range(300)]
    assert np.mean(costs[-20:]) < 0.6 * np.mean(costs[:20])


def test_rbm_cd1_with_persistent_chain_in_scan_lowers_free_energy():
    rng = np.random.default_rng(2)
    n_vis, n_hid = 12, 6
    prototypes = rng.random((3, n_vis)) > 0.5
    flips = rng.random((300, n_vis)) < 0.05
    data = (prototypes[rng.integers(0, 3, size=300)] ^ flips).astype("float32")
    srng = RandomStreams(seed=3)
    w = sn.shared((0.01 * rng.normal(size=(n_vis, n_hid))).astype("float32"), name="W")
    hbias = sn.shared(np.zeros(n_hid, "float32"), name="hbias")
    vbias = sn.shared(np.zeros(n_vis, "float32"), name="vbias")
    chain = sn.shared(np.zeros((300, n_hid), "float32"), name="persistent")

    def free_energy(v):
        return -T.dot(v, vbias) - T.sum(T.softplus(T.dot(v, w) + hbias), axis=1)

    def gibbs_hvh(h):
        v_mean = T.sigmoid(T.dot(h, w.T) + vbias)
        v = srng.binomial(v_mean.shape, p=v_mean, dtype="float32")
        h_mean = T.sigmoid(T.dot(v, w) + hbias)
        return [v, srng.binomial(h_mean.shape, p=h_mean, dtype="float32")]

    x = T.fmatrix("x")
    x.test_value = data
    (v_chain, h_chain), updates = sn.scan(gibbs_hvh, outputs_info=[None, chain], n_steps=1)
    chain_end = v_chain[-1]
    cost = T.mean(free_energy(x)) - T.mean(free_energy(chain_end))
    params = [w, hbias, vbias]
    grads = sn.grad(cost, params, consider_constant=[chain_end])
    updates = dict(updates)
    updates.update({p: p - 0.05 * g for p, g in zip(params, grads)})
    updates[chain] = h_chain[-1]
    train = sn.function([x], T.mean(free_energy(x)), updates=list(updates.items()))
    energies = [float(train(data)) for _ in range(150)]
    assert energies[-1] < energies[0] - 1.0
    assert chain.get_value().std() > 0  # the chain moves


def test_debugmode_compares_random_nodes():
    srng = RandomStreams(seed=4)
    x = T.fvector("x")
    x.test_value = np.ones(6, "float32")
    y = x * srng.binomial(x.shape, p=0.5, dtype="float32") + srng.uniform(x.shape)
    f = sn.function([x], y, mode=DebugMode())
    reference = y.test_value
    np.testing.assert_allclose(f(np.ones(6, "float32")), reference, rtol=1e-6)
