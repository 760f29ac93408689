"""Theano's ``NoneConst``: the constant None, of the type ``NoneTypeT`` (Theano's
``theano.tensor.type_other``), which ops taking an optional argument read as "not given"
(``T.max_and_argmax(x, axis=NoneConst)`` is ``axis=None``)."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Constant, Variable
from symnb.core.gradient_types import _PlaceholderType

__all__ = ["NoneTypeT", "NoneConstant", "NoneConst", "is_none_constant"]


class NoneTypeT(_PlaceholderType):
    """The type whose only value is None."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: Any = None) -> Any:
        if data is None:
            return None
        raise TypeError(f"NoneTypeT: expected None, got {data!r}")


class NoneConstant(Constant):
    """A constant None (see the module)."""

    __slots__ = ()

    def __init__(self, type: NoneTypeT, data: None = None, name: str | None = None) -> None:  # noqa: A002
        Variable.__init__(self, type, name=name)
        self.data = None
        self._test_value = None

    def auto_name(self) -> str:
        return self.name or "None"

    def equals(self, other: Any) -> bool:
        """Theano's ``Constant.equals``: every None constant equals every other."""
        return isinstance(other, NoneConstant)


NoneConst = NoneConstant(NoneTypeT(), None, name="NoneConst")


def is_none_constant(value: Any) -> bool:
    """True when ``value`` is a None constant (Theano's ``NoneConst`` or a clone)."""
    return isinstance(value, NoneConstant)
