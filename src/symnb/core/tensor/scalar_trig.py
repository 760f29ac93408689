"""Theano's scalar ops of ``theano.scalar.basic`` beyond the elementwise table: the
hyperbolic and inverse trigonometric functions, ``log2``/``log10``/``exp2``, the
angle conversions and the complex parts (``real``, ``imag``, ``angle``, ``complex``,
``conj``), with Theano's gradients and output types (``upgrade_to_float``, ``real_out``).

``impl`` and ``nfunc_spec`` are NumPy's functions (test values, the NumPy reference);
compiled programs compute them with ``jax.numpy``'s function of the same name
(``lower_xla/rules/scalar_elemwise.py`` resolves ``nfunc_spec``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.tensor.scalar_basic import sqrt
from symnb.core.tensor.scalar_op import BinaryScalarOp, UnaryScalarOp
from symnb.core.tensor.scalar_types import float64, real_out, same_out, specific_out, upgrade_to_float

__all__ = ["Inv", "inv", "Cosh", "Sinh", "ArcSin", "ArcCos", "ArcTan", "ArcTan2", "ArcSinh", "ArcCosh",
           "ArcTanh", "Log2", "Log10", "Exp2", "Deg2Rad", "Rad2Deg",
           "cosh", "sinh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh",
           "arctanh", "log2", "log10", "exp2", "deg2rad", "rad2deg"]


class _NumPyOp:
    """Mixin: ``impl`` is the NumPy function ``nfunc_spec`` names."""

    nfunc_spec: tuple

    def impl(self, *inputs: Any) -> Any:
        return getattr(np, self.nfunc_spec[0].rpartition(".")[2])(*inputs)


def _unary(name: str, doc: str, derivative) -> type:
    """A unary op class: ``grad`` is ``gz * derivative(x)`` (Theano's formula)."""

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [gz * derivative(x)]

    return type(name, (_NumPyOp, UnaryScalarOp), {
        "__doc__": doc, "nfunc_spec": (f"numpy.{name.lower()}", 1, 1), "grad": grad,
        "__module__": __name__})


Cosh = _unary("Cosh", "Hyperbolic cosine.", lambda x: sinh(x))
Sinh = _unary("Sinh", "Hyperbolic sine.", lambda x: cosh(x))
ArcSin = _unary("ArcSin", "Inverse sine.", lambda x: 1.0 / sqrt(1.0 - x * x))
ArcCos = _unary("ArcCos", "Inverse cosine.", lambda x: -1.0 / sqrt(1.0 - x * x))
ArcTan = _unary("ArcTan", "Inverse tangent.", lambda x: 1.0 / (1.0 + x * x))
ArcSinh = _unary("ArcSinh", "Inverse hyperbolic sine.", lambda x: 1.0 / sqrt(x * x + 1.0))
ArcCosh = _unary("ArcCosh", "Inverse hyperbolic cosine.", lambda x: 1.0 / sqrt(x * x - 1.0))
ArcTanh = _unary("ArcTanh", "Inverse hyperbolic tangent.", lambda x: 1.0 / (1.0 - x * x))
Log2 = _unary("Log2", "Base-2 logarithm.", lambda x: 1.0 / (x * np.log(2.0)))
Log10 = _unary("Log10", "Base-10 logarithm.", lambda x: 1.0 / (x * np.log(10.0)))
Exp2 = _unary("Exp2", "``2 ** x``.", lambda x: exp2(x) * np.log(2.0))
# The factor in x's dtype (Theano's np.asarray(np.pi / 180, gz.type)): a Python float
# would be a floatX constant, rounding a float64 gradient to float32.
Deg2Rad = _unary("Deg2Rad", "Degrees to radians.",
                 lambda x: x * 0.0 + np.asarray(np.pi / 180.0, x.dtype))
Rad2Deg = _unary("Rad2Deg", "Radians to degrees.",
                 lambda x: x * 0.0 + np.asarray(180.0 / np.pi, x.dtype))


class ArcTan2(_NumPyOp, BinaryScalarOp):
    """``arctan2(y, x)``: the angle of the point ``(x, y)``, in ``[-pi, pi]``."""

    nfunc_spec = ("numpy.arctan2", 2, 1)

    def grad(self, inputs, grads):
        (y, x), (gz,) = inputs, grads
        r2 = x * x + y * y
        return [gz * x / r2, -gz * y / r2]


class Inv(_NumPyOp, UnaryScalarOp):
    """The multiplicative inverse ``1 / x`` (Theano's ``scalar.inv``, the reciprocal): NumPy's
    ``reciprocal`` of the input converted to the output's dtype (``upgrade_to_float``:
    integers give floats, int8 float32 and int64 float64)."""

    nfunc_spec = ("numpy.reciprocal", 1, 1)

    def impl(self, x: Any) -> Any:
        # Theano's impl (the dtype of a scalar value; arrays go through nfunc_spec)
        return np.float32(1.0) / x

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [-gz / (x * x)]


# Theano's instances, with Theano's output types.
inv = Inv(upgrade_to_float, name="inv")
cosh = Cosh(upgrade_to_float, name="cosh")
sinh = Sinh(upgrade_to_float, name="sinh")
arcsin = ArcSin(upgrade_to_float, name="arcsin")
arccos = ArcCos(upgrade_to_float, name="arccos")
arctan = ArcTan(upgrade_to_float, name="arctan")
arctan2 = ArcTan2(upgrade_to_float, name="arctan2")
arcsinh = ArcSinh(upgrade_to_float, name="arcsinh")
arccosh = ArcCosh(upgrade_to_float, name="arccosh")
arctanh = ArcTanh(upgrade_to_float, name="arctanh")
log2 = Log2(upgrade_to_float, name="log2")
log10 = Log10(upgrade_to_float, name="log10")
exp2 = Exp2(upgrade_to_float, name="exp2")
deg2rad = Deg2Rad(upgrade_to_float, name="deg2rad")
rad2deg = Rad2Deg(upgrade_to_float, name="rad2deg")


class Conj(_NumPyOp, UnaryScalarOp):
    """The complex conjugate (a real number is its own conjugate; Theano's ``Conj``)."""

    nfunc_spec = ("numpy.conj", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [conj(gz)]


def _complex_of(*types: Any) -> tuple:
    """complex64 for float32 (and smaller) inputs, else complex128 (Theano's rule for
    ``complex_from_polar``)."""
    from symnb.core.tensor.scalar_types import complex64, complex128

    (real,) = upgrade_to_float(*types)
    return (complex64 if real.dtype in ("float16", "float32") else complex128,)


class ComplexFromPolar(BinaryScalarOp):
    """``complex_from_polar(abs, angle)``: ``abs * exp(1j * angle)`` (Theano's op)."""

    nfunc_spec = None

    def impl(self, r: Any, theta: Any) -> Any:
        return np.asarray(r) * np.exp(1j * np.asarray(theta))


class Real(_NumPyOp, UnaryScalarOp):
    """The real part (Theano's ``Real``: complex64 gives float32; a real input itself)."""

    nfunc_spec = ("numpy.real", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        return [complex(gz, 0) if x.dtype.startswith("complex") else gz]


class Imag(_NumPyOp, UnaryScalarOp):
    """The imaginary part (Theano's ``Imag``: complex64 gives float32; a real input 0)."""

    nfunc_spec = ("numpy.imag", 1, 1)

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        if x.dtype.startswith("complex"):
            return [complex(0, gz)]
        return [x.zeros_like()] if x.dtype.startswith("float") else [None]


class Angle(_NumPyOp, UnaryScalarOp):
    """The argument of a complex number, float64 whatever the input (Theano's ``Angle``)."""

    nfunc_spec = ("numpy.angle", 1, 1)

    def grad(self, inputs, grads):
        (c,), (gtheta,) = inputs, grads
        if not c.dtype.startswith("complex"):
            return [c.zeros_like()] if c.dtype.startswith("float") else [None]
        # d angle = (x dy - y dx) / r**2: the gradient of a complex input is gx + i gy
        x, y = real(c), imag(c)
        r2 = x * x + y * y
        return [complex(-gtheta * y / r2, gtheta * x / r2)]


def _complex_out(x: Any, y: Any) -> tuple:
    """Theano's ``Complex``: complex128 for a 64-bit (or int32/uint32) pair, else
    complex64; complex inputs are refused."""
    from symnb.core.tensor.scalar_types import Scalar, complex64, complex128

    for t in (x, y):
        if t.dtype.startswith("complex"):
            raise TypeError(f"complex: the parts must be real, got {t.dtype}")
    up = Scalar.upcast(x, y)
    return (complex128 if up in ("float64", "int64", "uint64", "int32", "uint32") else complex64,)


class Complex(BinaryScalarOp):
    """``complex(real, imag)``: the complex number of two real parts (Theano's op)."""

    nfunc_spec = None

    def impl(self, x: Any, y: Any) -> Any:
        return _complex_array(x, y)

    def array_impl(self, nin: int) -> Any:
        return _complex_array

    def grad(self, inputs, grads):
        (x, y), (gz,) = inputs, grads
        return [real(gz), imag(gz)]  # (cast to the parts' dtypes by the elementwise op)


def _complex_array(x: Any, y: Any) -> np.ndarray:
    """The parts set one by one (``x + 1j * y`` would make ``1j * inf`` a NaN real part);
    the parts come converted to the complex dtype, their real parts are the values."""
    x, y = np.real(np.asarray(x)), np.real(np.asarray(y))
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), np.result_type(x, y, np.complex64))
    out.real, out.imag = x, y
    return out


conj = Conj(same_out, name="conj")
real = Real(real_out, name="real")
imag = Imag(real_out, name="imag")
angle = Angle(specific_out(float64), name="angle")
complex = Complex(_complex_out, name="complex")  # noqa: A001  (Theano's name)
complex_from_polar = ComplexFromPolar(_complex_of, name="complex_from_polar")
__all__ += ["Conj", "ComplexFromPolar", "conj", "complex_from_polar", "Real", "Imag", "Angle", "Complex",
            "real", "imag", "angle", "complex"]
