"""``theano.tensor.raw_random``: draws from an explicit generator state.

Each function takes the state first and returns ``(new_state, draw)``, as Theano 1.0's::

    rng = raw_random.random_state_type("rng")
    new_rng, u = raw_random.uniform(rng, (2, 2))
    f = sn.function([sn.In(rng, value=raw_random.seed_state(42), update=new_rng)], u)

The state is symnb's generator state (a threefry key: uint32, shape (2,); the state of
every ``RandomStreams`` draw), not a NumPy ``RandomState``: the draws have Theano's
distributions and parameters, with other numbers (see :mod:`symnb.core.tensor.random`).
The distributions, their keywords and refusals are ``RandomStreams``'s, which these
functions call with the state given instead of a stream of their own.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import label
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.random import ops, threefry
from symnb.core.tensor.random.streams import RandomStreams

__all__ = ["random_state_type", "seed_state", "uniform", "normal", "binomial",
           "random_integers", "choice", "permutation", "multinomial"]


def random_state_type(name: str | None = None) -> Variable:
    """A symbolic generator state (Theano's ``random_state_type()``)."""
    return ops.KEY_TYPE(name)


def seed_state(seed: int) -> np.ndarray:
    """The generator state of ``seed``: a value for a ``random_state_type`` input."""
    return threefry.seed_key(int(seed))


class _OneDraw(RandomStreams):
    """``RandomStreams`` drawing once from a given state instead of a stream of its own."""

    def __init__(self, state: Any) -> None:
        super().__init__(seed=0)  # no stream is made: the seed is never read
        state = as_tensor_variable(state)
        if state.type != ops.KEY_TYPE:
            raise TypeError(f"raw_random: {label(state)!r} ({state.type.short()}) is not a generator "
                            f"state ({ops.KEY_TYPE.short()}); make one with "
                            f"raw_random.random_state_type()")
        self._state, self.next_state = state, None

    def gen(self, op: ops.RandomOp, size: Variable, *params: Any) -> ops.RandomVariable:
        self.next_state, draw = op(self._state, size, *params)
        return draw


def _draw(random_state: Any, method: str, *args: Any) -> tuple[Variable, Variable]:
    drawer = _OneDraw(random_state)
    sample = getattr(drawer, method)(*args)
    return drawer.next_state, sample


def uniform(random_state: Any, size: Any = None, low: Any = 0.0, high: Any = 1.0,
            ndim: int | None = None, dtype: str | None = None) -> tuple[Variable, Variable]:
    """``(new_state, draw)``: uniform on ``[low, high)`` (:meth:`RandomStreams.uniform`)."""
    return _draw(random_state, "uniform", size, low, high, ndim, dtype)


def normal(random_state: Any, size: Any = None, avg: Any = 0.0, std: Any = 1.0,
           ndim: int | None = None, dtype: str | None = None) -> tuple[Variable, Variable]:
    """``(new_state, draw)``: normal of mean ``avg`` and standard deviation ``std``."""
    return _draw(random_state, "normal", size, avg, std, ndim, dtype)


def binomial(random_state: Any, size: Any = None, n: int = 1, p: Any = 0.5,
             ndim: int | None = None, dtype: str = "int64",
             prob: Any = None) -> tuple[Variable, Variable]:
    """``(new_state, draw)``: successes in ``n`` trials of probability ``p`` (``prob``:
    Theano's old name of ``p``)."""
    return _draw(random_state, "binomial", size, n, p, ndim, dtype, prob)


def random_integers(random_state: Any, size: Any = None, low: Any = 0, high: Any = 1,
                    ndim: int | None = None, dtype: str = "int64") -> tuple[Variable, Variable]:
    """``(new_state, draw)``: integers in ``[low, high]``, both included."""
    return _draw(random_state, "random_integers", size, low, high, ndim, dtype)


def choice(random_state: Any, size: Any = None, a: Any = 2, replace: bool = True, p: Any = None,
           ndim: int | None = None, dtype: str = "int64") -> tuple[Variable, Variable]:
    """``(new_state, draw)``: draws from ``range(a)`` or the entries of the vector ``a``."""
    return _draw(random_state, "choice", size, a, replace, p, ndim, dtype)


def permutation(random_state: Any, size: Any = None, n: Any = 1, ndim: int | None = None,
                dtype: str = "int64") -> tuple[Variable, Variable]:
    """``(new_state, draw)``: permutations of ``range(n)``, shape ``size + (n,)``."""
    return _draw(random_state, "permutation", size, n, ndim, dtype)


def multinomial(random_state: Any, size: Any = None, n: int = 1, pvals: Any = (0.5, 0.5),
                ndim: int | None = None, dtype: str = "int64") -> tuple[Variable, Variable]:
    """``(new_state, draw)``: counts of ``n`` draws among the categories of ``pvals``."""
    return _draw(random_state, "multinomial", size, n, pvals, ndim, dtype)


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
