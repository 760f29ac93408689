"""Batch normalization, Theano's functions (``theano.tensor.nnet.bn``).

Built from the existing elementwise ops and reductions, so their test values,
gradients and lowering are those ops' own:

- ``batch_normalization_train(x, gamma, beta, axes)``: normalize with the mean and the
  (biased) variance of ``x`` over ``axes``; returns ``(out, mean, invstd)`` and, with
  running averages given, their updated values, the variance's with ``m / (m - 1)``
  (``m`` values averaged over);
- ``batch_normalization_test(x, gamma, beta, mean, var, axes)``: with given statistics;
- ``batch_normalization(inputs, gamma, beta, mean, std)``: the older elementwise form.

``axes``: ``'per-activation'`` (``(0,)``), ``'spatial'`` (``(0, 2, 3, ...)``) or a tuple.
Parameters have either ``x``'s number of dimensions (length 1 on the normalized axes)
or one dimension per axis that is not normalized; the statistics returned follow the
parameters' layout, as in Theano.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Variable
from symnb.core.tensor import math as m
from symnb.core.tensor import reduction
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shape import dimshuffle, shape_i

__all__ = ["batch_normalization", "batch_normalization_train", "batch_normalization_test"]


def _axes(axes: Any, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The normalized axes and the others, as Theano's ``_prepare_batch_normalization_axes``."""
    if axes == "per-activation":
        axes = (0,)
    elif axes == "spatial":
        axes = (0,) + tuple(range(2, ndim))
    elif isinstance(axes, (tuple, list, np.ndarray)):
        axes = tuple(int(a) for a in axes)
    else:
        raise build_error(f"batch normalization: axes must be 'per-activation', 'spatial' or a tuple "
                          f"of ints; got {axes!r}", ValueError)
    axes = tuple(sorted(axes))
    if not axes:
        raise build_error("batch normalization: there must be at least one normalization axis", ValueError)
    if min(axes) < 0 or max(axes) >= ndim:
        raise build_error(f"batch normalization: axes {axes} must be in 0..{ndim - 1} for a "
                          f"{ndim}-d input", ValueError)
    return axes, tuple(i for i in range(ndim) if i not in axes)


class _Layout:
    """How parameters line up with the input: either already ``ndim``-d, or one dimension
    per non-normalized axis (then broadcast with ``dimshuffle``)."""

    def __init__(self, x: Variable, axes: tuple[int, ...], kept: tuple[int, ...], first: Variable) -> None:
        self.ndim, self.axes, self.kept = x.ndim, axes, kept
        self.full = first.ndim == x.ndim
        self.params_ndim = x.ndim if self.full else len(kept)

    def check(self, what: str, *params: Variable) -> None:
        dims = [p.ndim for p in params]
        if any(d != self.params_ndim for d in dims):
            raise build_error(f"batch normalization: {what} must have {self.params_ndim} dimension(s) "
                              f"(the input's, or one per non-normalized axis); got {dims}", ValueError)
        for param in params if self.full else ():
            lengths = [param.type.shape[a] for a in self.axes]
            if any(n not in (None, 1) for n in lengths):
                raise build_error(f"batch normalization: {what} must have length 1 on the normalized "
                                  f"axes {self.axes}; got shape {param.type.short()}", ValueError)

    def broadcast(self, param: Variable) -> Variable:
        if self.full:
            return param
        pattern = ["x"] * self.ndim
        for i, axis in enumerate(self.kept):
            pattern[axis] = i
        return dimshuffle(param, pattern)

    def statistic(self, stat: Variable) -> Variable:
        """A statistic computed with ``keepdims``, in the parameters' layout."""
        return stat if self.full else dimshuffle(stat, self.kept)


def batch_normalization_train(inputs: Any, gamma: Any, beta: Any, axes: Any = "per-activation",
                              epsilon: float = 1e-4, running_average_factor: float = 0.1,
                              running_mean: Any = None, running_var: Any = None) -> tuple[Variable, ...]:
    """Normalize ``inputs`` with its own mean and variance over ``axes``, then scale by
    ``gamma`` and shift by ``beta``: ``(inputs - mean) * gamma * invstd + beta`` with
    ``invstd = 1 / sqrt(var + epsilon)``.

    Returns ``(out, mean, invstd)``, then ``new_running_mean = running_mean * (1 - f) +
    mean * f`` and ``new_running_var = running_var * (1 - f) + m / (m - 1) * var * f``
    (``f = running_average_factor``) when both running averages are given.
    """
    x, gamma, beta = (as_tensor_variable(v) for v in (inputs, gamma, beta))
    axes, kept = _axes(axes, x.ndim)
    layout = _Layout(x, axes, kept, gamma)
    layout.check("gamma and beta", gamma, beta)
    if (running_mean is None) != (running_var is None):
        raise build_error("batch_normalization_train: give both running_mean and running_var, or "
                          "neither", ValueError)
    mean = reduction.mean(x, axis=axes, keepdims=True)
    var = reduction.var(x, axis=axes, keepdims=True)
    invstd = m.true_div(1, m.sqrt(m.add(var, epsilon)))
    out = m.add(m.mul(m.mul(m.sub(x, mean), layout.broadcast(gamma)), invstd), layout.broadcast(beta))
    results = (out, layout.statistic(mean), layout.statistic(invstd))
    if running_mean is None:
        return results
    running_mean, running_var = as_tensor_variable(running_mean), as_tensor_variable(running_var)
    layout.check("running_mean and running_var", running_mean, running_var)
    count = _product([shape_i(x, a) for a in axes])
    count = m.cast(count, var.dtype)
    unbiased = m.mul(m.true_div(count, m.sub(count, 1)), var)
    factor = running_average_factor
    new_mean = m.add(m.mul(running_mean, 1 - factor), m.mul(layout.statistic(mean), factor))
    new_var = m.add(m.mul(running_var, 1 - factor), m.mul(layout.statistic(unbiased), factor))
    return results + (new_mean, new_var)


def _product(factors: list[Variable]) -> Variable:
    total = factors[0]
    for f in factors[1:]:
        total = m.mul(total, f)
    return total


def batch_normalization_test(inputs: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                             axes: Any = "per-activation", epsilon: float = 1e-4) -> Variable:
    """``(inputs - mean) * gamma / sqrt(var + epsilon) + beta`` with given statistics
    (typically the running averages of :func:`batch_normalization_train`)."""
    x = as_tensor_variable(inputs)
    gamma, beta, mean, var = (as_tensor_variable(v) for v in (gamma, beta, mean, var))
    axes, kept = _axes(axes, x.ndim)
    layout = _Layout(x, axes, kept, gamma)
    layout.check("gamma and beta", gamma, beta)
    layout.check("mean and var", mean, var)
    gamma, beta, mean, var = (layout.broadcast(v) for v in (gamma, beta, mean, var))
    scale = m.true_div(gamma, m.sqrt(m.add(var, epsilon)))
    return m.add(m.mul(m.sub(x, mean), scale), beta)


def batch_normalization(inputs: Any, gamma: Any, beta: Any, mean: Any, std: Any,
                        mode: str = "low_mem") -> Variable:
    """Theano's elementwise batch normalization, all operands broadcast against ``inputs``:
    ``(inputs - mean) / std * gamma + beta`` (``mode='low_mem'``) or, the same value
    grouped differently, ``(inputs - mean) * (gamma / std) + beta`` (``'high_mem'``)."""
    x, gamma, beta, mean, std = (as_tensor_variable(v) for v in (inputs, gamma, beta, mean, std))
    if mode == "low_mem":
        return m.add(m.mul(m.true_div(m.sub(x, mean), std), gamma), beta)
    if mode == "high_mem":
        return m.add(m.mul(m.sub(x, mean), m.true_div(gamma, std)), beta)
    raise build_error(f"batch_normalization: mode must be 'low_mem' or 'high_mem'; got {mode!r}", ValueError)
