"""The RNN-RBM of deeplearning.net's ``rnnrbm.py`` (Boulanger-Lewandowski et al.),
written the classic Theano way (``import symnb as theano``): a scan over time whose
step builds, when generating, an RBM's Gibbs chain (a scan inside the scan, sampling
with RandomStreams), trained through the gradient of the outer scan.

Run as a script (``python -m tests.theano_compat.rnnrbm_model OUT.npz``), it compiles
and runs one training step and one generation, and saves what they returned: the
tests run it in a subprocess, so that a compiler abort fails the test instead of
killing pytest.
"""

from __future__ import annotations

import sys

import numpy

import symnb as theano
import symnb.tensor as T
from symnb.tensor.shared_randomstreams import RandomStreams

SEED = 4321
SIZES = dict(n_visible=6, n_hidden=7, n_hidden_recurrent=5, k_train=3, k_gen=2, n_gen=4)
LEARNING_RATE = 0.01
FLOAT = "float64"


def build_rbm(rng, v, W, bv, bh, k):
    def gibbs_step(v):
        mean_h = T.nnet.sigmoid(T.dot(v, W) + bh)
        h = rng.binomial(size=mean_h.shape, n=1, p=mean_h, dtype=FLOAT)
        mean_v = T.nnet.sigmoid(T.dot(h, W.T) + bv)
        v = rng.binomial(size=mean_v.shape, n=1, p=mean_v, dtype=FLOAT)
        return mean_v, v

    chain, updates = theano.scan(lambda v: gibbs_step(v)[1], outputs_info=[v], n_steps=k)
    v_sample = chain[-1]
    mean_v = gibbs_step(v_sample)[0]
    monitor = T.xlogx.xlogy0(v, mean_v) + T.xlogx.xlogy0(1 - v, 1 - mean_v)
    monitor = monitor.sum() / v.shape[0]

    def free_energy(v):
        return -(v * bv).sum() - T.log(1 + T.exp(T.dot(v, W) + bh)).sum()

    cost = (free_energy(v) - free_energy(v_sample)) / v.shape[0]
    return v_sample, cost, monitor, updates


def initial_parameters(n_visible, n_hidden, n_hidden_recurrent, **_):
    """The classic initialization (normal weights, zero biases), from a fixed seed."""
    draw = numpy.random.default_rng(0).normal
    return {"W": draw(scale=0.5, size=(n_visible, n_hidden)), "bv": numpy.zeros(n_visible),
            "bh": numpy.zeros(n_hidden),
            "Wuh": draw(scale=0.3, size=(n_hidden_recurrent, n_hidden)),
            "Wuv": draw(scale=0.3, size=(n_hidden_recurrent, n_visible)),
            "Wvu": draw(scale=0.3, size=(n_visible, n_hidden_recurrent)),
            "Wuu": draw(scale=0.3, size=(n_hidden_recurrent, n_hidden_recurrent)),
            "bu": numpy.zeros(n_hidden_recurrent)}


PARAMETERS = ("W", "bv", "bh", "Wuh", "Wuv", "Wvu", "Wuu", "bu")


def build_rnnrbm(n_visible, n_hidden, n_hidden_recurrent, k_train, k_gen, n_gen):
    rng = RandomStreams(seed=SEED)
    values = initial_parameters(n_visible, n_hidden, n_hidden_recurrent)
    params = tuple(theano.shared(values[name], name=name) for name in PARAMETERS)
    W, bv, bh, Wuh, Wuv, Wvu, Wuu, bu = params
    v = T.dmatrix("v")
    u0 = T.zeros((n_hidden_recurrent,), dtype=FLOAT)

    def recurrence(v_t, u_tm1):
        bv_t = bv + T.dot(u_tm1, Wuv)
        bh_t = bh + T.dot(u_tm1, Wuh)
        generate = v_t is None
        if generate:
            v_t, _, _, updates = build_rbm(rng, T.zeros((n_visible,), dtype=FLOAT), W, bv_t,
                                           bh_t, k=k_gen)
        u_t = T.tanh(bu + T.dot(v_t, Wvu) + T.dot(u_tm1, Wuu))
        return ([v_t, u_t], updates) if generate else [u_t, bv_t, bh_t]

    (u_t, bv_t, bh_t), updates_train = theano.scan(
        lambda v_t, u_tm1, *_: recurrence(v_t, u_tm1),
        sequences=v, outputs_info=[u0, None, None], non_sequences=params)
    v_sample, cost, monitor, updates_rbm = build_rbm(rng, v, W, bv_t[:], bh_t[:], k=k_train)
    updates_train.update(updates_rbm)
    (v_t, u_t), updates_generate = theano.scan(
        lambda u_tm1, *_: recurrence(None, u_tm1),
        outputs_info=[None, u0], non_sequences=params, n_steps=n_gen)
    return v, v_sample, cost, monitor, params, updates_train, v_t, updates_generate, rng


class RnnRbm:
    def __init__(self, lr=LEARNING_RATE, **sizes):
        (v, v_sample, cost, monitor, params, updates_train, v_t, updates_generate,
         self.rng) = build_rnnrbm(**{**SIZES, **sizes})
        self.params = params
        gradient = T.grad(cost, params, consider_constant=[v_sample])
        updates_train.update(((p, p - lr * g) for p, g in zip(params, gradient)))
        self.train_function = theano.function([v], monitor, updates=updates_train)
        self.generate_function = theano.function([], v_t, updates=updates_generate)


def sequence(n_steps=5, n_visible=SIZES["n_visible"]):
    """A fixed binary piano roll."""
    return (numpy.random.default_rng(1).random((n_steps, n_visible)) > 0.6).astype(FLOAT)


def main(out_path: str) -> None:
    model = RnnRbm()
    generated = model.generate_function()  # before training: the initial parameters
    monitor = model.train_function(sequence())
    numpy.savez(out_path, monitor=monitor, generated=generated,
                **{p.name: p.get_value() for p in model.params})


if __name__ == "__main__":
    main(sys.argv[1])
