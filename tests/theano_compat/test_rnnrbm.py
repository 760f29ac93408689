"""The classic RNN-RBM (tests/theano_compat/rnnrbm_model.py) compiles, trains and
generates, in a subprocess (an XLA abort must fail the test, not kill pytest), with
the values of a hand-written JAX reference: the same threefry streams (stream i
starts at ``fold_in(PRNGKey(seed), i)``; each draw splits its key, draws with the
second half and keeps the first), the gradient by ``jax.grad``."""

import pytest
import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from tests.theano_compat import rnnrbm_model as model

ROOT = Path(__file__).resolve().parents[2]


def run_model(tmp_path):
    out = tmp_path / "rnnrbm.npz"
    # The tutorial's program is float64: Theano's default floatX, under which its Python
    # floats (the learning rate) are float64 constants (README: one flag).
    env = {**os.environ, "SYMNB_FLAGS": ",".join(
        f for f in (os.environ.get("SYMNB_FLAGS", ""), "floatX=float64") if f)}
    done = subprocess.run([sys.executable, "-m", "tests.theano_compat.rnnrbm_model", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, f"the RNN-RBM process died ({done.returncode}):\n" \
                                 f"{done.stderr[-3000:]}"
    return dict(np.load(out))


class Streams:
    """The reference's random streams: one threefry key per draw site."""

    def __init__(self, count):
        root = jax.random.PRNGKey(model.SEED)
        self.keys = [jax.random.fold_in(root, i) for i in range(count)]

    def bernoulli(self, stream, p):
        self.keys[stream], draw = jax.random.split(self.keys[stream])
        return jax.random.bernoulli(draw, p, p.shape).astype(p.dtype)


def gibbs_chain(streams, first, v, W, bv, bh, k):
    """``k`` Gibbs steps from ``v`` (streams ``first``, ``first + 1``), then the mean of
    the visible units one step further (streams ``first + 2``, ``first + 3``)."""
    for _ in range(k):
        h = streams.bernoulli(first, jax.nn.sigmoid(v @ W + bh))
        v = streams.bernoulli(first + 1, jax.nn.sigmoid(h @ W.T + bv))
    h = streams.bernoulli(first + 2, jax.nn.sigmoid(v @ W + bh))
    return v, jax.nn.sigmoid(h @ W.T + bv)


def biases_over_time(p, v):
    u, bvs, bhs = jnp.zeros(p["bu"].shape), [], []
    for v_t in v:
        bvs.append(p["bv"] + u @ p["Wuv"])
        bhs.append(p["bh"] + u @ p["Wuh"])
        u = jnp.tanh(p["bu"] + v_t @ p["Wvu"] + u @ p["Wuu"])
    return jnp.stack(bvs), jnp.stack(bhs)


def reference_training_step(p, v, streams):
    bv_t, bh_t = biases_over_time(p, v)
    v_sample, mean_v = gibbs_chain(streams, 0, v, p["W"], bv_t, bh_t, model.SIZES["k_train"])
    monitor = jnp.sum(jax.scipy.special.xlogy(v, mean_v)
                      + jax.scipy.special.xlogy(1 - v, 1 - mean_v)) / v.shape[0]

    def cost(p):
        bv_t, bh_t = biases_over_time(p, v)

        def free_energy(x):
            return -jnp.sum(x * bv_t) - jnp.sum(jnp.logaddexp(0, x @ p["W"] + bh_t))

        return (free_energy(v) - free_energy(v_sample)) / v.shape[0]

    grads = jax.grad(cost)(p)
    return monitor, {name: p[name] - model.LEARNING_RATE * grads[name] for name in p}


def reference_generation(p, streams):
    sizes = model.SIZES
    u, rows = jnp.zeros(p["bu"].shape), []
    for _ in range(sizes["n_gen"]):
        bv_t, bh_t = p["bv"] + u @ p["Wuv"], p["bh"] + u @ p["Wuh"]
        v_t, _ = gibbs_chain(streams, 4, jnp.zeros(p["bv"].shape), p["W"], bv_t, bh_t,
                             sizes["k_gen"])
        rows.append(v_t)
        u = jnp.tanh(p["bu"] + v_t @ p["Wvu"] + u @ p["Wuu"])
    return jnp.stack(rows)


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
def test_rnnrbm_trains_and_generates_as_the_jax_reference(tmp_path):
    compiled = run_model(tmp_path)
    with jax.enable_x64(True):  # the model is float64, as sn.function runs it
        p = {k: jnp.asarray(v) for k, v in model.initial_parameters(**model.SIZES).items()}
        streams = Streams(8)
        generated = reference_generation(p, streams)
        monitor, updated = reference_training_step(p, jnp.asarray(model.sequence()), streams)
    np.testing.assert_array_equal(compiled["generated"], generated)
    np.testing.assert_allclose(compiled["monitor"], monitor, rtol=1e-10)
    for name, value in updated.items():
        np.testing.assert_allclose(compiled[name], value, rtol=1e-9, atol=1e-12, err_msg=name)
    assert not np.allclose(compiled["W"], p["W"])  # the step moved the weights
