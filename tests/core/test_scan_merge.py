"""Loops merged into one (core/scan/merge.py, Theano's ScanMerge): values against NumPy,
and which loops merge."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import Scan
from tests.reference import assert_same


def _scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def test_loops_over_the_same_steps_merge_into_one():
    # Bodies with a state (an elementwise output of the rows alone leaves its loop).
    x, zero = T.vector("x"), T.constant(np.float32(0))
    sx, _ = sn.scan(lambda s, h: h + s, sequences=[x], outputs_info=zero, name="X")
    sy, _ = sn.scan(lambda s, h: h * s, sequences=[sx], outputs_info=T.constant(np.float32(1)),
                    name="Y")  # reads X: stays apart
    sz, _ = sn.scan(lambda s, h: h - s, sequences=[x], outputs_info=zero, name="Z")
    sw, _ = sn.scan(lambda s, h: h + 3 * s, sequences=[x[1:]], outputs_info=zero,
                    name="W")  # other steps: apart
    f = sn.function([x], [sx, sy, sz, sw])
    loops = {frozenset(n.op.info.name.split("&")) for n in _scan_nodes(f)}
    assert loops == {frozenset("W"), frozenset("XZ"), frozenset("Y")}, loops
    v = np.array([0.5, -1, 2, 4], "float32")
    for got, want in zip(f(v), [np.cumsum(v), np.cumprod(np.cumsum(v)), -np.cumsum(v),
                                3 * np.cumsum(v[1:])]):
        assert_same(got, want.astype("float32"), "merged")


def test_until_loops_merge_only_with_the_same_condition():
    x = T.vector("x")
    o1, _ = sn.scan(lambda t: (t + 1, sn.scan_module.until(t > 3)), x)
    o2, _ = sn.scan(lambda t: (t + 2, sn.scan_module.until(t > 3)), x)
    o3, _ = sn.scan(lambda t: (t + 3, sn.scan_module.until(t > 2)), x)
    f = sn.function([x], [o1, o2, o3])
    assert len(_scan_nodes(f)) == 2
    v = np.zeros(50, "float32")
    v[23], v[10] = 4, 3
    r1, r2, r3 = f(v)
    assert_same(r1, v[:24] + 1, "first")
    assert_same(r2, v[:24] + 2, "second")
    assert_same(r3, v[:11] + 3, "other condition")
