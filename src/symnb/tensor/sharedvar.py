"""``symnb.tensor.sharedvar``: Theano's module of shared tensor variables.

Theano had one class per kind (``TensorSharedVariable``, ``ScalarSharedVariable``); symnb's
:class:`~symnb.core.tensor.shared.SharedVariable` is all of them, so ``isinstance(v,
T.sharedvar.TensorSharedVariable)`` holds for every ``sn.shared`` tensor, as Keras checks.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.shared import SharedVariable, shared

TensorSharedVariable = SharedVariable
ScalarSharedVariable = SharedVariable

__all__ = ["TensorSharedVariable", "ScalarSharedVariable", "tensor_constructor"]


def tensor_constructor(value: np.ndarray, name: str | None = None, strict: bool = False,
                       allow_downcast: bool | None = None, borrow: bool = False,
                       broadcastable: Sequence[bool] | None = None,
                       target: str = "cpu") -> SharedVariable:
    """Theano's ``tensor_constructor`` (``T._shared``): a shared variable of a NumPy array,
    of the array's dtype; anything but an ``ndarray`` is a ``TypeError``, as in Theano (where
    ``sn.shared`` would try the next constructor). ``broadcastable`` marks length-1 axes."""
    if target != "cpu":
        raise TypeError(f"tensor_constructor: target={target!r}; symnb places shared values "
                        "with sharding=, not target=")
    if not isinstance(value, np.ndarray):
        raise TypeError(f"tensor_constructor takes a numpy.ndarray, got {type(value).__name__}")
    return shared(value, name=name, strict=strict, allow_downcast=allow_downcast, borrow=borrow,
                  broadcastable=broadcastable)


# A public entry point: an error it raises shows the user's line first (traceback_filter).
_entry_points(globals())
