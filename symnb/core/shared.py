"""Shared variables: named state that compiled functions read and update.

The value may live on an accelerator once a compiled function has used it (the
backend stores its device array here); ``get_value`` always returns a NumPy array.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.config import config
from symnb.core.source import capture_site
from symnb.core.tensor.variable import TensorVariable
from symnb.core.test_value import coerce_test_value
from symnb.core.type import TensorType

__all__ = ["SharedVariable", "shared"]


class SharedVariable(TensorVariable):
    """A tensor input whose value persists between calls (``get_value``/``set_value``).

    Its static shape is unknown along every axis unless ``shape=`` fixes it, since
    ``set_value`` may change it. Its test value is its value as last set with
    ``set_value`` (updates made by compiled functions stay on the device and are not
    copied back into the test value).
    """

    __slots__ = ("_value",)

    def __init__(self, type: TensorType, value: np.ndarray, name: str | None = None) -> None:
        super().__init__(type, name=name, site=capture_site(config.traceback__limit))
        self._value: Any = None
        self.set_value(value)

    def get_value(self, borrow: bool = False) -> np.ndarray:
        """The current value as a NumPy array (a copy unless ``borrow=True``)."""
        value = np.asarray(self._value)
        return value if borrow else value.copy()

    def set_value(self, value: Any, borrow: bool = False) -> None:
        """Replace the value; it must fit the variable's dtype and static shape."""
        array = coerce_test_value(self, value)
        self._value = array
        self._test_value = array

    # The backend keeps the device copy here without a round trip through NumPy.
    def _backend_value(self) -> Any:
        return self._value

    def _set_backend_value(self, value: Any) -> None:
        self._value = value


def shared(value: Any, name: str | None = None, shape: Sequence[int | None] | None = None,
           dtype: Any = None) -> SharedVariable:
    """A shared variable holding ``value`` (copied).

    ``dtype`` defaults to the value's own dtype; a Python float becomes ``floatX``.
    """
    if type(value) is float and dtype is None:  # a Python float, not np.float64
        dtype = config.floatX
    array = np.array(value, dtype=dtype, copy=True)
    static = (None,) * array.ndim if shape is None else tuple(shape)
    return SharedVariable(TensorType(array.dtype, static), array, name=name)
