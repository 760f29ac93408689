"""The log of a difference of powers of one base, in log space, registered with the other
stable forms of :mod:`symnb.core.tensor.stable_forms` (the ``stabilize`` pass rewrites it,
``local_log_pow_difference``; ``sn.grad`` differentiates the stable expression).

=================================  ======================================================
written                            built instead, where q > 0
=================================  ======================================================
``log(q ** u - q ** v)``           ``u * log(q) + log1p(-q ** (v - u))``
=================================  ======================================================

The identity ``q**u - q**v = q**u * (1 - q**(v - u))`` holds for every q > 0; its log is
the line above. It is Theano's ``local_log_add`` (``log(exp(x) + exp(y))`` ->
``x + log1p(exp(y - x))``, ``theano/tensor/opt.py``) for a difference, with ``exp`` in
base q. The written form loses the value when ``q ** u`` leaves the normal range: XLA's
CPU flushes subnormals to zero (``0.5 ** 1024``, 5.6e-309, is 0 and its log -inf where
NumPy gives -709.78), and any float underflows to 0 further out. PyMC3's
``DiscreteWeibull.logp`` is this form: ``log(q ** (x ** beta) - q ** ((x + 1) ** beta))``.

For q <= 0 ``log(q)`` is no number, while the written form can be one (integer
exponents of a negative base): there the written form is kept, through a ``switch`` on
``q > 0``. Each branch reads its operands replaced, on the other branch's side, by ones
that keep it finite (q = 1/2, u = 0, v = 1): neither computes an inf or a NaN where the
other is taken, so the gradient is finite where the value is (no ``0 * nan`` from the
branch not taken).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.type import TensorType
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.patterns import is_fill_constant, owner_op, same_computation
from symnb.core.tensor.stable_forms import Make, _form
from symnb.core.tensor.variable import TensorConstant

__all__ = ["pow_difference_operands"]

# The stand-ins a branch reads where the other branch is taken: q ** u - q ** v is then
# 1 - 1/2, and q ** (v - u) is 1/2: every value and every derivative finite.
_STAND_IN_Q, _STAND_IN_U, _STAND_IN_V = 0.5, 0.0, 1.0


def _constant(value: float, dtype: str) -> Variable:
    return TensorConstant(TensorType(dtype, ()), np.asarray(value, dtype=dtype))


def pow_difference_operands(var: Variable, out: Variable) -> tuple[Variable, Variable, Variable] | None:
    """``(q, u, v)`` when ``var`` is ``q ** u - q ** v`` of floats of ``out``'s dtype (one
    base, the same value in both powers), else None; None too for the written branch of
    this form's own expression (its base is ``switch(q > 0, 1/2, q)``)."""
    sub = owner_op(var, ew.Sub)
    if sub is None:
        return None
    first, second = owner_op(sub.inputs[0], ew.Pow), owner_op(sub.inputs[1], ew.Pow)
    if first is None or second is None or not same_computation(first.inputs[0], second.inputs[0]):
        return None
    q, u, v = first.inputs[0], first.inputs[1], second.inputs[1]
    if any(x.dtype != out.dtype or not x.dtype.startswith("float") for x in (q, u, v)):
        return None
    stand_in = owner_op(q, ew.Switch)
    if stand_in is not None and is_fill_constant(stand_in.inputs[1], _STAND_IN_Q, q) \
            and owner_op(stand_in.inputs[0], ew.Gt) is not None:
        return None
    return q, u, v


@_form(ew.Log, domain=(
    "up to rounding where q > 0 and q ** u - q ** v is in the normal range; beyond it the "
    "written difference is subnormal or 0 (XLA's CPU flushes subnormals to zero) and its log "
    "imprecise or -inf; for q <= 0 the written form is kept"))
def log_pow_difference(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(q ** u - q ** v) -> switch(q > 0, u * log(q) + log1p(-q ** (v - u)), the written form)."""
    operands = pow_difference_operands(inputs[0], out)
    if operands is None:
        return None
    q, u, v = operands
    dtype = out.dtype

    def c(value: float) -> Variable:
        return _constant(value, dtype)

    positive = make(ew.Gt(), q, c(0.0))

    def taken(x: Variable, stand_in: float) -> Variable:  # x where q > 0, the stand-in elsewhere
        return make(ew.Switch(), positive, x, c(stand_in))

    def not_taken(x: Variable, stand_in: float) -> Variable:
        return make(ew.Switch(), positive, c(stand_in), x)

    qp, up, vp = taken(q, _STAND_IN_Q), taken(u, _STAND_IN_U), taken(v, _STAND_IN_V)
    ratio = make(ew.Pow(), qp, make(ew.Sub(), vp, up))
    stable = make(ew.Add(), make(ew.Mul(), up, make(ew.Log(), qp)), make(ew.Log1p(), make(ew.Neg(), ratio)))
    qw, uw, vw = not_taken(q, _STAND_IN_Q), not_taken(u, _STAND_IN_U), not_taken(v, _STAND_IN_V)
    written = make(ew.Log(), make(ew.Sub(), make(ew.Pow(), qw, uw), make(ew.Pow(), qw, vw)))
    return make(ew.Switch(), positive, stable, written)
