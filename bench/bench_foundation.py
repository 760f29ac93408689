"""Foundation benchmarks (issue 2), each against hand-written ``jax.jit`` in one process.

    python bench/bench_foundation.py

- call overhead of a tiny function (target: at most 1.3x jax.jit's);
- a 256x784-512-512-10 tanh MLP forward pass (target: at most 1.05x);
- the cost of always-on test values: building a 10,000-node elementwise chain on
  small values (target: at most 15 us per node), and on 1000x1000 values (target:
  building costs at most 1.2x what NumPy needs to evaluate the same chain eagerly).

The reference returns NumPy arrays too (``np.asarray(jitted(...))``), as symnb does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from timing import best_time, compare  # noqa: E402


def call_overhead() -> dict:
    x = T.vector("x")
    f = sn.function([x], x * 2 + 1)
    jitted = jax.jit(lambda v: v * 2 + 1)
    value = np.ones(3, dtype="float32")
    np.testing.assert_allclose(f(value), np.asarray(jitted(value)))
    return compare("call overhead, tiny function", lambda: f(value),
                   lambda: np.asarray(jitted(value)), number=2000, target=1.3)


def _mlp_params(rng: np.random.Generator) -> list[np.ndarray]:
    sizes = [784, 512, 512, 10]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append(rng.normal(scale=fan_in ** -0.5, size=(fan_in, fan_out)).astype("float32"))
        params.append(np.zeros(fan_out, dtype="float32"))
    return params


def mlp_forward() -> dict:
    rng = np.random.default_rng(0)
    params = _mlp_params(rng)
    batch = rng.normal(size=(256, 784)).astype("float32")

    shared = [sn.shared(p, name=f"p{i}") for i, p in enumerate(params)]
    x = T.matrix("x", shape=(None, 784))
    h = x
    for i in range(0, len(shared), 2):
        h = T.dot(h, shared[i]) + shared[i + 1]
        if i < len(shared) - 2:
            h = T.tanh(h)
    f = sn.function([x], h)

    def reference(x, *ps):
        h = x
        for i in range(0, len(ps), 2):
            h = jnp.dot(h, ps[i]) + ps[i + 1]
            if i < len(ps) - 2:
                h = jnp.tanh(h)
        return h

    jitted = jax.jit(reference)
    device_params = [jax.device_put(p) for p in params]
    np.testing.assert_allclose(f(batch), np.asarray(jitted(batch, *device_params)), rtol=2e-4, atol=2e-4)
    return compare("MLP forward 256x784-512-512-10 (tanh)", lambda: f(batch),
                   lambda: np.asarray(jitted(batch, *device_params)), number=50, target=1.05)


def test_value_chain_small(n: int = 10_000) -> dict:
    x = T.vector("x", test_value=np.full(16, 0.5, dtype="float32"))

    def build():
        y = x
        for _ in range(n):
            y = T.tanh(y * 1.0001)
        return y

    per_node = best_time(build, number=1, repeat=3) / (2 * n)
    verdict = "ok" if per_node <= 15e-6 else "OVER TARGET"
    print(f"{'test values: 20,000-node chain, 16 values':<48} {per_node * 1e6:10.2f} us per node "
          f"(target <= 15) {verdict}")
    return {"name": "test value chain small", "per_node_s": per_node, "target": 15e-6}


def test_value_chain_large(n: int = 20) -> dict:
    value = np.random.default_rng(0).uniform(size=(1000, 1000)).astype("float32")
    x = T.matrix("x", test_value=value)

    def build():
        y = x
        for _ in range(n):
            y = T.tanh(y * 1.0001)
        return y.test_value

    def numpy_eager():
        y = value
        for _ in range(n):
            y = np.tanh(y * np.float32(1.0001))
        return y

    np.testing.assert_allclose(build(), numpy_eager(), rtol=1e-5)
    ours, reference = best_time(build, 1, 5), best_time(numpy_eager, 1, 5)
    ratio = ours / reference
    verdict = "ok" if ratio <= 1.2 else "OVER TARGET"
    print(f"{'test values: 40-node chain on 1000x1000':<48} build {ours * 1e3:8.1f} ms   "
          f"NumPy {reference * 1e3:8.1f} ms   ratio {ratio:5.2f} (target <= 1.2) {verdict}")
    return {"name": "test value chain large", "ratio": ratio, "target": 1.2}


def main() -> None:
    print(f"jax {jax.__version__} on {jax.default_backend()}; numpy {np.__version__}")
    call_overhead()
    mlp_forward()
    test_value_chain_small()
    test_value_chain_large()


if __name__ == "__main__":
    main()
