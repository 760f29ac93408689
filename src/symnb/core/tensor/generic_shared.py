"""Theano's ``generic`` type and its shared variables: a value that is any Python object
(``shared([])``, ``shared('asdf')``, ``shared({...})``), kept and handed back as it is.

Theano made such a variable (``theano.gof.type.generic``) for a value neither an array nor
a number, and its ops could take it as an argument. symnb's programs run in XLA, which
computes with arrays only: a generic shared variable stores its object (``get_value``,
``set_value``, pickling) but a compiled function reading it is refused when it is made,
naming the variable (``symnb.compile.construction.check_no_generic``), never run with
some conversion of the object.
"""

from __future__ import annotations

import copy
from typing import Any

from symnb.core.gradient_types import _PlaceholderType
from symnb.core.tensor.shared import SharedVariable

__all__ = ["Generic", "generic", "GenericSharedVariable", "is_generic_value"]


class Generic(_PlaceholderType):
    """The type of any Python object (Theano's ``Generic``); every value fits it."""

    def filter(self, data: Any, strict: bool = False, allow_downcast: Any = None) -> Any:
        return data

    def is_valid_value(self, data: Any) -> bool:
        return True

    @staticmethod
    def values_eq(a: Any, b: Any) -> bool:
        return a == b

    @staticmethod
    def values_eq_approx(a: Any, b: Any) -> bool:
        return a == b

    def __str__(self) -> str:
        return "generic"

    __repr__ = __str__


#: Theano's ``theano.gof.type.generic`` (and ``theano.compile.sharedvalue.generic``).
generic = Generic()


def is_generic_value(value: Any) -> bool:
    """Whether Theano's ``shared`` made a ``generic`` variable of ``value``: what is
    neither an array nor a number (a list or tuple included: Theano's tensor
    constructor took NumPy arrays only, its scalar one numbers)."""
    import numbers

    import numpy as np

    if isinstance(value, (list, tuple, str, bytes, dict, set)) or value is None:
        return True
    if isinstance(value, (numbers.Number, np.generic, np.ndarray)):
        return np.asarray(value).dtype.kind in "O" + "SUV"  # an object array is no tensor
    return not hasattr(value, "__array__")  # a JAX array converts; another object does not


class GenericSharedVariable(SharedVariable):
    """A shared variable of type ``generic``: its value is any object, stored as given
    (a deep copy unless ``borrow=True``; ``strict`` has no effect: every object fits)."""

    __slots__ = ()

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        with self.lock:
            return self._value if borrow else copy.deepcopy(self._value)

    def _store(self, value: Any, caller: str, borrow: bool = False) -> None:
        value = value if borrow else copy.deepcopy(value)
        with self.lock:
            self._value = value
            self._private = False

    def __reduce_ex__(self, protocol: Any) -> tuple:
        # The object as it is (SharedVariable's pickles an array).
        return (generic_shared, (self._value, self.name, self.strict, self.allow_downcast))


def generic_shared(value: Any, name: str | None = None, strict: bool = False,
                   allow_downcast: bool | None = None, borrow: bool = False) -> GenericSharedVariable:
    """``shared(value)`` for a value of the generic type (see :func:`is_generic_value`)."""
    return GenericSharedVariable(generic, value, name=name, strict=strict,
                                 allow_downcast=allow_downcast, borrow=borrow)
