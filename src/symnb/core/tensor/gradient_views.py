"""Theano's gradient-shaping views (``theano.gradient``): ops whose value is their input
and whose only job is to change what the gradient does when it flows back through them.

- :class:`ZeroGrad` (``zero_grad``): the gradient reaching the input is zero (connected);
- :class:`ConsiderConstant` (``consider_constant``, deprecated in Theano): the same;
- :class:`DisconnectedGrad` (``disconnected_grad``): no gradient, and the input counts as
  not connected (``grad`` raises ``DisconnectedInputError`` when nothing else connects it);
- :class:`UndefinedGrad` (``undefined_grad``): the gradient is undefined (a null gradient:
  ``grad`` raises ``NullTypeGradError`` if it reaches a ``wrt``);
- :class:`GradScale` (``grad_scale``): the gradient multiplied by a number.

Theano's ``GradClip`` is :class:`symnb.core.tensor.extra_ops.GradClip`. A compiled
function does not keep them (core/rewriting/gradient_views.py removes every one): their
value is their input's.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Apply, Variable
from symnb.core.gradient_types import disconnected_type, grad_undefined
from symnb.core.graph.source import warn_at_user_line
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.deep_copy import ViewOp

__all__ = ["GradientView", "ZeroGrad", "ConsiderConstant", "DisconnectedGrad", "UndefinedGrad",
           "GradScale", "zero_grad", "zero_grad_", "consider_constant", "consider_constant_",
           "disconnected_grad_", "undefined_grad", "undefined_grad_", "grad_scale"]


class GradientView(ViewOp):
    """Base class: ``x`` itself, of the same type (a ``ViewOp``, as Theano's were: the
    value rules and the lowering are the view's); subclasses say what its gradient is."""

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Whether the output depends on the input, for the gradient (Theano's method)."""
        return [[True]]


class ZeroGrad(GradientView):
    """``zero_grad(x)``: the gradient flowing back through it is zero."""

    def L_op(self, inputs, outputs, output_grads):
        return [zeros_like(output_grads[0])]


class ConsiderConstant(ZeroGrad):
    """``consider_constant(x)`` (deprecated in Theano for ``zero_grad``): a zero gradient."""


class DisconnectedGrad(GradientView):
    """``disconnected_grad(x)``: no gradient flows back; ``x`` is not connected through it."""

    def L_op(self, inputs, outputs, output_grads):
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]


class UndefinedGrad(GradientView):
    """``undefined_grad(x)``: the gradient through it is undefined (a null gradient)."""

    gradient_undefined = True  # even where only zeros reach it (core/gradient.py)

    def L_op(self, inputs, outputs, output_grads):
        return [grad_undefined(self, 0, inputs[0])]


class GradScale(GradientView):
    """``grad_scale(x, multiplier)``: the gradient flowing back is multiplied by
    ``multiplier`` (a number, or a symbolic scalar)."""

    __props__ = ("multiplier",)

    def __init__(self, multiplier: Any) -> None:
        self.multiplier = multiplier

    def _props(self) -> tuple[Any, ...]:
        # A symbolic multiplier is the same only as itself (``==`` on it builds a graph).
        multiplier = self.multiplier
        return (f"<{id(multiplier)}>",) if isinstance(multiplier, Variable) else (multiplier,)

    def L_op(self, inputs, outputs, output_grads):
        return [m.mul(self.multiplier, output_grads[0])]


zero_grad_ = ZeroGrad()
consider_constant_ = ConsiderConstant()
disconnected_grad_ = DisconnectedGrad()
undefined_grad_ = UndefinedGrad()


def zero_grad(x: Any) -> Variable:
    """``x``, whose gradient is truncated to zero (Theano's ``theano.gradient.zero_grad``)."""
    return zero_grad_(x)


def consider_constant(x: Any) -> Variable:
    """Deprecated, as in Theano (use ``zero_grad`` or ``disconnected_grad``): ``x``, whose
    gradient is truncated to zero."""
    warn_at_user_line("consider_constant() is deprecated, use zero_grad() or disconnected_grad() "
                      "instead.")  # Theano's warning (a UserWarning)
    return consider_constant_(x)


def undefined_grad(x: Any) -> Variable:
    """``x``, whose gradient is undefined: ``grad`` through it raises (Theano's
    ``theano.gradient.undefined_grad``)."""
    return undefined_grad_(x)


def grad_scale(x: Any, multiplier: Any) -> Variable:
    """``x``, whose gradient is multiplied by ``multiplier`` (Theano's
    ``theano.gradient.grad_scale``; ``-1`` reverses it)."""
    return GradScale(multiplier)(x)
