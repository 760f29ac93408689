"""Random ops: ``(key, size, *parameters) -> (next_key, draw)``.

A random op reads a threefry key (uint32, shape (2,)), splits it in two as
``jax.random.split`` does, draws with the second half and returns the first as the
key for the next draw. Same key, same draw: the ops are pure functions, so merging,
folding and re-running them is harmless, and a draw's test value (NumPy ``perform``,
``samplers``) is what the compiled program (``jax.random``) computes from the same key.

``size`` is an int64 vector; parameters broadcast to it (Theano's rule). Their
gradients: a draw is a deterministic function of its parameters given the key, so
``avg`` and ``std`` of a normal and ``low`` and ``high`` of a uniform get the
reparameterized gradient; discrete draws (binomial, integers, choice, multinomial)
give none, as in Theano.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.broadcast import sum_to_shape
from symnb.core.tensor.random import samplers, threefry
from symnb.core.tensor.shape import static_entries, vector_entries
from symnb.core.tensor.variable import TensorVariable
from symnb.core.graph.type import TensorType, describe_shape, is_float

__all__ = ["RandomVariable", "RandomOp", "UniformRV", "NormalRV", "TruncatedNormalRV", "BinomialRV",
           "RandomIntegersRV", "ChoiceRV", "PermutationRV", "MultinomialRV", "KEY_TYPE",
           "size_problem"]

#: The type of a stream's state: threefry key data.
KEY_TYPE = TensorType("uint32", threefry.KEY_SHAPE)


class RandomVariable(TensorVariable):
    """An output of a random op. The draw returned by ``RandomStreams`` carries ``rng``
    (the stream's state, a shared variable) and ``update`` (``(rng, next_key)``), as
    Theano's random variables do."""

    __slots__ = ("rng", "update")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rng: Any = None
        self.update: Any = None


def size_problem(name: str, param_shape: Sequence[int | None],
                 size: Sequence[int | None]) -> str | None:
    """Why a parameter of ``param_shape`` cannot broadcast to a draw of ``size`` (None when
    it can; None lengths are unknown and match anything)."""
    offset = len(size) - len(param_shape)
    if offset < 0 or any(p not in (None, 1) and size[offset + i] not in (None, p)
                         for i, p in enumerate(param_shape)):
        return (f"{name} of shape {describe_shape(param_shape)} does not broadcast to the "
                f"requested size {describe_shape(size)}")
    return None


class RandomOp(Op):
    """Base class: inputs ``(key, size, *params)``, outputs ``(next_key, draw)``.

    Subclasses say how to draw (``draw``: NumPy, from the half of the key kept for
    the draw) and the draw's dtype and shape."""

    __props__ = ("dtype",)
    param_names: tuple[str, ...] = ()

    def __init__(self, dtype: str) -> None:
        self.dtype = str(np.dtype(dtype))

    @property
    def output_class(self) -> type:
        return RandomVariable

    def make_node(self, key: Any, size: Variable, *params: Any) -> Apply:
        key = as_tensor_variable(key)
        if key.type.dtype != "uint32" or key.type.shape not in ((2,), (None,)):
            raise build_error(f"the state of a random stream must be a uint32 key of shape "
                              f"(2,), got {key.type}", TypeError, op=self, inputs=[key])
        params = [as_tensor_variable(p) for p in params]
        entries = static_entries(size)
        for name, p in zip(self.param_names, params):
            problem = self.param_problem(name, p.type.shape, entries)
            if problem is not None:
                raise build_error(problem, ValueError, op=self, inputs=[key, size, *params])
        return Apply(self, [key, size, *params],
                     [KEY_TYPE, TensorType(self.dtype, self.static_out_shape(entries, params))])

    def param_problem(self, name: str, shape: Sequence[int | None],
                      size: Sequence[int | None]) -> str | None:
        return size_problem(repr(name), shape, size)

    def static_out_shape(self, entries: list[int | None], params: list[Variable]) -> list:
        return entries

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        key, size, *params = inputs
        size = tuple(int(n) for n in size)
        if any(n < 0 for n in size):
            raise ValueError(f"negative dimensions are not allowed: size {size}")
        for name, p in zip(self.param_names, params):
            problem = self.param_problem(repr(name), p.shape, size)
            if problem is not None:
                raise ValueError(problem)
            self.check_param(name, p)
        next_key, draw_key = threefry.split(key)
        draw = self.draw(draw_key, size, params)
        return [next_key, np.asarray(draw, dtype=self.dtype)]

    def check_param(self, name: str, value: np.ndarray) -> None:
        """Raise ValueError when a parameter's value is outside its domain."""

    def draw(self, key: np.ndarray, size: tuple, params: list[np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def out_shape(self, node: Apply, size_entries: list) -> list:
        return size_entries

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        size = node.inputs[1]
        entries = vector_entries(size, size.type.shape[0])
        return [threefry.KEY_SHAPE, tuple(self.out_shape(node, entries))]

    def L_op(self, inputs, outputs, output_grads):
        return [None] * len(inputs)


class UniformRV(RandomOp):
    """Uniform on ``[low, high)`` (``jax.random.uniform``)."""

    param_names = ("low", "high")

    def draw(self, key, size, params):
        low, high = (np.asarray(p, self.dtype) for p in params)
        return samplers.uniform(key, size, self.dtype, low, high)

    def L_op(self, inputs, outputs, output_grads):
        key, size, low, high = inputs
        g = output_grads[1]
        if g is None:
            return [None] * 4
        u = UniformRV(self.dtype)(key, size, 0.0, 1.0)[1]  # the same bits, on [0, 1)
        return [None, None, sum_to_shape(g * (1.0 - u), low), sum_to_shape(g * u, high)]


class NormalRV(RandomOp):
    """``avg + std * z``, ``z`` standard normal (``jax.random.normal``)."""

    param_names = ("avg", "std")

    def check_param(self, name, value):
        if name == "std" and np.any(np.asarray(value) < 0):
            raise ValueError(f"normal: std must be non-negative, got a minimum of "
                             f"{np.min(value)}")

    def draw(self, key, size, params):
        avg, std = (np.asarray(p, self.dtype) for p in params)
        return samplers.scaled_normal(key, size, self.dtype, avg, std)

    def L_op(self, inputs, outputs, output_grads):
        key, size, avg, std = inputs
        g = output_grads[1]
        if g is None:
            return [None] * 4
        z = type(self)(self.dtype)(key, size, 0.0, 1.0)[1]  # the same standard draw
        return [None, None, sum_to_shape(g, avg), sum_to_shape(g * z, std)]


class TruncatedNormalRV(NormalRV):
    """``avg + std * z``, ``z`` standard normal truncated to ``(-2, 2)``: Theano's
    ``MRG_RandomStreams.normal(..., truncate=True)``, drawn by inverse CDF as
    ``jax.random.truncated_normal`` (``sqrt(2) * erfinv(u)``, ``u`` uniform between
    ``erf(∓sqrt(2))``), so every draw lies within ``avg ± 2 std``. The gradient is
    NormalRV's: ``avg`` gets ``g``, ``std`` gets ``g * z``."""

    def draw(self, key, size, params):
        avg, std = (np.asarray(p, self.dtype) for p in params)
        return samplers.truncated_normal(key, size, self.dtype, avg, std)


class BinomialRV(RandomOp):
    """The number of successes in ``n`` trials of probability ``p`` (``n`` a static int;
    each trial ``jax.random.bernoulli``)."""

    __props__ = ("dtype", "n")
    param_names = ("p",)

    def __init__(self, dtype: str, n: int = 1) -> None:
        super().__init__(dtype)
        self.n = int(n)

    def check_param(self, name, value):
        value = np.asarray(value)
        if np.any((value < 0) | (value > 1)):
            raise ValueError(f"binomial: p must lie in [0, 1], got values in "
                             f"[{np.min(value)}, {np.max(value)}]")

    def draw(self, key, size, params):
        (p,) = params
        p = np.asarray(p)
        if self.n == 1:
            return samplers.bernoulli(key, p, size)
        return samplers.bernoulli(key, p, (self.n, *size)).sum(axis=0)


class RandomIntegersRV(RandomOp):
    """Integers in ``[low, high]``, both included (Theano's ``random_integers``;
    ``jax.random.randint`` on ``[low, high + 1)``)."""

    param_names = ("low", "high")

    def draw(self, key, size, params):
        low, high = (np.asarray(p).astype(self.dtype) for p in params)
        return samplers.randint(key, size, low, high + 1, self.dtype)


class ChoiceRV(RandomOp):
    """Indices into ``range(n)`` (``jax.random.choice``), ``n`` an int input known
    while tracing, with replacement or not, uniformly or with probabilities ``p``."""

    __props__ = ("dtype", "replace", "weighted")

    def __init__(self, dtype: str, replace: bool = True, weighted: bool = False) -> None:
        super().__init__(dtype)
        self.replace = bool(replace)
        self.weighted = bool(weighted)

    def param_problem(self, name, shape, size):
        return None  # n is a scalar and p a vector over the choices, not over the size

    def perform(self, node, inputs):
        key, size, n, *p = inputs
        size, n = tuple(int(s) for s in size), int(n)
        p = np.asarray(p[0]) if p else None
        problem = choice_problem(n, size, self.replace, p)
        if problem is not None:
            raise ValueError(problem)
        next_key, draw_key = threefry.split(key)
        return [next_key, samplers.choice(draw_key, n, size, self.replace, p, self.dtype)]


def choice_problem(n: int, size: tuple, replace: bool, p: np.ndarray | None) -> str | None:
    """Why ``choice`` cannot draw ``size`` from ``range(n)`` (None when it can)."""
    draws = int(np.prod(size))
    if n <= 0 and draws:
        return f"choice: a must be positive unless no samples are taken, got {n}"
    if not replace and draws > n:
        return f"choice: cannot take {draws} samples from {n} without replacement"
    if p is not None:
        if p.shape != (n,):
            return f"choice: p must be a vector of length {n}, got shape {p.shape}"
        if np.any(p < 0):
            return f"choice: p must be non-negative, got a minimum of {np.min(p)}"
    return None


class PermutationRV(RandomOp):
    """Permutations of ``range(n)``, one per entry of ``size``: shape ``size + (n,)``
    (JAX's shuffle by sorting on random keys, along the last axis)."""

    def param_problem(self, name, shape, size):
        return None

    def static_out_shape(self, entries, params):
        from symnb.core.tensor.shape import static_int

        return [*entries, static_int(params[0])]

    def out_shape(self, node, size_entries):
        return [*size_entries, m.cast(node.inputs[2], "int64")]

    def perform(self, node, inputs):
        key, size, n = inputs
        size, n = tuple(int(s) for s in size), int(n)
        if n < 0:
            raise ValueError(f"permutation: n must be non-negative, got {n}")
        next_key, draw_key = threefry.split(key)
        x = np.broadcast_to(np.arange(n, dtype=self.dtype), (*size, n)).copy()
        return [next_key, samplers.shuffle(draw_key, x, x.ndim - 1)]


class MultinomialRV(RandomOp):
    """Counts of ``n`` draws among the categories of ``pvals`` (its last axis), for each
    entry of ``size``: shape ``size + (k,)``. Each draw compares a uniform with the
    cumulative probabilities (``n`` a static int)."""

    __props__ = ("dtype", "n")
    param_names = ("pvals",)

    def __init__(self, dtype: str, n: int = 1) -> None:
        super().__init__(dtype)
        self.n = int(n)

    def param_problem(self, name, shape, size):
        if len(shape) == 0:
            return f"multinomial: pvals must have at least one axis (the categories)"
        return size_problem(name, shape[:-1], size)

    def static_out_shape(self, entries, params):
        return [*entries, params[0].type.shape[-1]]

    def out_shape(self, node, size_entries):
        from symnb.core.tensor.shape import shape_i

        pvals = node.inputs[2]
        return [*size_entries, shape_i(pvals, pvals.ndim - 1)]

    def check_param(self, name, value):
        if np.any(np.asarray(value) < 0):
            raise ValueError(f"multinomial: pvals must be non-negative, got a minimum of "
                             f"{np.min(value)}")

    def draw(self, key, size, params):
        (pvals,) = params
        return multinomial_counts(samplers.uniform(key, (self.n, *size), pvals.dtype),
                                  pvals, np, self.dtype)


def multinomial_counts(u: Any, pvals: Any, xp: Any, dtype: str) -> Any:
    """The counts per category of the draws ``u`` (uniforms, shape ``(n, *size)``) from
    ``pvals`` (broadcasting to ``size + (k,)``): a draw falls in the first category whose
    cumulative probability exceeds ``u * total``. ``xp``: numpy or jax.numpy (the
    lowering rule calls this too, so both sides do the same arithmetic)."""
    k = pvals.shape[-1]
    cdf = xp.cumsum(pvals, axis=-1)
    scaled = u * cdf[..., -1]
    category = xp.sum(cdf[..., :-1] <= scaled[..., None], axis=-1)
    onehot = category[..., None] == xp.arange(k)
    counts = xp.sum(onehot, axis=0).astype(dtype)
    return xp.broadcast_to(counts, (*u.shape[1:], k))


def check_dtype_kind(op_name: str, dtype: str, want_float: bool) -> None:
    """A TypeError when ``dtype`` is not of the kind the distribution draws."""
    if is_float(dtype) != want_float:
        kind = "a float" if want_float else "an integer or bool"
        raise build_error(f"{op_name}: dtype must be {kind} dtype, got {dtype}", TypeError)
