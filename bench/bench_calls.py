"""Call overhead per number of inputs (issues 22, 30), against hand-written ``jax.jit`` in one process.

    python bench/bench_calls.py [--quick]

A tiny function of 1, 2, 3 and 10 ``(10,)`` float32 inputs, ``x0 * 2 + x1 + ... + 1``,
called with NumPy arrays, against the same function under ``jax.jit`` whose result is
read as an array the caller owns, ``np.array(jitted(...))``, as symnb hands out
(Theano's contract: outputs may be written; issue 30's reference). Target: at most
1.10x for every input count. Alternating rounds, best of each (see ``timing.compare``).

A second line per input count (information) compares with ``np.asarray(jitted(...))``,
a read-only view where JAX allows one (no copy: about 0.35 us less than symnb's work).
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from timing import compare  # noqa: E402

TARGET = 1.10


def _expression(values):
    total = values[0] * 2
    for v in values[1:]:
        total = total + v
    return total + 1


def call_overhead(n_inputs: int, number: int = 2000, rounds: int = 8) -> dict:
    variables = [T.vector(f"x{i}") for i in range(n_inputs)]
    f = sn.function(variables, _expression(variables))
    jitted = jax.jit(lambda *vs: _expression(vs))
    args = [np.full(10, i + 1, dtype="float32") for i in range(n_inputs)]
    np.testing.assert_allclose(f(*args), np.asarray(jitted(*args)))
    result = compare(f"call overhead, {n_inputs:>2} (10,) input(s)", lambda: f(*args),
                     lambda: np.array(jitted(*args)), number=number, target=TARGET, rounds=rounds,
                     labels=("symnb", "np.array(jit)"))
    compare("  the same against a view, no copy (information)", lambda: f(*args),
            lambda: np.asarray(jitted(*args)), number=number, target=TARGET, rounds=rounds,
            labels=("symnb", "np.asarray(jit)"))
    return result


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"jax {jax.__version__} on {jax.default_backend()}; numpy {np.__version__}")
    for n in (1, 2, 3, 10):
        call_overhead(n, number=500 if quick else 2000, rounds=3 if quick else 8)


if __name__ == "__main__":
    main()
