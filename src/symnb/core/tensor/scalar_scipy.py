"""Theano's ``theano.scalar.basic_scipy``: scalar ops whose values SciPy computes
(``gammaln``, ``psi``, ``erfinv``, the Bessel functions...), with their gradients.

Their ``impl`` and ``nfunc_spec`` are SciPy's functions (imported when a value is
computed: SciPy is not a dependency of symnb's core; without it, computing one raises
naming it). Compiled programs compute them with ``jax.scipy.special`` where JAX has the
function (``lower_xla/rules/scalar_elemwise.py``), else call SciPy from the program.
Use them as Theano's: ``T.Elemwise(GammaLn(upgrade_to_float, name='gammaln'))`` or
``symnb.scalar.basic_scipy.gammaln(x)`` on tensors.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np

from symnb.core.graph.basic import Constant
from symnb.core.tensor.scalar_basic import erf, exp, Erf
from symnb.core.tensor.scalar_op import BinaryScalarOp, UnaryScalarOp
from symnb.core.tensor.scalar_types import upgrade_to_float, upgrade_to_float64, upgrade_to_float_no_complex

__all__ = ["Erf", "Erfc", "Erfcx", "Erfinv", "Erfcinv", "Gamma", "GammaLn", "Psi", "TriGamma",
           "GammaInc", "GammaIncC", "I0", "I1", "Iv", "J0", "J1", "Jv",
           "erf", "erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "psi", "tri_gamma",
           "gammainc", "gammaincc", "i0", "i1", "iv", "j0", "j1", "jv"]

_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)
_SQRT_PI_OVER_TWO = np.sqrt(np.pi) / 2.0


def _special(name: str) -> Callable[..., Any]:
    """``scipy.special.<name>`` (imported when first needed)."""
    try:
        return getattr(importlib.import_module("scipy.special"), name)
    except ImportError as err:
        raise ImportError(f"scipy.special.{name} computes this op's values: install SciPy "
                          f"({err})") from None


class _SciPyOp:
    """Mixin: ``impl`` is the function ``nfunc_spec`` names in scipy.special."""

    nfunc_spec: tuple

    def impl(self, *inputs: Any) -> Any:
        return _special(self.nfunc_spec[0].rpartition(".")[2])(*inputs)


def _not_differentiable_in(op: Any, position: int, var: Any) -> None:
    """Theano's ``grad_not_implemented``, made eager: refuse unless ``var`` is a constant
    (whose gradient no cost asks for)."""
    if not isinstance(var, Constant):
        raise NotImplementedError(f"{op}: the gradient with respect to input {position} is "
                                  f"not implemented (as in Theano)")


class Erfc(_SciPyOp, UnaryScalarOp):
    """The complementary error function ``1 - erf(x)``."""

    nfunc_spec = ("scipy.special.erfc", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [-gz * _TWO_OVER_SQRT_PI * exp(-x * x)]


class Erfcx(_SciPyOp, UnaryScalarOp):
    """The scaled complementary error function ``exp(x**2) * erfc(x)``."""

    nfunc_spec = ("scipy.special.erfcx", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * (-_TWO_OVER_SQRT_PI + 2.0 * x * erfcx(x))]


class Erfinv(_SciPyOp, UnaryScalarOp):
    """The inverse error function."""

    nfunc_spec = ("scipy.special.erfinv", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * _SQRT_PI_OVER_TWO * exp(erfinv(x) ** 2)]


class Erfcinv(_SciPyOp, UnaryScalarOp):
    """The inverse complementary error function."""

    nfunc_spec = ("scipy.special.erfcinv", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [-gz * _SQRT_PI_OVER_TWO * exp(erfcinv(x) ** 2)]


class Gamma(_SciPyOp, UnaryScalarOp):
    """The gamma function."""

    nfunc_spec = ("scipy.special.gamma", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * gamma(x) * psi(x)]


class GammaLn(_SciPyOp, UnaryScalarOp):
    """The logarithm of the absolute value of the gamma function."""

    nfunc_spec = ("scipy.special.gammaln", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * psi(x)]


class Psi(_SciPyOp, UnaryScalarOp):
    """The digamma function, the derivative of ``gammaln``."""

    nfunc_spec = ("scipy.special.psi", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * tri_gamma(x)]


class TriGamma(UnaryScalarOp):
    """The trigamma function, the derivative of ``psi`` (no gradient, as in Theano)."""

    def impl(self, x: Any) -> Any:
        return _special("polygamma")(1, x)

    def array_impl(self, nin: int) -> Callable[..., Any] | None:
        return self.impl if type(self).impl is TriGamma.impl else None


class GammaInc(_SciPyOp, BinaryScalarOp):
    """The regularized lower incomplete gamma function ``P(k, x)`` (no gradient, as in
    Theano)."""

    nfunc_spec = ("scipy.special.gammainc", 2, 1)


class GammaIncC(_SciPyOp, BinaryScalarOp):
    """The regularized upper incomplete gamma function ``Q(k, x)`` (no gradient, as in
    Theano)."""

    nfunc_spec = ("scipy.special.gammaincc", 2, 1)


class I0(_SciPyOp, UnaryScalarOp):
    """The modified Bessel function of the first kind of order 0."""

    nfunc_spec = ("scipy.special.i0", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * i1(x)]


class I1(_SciPyOp, UnaryScalarOp):
    """The modified Bessel function of the first kind of order 1."""

    nfunc_spec = ("scipy.special.i1", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * (i0(x) + iv(2, x)) / 2.0]


class Iv(_SciPyOp, BinaryScalarOp):
    """The modified Bessel function of the first kind of real order ``v``."""

    nfunc_spec = ("scipy.special.iv", 2, 1)

    def grad(self, inputs, grads):
        (v, x), (gz,) = inputs, grads
        _not_differentiable_in(self, 0, v)
        return [None, gz * (iv(v - 1, x) + iv(v + 1, x)) / 2.0]


class J0(_SciPyOp, UnaryScalarOp):
    """The Bessel function of the first kind of order 0."""

    nfunc_spec = ("scipy.special.j0", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [-gz * j1(x)]


class J1(_SciPyOp, UnaryScalarOp):
    """The Bessel function of the first kind of order 1."""

    nfunc_spec = ("scipy.special.j1", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * (j0(x) - jv(2, x)) / 2.0]


class Jv(_SciPyOp, BinaryScalarOp):
    """The Bessel function of the first kind of real order ``v``."""

    nfunc_spec = ("scipy.special.jv", 2, 1)

    def grad(self, inputs, grads):
        (v, x), (gz,) = inputs, grads
        _not_differentiable_in(self, 0, v)
        return [None, gz * (jv(v - 1, x) - jv(v + 1, x)) / 2.0]


# Theano's instances, with Theano's output types.
erfc = Erfc(upgrade_to_float_no_complex, name="erfc")
erfcx = Erfcx(upgrade_to_float_no_complex, name="erfcx")
erfinv = Erfinv(upgrade_to_float_no_complex, name="erfinv")
erfcinv = Erfcinv(upgrade_to_float_no_complex, name="erfcinv")
gamma = Gamma(upgrade_to_float, name="gamma")
gammaln = GammaLn(upgrade_to_float, name="gammaln")
psi = Psi(upgrade_to_float, name="psi")
tri_gamma = TriGamma(upgrade_to_float, name="tri_gamma")
gammainc = GammaInc(upgrade_to_float, name="gammainc")
gammaincc = GammaIncC(upgrade_to_float, name="gammaincc")
i0 = I0(upgrade_to_float, name="i0")
i1 = I1(upgrade_to_float, name="i1")
iv = Iv(upgrade_to_float, name="iv")
j0 = J0(upgrade_to_float, name="j0")
j1 = J1(upgrade_to_float, name="j1")
jv = Jv(upgrade_to_float, name="jv")


class Chi2SF(BinaryScalarOp):
    """``chi2sf(x, k)``: the survival function of the chi-squared distribution with ``k``
    degrees of freedom (``scipy.stats.chi2.sf``; Theano's ``basic_scipy.Chi2SF``, which has
    no gradient)."""

    nfunc_spec = ("scipy.stats.chi2.sf", 2, 1)

    def impl(self, x: Any, k: Any) -> Any:
        try:
            return importlib.import_module("scipy.stats").chi2.sf(x, k)
        except ImportError as err:
            raise ImportError(f"scipy.stats.chi2.sf computes this op's values: install SciPy "
                              f"({err})") from None


chi2sf = Chi2SF(upgrade_to_float64, name="chi2sf")  # as Theano: float64, whatever the inputs
__all__ += ["Chi2SF", "chi2sf"]
