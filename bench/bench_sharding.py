"""Data-parallel training step over 8 devices (issue 15), against hand-written jax.jit.

    python bench/bench_sharding.py

Both sides run an SGD step of a 784-512-10 tanh MLP (mean squared error) on a batch of
1024 split over 8 forced host devices ('data'), parameters replicated and donated,
inputs already on the devices, the loss copied back to NumPy. Target: symnb at most
1.05x jax.jit. On a 2-core machine the 8 "devices" share the cores, so the step itself
is slow and the ratio is what matters; rounds alternate to share the noise.
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from timing import compare  # noqa: E402

SIZES = (784, 512, 10)
BATCH = 1024
RATE = 0.01


def _initial(rng: np.random.Generator) -> dict[str, np.ndarray]:
    (n_in, n_hidden, n_out) = SIZES
    return {"W1": (rng.normal(size=(n_in, n_hidden)) / np.sqrt(n_in)).astype("float32"),
            "b1": np.zeros(n_hidden, "float32"),
            "W2": (rng.normal(size=(n_hidden, n_out)) / np.sqrt(n_hidden)).astype("float32"),
            "b2": np.zeros(n_out, "float32")}


def symnb_step(mesh, initial):
    params = [sn.shared(v, name=k, sharding=mesh) for k, v in initial.items()]
    W1, b1, W2, b2 = params
    X, Y = T.matrix("X"), T.matrix("Y")
    loss = ((T.dot(T.tanh(T.dot(X, W1) + b1), W2) + b2 - Y) ** 2).mean()
    grads = sn.grad(loss, params)
    split = (mesh, P("data"))
    return sn.function([X, Y], loss, updates=[(p, p - RATE * g) for p, g in zip(params, grads)],
                       in_shardings=[split, split]), params


def jax_step(mesh, initial):
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))

    def loss_fn(p, x, y):
        out = jnp.tanh(x @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        return ((out - y) ** 2).mean()

    def step(p, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(p, x, y)
        return loss, {k: p[k] - RATE * grads[k] for k in p}

    jitted = jax.jit(step, in_shardings=(replicated, split, split),
                     out_shardings=(replicated, replicated), donate_argnums=(0,))
    state = {"p": jax.device_put(initial, replicated)}

    def call(x, y):
        loss, state["p"] = jitted(state["p"], x, y)
        return np.asarray(loss)

    return call, state


def main() -> None:
    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
    rng = np.random.default_rng(0)
    initial = _initial(rng)
    X = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
    Y = rng.normal(size=(BATCH, SIZES[2])).astype("float32")
    split = NamedSharding(mesh, P("data"))
    gX, gY = jax.device_put(X, split), jax.device_put(Y, split)
    ours, params = symnb_step(mesh, initial)
    reference, state = jax_step(mesh, initial)
    for _ in range(3):  # the same training, step for step
        np.testing.assert_allclose(ours(gX, gY), reference(gX, gY), rtol=1e-5)
    for p in params:
        np.testing.assert_allclose(p.get_value(), np.asarray(state["p"][p.name]), rtol=1e-4, atol=1e-6)
    assert "all-reduce" in ours.lowered_text("hlo", X, Y)
    print(f"{len(jax.devices())} devices, batch {BATCH}, MLP {SIZES}")
    compare("data-parallel MLP step, 8 devices", lambda: ours(gX, gY), lambda: reference(gX, gY),
            number=20, target=1.05)


if __name__ == "__main__":
    main()
