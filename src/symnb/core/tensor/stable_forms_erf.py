"""The error function's stable forms (Theano's ``local_log_erfc``, ``theano/tensor/opt.py``),
registered with the others of :mod:`symnb.core.tensor.stable_forms`: the ``stabilize``
pass rewrites them (``local_log_erfc``, ``local_log_one_plus_erf``,
``local_log_one_minus_erf``) and ``sn.grad`` differentiates their stable expression.

=======================  ================================================================
written                  built instead
=======================  ================================================================
``log(erfc(x))``         ``switch(x < t, log(erfc(min(x, t))), expansion(max(x, t)))``
``log(1 + erf(x))``      the same of ``-x`` (``1 + erf(x)`` is ``erfc(-x)``)
``log(1 - erf(x))``      the same of ``x``
=======================  ================================================================

``expansion`` is Theano's asymptotic expansion of ``log(erfc(x))`` for large x,
``-x**2 - log(x) - log(pi)/2 + log(1 - 1/(2x**2) + 3/(4x**4) - 15/(8x**6))`` (its next
term, 105/(16x**8), is below 1e-10 past the threshold). Each branch reads x clamped to
its side of ``t``, so neither computes an inf or a NaN where the other is taken
(``log(0)`` in the tail, ``1 / 0`` at 0): DebugMode's finiteness check passes, and the
gradient is finite everywhere (no ``0 * nan`` from the branch not taken). Below ``t``,
``min(x, t)`` is x: the value is the written one, bit for bit.

The threshold ``t`` differs from Theano's (26.641747557 for float64, 10.0541949 for
float32): Theano chose where NumPy's ``erfc`` reaches 0 through the subnormals; XLA on
CPU flushes subnormals to zero, so ``erfc(x)`` is 0 in a compiled program as soon as it
leaves the normal range (x above 26.543 in float64, 9.194 in float32), and Theano's
thresholds would leave -inf between the two. symnb switches just below:
:data:`LOG_ERFC_THRESHOLD`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.type import TensorType
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.patterns import is_fill_constant, other_operand, owner_op
from symnb.core.tensor.scalar_elemwise import ScalarElemwise
from symnb.core.tensor.scalar_scipy import Erfc
from symnb.core.tensor.special import erfc
from symnb.core.tensor.stable_forms import Make, _form
from symnb.core.tensor.variable import TensorConstant

__all__ = ["LOG_ERFC_THRESHOLD", "erf_argument", "erfc_argument"]

#: Where the expansion takes over, by dtype: just below the point where ``erfc(x)``
#: leaves the normal range (see the module's docstring).
LOG_ERFC_THRESHOLD = {"float64": 26.5, "float32": 9.1}

_DOMAIN = ("where {x} is below 26.5 in float64 (9.1 in float32): beyond, {written} is "
           "subnormal or 0 and its log imprecise or -inf (the expansion is within 1e-10 of "
           "the exact value there)")


def _constant(value: float, dtype: str) -> Variable:
    return TensorConstant(TensorType(dtype, ()), np.asarray(value, dtype=dtype))


def erf_argument(var: Variable, out: Variable) -> Variable | None:
    """``x`` when ``var`` is ``erf(x)`` of a float ``x`` of ``out``'s dtype and shape."""
    node = owner_op(var, ew.Erf)
    x = None if node is None else node.inputs[0]
    if x is None or x.dtype != out.dtype or x.ndim != out.ndim or not x.dtype.startswith("float"):
        return None
    return x


def erfc_argument(var: Variable) -> Variable | None:
    """``x`` when ``var`` is ``erfc(x)`` (``T.erfc``: Theano's ``Elemwise(scalar.erfc)``)."""
    node = owner_op(var, ScalarElemwise)
    if node is None or not isinstance(node.op.scalar_op, Erfc):
        return None
    return node.inputs[0]


def _expansion(x: Variable, make: Make) -> Variable:
    """Theano's expansion of log(erfc(x)), its series in u = 1/x**2 written
    ``1 + u*(-1/2 + u*(3/4 - u*15/8))``."""
    def c(value: float) -> Variable:
        return _constant(value, x.dtype)

    square = make(ew.Mul(), x, x)
    u = make(ew.TrueDiv(), c(1.0), square)
    series = make(ew.Sub(), c(0.75), make(ew.Mul(), u, c(1.875)))
    series = make(ew.Add(), c(-0.5), make(ew.Mul(), u, series))
    series = make(ew.Add(), c(1.0), make(ew.Mul(), u, series))
    head = make(ew.Sub(), make(ew.Neg(), square), make(ew.Log(), x))
    head = make(ew.Sub(), head, c(0.5 * np.log(np.pi)))
    return make(ew.Add(), head, make(ew.Log(), series))


def _stable_log_erfc(x: Variable, out: Variable, make: Make) -> Variable | None:
    """The stable expression of ``log(erfc(x))`` in ``out``'s dtype; None for another
    dtype, or an ``x`` already clamped below the threshold (this form's own branch)."""
    threshold = LOG_ERFC_THRESHOLD.get(out.dtype)
    if threshold is None or x.dtype != out.dtype or x.ndim != out.ndim:
        return None
    clamp = owner_op(x, ew.Minimum)
    if clamp is not None and is_fill_constant(clamp.inputs[1], threshold, x):
        return None
    t = _constant(threshold, x.dtype)
    written = make(ew.Log(), make(erfc, make(ew.Minimum(), x, t)))
    expansion = _expansion(make(ew.Maximum(), x, t), make)
    return make(ew.Switch(), make(ew.Lt(), x, t), written, expansion)


@_form(ew.Log, domain=_DOMAIN.format(x="x", written="erfc(x)"))
def log_erfc(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(erfc(x)) -> switch(x < t, log(erfc(min(x, t))), expansion(max(x, t)))."""
    x = erfc_argument(inputs[0])
    return None if x is None else _stable_log_erfc(x, out, make)


@_form(ew.Log, domain=_DOMAIN.format(x="-x", written="1 + erf(x)") + (
    "; 1 + erf(x) also loses its digits for x below 0, and is 0 below about -5.9 in float64"))
def log_one_plus_erf(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(1 + erf(x)) -> log(erfc(-x)), stabilized."""
    add = owner_op(inputs[0], ew.Add)
    operand = None if add is None else other_operand(add, 1)
    x = None if operand is None else erf_argument(operand, out)
    return None if x is None else _stable_log_erfc(make(ew.Neg(), x), out, make)


@_form(ew.Log, domain=_DOMAIN.format(x="x", written="1 - erf(x)") + (
    "; 1 - erf(x) also loses its digits for x above 0, and is 0 above about 5.9 in float64"))
def log_one_minus_erf(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(1 - erf(x)) -> log(erfc(x)), stabilized."""
    sub = owner_op(inputs[0], ew.Sub)
    if sub is None or not is_fill_constant(sub.inputs[0], 1, sub.outputs[0]):
        return None
    x = erf_argument(sub.inputs[1], out)
    return None if x is None else _stable_log_erfc(x, out, make)
