"""Theano's special functions on tensors (``T.gammaln``, ``T.psi``, ``T.erfinv``...): the
``basic_scipy`` scalar ops (:mod:`symnb.core.tensor.scalar_scipy`) applied elementwise,
as ``theano.tensor`` made them (``Elemwise(scalar.gammaln)``). Their values come from
SciPy (needed to compute them), compiled programs compute them with
``jax.scipy.special`` where JAX has the function; their output dtype is Theano's
(``upgrade_to_float``: int8 gives float32, int32 float64).
"""

from __future__ import annotations

from typing import Any

from symnb.core.tensor import scalar_scipy as sp, scalar_trig as st
from symnb.core.tensor.scalar_elemwise import ScalarElemwise

__all__ = ["inv", "cosh", "sinh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh",
           "arctanh", "log2", "log10", "exp2", "deg2rad", "rad2deg", "erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "psi", "tri_gamma",
           "gammainc", "gammaincc", "i0", "i1", "iv", "j0", "j1", "jv", "chi2sf", "conj",
           "complex_from_polar", "real", "imag", "angle", "complex"]


def _function(scalar_op: Any, doc: str) -> ScalarElemwise:
    """The op applying ``scalar_op`` elementwise, named and documented: as in Theano, the
    public function is the ``Elemwise`` op's instance (``fn = T.erfc`` in a class body
    stays the op, never becomes a method)."""
    # Theano's name of such an op (str(T.erfc) is "Elemwise{erfc,no_inplace}"; its test
    # makers name their classes from it).
    op = ScalarElemwise(scalar_op, name=f"Elemwise{{{scalar_op.name},no_inplace}}")
    object.__setattr__(op, "__name__", scalar_op.name)
    object.__setattr__(op, "__qualname__", scalar_op.name)
    object.__setattr__(op, "__doc__", doc)
    return op


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

# theano.scalar.basic's ops beyond the elementwise table, applied elementwise (NumPy's
# functions; compiled with jax.numpy's).
inv = _function(st.inv, "``1 / x``, the reciprocal (Theano's ``T.inv``; integers give floats: "
                        "int8 float32, int64 float64).")
cosh = _function(st.cosh, "Hyperbolic cosine.")
sinh = _function(st.sinh, "Hyperbolic sine.")
arcsin = _function(st.arcsin, "Inverse sine.")
arccos = _function(st.arccos, "Inverse cosine.")
arctan = _function(st.arctan, "Inverse tangent.")
arctan2 = _function(st.arctan2, "``arctan2(y, x)``: the angle of the point ``(x, y)``.")
arcsinh = _function(st.arcsinh, "Inverse hyperbolic sine.")
arccosh = _function(st.arccosh, "Inverse hyperbolic cosine.")
arctanh = _function(st.arctanh, "Inverse hyperbolic tangent.")
log2 = _function(st.log2, "Base-2 logarithm.")
log10 = _function(st.log10, "Base-10 logarithm.")
exp2 = _function(st.exp2, "``2 ** x``.")
deg2rad = _function(st.deg2rad, "Degrees to radians.")
rad2deg = _function(st.rad2deg, "Radians to degrees.")
chi2sf = _function(sp.chi2sf, "``chi2sf(x, k)``: the chi-squared survival function (``scipy.stats.chi2.sf``).")
conj = _function(st.conj, "The complex conjugate (real tensors are their own).")
real = _function(st.real, "The real part (complex64 gives float32; a real tensor itself).")
imag = _function(st.imag, "The imaginary part (complex64 gives float32; a real tensor zeros).")
angle = _function(st.angle, "The argument of a complex number (float64, Theano's ``angle``).")
complex = _function(st.complex, "``complex(real, imag)``: the complex tensor of two real "  # noqa: A001
                                "parts (complex128 from 64-bit or int32 parts, else complex64).")
complex_from_polar = _function(st.complex_from_polar, "``complex_from_polar(abs, angle)``: "
                                                      "``abs * exp(1j * angle)``.")
