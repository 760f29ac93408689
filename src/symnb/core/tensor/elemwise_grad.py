"""Gradient rules of the elementwise ops, side by side (each row of
``elemwise_specs.SPECS`` names its rule here).

Each rule maps ``(inputs, output, g)`` to one gradient per input (``None`` for none),
as if no broadcasting happened; ``Elemwise.L_op`` then sums each gradient back to its
input's shape. Conventions at non-differentiable points follow JAX: ``abs`` has
gradient 1 at 0; ``maximum``/``minimum`` (and ``clip`` at its bounds) split the
gradient equally between tied operands; ``floor``, ``ceil``, ``round``, ``sign`` and
``//`` have gradient 0 everywhere; ``x ** y`` has gradient 0 with respect to ``y``
where ``x == 0``; comparisons and bitwise ops have no rule: their output is bool, and
``sn.grad`` passes zeros through every integer-valued output (Theano's op contract).
"""

from __future__ import annotations

import math
from typing import Any

from symnb.core.graph.basic import Constant
from symnb.core.graph.type import is_float
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import constant
from symnb.core.tensor.elemwise import ELEMWISE_OPS, GRADIENTS

__all__ = [
    "add", "sub", "mul", "true_div", "pow", "mod", "maximum", "minimum", "clip", "neg", "abs",
    "exp", "log", "log1p", "expm1", "sqrt", "square", "sin", "cos", "tan", "tanh", "sigmoid",
    "softplus", "erf", "identity", "switch", "cast", "zero", "RULES",
]




def _tie_split(a, b):
    """d max(a, b) / da as JAX computes it: 1 where a > b, 1/2 where a == b."""
    return m.add(m.cast(m.gt(a, b), a.dtype), m.mul(m.cast(m.eq(a, b), a.dtype), 0.5))


def add(inputs, out, g):
    return [g, g]


def sub(inputs, out, g):
    return [g, m.neg(g)]


def mul(inputs, out, g):
    a, b = inputs
    return [m.mul(g, b), m.mul(g, a)]


def true_div(inputs, out, g):
    a, b = inputs
    return [m.true_div(g, b), m.neg(m.true_div(m.mul(g, out), b))]


def pow(inputs, out, g):
    a, b = inputs
    if isinstance(b, Constant):  # x ** 3: a constant exponent, and no gradient for it
        lowered = constant(b.data - 1, dtype=b.dtype)
        return [m.mul(g, m.mul(b, m.pow(a, lowered))), None]
    base_grad = m.mul(g, m.mul(b, m.pow(a, m.sub(b, 1))))
    safe_a = m.switch(m.eq(a, 0), 1, a)  # JAX: d(x**y)/dy is 0 where x == 0
    return [base_grad, m.mul(m.mul(g, out), m.log(safe_a))]


def mod(inputs, out, g):
    a, b = inputs
    return [g, m.neg(m.mul(g, m.floor_div(a, b)))]


def maximum(inputs, out, g):
    a, b = inputs
    return [m.mul(g, _tie_split(a, b)), m.mul(g, _tie_split(b, a))]


def minimum(inputs, out, g):
    a, b = inputs
    return [m.mul(g, _tie_split(b, a)), m.mul(g, _tie_split(a, b))]


def clip(inputs, out, g):
    x, low, high = inputs
    raised = m.maximum(x, low)            # clip = minimum(maximum(x, low), high)
    through_min = _tie_split(high, raised)
    g_raised = m.mul(g, through_min)
    return [m.mul(g_raised, _tie_split(x, low)), m.mul(g_raised, _tie_split(low, x)),
            m.mul(g, _tie_split(raised, high))]


def neg(inputs, out, g):
    return [m.neg(g)]


def abs(inputs, out, g):
    x = inputs[0]
    return [m.mul(g, m.switch(m.ge(x, 0), 1, -1))]  # JAX: d|x|/dx is 1 at 0


def exp(inputs, out, g):
    return [m.mul(g, out)]


def log(inputs, out, g):
    return [m.true_div(g, inputs[0])]


def log1p(inputs, out, g):
    return [m.true_div(g, m.add(inputs[0], 1))]


def expm1(inputs, out, g):
    return [m.mul(g, m.add(out, 1))]


def sqrt(inputs, out, g):
    return [m.true_div(m.mul(g, 0.5), out)]


def square(inputs, out, g):
    return [m.mul(g, m.mul(inputs[0], 2))]


def sin(inputs, out, g):
    return [m.mul(g, m.cos(inputs[0]))]


def cos(inputs, out, g):
    return [m.neg(m.mul(g, m.sin(inputs[0])))]


def tan(inputs, out, g):
    # d tan(x) = 1 + tan(x) ** 2 (= 1 / cos(x) ** 2)
    return [m.mul(g, m.add(1, m.square(out)))]


def tanh(inputs, out, g):
    return [m.mul(g, m.sub(1, m.square(out)))]


def sigmoid(inputs, out, g):
    # sigmoid(x) * sigmoid(-x), not y * (1 - y): 1 - y cancels to 0 where y rounds to 1
    # (x > 17 in float32), losing the gradient's value there.
    x = inputs[0]
    if not is_float(x.dtype):  # no gradient for integers and bools (and -x is no bool op)
        return [None]
    return [m.mul(g, m.mul(out, m.sigmoid(m.neg(x))))]


def softplus(inputs, out, g):
    return [m.mul(g, m.sigmoid(inputs[0]))]


def erf(inputs, out, g):
    x = inputs[0]
    # The factor in the gradient's dtype (Theano's np.asarray(2 / sqrt(pi), upcast(x, gz))):
    # a Python float would be a floatX constant, rounding a float64 gradient.
    factor = constant(2 / math.sqrt(math.pi), out.dtype)
    return [m.mul(g, m.mul(m.exp(m.neg(m.square(x))), factor))]


def identity(inputs, out, g):
    return [g]


def switch(inputs, out, g):
    cond, a, b = inputs
    nothing = constant(0, dtype=g.dtype)
    return [None, m.switch(cond, g, nothing), m.switch(cond, nothing, g)]


def cast(inputs, out, g):
    # An integer input keeps the float gradient (Theano's Cast.grad returns gz).
    return [m.cast(g, inputs[0].dtype) if is_float(inputs[0].dtype) else g]


def zero(inputs, out, g):
    """Gradient 0 everywhere: ``floor``, ``ceil``, ``round``, ``sign`` and ``//``."""
    return [zeros_like(g) for _ in inputs]


#: The rules by the names the rows give them (``elemwise_specs.ElemwiseSpec.grad``).
RULES = {
    "add": add, "sub": sub, "mul": mul, "true_div": true_div, "pow": pow, "mod": mod,
    "maximum": maximum, "minimum": minimum, "clip": clip, "neg": neg, "abs": abs, "exp": exp,
    "log": log, "log1p": log1p, "expm1": expm1, "sqrt": sqrt, "square": square, "sin": sin,
    "cos": cos, "tan": tan, "tanh": tanh, "sigmoid": sigmoid, "softplus": softplus, "erf": erf,
    "identity": identity, "switch": switch, "cast": cast, "zero": zero,
}
GRADIENTS.update({cls: RULES[cls.spec.grad] for cls in ELEMWISE_OPS if cls.spec.grad})
