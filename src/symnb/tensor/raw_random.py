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

from typing import Any, Callable

import numpy as np

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


def _from_state(name: str) -> Callable[..., tuple[Variable, Variable]]:
    method = getattr(RandomStreams, name)

    def draw(random_state: Any, *args: Any, **kwargs: Any) -> tuple[Variable, Variable]:
        drawer = _OneDraw(random_state)
        sample = getattr(drawer, name)(*args, **kwargs)
        return drawer.next_state, sample

    draw.__name__ = draw.__qualname__ = name
    draw.__doc__ = (f"``(new_state, draw)``: :meth:`RandomStreams.{name}` drawn from "
                    f"``random_state``.\n\n{method.__doc__ or ''}")
    return draw


uniform = _from_state("uniform")
normal = _from_state("normal")
binomial = _from_state("binomial")
random_integers = _from_state("random_integers")
choice = _from_state("choice")
permutation = _from_state("permutation")
multinomial = _from_state("multinomial")
