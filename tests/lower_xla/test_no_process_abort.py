"""No graph symnb accepts may abort the process: XLA's CPU compiler aborted (a C++
CHECK failure, "Invalid binary instruction opcode map" in
``AlgebraicSimplifier::HandleReverse``) on the reversal of a scatter with no indices,
which ``x.at[:]`` writes of a whole array made. symnb writes those elementwise
(``lower_xla/rules/subtensor.py``). Each graph here compiles and runs in a subprocess,
so an abort fails the test instead of killing pytest; its values are NumPy's."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = """
import numpy as np
import symnb as sn
import symnb.tensor as T
x, y = T.dmatrix("x"), T.dmatrix("y")
a = np.arange(12.0).reshape(4, 3)
b = np.linspace(-1, 1, 12).reshape(4, 3)
def check(out, expected, *inputs):
    np.testing.assert_array_equal(sn.function(list(inputs), out)(*[{x: a, y: b}[v] for v in inputs]),
                                  expected)
"""

GRAPHS = {
    "inc_whole_then_reverse": "check(T.inc_subtensor(T.zeros_like(x)[:], x * y)[::-1], (a * b)[::-1], x, y)",
    "inc_whole_2d_then_reverse_columns": "check(T.inc_subtensor(x[:, :], y)[:, ::-1], (a + b)[:, ::-1], x, y)",
    "inc_ellipsis_then_reverse": "check(T.inc_subtensor(x[...], y)[::-1], (a + b)[::-1], x, y)",
    "inc_full_bounds_then_reverse": "check(T.inc_subtensor(x[0:4], y)[::-1], (a + b)[::-1], x, y)",
    "set_whole_then_reverse": "check(T.set_subtensor(x[:], y)[::-1], b[::-1], x, y)",
    "inc_whole_bool_then_reverse": textwrap.dedent("""
        m, n = T.gt(x, 5), T.lt(y, 0)
        check(T.inc_subtensor(m[:], n)[::-1], ((a > 5) | (b < 0))[::-1], x, y)"""),
    "scan_backwards_over_whole_slice_gradient": textwrap.dedent("""
        w = sn.shared(np.ones(3), name="w")
        out, _ = sn.scan(lambda r, h: T.tanh(r * w + h), sequences=x[:], outputs_info=T.zeros(3, dtype="float64"),
                         go_backwards=True)
        g = sn.function([x], sn.grad(out.sum(), w))(a)
        h, grads, hs = np.zeros(3), [], []
        for r in a[::-1]:
            hs.append((r, h)); h = np.tanh(r + h)
        up = np.zeros(3); total = np.zeros(3)
        for r, h_prev in reversed(hs):
            d = (1 - np.tanh(r + h_prev) ** 2) * (1 + up)
            total += d * r; up = d
        np.testing.assert_allclose(g, total, rtol=1e-12)"""),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graph_compiles_and_runs_without_killing_the_process(name):
    code = PRELUDE + textwrap.dedent(GRAPHS[name])
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{name}: the process died or failed ({done.returncode}):\n" \
                                 f"{done.stderr[-3000:]}"
