"""Names Theano 1.0's ``theano/__init__.py`` bound at the top level, reached as ``symnb.X``."""

import numpy as np

import symnb as sn
import symnb.tensor as T


def test_rop_lop_pprint_and_constants_at_the_top_level():
    x, v = T.dvector("x"), T.dvector("v")
    g = sn.grad(T.tanh(x).sum(), x)  # -2 tanh(x) (1 - tanh(x)**2) on the diagonal
    f = sn.function([x, v], [sn.Rop(g, x, v), sn.Lop(g, x, v)])
    xv, vv = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    t = np.tanh(xv)
    hessian_diagonal = -2 * t * (1 - t ** 2)
    for got in f(xv, vv):
        np.testing.assert_allclose(got, hessian_diagonal * vv, rtol=1e-12)
    assert sn.get_scalar_constant_value(T.constant(3) * 2) == 6
    assert sn.pprint(T.tanh(x)) == "tanh(x)"
    graph = sn.FunctionGraph([x], [T.tanh(x)])
    assert graph.inputs[0].name == "x" and len(graph.outputs) == 1
