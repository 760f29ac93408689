"""An op written in Python (perform only) inside a compiled function, against the same
graph with a lowered op (issue 39).

    python bench/bench_python_op.py [--quick]

``tanh(x) -> double -> exp -> sum`` where ``double`` is Theano's documentation's
``DoubleOp`` (its ``perform`` runs on the host, called back from the XLA program:
``lower_xla/rules/python_op.py``) or symnb's ``x * 2`` (lowered into the program), for
float64 vectors of 10, 10,000 and 1,000,000 elements. Prints each time per call and the
ratio Python / lowered (information: a host callback costs a transfer to the host and
back and NumPy's own work; XLA fuses the lowered op with its neighbours). Alternating
rounds, best of each (``timing.best_time``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.core.graph.basic import Apply  # noqa: E402
from symnb.core.graph.op import Op  # noqa: E402
from timing import QUICK, best_time  # noqa: E402


class DoubleOp(Op):
    """The documentation's op: perform only (with infer_shape, for the program's shapes)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, node, shapes):
        return shapes


def functions() -> tuple:
    x = T.dvector("x", test_value=np.ones(3))
    python = sn.function([x], T.exp(DoubleOp()(T.tanh(x))).sum())
    lowered = sn.function([x], T.exp(T.tanh(x) * 2).sum())
    return python, lowered


def main() -> None:
    quick = "--quick" in sys.argv or QUICK
    python, lowered = functions()
    rounds = 1 if quick else 5
    print(f"tanh -> double -> exp -> sum, float64; best of {rounds} alternating rounds")
    for size in (10, 10_000, 1_000_000):
        value = np.random.default_rng(0).random(size)
        np.testing.assert_allclose(python(value), lowered(value), rtol=1e-9)  # summation order
        number = max(3, 20_000 // (size // 100 + 10)) if not quick else 3
        ours = reference = float("inf")
        for _ in range(rounds):
            ours = min(ours, best_time(lambda: python(value), number))
            reference = min(reference, best_time(lambda: lowered(value), number))
        print(f"  {size:>9,} elements: Python op {ours * 1e6:10.1f} us   lowered "
              f"{reference * 1e6:10.1f} us   ratio {ours / reference:6.2f}")


if __name__ == "__main__":
    main()
