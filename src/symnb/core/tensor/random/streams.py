"""``RandomStreams``: Theano's factory of random variables, on threefry keys.

Each draw gets a stream of its own: a shared variable holding a key (uint32, shape
(2,)), whose ``default_update`` is the key after the draw, so every call of a compiled
function that draws advances it and two calls give different numbers (unless
``sn.function(..., no_default_updates=True)``). The draw carries ``rng`` (that shared
variable) and ``update`` (the pair), and the factory lists every pair in
``state_updates`` (Theano's ``random_state_copy`` recipe copies them between two
factories). The key of the i-th stream is ``fold_in(key(seed), i)``, so ``seed(n)``
reproduces every stream. ``rv.rng.get_value()`` is the key with NumPy RandomState's
``seed``/``get_state``/``set_state`` (Theano's tutorial; see ``random/state.py``).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.errors import build_error
from symnb.core.graph.keywords import checked_keywords
from symnb.core.graph.basic import Variable
from symnb.core.tensor.shared import SharedVariable
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable, constant
from symnb.core.tensor.random import ops, threefry
from symnb.core.tensor.random.state import RandomStateSharedVariable
from symnb.core.tensor.shape import as_shape_vector, shape, shape_i
from symnb.core.graph.traceback_filter import api_boundaries
from symnb.core.graph.type import is_float

__all__ = ["RandomStreams", "stream_key", "OTHER_NAMES"]

#: NumPy's and JAX's names for Theano's parameters: a misspelled keyword is refused
#: (never ignored, which would draw from the default distribution), with this guess.
OTHER_NAMES = {"mean": "avg", "loc": "avg", "scale": "std", "sigma": "std", "shape": "size",
               "minval": "low", "maxval": "high"}


def stream_key(seed: int, index: int) -> np.ndarray:
    """The initial key of a factory's ``index``-th stream, for ``seed``."""
    return threefry.fold_in(threefry.seed_key(seed), index)


@api_boundaries  # errors show the user's line
class RandomStreams:
    """Random variables whose generator states are shared variables
    (``theano.tensor.shared_randomstreams.RandomStreams``).

    ``srng = RandomStreams(seed=234)``; ``u = srng.uniform((2, 3))``;
    ``f = sn.function([], u)``: each call of ``f`` draws anew. The generator is JAX's
    threefry-2x32, whatever the class: the numbers differ from Theano's (NumPy's
    Mersenne twister there), with the same distributions. The methods take Theano's
    keywords and no others: a misspelled one raises ``TypeError`` naming it and the
    accepted ones, never falls back to a default.
    """

    def __init__(self, seed: int | None = None) -> None:
        #: The seed of the streams made from now on (and of ``seed()`` without argument).
        self.default_instance_seed = int(seed) if seed is not None else secrets.randbits(32)
        #: ``(state, next_state)`` for every draw made, in order.
        self.state_updates: list[tuple[SharedVariable, Variable]] = []

    # -- state ---------------------------------------------------------------------------
    def seed(self, seed: int | None = None) -> None:
        """Re-seed every stream made so far (and those made later) from ``seed``."""
        if seed is not None:
            self.default_instance_seed = int(seed)
        for index, (state, _) in enumerate(self.state_updates):
            state.set_value(stream_key(self.default_instance_seed, index))

    def updates(self) -> list[tuple[SharedVariable, Variable]]:
        """The ``(state, update)`` pairs of every draw (Theano's ``updates()``): the key
        after the draw, or, for a draw made in a scan step, the key after the loop (the
        default update the scan gave the state: the key after one draw would read the
        step's arguments, or repeat the loop's draws at the next call)."""
        return [(state, state.default_update if state.default_update is not None else after)
                for state, after in self.state_updates]

    def gen(self, op: ops.RandomOp, size: Variable, *params: Any) -> ops.RandomVariable:
        """Draw with ``op`` from a new stream; set up its update."""
        index = len(self.state_updates)
        state = RandomStateSharedVariable(ops.KEY_TYPE, stream_key(self.default_instance_seed, index),
                                          name=f"random_state_{index}")
        next_state, draw = op(state, size, *params)
        state.default_update = next_state
        draw.rng, draw.update = state, (state, next_state)
        self.state_updates.append((state, next_state))
        return draw

    # -- distributions ---------------------------------------------------------------------
    @checked_keywords(OTHER_NAMES)
    def uniform(self, size: Any = None, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,
                dtype: str | None = None) -> ops.RandomVariable:
        """Uniform on ``[low, high)``; ``dtype`` defaults to the parameters' float type or
        ``floatX``."""
        dtype = _float_dtype(dtype, low, high)
        ops.check_dtype_kind("uniform", dtype, want_float=True)
        low, high = _param(low, dtype), _param(high, dtype)
        return self.gen(ops.UniformRV(dtype), _size(size, ndim, low, high), low, high)

    @checked_keywords(OTHER_NAMES)
    def normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0, ndim: int | None = None,
               dtype: str | None = None) -> ops.RandomVariable:
        """Normal with mean ``avg`` and standard deviation ``std`` (non-negative)."""
        return self._normal(ops.NormalRV, size, avg, std, ndim, dtype)

    def _normal(self, op_class: type[ops.NormalRV], size: Any, avg: Any, std: Any,
                ndim: int | None, dtype: str | None) -> ops.RandomVariable:
        """A draw of ``op_class`` (the normal or the truncated normal)."""
        dtype = _float_dtype(dtype, avg, std)
        ops.check_dtype_kind("normal", dtype, want_float=True)
        avg, std = _param(avg, dtype), _param(std, dtype)
        return self.gen(op_class(dtype), _size(size, ndim, avg, std), avg, std)

    @checked_keywords(OTHER_NAMES)
    def binomial(self, size: Any = None, n: int = 1, p: Any = 0.5, ndim: int | None = None,
                 dtype: str = "int64", prob: Any = None) -> ops.RandomVariable:
        """Successes in ``n`` trials (a static int) of probability ``p`` in [0, 1]."""
        if prob is not None:  # Theano's old name
            p = prob
        n = _static_count("binomial", "n", n)
        p = p if isinstance(p, Variable) else constant(p, dtype=config.floatX)
        if not is_float(p.dtype):
            p = m.cast(p, config.floatX)
        return self.gen(ops.BinomialRV(dtype, n), _size(size, ndim, p), p)

    @checked_keywords(OTHER_NAMES)
    def random_integers(self, size: Any = None, low: Any = 0, high: Any = 1,
                        ndim: int | None = None, dtype: str = "int64") -> ops.RandomVariable:
        """Integers in ``[low, high]``, both included."""
        ops.check_dtype_kind("random_integers", dtype, want_float=False)
        low, high = _param(low, dtype), _param(high, dtype)
        return self.gen(ops.RandomIntegersRV(dtype), _size(size, ndim, low, high), low, high)

    @checked_keywords(OTHER_NAMES)
    def choice(self, size: Any = (), a: Any = 2, replace: bool = True, p: Any = None,
               ndim: int | None = None, dtype: str = "int64") -> Variable:
        """Draws from ``range(a)`` (``a`` an int) or from the entries of the vector ``a``,
        with or without replacement, uniformly or with probabilities ``p``."""
        size = as_shape_vector(() if size is None else size, ndim)
        pool = None
        if isinstance(a, Variable) or not np.isscalar(a):
            pool = as_tensor_variable(a)
            if pool.ndim != 1:
                raise build_error(f"choice: a must be an int or a vector, got a tensor of "
                                  f"{pool.ndim} dimensions", ValueError)
            count = shape_i(pool, 0)
        else:
            count = constant(int(a), dtype="int64")
        params = [] if p is None else [as_tensor_variable(p)]
        indices = self.gen(ops.ChoiceRV(dtype, replace, p is not None), size, count, *params)
        return indices if pool is None else pool[indices]

    @checked_keywords(OTHER_NAMES)
    def permutation(self, size: Any = (), n: Any = 1, ndim: int | None = None,
                    dtype: str = "int64") -> ops.RandomVariable:
        """Permutations of ``range(n)``: shape ``size + (n,)``."""
        size = as_shape_vector(() if size is None else size, ndim)
        return self.gen(ops.PermutationRV(dtype), size, as_tensor_variable(n))

    @checked_keywords(OTHER_NAMES)
    def multinomial(self, size: Any = None, n: int = 1, pvals: Any = (0.5, 0.5),
                    ndim: int | None = None, dtype: str = "int64") -> ops.RandomVariable:
        """Counts of ``n`` draws (a static int) among the categories of ``pvals`` (its
        last axis), for each entry of ``size`` (default: ``pvals.shape[:-1]``)."""
        n = _static_count("multinomial", "n", n)
        pvals = pvals if isinstance(pvals, Variable) else constant(pvals, dtype=config.floatX)
        if size is None:
            size = shape(pvals)[:-1] if pvals.ndim > 1 else ()
        return self.gen(ops.MultinomialRV(dtype, n), as_shape_vector(size, ndim), pvals)


def _float_dtype(dtype: str | None, *params: Any) -> str:
    if dtype is not None:
        return str(np.dtype(dtype))
    floats = [p.dtype for p in params if isinstance(p, Variable) and is_float(p.dtype)]
    return str(np.result_type(*floats)) if floats else config.floatX


def _param(value: Any, dtype: str) -> Variable:
    if isinstance(value, Variable):
        return value if value.dtype == dtype else m.cast(value, dtype)
    return constant(value, dtype=dtype)


def _static_count(what: str, name: str, n: Any) -> int:
    from symnb.core.graph.static import static_value

    value = static_value(n) if isinstance(n, Variable) else n
    if value is None or int(value) != value or int(value) < 0:
        raise build_error(f"{what}: {name} must be a non-negative int known when the graph "
                          f"is built, got {n!r}", ValueError)
    return int(value)


def _size(size: Any, ndim: int | None, *params: Variable) -> Variable:
    """``size`` as an int64 vector; when None, the broadcast shape of the parameters."""
    if size is not None:
        return as_shape_vector(size, ndim)
    static = [p.type.shape for p in params]
    if all(None not in s for s in static):
        return as_shape_vector(np.broadcast_shapes(*static), ndim)
    total = params[0]
    for p in params[1:]:
        total = total + m.cast(p, total.dtype) * 0
    return shape(total)
