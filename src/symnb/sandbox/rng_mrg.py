"""``theano.sandbox.rng_mrg``: Theano's MRG31k3p random streams, with Theano's numbers.

``MRG_RandomStreams(seed)`` draws as Theano's does: each draw gets ``nstreams`` MRG31k3p
streams (a shared int32 matrix ``(nstreams, 6)``, its default update the matrix after
the draw), the factory's state jumping ``2**134`` steps per draw and the draw's streams
``2**72`` apart (``core/tensor/random/mrg.py``: the generator, ``mrg_uniform`` and the
jump helpers). ``uniform`` gives Theano's (and L'Ecuyer's reference's) values;
``normal`` is Theano's Box-Muller on those uniforms; ``binomial`` compares them with
``p``; ``multinomial`` of a matrix of ``pvals`` counts where they fall in the cumulative
probabilities (Theano's ``MultinomialFromUniform``). Their parameters have no gradient
(``NullTypeGradError``), as in Theano.

Differences, each listed in docs/porting.md: ``normal(..., truncate=True)`` (and
``truncated_normal``) maps the MRG uniforms through the inverse CDF of the normal
truncated at two standard deviations, where Theano redrew the out-of-range Box-Muller
radii (a draw of data-dependent size XLA cannot compile; Theano's result was slightly
wider, standard deviation 0.890 instead of 0.880); what Theano's MRG refused but symnb's
``RandomStreams`` draws (``choice``, ``multinomial`` with a ``size`` or of ``pvals`` other
than a matrix, ``binomial`` with a symbolic size and ``n > 1``, ``permutation``,
``random_integers``) is drawn on threefry keys as ``RandomStreams`` does. ``target`` is
accepted and ignored (symnb runs every program on ``sn.config.device``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.config import config
from symnb.core.graph.errors import build_error
from symnb.core.graph.keywords import checked_keywords
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.traceback_filter import api_boundaries, entry_point
from symnb.core.graph.type import is_float
from symnb.core.tensor import alloc, extra_ops, reduction, shape_extra, special
from symnb.core.tensor import join as join_mod
from symnb.core.tensor import shape as shape_mod
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable, constant
from symnb.core.tensor.gradient_views import undefined_grad
from symnb.core.tensor.random import samplers
from symnb.core.tensor.random.mrg import (  # noqa: F401  (Theano's public names)
    M1, M2, NORM, A1p72, A1p134, A2p72, A2p134, DotModulo, ff_2p72, ff_2p134, guess_n_streams,
    matVecModM, mrg_next_value, mrg_uniform, mrg_uniform_base, multMatVect, substream_rstates,
)
from symnb.core.tensor.random.state import RandomStateSharedVariable
from symnb.core.tensor.random.streams import OTHER_NAMES, RandomStreams, stream_key
from symnb.core.tensor.shape import as_shape_vector, shape
from symnb.core.tensor.shared import shared

__all__ = ["MRG_RandomStreams", "mrg_uniform", "mrg_uniform_base", "DotModulo", "ff_2p72",
           "ff_2p134", "mrg_next_value", "multMatVect", "matVecModM", "guess_n_streams"]

#: ``scipy.stats.truncnorm.std(-2, 2)``: the standard deviation of the standard normal
#: truncated at two standard deviations (Theano's constant).
TRUNCATED_STD = 0.87962566103423978


@api_boundaries  # errors show the user's line
class MRG_RandomStreams(RandomStreams):
    """Theano's MRG31k3p random streams (see the module docstring).

    ``seed``: an int in ``[1, M2)`` (replicated six times) or six ints, the first three
    below ``M1`` and not all 0, the last three below ``M2`` and not all 0."""

    def __init__(self, seed: Any = 12345) -> None:
        #: ``(state, next_state, size, nstreams)`` of every draw, as Theano lists them.
        self.state_updates: list[tuple] = []
        #: The seed ``seed()`` without argument goes back to.
        self.default_instance_seed = seed
        self.set_rstate(seed)

    # -- state ---------------------------------------------------------------------------
    def set_rstate(self, seed: Any) -> None:
        """The factory's state from ``seed`` (Theano's checks and messages)."""
        if isinstance(seed, (int, np.integer)):
            if seed == 0:
                raise ValueError("seed should not be 0", seed)
            if seed >= M2:
                raise ValueError("seed should be less than %i" % M2, seed)
            self.rstate = np.asarray([seed] * 6, dtype="int32")
        elif len(seed) == 6:
            if seed[0] == 0 and seed[1] == 0 and seed[2] == 0:
                raise ValueError("The first 3 values of seed should not be all 0", seed)
            if seed[3] == 0 and seed[4] == 0 and seed[5] == 0:
                raise ValueError("The last 3 values of seed should not be all 0", seed)
            if seed[0] >= M1 or seed[1] >= M1 or seed[2] >= M1:
                raise ValueError("The first 3 values of seed should be less than %i" % M1, seed)
            if seed[3] >= M2 or seed[4] >= M2 or seed[5] >= M2:
                raise ValueError("The last 3 values of seed should be less than %i" % M2, seed)
            self.rstate = np.asarray(seed, dtype="int32")
        else:
            raise TypeError("seed should be 1 integer or 6 integers")

    def seed(self, seed: Any = None) -> None:
        """Re-initialize every stream made so far from ``seed`` (None: the constructor's),
        in the order they were made: the same seed gives the same numbers again."""
        if seed is None:
            seed = self.default_instance_seed
        self.set_rstate(seed)
        for index, (old_r, new_r, size, nstreams) in enumerate(self.state_updates):
            if isinstance(old_r, RandomStateSharedVariable):  # a threefry draw
                old_r.set_value(stream_key(int(np.asarray(seed).ravel()[0]), index))
                continue
            if nstreams is None:
                nstreams = self.n_streams(size)
            old_r.set_value(self.get_substream_rstates(nstreams, new_r.owner.outputs[1].dtype),
                            borrow=True)

    def inc_rstate(self) -> None:
        """Jump the factory's state ``2**134`` steps (the next draw's start)."""
        self.rstate = ff_2p134(self.rstate)

    def get_substream_rstates(self, n_streams: int, dtype: str, inc_rstate: bool = True) -> np.ndarray:
        """``n_streams`` states (int32 ``(n_streams, 6)``) from the factory's, ``2**72``
        steps apart; then the factory's state jumps (``inc_rstate``)."""
        assert isinstance(dtype, str)
        n_streams = int(n_streams)
        assert 0 < n_streams < 2 ** 72
        rval = substream_rstates(self.rstate, n_streams)
        if inc_rstate:
            self.inc_rstate()
        return rval

    def n_streams(self, size: Any) -> int:
        """Theano's number of streams for a draw of ``size`` (:func:`guess_n_streams`)."""
        return guess_n_streams(size, warn=True)

    def pretty_return(self, node_rstate: Any, new_rstate: Variable, sample: Variable, size: Any,
                      nstreams: Any) -> Variable:
        """Record the draw's state and update (``sample.rstate``, ``sample.update``,
        ``state_updates``, the state's ``default_update``)."""
        sample.rstate = node_rstate
        sample.update = (node_rstate, new_rstate)
        self.state_updates.append((node_rstate, new_rstate, size, nstreams))
        node_rstate.default_update = new_rstate
        return sample

    def updates(self) -> list[tuple]:
        """The ``(state, update)`` pairs of every draw (for ``function(updates=...)``)."""
        return [(state, state.default_update if state.default_update is not None else after)
                for state, after, *_ in self.state_updates]

    def gen(self, op: Any, size: Variable, *params: Any) -> Any:
        """A threefry draw (what Theano's MRG refused; ``RandomStreams.gen``), listed in
        ``state_updates`` as Theano's four entries."""
        draw = super().gen(op, size, *params)
        state, after = self.state_updates.pop()
        self.state_updates.append((state, after, None, None))
        return draw

    # -- distributions ---------------------------------------------------------------------
    @checked_keywords(OTHER_NAMES)
    def uniform(self, size: Any = None, low: Any = 0.0, high: Any = 1.0, ndim: int | None = None,
                dtype: str | None = None, nstreams: Any = None, target: Any = None) -> Variable:
        """Uniform on ``(low, high)``, MRG31k3p's values (``low``, ``high``: no gradient)."""
        low, high = as_tensor_variable(low), as_tensor_variable(high)
        dtype = _float_dtype(dtype, low, high)
        low, high = undefined_grad(m.cast(low, dtype)), undefined_grad(m.cast(high, dtype))
        if size is None:  # symnb's RandomStreams: the shape of the parameters
            size = _broadcast_shape(low, high)
        _check_size(size)
        orig_nstreams = nstreams
        if nstreams is None:
            nstreams = self.n_streams(size)
        node_rstate = shared(self.get_substream_rstates(nstreams, dtype))
        new_rstate, u = mrg_uniform.new(node_rstate, ndim, dtype, size)
        u = self.pretty_return(node_rstate, new_rstate, u, size, orig_nstreams)
        node_rstate.tag.is_rng = True
        return u * (high - low) + low

    @checked_keywords(OTHER_NAMES)
    def binomial(self, size: Any = None, n: int = 1, p: Any = 0.5, ndim: int | None = None,
                 dtype: str = "int64", nstreams: Any = None, target: Any = None) -> Variable:
        """Successes in ``n`` trials of probability ``p``: ``uniform < p`` (``n`` uniforms
        per value when ``n > 1``, a static int; ``p``: no gradient)."""
        p = undefined_grad(as_tensor_variable(p))
        if size is None:
            size = _broadcast_shape(p)
        if isinstance(n, (int, np.integer)) and n == 1:
            return m.cast(m.lt(self.uniform(size=size, ndim=ndim, nstreams=nstreams), p), dtype)
        if isinstance(n, (int, np.integer)) and n > 1 and isinstance(size, (tuple, list)):
            u = self.uniform(size=(int(n), *size), nstreams=nstreams)
            return m.cast(reduction.sum(m.lt(u, p), axis=0), dtype)
        return super().binomial(size, n, p, ndim, dtype)

    @checked_keywords(OTHER_NAMES)
    def normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0, ndim: int | None = None,
               dtype: str | None = None, nstreams: Any = None, truncate: bool = False,
               target: Any = None) -> Variable:
        """Normal draws, Theano's Box-Muller on MRG uniforms (``avg``, ``std``: no
        gradient); ``truncate=True``: the normal truncated at two standard deviations,
        by inverse CDF (the module docstring says why not Theano's redraw)."""
        avg, std = as_tensor_variable(avg), as_tensor_variable(std)
        if size is None:
            size = _broadcast_shape(avg, std)
        size_var = _check_size(size)
        dtype = _float_dtype(dtype, avg, std)
        avg, std = undefined_grad(m.cast(avg, dtype)), undefined_grad(m.cast(std, dtype))
        n_odd = reduction.prod(size_var, dtype="int64")
        if truncate:
            low, high = samplers.truncated_normal_bounds(dtype)
            u = self.uniform((n_odd,), low=low, high=high, ndim=1, dtype=dtype, nstreams=nstreams)
            z = m.clip(constant(np.sqrt(2), dtype=dtype) * special.erfinv(u),
                       *(constant(b) for b in samplers.truncation_clamp(dtype)))
            samples = z
        else:
            n_even = n_odd + n_odd % 2
            u = self.uniform((n_even,), low=0.0, high=1.0, ndim=1, dtype=dtype, nstreams=nstreams)
            u1, u2 = u[:n_even // 2], u[n_even // 2:]
            r = m.sqrt(constant(-2.0, dtype=dtype) * m.log(u1))
            theta = constant(np.array(2.0 * np.pi, dtype=dtype)) * u2
            samples = shape_extra.join(0, r * m.cos(theta), r * m.sin(theta))[:n_odd]
        ndim_out = ndim if ndim is not None else (size_var.type.shape[0])
        samples = shape_mod.reshape(samples, size_var, ndim=ndim_out)
        return samples * std + avg

    @checked_keywords(OTHER_NAMES)
    def truncated_normal(self, size: Any = None, avg: Any = 0.0, std: Any = 1.0,
                         ndim: int | None = None, dtype: str | None = None, nstreams: Any = None,
                         target: Any = None) -> Variable:
        """The normal truncated at two standard deviations, scaled so that the draws
        have standard deviation ``std`` (Theano's: ``normal(truncate=True)`` with ``std``
        divided by ``scipy.stats.truncnorm.std(-2, 2)``)."""
        # the dtype of the std given, not of the host's float64 quotient
        dtype = _float_dtype(dtype, as_tensor_variable(avg), as_tensor_variable(std))
        if isinstance(std, Variable):
            std = std / constant(TRUNCATED_STD, dtype=std.dtype if is_float(std.dtype) else config.floatX)
        else:
            std = np.asarray(std) / TRUNCATED_STD
        return self.normal(size, avg, std, ndim, dtype, nstreams=nstreams, truncate=True)

    @checked_keywords(OTHER_NAMES)
    def multinomial(self, size: Any = None, n: int = 1, pvals: Any = None,
                    ndim: int | None = None, dtype: str = "int64", nstreams: Any = None,
                    target: Any = None) -> Variable:
        """Counts of ``n`` draws among the categories of each row of ``pvals`` (Theano's:
        a matrix, no ``size``; row ``r``'s ``c``-th draw is the uniform ``c * rows + r``,
        in the first category whose cumulative probability exceeds it)."""
        if pvals is None:
            raise TypeError("You have to specify pvals")
        if size is not None and isinstance(size, (tuple, list)) and any(
                isinstance(i, (int, np.integer)) and i <= 0 for i in size):
            raise ValueError("The specified size contains a dimension with value <= 0", size)
        pvals = as_tensor_variable(pvals)
        if size is not None or ndim is not None or pvals.ndim != 2 or not isinstance(n, (int, np.integer)):
            return super().multinomial(size, n, pvals, ndim, dtype)  # beyond Theano's MRG
        pvals = undefined_grad(pvals)
        rows = shape(pvals)[0]
        unis = self.uniform(size=(rows * int(n),), ndim=1, dtype=pvals.dtype, nstreams=nstreams)
        cdf = extra_ops.cumsum(pvals, axis=1)
        u = shape_mod.reshape(unis, (int(n), rows), ndim=2)
        category = reduction.sum(m.le(cdf.dimshuffle("x", 0, 1), u.dimshuffle(0, 1, "x")), axis=2)
        k = _categories(pvals)
        onehot = m.eq(category.dimshuffle(0, 1, "x"), alloc.arange(k).dimshuffle("x", "x", 0))
        return m.cast(reduction.sum(onehot, axis=0), dtype)

    @checked_keywords(OTHER_NAMES)
    def choice(self, size: Any = 1, a: Any = None, replace: bool = True, p: Any = None,
               ndim: int | None = None, dtype: str = "int64", nstreams: Any = None,
               target: Any = None) -> Any:
        """Theano's MRG choice: ``a=None``, ``p`` a matrix, without replacement: for each
        row of ``p``, ``size`` (a static int) indices drawn one after the other from MRG
        uniforms (draw ``c`` of row ``r`` is uniform ``c * rows + r``), each picked
        category's probability then zeroed and the row renormalized (Theano's
        ``ChoiceFromUniform``). Other arguments (``a`` an int or a vector, with
        replacement...): :meth:`RandomStreams.choice`, on threefry keys."""
        if a is not None or p is None or as_tensor_variable(p).ndim != 2:
            return super().choice(size, 2 if a is None else a, replace, p, ndim, dtype)
        if replace:
            raise NotImplementedError("MRG_RandomStreams.choice only works without "
                                      "replacement for now.")
        if ndim is not None:
            raise ValueError("ndim argument to MRG_RandomStreams.choice is not used.")
        if not isinstance(size, (int, np.integer)) or size < 1:
            raise build_error(f"MRG_RandomStreams.choice: size must be a positive int known "
                              f"when the graph is built, got {size!r}", ValueError)
        p = undefined_grad(as_tensor_variable(p))
        k_static = p.type.shape[1]
        if k_static is not None and size > k_static:
            raise build_error(f"Cannot sample without replacement n samples bigger than the "
                              f"size of the distribution: {size} samples from {k_static}",
                              ValueError)
        n, rows, k = int(size), shape(p)[0], _categories(p)
        unis = self.uniform(size=(rows * n,), ndim=1, dtype=p.dtype, nstreams=nstreams)
        outcomes = alloc.arange(k).dimshuffle("x", 0)
        current, columns = p, []
        for c in range(n):
            u = unis[c * rows:(c + 1) * rows].dimshuffle(0, "x")
            index = reduction.sum(m.le(extra_ops.cumsum(current, axis=1), u), axis=1)
            # a uniform beyond the row's total picks nothing: -1, the row unchanged
            columns.append(m.switch(m.eq(index, k), -1, index))
            kept = m.cast(m.neq(index.dimshuffle(0, "x"), outcomes), current.dtype)
            current = current * kept
            current = current / reduction.sum(current, axis=1, keepdims=True)
        return m.cast(join_mod.stack(columns, axis=1), dtype)

    @checked_keywords(OTHER_NAMES)
    def multinomial_wo_replacement(self, size: Any = None, n: int = 1, pvals: Any = None,
                                   ndim: int | None = None, dtype: str = "int64",
                                   nstreams: Any = None, target: Any = None) -> Any:
        """Deprecated in Theano: ``choice(size=n, a=None, replace=False, p=pvals)``."""
        warn_at_user_line("MRG_RandomStreams.multinomial_wo_replacement() is deprecated and "
                          "will be removed in the next release of Theano. Please use "
                          "MRG_RandomStreams.choice() instead.")
        assert size is None
        return self.choice(size=n, a=None, replace=False, p=pvals, dtype=dtype,
                           nstreams=nstreams, ndim=ndim)


def _float_dtype(dtype: str | None, *params: Variable) -> str:
    """Theano's: the given dtype, else the parameters' float type, at least floatX."""
    if dtype is not None:
        return str(np.dtype(dtype))
    return str(np.result_type(config.floatX, *(p.dtype for p in params if is_float(p.dtype))))


def _broadcast_shape(*params: Variable) -> Any:
    """The shape of the parameters broadcast together (a tuple of ints when static)."""
    static = [p.type.shape for p in params]
    if all(None not in s for s in static):
        return tuple(int(n) for n in np.broadcast_shapes(*static))
    total = params[0]
    for p in params[1:]:
        total = total + m.cast(p, total.dtype) * 0
    return shape(total)


def _check_size(size: Any) -> Variable:
    """``size`` as an int vector; ValueError for a length that is not positive (Theano's)."""
    if isinstance(size, Variable):
        if size.ndim == 1:
            return size
        if size.ndim == 0:
            return as_shape_vector((size,))
        raise ValueError("Theano variable must have 1 dimension to be a valid size.", size)
    if isinstance(size, (int, np.integer)):
        size = (size,)
    if not isinstance(size, (tuple, list)):
        raise ValueError("Size must be a int, tuple, list or Theano variable.", size)
    for i in size:
        if isinstance(i, Variable):
            if i.ndim != 0:
                raise ValueError("Non-scalar Theano variable in size", size, i)
        elif isinstance(i, (int, np.integer)):
            if i <= 0:
                raise ValueError("The specified size contains a dimension with value <= 0", size)
        else:
            raise ValueError("Only Theano variables and integers are allowed in a size-tuple.",
                             size, i)
    return as_shape_vector(tuple(size))


def _categories(p: Variable) -> Any:
    """The length of ``p``'s last axis: an int when static (the draw's shape keeps it)."""
    k = p.type.shape[-1]
    return int(k) if k is not None else shape(p)[p.ndim - 1]


# Theano's helpers of the generator, called from users' code too: their errors show the
# user's line (the functions live in core/tensor/random/mrg.py, which symnb calls directly).
ff_2p72, ff_2p134, mrg_next_value, multMatVect, matVecModM, guess_n_streams = map(
    entry_point, (ff_2p72, ff_2p134, mrg_next_value, multMatVect, matVecModM, guess_n_streams))
