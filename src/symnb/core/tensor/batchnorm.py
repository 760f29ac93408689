"""Batch normalization, Theano's functions (``theano.tensor.nnet.bn``).

As in Theano, ``batch_normalization_train`` and ``_test`` build one node of Theano's ops
(core/tensor/batchnorm_ops.py), whose gradient is Theano's formulas (the first
derivatives read only the ``mean`` and ``invstd`` outputs, so ``consider_constant`` of
them blocks every path through the statistics); compiling rewrites the nodes into
elementwise graphs (core/rewriting/batchnorm.py):

- ``batch_normalization_train(x, gamma, beta, axes)``: normalize with the mean and the
  (biased) variance of ``x`` over ``axes``; returns ``(out, mean, invstd)`` and, with
  running averages given, their updated values, the variance's with ``m / (m - 1)``
  (``m`` values averaged over);
- ``batch_normalization_test(x, gamma, beta, mean, var, axes)``: with given statistics;
- ``batch_normalization(inputs, gamma, beta, mean, std)``: the older elementwise form.

``axes``: ``'per-activation'`` (``(0,)``), ``'spatial'`` (``(0, 2, 3, ...)``) or a tuple.
Parameters have either ``x``'s number of dimensions (length 1 on the normalized axes)
or one dimension per axis that is not normalized; the statistics returned follow the
parameters' layout, as in Theano. ``epsilon`` is a floatX constant of at least 1e-5
(cuDNN's minimum, which Theano checks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Variable
from symnb.core.graph.config import config
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.batchnorm_ops import AbstractBatchNormInference, AbstractBatchNormTrain
from symnb.core.tensor.shape import dimshuffle
from symnb.core.tensor.shape_extra import addbroadcast, patternbroadcast

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
        """``param`` with the input's dimensions, length 1 on the normalized axes."""
        if self.full:
            return addbroadcast(param, *self.axes)
        pattern = ["x"] * self.ndim
        for i, axis in enumerate(self.kept):
            pattern[axis] = i
        return dimshuffle(param, pattern)

    def statistic(self, stat: Variable) -> Variable:
        """A statistic computed with ``keepdims``, in the parameters' layout."""
        return stat if self.full else dimshuffle(stat, self.kept)


def _epsilon(epsilon: Any, function: str) -> Any:
    """``epsilon`` as a floatX number, checked against cuDNN's minimum as Theano did
    (after the cast: ``np.float32(1e-5) < 1e-5``); a symbolic one is passed on."""
    if isinstance(epsilon, Variable):
        return epsilon
    value = np.asarray(epsilon, dtype=config.floatX)[()]
    if value < 1e-5:
        raise build_error(f"{function}: epsilon must be at least 1e-5, got {epsilon!r}", ValueError)
    return value


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
    running = [] if running_mean is None else [as_tensor_variable(running_mean), as_tensor_variable(running_var)]
    if running:
        layout.check("running_mean and running_var", *running)
    epsilon = _epsilon(epsilon, "batch_normalization_train")
    params = [layout.broadcast(v) for v in (gamma, beta, *running)]
    results = list(AbstractBatchNormTrain(axes)(x, *params[:2], epsilon, running_average_factor, *params[2:]))
    # The new running averages keep their inputs' length-1 axes (Theano's patternbroadcast).
    results[3:] = [patternbroadcast(r, [n == 1 for n in p.type.shape]) for r, p in zip(results[3:], params[2:])]
    return (results[0],) + tuple(layout.statistic(r) for r in results[1:])


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
    epsilon = _epsilon(epsilon, "batch_normalization_test")
    gamma, beta, mean, var = (layout.broadcast(v) for v in (gamma, beta, mean, var))
    return AbstractBatchNormInference(axes)(x, gamma, beta, mean, var, epsilon)


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
