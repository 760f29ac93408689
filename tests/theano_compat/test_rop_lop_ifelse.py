"""The R-operator and L-operator tutorial, and ``ifelse`` imported from its module."""

import numpy as np

import symnb as theano
import symnb.tensor as T
from symnb.ifelse import ifelse


def test_rop_and_lop_tutorial():
    W = T.dmatrix("W")
    V = T.dmatrix("V")
    x = T.dvector("x")
    y = T.dot(x, W)
    JV = T.Rop(y, W, V)
    f = theano.function([W, V, x], JV)
    np.testing.assert_allclose(f([[1, 1], [1, 1]], [[2, 2], [2, 2]], [0, 1]), [2.0, 2.0])

    v = T.dvector("v")
    VJ = T.Lop(y, W, v)
    g = theano.function([v, x], VJ)
    np.testing.assert_allclose(g([2, 2], [0, 1]), [[0.0, 0.0], [2.0, 2.0]])


def test_ifelse_and_switch():
    a, b = T.scalars("a", "b")
    x, y = T.matrices("x", "y")
    z_switch = T.switch(T.lt(a, b), T.mean(x), T.mean(y))
    z_lazy = ifelse(T.lt(a, b), T.mean(x), T.mean(y))
    f_switch = theano.function([a, b, x, y], z_switch, mode=theano.Mode(linker="vm"))
    f_lazyifelse = theano.function([a, b, x, y], z_lazy, mode=theano.Mode(linker="cvm"))
    val1, val2 = np.float32(0.0), np.float32(1.0)
    big_mat1 = np.ones((20, 30), dtype="float32")
    big_mat2 = np.full((20, 30), 3.0, dtype="float32")
    assert f_switch(val1, val2, big_mat1, big_mat2) == 1.0
    assert f_lazyifelse(val1, val2, big_mat1, big_mat2) == 1.0
    assert f_lazyifelse(val2, val1, big_mat1, big_mat2) == 3.0
