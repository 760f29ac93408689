"""Shared variables: named state that compiled functions read and update.

The value may live on an accelerator once a compiled function has used it (the
backend stores its device array here); ``get_value`` always returns a NumPy array.

Each shared variable has a lock. A compiled call holds the locks of every shared
variable it reads or updates (an update donates the old value's buffer, so even a
concurrent read of it would fail); ``get_value``/``set_value`` take the same lock, so
they never see a call half done. Locks are taken in creation order (``serial``), the
same for every call, so two calls can never wait for each other in a cycle.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Iterable, Sequence

import numpy as np

from symnb.core.config import config
from symnb.core.source import capture_site
from symnb.core.tensor.variable import TensorVariable
from symnb.core.test_value import coerce_test_value
from symnb.core.type import TensorType

__all__ = ["SharedVariable", "SharedLocks", "holding", "lock_order", "shared"]

# next() on a count is atomic under the GIL: serials are unique across threads.
_serials = itertools.count()


class SharedVariable(TensorVariable):
    """A tensor input whose value persists between calls (``get_value``/``set_value``).

    Its static shape is unknown along every axis unless ``shape=`` fixes it, since
    ``set_value`` may change it. Its test value is its value as last set with
    ``set_value`` (updates made by compiled functions stay on the device and are not
    copied back into the test value).
    """

    __slots__ = ("_value", "serial", "lock", "default_update")

    def __init__(self, type: TensorType, value: np.ndarray, name: str | None = None) -> None:
        super().__init__(type, name=name, site=capture_site(config.traceback__limit))
        #: Creation order: the global order in which calls take shared variables' locks.
        self.serial = next(_serials)
        #: Held by a compiled call using this variable and by get_value/set_value.
        #: Re-entrant, so that a callback run by a call (a debugging linker's hook)
        #: may read the variable.
        self.lock = threading.RLock()
        self._value: Any = None
        #: The update every compiled function reading this variable applies unless
        #: told not to (Theano's ``default_update``; see :mod:`symnb.core.updates`).
        self.default_update: Any = None
        self.set_value(value)

    def get_value(self, borrow: bool = False) -> np.ndarray:
        """The current value as a NumPy array (a copy unless ``borrow=True``)."""
        with self.lock:  # not while a call is donating the stored buffer
            value = np.asarray(self._value)
            return value if borrow else value.copy()

    def set_value(self, value: Any, borrow: bool = False) -> None:
        """Replace the value; it must fit the variable's dtype and static shape."""
        array = coerce_test_value(self, value)
        with self.lock:  # not in the middle of a call reading or updating it
            self._value = array
            self._test_value = array

    # The backend keeps the device copy here without a round trip through NumPy.
    def _backend_value(self) -> Any:
        return self._value

    def _set_backend_value(self, value: Any) -> None:
        self._value = value


class SharedLocks:
    """The locks of some shared variables, as one context manager: entering takes them
    all in creation order, leaving releases them. Holding them, a call's reads and
    updates of these variables are atomic with respect to every other call."""

    __slots__ = ("locks",)

    def __init__(self, locks: Sequence[Any]) -> None:
        self.locks = tuple(locks)

    def __enter__(self) -> None:
        taken = 0
        try:
            for lock in self.locks:
                lock.acquire()
                taken += 1
        except BaseException:  # interrupted while waiting: give back what was taken
            for lock in self.locks[:taken]:
                lock.release()
            raise

    def __exit__(self, *exc: Any) -> None:
        for lock in reversed(self.locks):
            lock.release()


def lock_order(variables: Iterable[SharedVariable]) -> tuple:
    """The locks of ``variables`` (each once), in the order calls take them."""
    by_serial = {v.serial: v for v in variables}
    return tuple(by_serial[s].lock for s in sorted(by_serial))


def holding(variables: Iterable[SharedVariable]) -> Any:
    """A context manager holding the locks of ``variables``, taken in creation order;
    None when there are none. A single variable's lock is returned as is: entered
    in C, it is the cheapest (most calls of a small function use one variable)."""
    locks = lock_order(variables)
    if not locks:
        return None
    return locks[0] if len(locks) == 1 else SharedLocks(locks)


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
