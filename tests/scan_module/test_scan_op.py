"""``symnb.scan_module.scan_op.Scan``: the class of the op ``scan`` builds."""

import numpy as np

import symnb
import symnb.tensor as T
from symnb.scan_module import scan_op


def test_scan_nodes_are_found_by_their_class():
    x = T.dvector("x")
    out, _ = symnb.scan(lambda v, acc: acc + v, sequences=x, outputs_info=T.constant(0.0, dtype="float64"))
    f = symnb.function([x], out)
    values = np.arange(4.0)
    np.testing.assert_allclose(f(values), np.cumsum(values))
    assert any(isinstance(node.op, scan_op.Scan) for node in f.maker.fgraph.toposort())
