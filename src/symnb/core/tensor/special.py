"""Theano's special functions on tensors (``T.gammaln``, ``T.psi``, ``T.erfinv``...): the
``basic_scipy`` scalar ops (:mod:`symnb.core.tensor.scalar_scipy`) applied elementwise,
as ``theano.tensor`` made them (``Elemwise(scalar.gammaln)``). Their values come from
SciPy (needed to compute them), compiled programs compute them with
``jax.scipy.special`` where JAX has the function; their output dtype is Theano's
(``upgrade_to_float``: int8 gives float32, int32 float64).
"""

from __future__ import annotations

from typing import Any, Callable

from symnb.core.graph.basic import Variable
from symnb.core.tensor import scalar_scipy as sp
from symnb.core.tensor.scalar_elemwise import ScalarElemwise

__all__ = ["erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "psi", "tri_gamma",
           "gammainc", "gammaincc", "i0", "i1", "iv", "j0", "j1", "jv"]


def _function(scalar_op: Any, doc: str) -> Callable[..., Variable]:
    """The tensor function applying ``scalar_op`` elementwise."""
    op = ScalarElemwise(scalar_op)

    def apply(*operands: Any) -> Variable:
        return op(*operands)

    apply.__name__ = apply.__qualname__ = scalar_op.name
    apply.__doc__ = doc
    return apply


erfc = _function(sp.erfc, "The complementary error function ``1 - erf(x)``.")
erfcx = _function(sp.erfcx, "The scaled complementary error function ``exp(x**2) * erfc(x)``.")
erfinv = _function(sp.erfinv, "The inverse error function.")
erfcinv = _function(sp.erfcinv, "The inverse complementary error function.")
gamma = _function(sp.gamma, "The gamma function.")
gammaln = _function(sp.gammaln, "The logarithm of the absolute value of the gamma function.")
psi = _function(sp.psi, "The digamma function (the derivative of ``gammaln``).")
tri_gamma = _function(sp.tri_gamma, "The trigamma function (the derivative of ``psi``; no "
                                    "gradient of its own, as in Theano).")
gammainc = _function(sp.gammainc, "``gammainc(k, x)``: the regularized lower incomplete gamma "
                                  "function (no gradient, as in Theano).")
gammaincc = _function(sp.gammaincc, "``gammaincc(k, x)``: the regularized upper incomplete "
                                    "gamma function (no gradient, as in Theano).")
i0 = _function(sp.i0, "The modified Bessel function of the first kind of order 0.")
i1 = _function(sp.i1, "The modified Bessel function of the first kind of order 1.")
iv = _function(sp.iv, "``iv(v, x)``: the modified Bessel function of the first kind of order "
                      "``v`` (no gradient with respect to ``v``).")
j0 = _function(sp.j0, "The Bessel function of the first kind of order 0.")
j1 = _function(sp.j1, "The Bessel function of the first kind of order 1.")
jv = _function(sp.jv, "``jv(v, x)``: the Bessel function of the first kind of order ``v`` (no "
                      "gradient with respect to ``v``).")
