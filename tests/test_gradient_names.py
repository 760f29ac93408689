"""``symnb.gradient`` holds Theano 1.0's ``theano.gradient`` names: ``Rop`` and ``Lop``
are defined there in Theano (``theano.tensor`` re-exports them), and programs call
``theano.gradient.Rop``."""

import numpy as np

import symnb as theano
import symnb.tensor as T


def test_rop_and_lop_from_the_gradient_module():
    assert theano.gradient.Rop is T.Rop and theano.gradient.Lop is T.Lop
    W = T.dmatrix("W")
    x, v, u = T.dvector("x"), T.dvector("v"), T.dvector("u")
    y = T.tanh(T.dot(W, x))
    f = theano.function([W, x, v, u], [theano.gradient.Rop(y, x, v),
                                      theano.gradient.Lop(y, x, u)])
    rng = np.random.default_rng(0)
    Wv, xv, vv, uv = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4), \
        rng.normal(size=3)
    J = (1 - np.tanh(Wv @ xv) ** 2)[:, None] * Wv     # the Jacobian, by hand
    jv, uj = f(Wv, xv, vv, uv)
    np.testing.assert_allclose(jv, J @ vv, rtol=1e-10)
    np.testing.assert_allclose(uj, uv @ J, rtol=1e-10)
