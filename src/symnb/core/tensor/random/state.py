"""A random stream's state as Theano's tutorial handles it: a RandomState-like value.

In Theano, ``rv.rng.get_value(borrow=True)`` is a ``numpy.random.RandomState`` that
the tutorial re-seeds or restores and stores back::

    rng = rv.rng.get_value(borrow=True)
    rng.seed(89234)                       # or rng.set_state(saved), saved = rng.get_state()
    rv.rng.set_value(rng, borrow=True)

Here the state is a threefry key (``uint32``, shape ``(2,)``): ``get_value`` returns it
as a :class:`RandomKeyState`, the key array itself with those three methods, so it
still compares, prints and pickles as the array it is, and ``set_value`` takes it (or
any key array) back.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from symnb.core.tensor.shared import SharedVariable
from symnb.core.tensor.random import threefry

__all__ = ["RandomKeyState", "RandomStateSharedVariable"]


class RandomKeyState(np.ndarray):
    """A stream's key with NumPy ``RandomState``'s ``seed``/``get_state``/``set_state``."""

    def seed(self, seed: int | None = None) -> None:
        """Re-seed in place: the key of ``seed`` (a fresh random seed when None)."""
        seed = secrets.randbits(32) if seed is None else int(seed)
        self[...] = threefry.seed_key(seed)

    def get_state(self) -> np.ndarray:
        """A copy of the key, for :meth:`set_state` (Theano: the RandomState's state)."""
        return np.array(self, dtype=np.uint32)

    def set_state(self, state: Any) -> None:
        """Restore a state that :meth:`get_state` returned."""
        key = np.asarray(state)
        if key.shape != threefry.KEY_SHAPE or key.dtype != np.uint32:
            raise TypeError(f"set_state: a random stream's state is a uint32 key of shape "
                            f"{threefry.KEY_SHAPE} (what get_state returns), got "
                            f"{key.dtype} of shape {key.shape}")
        self[...] = key


class RandomStateSharedVariable(SharedVariable):
    """The shared variable holding a stream's key (``rv.rng``): ``get_value`` returns a
    :class:`RandomKeyState` (always a copy: the stored key never changes behind a
    compiled function's back; store it again with ``set_value``)."""

    __slots__ = ()

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        if return_internal_type:
            return super().get_value(return_internal_type=True)
        return super().get_value().view(RandomKeyState)  # a copy; the key stays on the device

    def _cast(self, value: Any) -> Any:
        # A RandomKeyState is stored as the plain key array it is.
        return super()._cast(np.asarray(value))
