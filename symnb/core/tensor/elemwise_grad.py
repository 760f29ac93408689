"""Gradient rules of the elementwise ops, side by side.

Each rule maps ``(inputs, output, g)`` to one gradient per input (``None`` for none),
as if no broadcasting happened; ``Elemwise.L_op`` then sums each gradient back to its
input's shape. Conventions at non-differentiable points follow JAX: ``abs`` has
gradient 1 at 0; ``maximum``/``minimum`` (and ``clip`` at its bounds) split the
gradient equally between tied operands; ``floor``, ``ceil``, ``round``, ``sign`` and
``//`` have gradient 0 everywhere; ``x ** y`` has gradient 0 with respect to ``y``
where ``x == 0``; comparisons and bitwise ops pass no gradient.
"""

from __future__ import annotations

import math
from typing import Callable

from symnb.core.graph import Constant
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import constant
from symnb.core.type import is_float

__all__ = ["GRADIENTS"]

GRADIENTS: dict[type, Callable] = {}


def _rule(op_class: type):
    def register(fn: Callable) -> Callable:
        GRADIENTS[op_class] = fn
        return fn

    return register


def _tie_split(a, b):
    """d max(a, b) / da as JAX computes it: 1 where a > b, 1/2 where a == b."""
    return m.add(m.cast(m.gt(a, b), a.dtype), m.mul(m.cast(m.eq(a, b), a.dtype), 0.5))


@_rule(ew.Add)
def _add(inputs, out, g):
    return [g, g]


@_rule(ew.Sub)
def _sub(inputs, out, g):
    return [g, m.neg(g)]


@_rule(ew.Mul)
def _mul(inputs, out, g):
    a, b = inputs
    return [m.mul(g, b), m.mul(g, a)]


@_rule(ew.TrueDiv)
def _true_div(inputs, out, g):
    a, b = inputs
    return [m.true_div(g, b), m.neg(m.true_div(m.mul(g, out), b))]


@_rule(ew.Pow)
def _pow(inputs, out, g):
    a, b = inputs
    if isinstance(b, Constant):  # x ** 3: a constant exponent, and no gradient for it
        lowered = constant(b.data - 1, dtype=b.dtype)
        return [m.mul(g, m.mul(b, m.pow(a, lowered))), None]
    base_grad = m.mul(g, m.mul(b, m.pow(a, m.sub(b, 1))))
    safe_a = m.switch(m.eq(a, 0), 1, a)  # JAX: d(x**y)/dy is 0 where x == 0
    return [base_grad, m.mul(m.mul(g, out), m.log(safe_a))]


@_rule(ew.Mod)
def _mod(inputs, out, g):
    a, b = inputs
    return [g, m.neg(m.mul(g, m.floor_div(a, b)))]


@_rule(ew.Maximum)
def _maximum(inputs, out, g):
    a, b = inputs
    return [m.mul(g, _tie_split(a, b)), m.mul(g, _tie_split(b, a))]


@_rule(ew.Minimum)
def _minimum(inputs, out, g):
    a, b = inputs
    return [m.mul(g, _tie_split(b, a)), m.mul(g, _tie_split(a, b))]


@_rule(ew.Clip)
def _clip(inputs, out, g):
    x, low, high = inputs
    raised = m.maximum(x, low)            # clip = minimum(maximum(x, low), high)
    through_min = _tie_split(high, raised)
    g_raised = m.mul(g, through_min)
    return [m.mul(g_raised, _tie_split(x, low)), m.mul(g_raised, _tie_split(low, x)),
            m.mul(g, _tie_split(raised, high))]


@_rule(ew.Neg)
def _neg(inputs, out, g):
    return [m.neg(g)]


@_rule(ew.Abs)
def _abs(inputs, out, g):
    x = inputs[0]
    return [m.mul(g, m.switch(m.ge(x, 0), 1, -1))]  # JAX: d|x|/dx is 1 at 0


@_rule(ew.Exp)
def _exp(inputs, out, g):
    return [m.mul(g, out)]


@_rule(ew.Log)
def _log(inputs, out, g):
    return [m.true_div(g, inputs[0])]


@_rule(ew.Log1p)
def _log1p(inputs, out, g):
    return [m.true_div(g, m.add(inputs[0], 1))]


@_rule(ew.Expm1)
def _expm1(inputs, out, g):
    return [m.mul(g, m.add(out, 1))]


@_rule(ew.Sqrt)
def _sqrt(inputs, out, g):
    return [m.true_div(m.mul(g, 0.5), out)]


@_rule(ew.Square)
def _square(inputs, out, g):
    return [m.mul(g, m.mul(inputs[0], 2))]


@_rule(ew.Sin)
def _sin(inputs, out, g):
    return [m.mul(g, m.cos(inputs[0]))]


@_rule(ew.Cos)
def _cos(inputs, out, g):
    return [m.neg(m.mul(g, m.sin(inputs[0])))]


@_rule(ew.Tanh)
def _tanh(inputs, out, g):
    return [m.mul(g, m.sub(1, m.square(out)))]


@_rule(ew.Sigmoid)
def _sigmoid(inputs, out, g):
    # sigmoid(x) * sigmoid(-x), not y * (1 - y): 1 - y cancels to 0 where y rounds to 1
    # (x > 17 in float32), losing the gradient's value there.
    x = inputs[0]
    if not is_float(x.dtype):  # no gradient for integers and bools (and -x is no bool op)
        return [None]
    return [m.mul(g, m.mul(out, m.sigmoid(m.neg(x))))]


@_rule(ew.Softplus)
def _softplus(inputs, out, g):
    return [m.mul(g, m.sigmoid(inputs[0]))]


@_rule(ew.Erf)
def _erf(inputs, out, g):
    x = inputs[0]
    return [m.mul(g, m.mul(m.exp(m.neg(m.square(x))), 2 / math.sqrt(math.pi)))]


@_rule(ew.Identity)
def _identity(inputs, out, g):
    return [g]


@_rule(ew.Switch)
def _switch(inputs, out, g):
    cond, a, b = inputs
    zero = constant(0, dtype=g.dtype)
    return [None, m.switch(cond, g, zero), m.switch(cond, zero, g)]


@_rule(ew.Cast)
def _cast(inputs, out, g):
    return [m.cast(g, inputs[0].dtype)]


def _zero_gradient(inputs, out, g):
    from symnb.core.tensor.alloc import zeros_like

    return [zeros_like(g) for _ in inputs]


for _flat in (ew.Sign, ew.Round, ew.Floor, ew.Ceil, ew.FloorDiv):
    GRADIENTS[_flat] = _zero_gradient
