"""``symnb.scalar.sharedvar``: Theano's scalar shared variables (``shared(1)``).

symnb's scalars are 0-d tensors, so a scalar shared variable is a 0-d tensor shared
variable (Theano 1.0's docstring: "We implement this using 0-d tensors for now").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.graph.type import TensorType
from symnb.core.tensor.shared import SharedVariable

__all__ = ["ScalarSharedVariable", "shared"]


class ScalarSharedVariable(SharedVariable):
    """A shared variable holding one number (a 0-d tensor)."""

    __slots__ = ()


def shared(value: Any, name: str | None = None, strict: bool = False,
           allow_downcast: bool | None = None) -> ScalarSharedVariable:
    """A scalar shared variable holding ``value``, a Python or NumPy number, of its own
    dtype (a Python int is int64, a float float64, as in Theano 1.0: not floatX); any
    other value is a TypeError."""
    if not isinstance(value, (np.number, float, int, complex)) or isinstance(value, bool):
        raise TypeError(f"symnb.scalar.sharedvar.shared takes a Python or NumPy number, got "
                        f"{type(value).__name__}")
    dtype = np.asarray(value).dtype
    return ScalarSharedVariable(TensorType(dtype, ()), np.asarray(value, dtype=dtype), name=name,
                                strict=strict, allow_downcast=allow_downcast)


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
