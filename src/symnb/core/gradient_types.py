"""Theano's placeholder gradients: ``NullType`` (no gradient exists, or none is
implemented) and ``DisconnectedType`` (the cost does not depend on the input).

An op's ``L_op`` (Theano's ``grad``) may return, for an input,
- ``grad_undefined(op, i, x)`` / ``grad_not_implemented(op, i, x)``: a variable of a
  :class:`NullType` saying why. ``sn.grad`` then carries it to every input that the
  null gradient flows to; asked for such an input it raises :class:`NullTypeGradError`
  with the reason (``null_gradients='return'`` gives the null variable instead). A
  gradient nobody asks for is no error, as in Theano.
- ``DisconnectedType()()``: that input gets no gradient from this node (as ``None``).

Neither has values: a function computing one is refused when the graph is compiled
(their variables are not tensors), never silently a number.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable

__all__ = ["NullType", "null_type", "DisconnectedType", "disconnected_type", "grad_undefined",
           "grad_not_implemented", "is_null", "is_disconnected"]


class _PlaceholderType:
    """A type with no values: calling it makes a variable of it."""

    ndim = None  # not a tensor: no dtype, no shape

    def __call__(self, name: str | None = None) -> Variable:
        return Variable(self, name=name)

    def filter(self, data: Any, strict: bool = False, allow_downcast: Any = None) -> Any:
        raise ValueError(f"No values may be assigned to a {self}")

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def short(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return type(self).__name__

    __repr__ = __str__


class NullType(_PlaceholderType):
    """The type of a gradient that does not exist; ``why_null`` says why (Theano's
    ``theano.gof.null_type.NullType``)."""

    def __init__(self, why_null: str = "(no explanation given)") -> None:
        self.why_null = why_null


class DisconnectedType(_PlaceholderType):
    """The type of the gradient of a cost with respect to a variable it does not depend
    on: a symbolic 0 that says so (Theano's ``theano.gradient.DisconnectedType``)."""


null_type = NullType()
disconnected_type = DisconnectedType()


def grad_not_implemented(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """A null gradient for input ``x_pos`` (``x``) of ``op``, whose gradient is not
    implemented (Theano's text)."""
    return NullType(f"This variable is Null because the grad method for input {x_pos} ({x}) "
                    f"of the {op} op is not implemented. {comment}")()


def grad_undefined(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """A null gradient for input ``x_pos`` (``x``) of ``op``, whose gradient is
    mathematically undefined (Theano's text)."""
    return NullType(f"This variable is Null because the grad method for input {x_pos} ({x}) "
                    f"of the {op} op is mathematically undefined. {comment}")()


def is_null(var: Any) -> bool:
    """Whether ``var`` is a variable of a :class:`NullType`."""
    return isinstance(var, Variable) and isinstance(var.type, NullType)


def is_disconnected(var: Any) -> bool:
    """Whether ``var`` is a variable of :class:`DisconnectedType`."""
    return isinstance(var, Variable) and isinstance(var.type, DisconnectedType)
