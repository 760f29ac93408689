"""Theano's batch-normalization ops (``theano.tensor.nnet.bn``), as Ops of their own.

``T.nnet.bn.batch_normalization_train``/``_test`` (core/tensor/batchnorm.py) build one
node of these ops, as Theano did: the gradient of the training op is an
``AbstractBatchNormTrainGrad`` node reading only its ``mean`` and ``invstd`` outputs, so
``consider_constant=[mean, invstd]`` blocks every path through the statistics (the second
derivatives are Theano's formulas, ``AbstractBatchNormTrainGrad.L_op``). Compiling
replaces each node by the elementwise graph of the same formulas
(core/rewriting/batchnorm.py, Theano's ``local_abstract_batch_norm_*``), which the other
rewrites then simplify and fuse; a graph compiled without rewrites runs them through
their XLA rules.

- :class:`AbstractBatchNormTrain` ``(x, scale, bias, epsilon, running_average_factor
  [, running_mean, running_var])``: ``(out, mean, invstd[, new running_mean, new
  running_var])``, the statistics over ``axes`` (kept as length-1 axes);
- :class:`AbstractBatchNormInference` ``(x, scale, bias, mean, var, epsilon)``;
- :class:`AbstractBatchNormTrainGrad` ``(x, dy, scale, x_mean, x_invstd, epsilon)``: the
  gradients of the training normalization with respect to ``x``, ``scale`` and ``bias``.

Each has its NumPy ``perform``, ``infer_shape``, Theano's gradient and an XLA rule
(lower_xla/rules/batchnorm_ops.py). The formulas are written once, for an array module
``xp`` (NumPy, ``jax.numpy`` or :data:`GRAPH`, symnb's own tensor functions), so the test
value, the rule and the rewritten graph compute the same thing. ``epsilon`` and the
running-average factor never widen the input's dtype (:func:`no_wider`), as in Theano:
its rewrite cast a float64 ``epsilon`` down for a float32 input, and NumPy 1 kept a float32
array float32 against a float64 0-d array in ``perform``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.graph.errors import build_error
from symnb.core.graph.op import Op, snake_case
from symnb.core.gradient_types import disconnected_type, is_disconnected
from symnb.core.tensor import math as m
from symnb.core.tensor import reduction
from symnb.core.tensor.alloc import fill
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import mean as _mean
from symnb.core.tensor.reduction import sum as _sum

__all__ = ["AbstractBatchNormTrain", "AbstractBatchNormInference", "AbstractBatchNormTrainGrad",
           "train_forward", "train_gradients", "inference_forward", "running_averages",
           "no_wider", "GRAPH"]

#: symnb's tensor functions under the names the formulas below call (``xp.mean`` ...).
GRAPH = SimpleNamespace(mean=reduction.mean, var=reduction.var, sum=reduction.sum, sqrt=m.sqrt)


def _common(op: str, *variables: Any) -> list:
    """The variables as tensors of one dtype (their common float type), of one ndim."""
    tensors = [as_tensor_variable(v) for v in variables]
    dtype = str(np.result_type(*[np.dtype(t.dtype) for t in tensors]))
    tensors = [t if t.dtype == dtype else m.cast(t, dtype) for t in tensors]
    if len({t.ndim for t in tensors}) != 1:
        raise build_error(f"{op}: the inputs must have the same number of dimensions; got "
                          f"{', '.join(t.type.short() for t in tensors)}", ValueError, inputs=tensors)
    return tensors


class _Axes(Op):
    """Base class: an op over the normalized ``axes`` (a non-empty tuple of ints)."""

    __props__ = ("axes",)
    #: What views call the op: the public function that builds it.
    _public_name = ""

    def __init__(self, axes: Sequence[int] = (0,)) -> None:
        if not isinstance(axes, (tuple, list)) or len(axes) == 0:
            raise ValueError(f"{type(self).__name__}: axes must be a non-empty tuple or list, "
                             f"got {axes!r}")
        self.axes = tuple(int(a) for a in axes)

    def public_name(self) -> str:
        return self._public_name or snake_case(type(self).__name__)

    def _check_axes(self, ndim: int) -> None:
        if min(self.axes) < 0 or max(self.axes) >= ndim:
            raise ValueError(f"axes should be less than ndim (<{ndim}), but {self.axes} given")


def train_forward(xp: Any, x: Any, scale: Any, bias: Any, epsilon: Any, axes: tuple) -> tuple:
    """``(out, mean, invstd, var)`` of the training normalization (``xp``: NumPy or jax.numpy)."""
    mean = xp.mean(x, axis=axes, keepdims=True)
    var = xp.var(x, axis=axes, keepdims=True)
    invstd = 1.0 / xp.sqrt(var + epsilon)
    return (x - mean) * (scale * invstd) + bias, mean, invstd, var


def inference_forward(xp: Any, x: Any, scale: Any, bias: Any, mean: Any, var: Any,
                      epsilon: Any) -> Any:
    """The normalization with given statistics (``xp``: NumPy, jax.numpy or :data:`GRAPH`)."""
    return (x - mean) * (scale / xp.sqrt(var + epsilon)) + bias


def running_averages(mean: Any, var: Any, running_mean: Any, running_var: Any, factor: Any,
                     n: Any) -> tuple:
    """The new running mean and variance; ``n``: the number of values each statistic
    averages (the variance is made unbiased with ``n / (n - 1)``)."""
    return (running_mean * (1.0 - factor) + mean * factor,
            running_var * (1.0 - factor) + (n / (n - 1)) * var * factor)


def no_wider(scalar: Any, dtype: str) -> Any:
    """``epsilon`` or the average factor (a NumPy or JAX 0-d array, or a variable), cast
    down to the input's ``dtype`` where it would widen it, else as it is (a float32 factor
    against float64 statistics: ``1 - factor`` rounded in float32, as Theano computed it)."""
    if np.result_type(np.dtype(scalar.dtype), np.dtype(dtype)) == np.dtype(dtype):
        return scalar
    return scalar.astype(dtype)


def train_gradients(xp: Any, x: Any, dy: Any, scale: Any, x_mean: Any, x_invstd: Any,
                    axes: tuple) -> tuple:
    """The gradients of the training normalization with respect to ``(x, scale, bias)``."""
    x_diff = x - x_mean
    mean_dy_x_diff = xp.mean(dy * x_diff, axis=axes, keepdims=True)
    c = dy * x_invstd - x_diff * mean_dy_x_diff * x_invstd ** 3
    return (scale * (c - xp.mean(c, axis=axes, keepdims=True)),
            xp.sum(dy * x_invstd * x_diff, axis=axes, keepdims=True),
            xp.sum(dy, axis=axes, keepdims=True))


class AbstractBatchNormTrain(_Axes):
    """Batch normalization for training: ``(x - mean) * scale * invstd + bias`` with the
    statistics of ``x`` over ``axes``; also updates running averages when given."""

    _public_name = "batch_normalization_train"

    def make_node(self, x: Any, scale: Any, bias: Any, epsilon: Any = 1e-4,
                  running_average_factor: Any = 0.1, running_mean: Any = None,
                  running_var: Any = None) -> Apply:
        if (running_mean is None) != (running_var is None):
            raise ValueError("AbstractBatchNormTrain: give both running_mean and running_var, or neither")
        running = [] if running_mean is None else [running_mean, running_var]
        x, scale, bias, *running = _common("AbstractBatchNormTrain", x, scale, bias, *running)
        epsilon = as_tensor_variable(epsilon)
        factor = as_tensor_variable(running_average_factor)
        outputs = [x.type, scale.type, scale.type] + [scale.type] * len(running)
        return Apply(self, [x, scale, bias, epsilon, factor, *running], outputs)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, scale, bias, epsilon, factor = inputs[:5]
        self._check_axes(x.ndim)
        epsilon, factor = no_wider(epsilon, x.dtype), no_wider(factor, x.dtype)
        out, mean, invstd, var = train_forward(np, x, scale, bias, epsilon, self.axes)
        results = [out, mean, invstd]
        if len(inputs) > 5:
            n = float(np.prod(x.shape) / np.prod(scale.shape))
            results += running_averages(mean, var, inputs[5], inputs[6], factor, n)
        return [np.asarray(r, dtype=o.type.dtype) for r, o in zip(results, node.outputs)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]] + [input_shapes[1]] * (len(node.outputs) - 1)

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        patterns = [[True, True, True], [True, True, True], [True, True, True],
                    [False, False, False], [False, False, False]]
        for i in range(5, len(node.inputs)):
            patterns[0].append(True)
            for pattern in patterns[1:]:
                pattern.append(False)
            patterns.append([False] * (3 + i - 5) + [True])
        return patterns

    def L_op(self, inputs, outputs, output_grads):
        x, scale, _, epsilon = inputs[:4]
        dy = output_grads[0]
        rest = [disconnected_type() for _ in inputs[3:]]
        if dy is None or is_disconnected(dy):
            return [disconnected_type()] * 3 + rest
        return list(AbstractBatchNormTrainGrad(self.axes)(x, dy, scale, outputs[1], outputs[2],
                                                          epsilon)) + rest


class AbstractBatchNormInference(_Axes):
    """Batch normalization with given statistics: ``(x - mean) * scale / sqrt(var +
    epsilon) + bias``."""

    _public_name = "batch_normalization_test"

    def make_node(self, x: Any, scale: Any, bias: Any, estimated_mean: Any, estimated_variance: Any,
                  epsilon: Any = 1e-4) -> Apply:
        tensors = _common("AbstractBatchNormInference", x, scale, bias, estimated_mean,
                          estimated_variance)
        return Apply(self, [*tensors, as_tensor_variable(epsilon)], [tensors[0].type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, scale, bias, mean, var, epsilon = inputs
        out = inference_forward(np, x, scale, bias, mean, var, no_wider(epsilon, x.dtype))
        return [np.asarray(out, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [True], [True], [True], [False]]

    def L_op(self, inputs, outputs, output_grads):
        x, scale, bias, est_mean, est_var, epsilon = inputs
        (dy,) = output_grads
        self._check_axes(x.ndim)
        axes = self.axes
        var_eps = m.add(est_var, no_wider(epsilon, x.dtype))
        std = m.sqrt(var_eps)
        centered = m.sub(x, est_mean)
        dx = m.mul(dy, m.true_div(scale, std))
        dscale = m.true_div(_sum(m.mul(dy, centered), axis=axes, keepdims=True), std)
        dbias = _sum(dy, axis=axes, keepdims=True)
        dmean = m.neg(m.mul(_sum(dy, axis=axes, keepdims=True), m.true_div(scale, std)))
        dvar = m.neg(m.mul(_sum(m.mul(dy, centered), axis=axes, keepdims=True),
                           m.true_div(scale, m.mul(m.mul(var_eps, std), 2.))))
        return [dx, dscale, dbias, dmean, dvar, disconnected_type()]


class AbstractBatchNormTrainGrad(_Axes):
    """The gradients of :class:`AbstractBatchNormTrain` with respect to ``x``, ``scale`` and
    ``bias``: ``(x, dy, scale, x_mean, x_invstd, epsilon) -> (g_x, g_scale, g_bias)``."""

    _public_name = "batch_normalization_train_grad"

    def make_node(self, x: Any, dy: Any, scale: Any, x_mean: Any, x_invstd: Any,
                  epsilon: Any = 1e-4) -> Apply:
        tensors = _common("AbstractBatchNormTrainGrad", x, dy, scale, x_mean, x_invstd)
        return Apply(self, [*tensors, as_tensor_variable(epsilon)],
                     [tensors[0].type, tensors[2].type, tensors[2].type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, dy, scale, x_mean, x_invstd, _ = inputs
        self._check_axes(x.ndim)
        grads = train_gradients(np, x, dy, scale, x_mean, x_invstd, self.axes)
        return [np.asarray(g, dtype=o.type.dtype) for g, o in zip(grads, node.outputs)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0], input_shapes[2], input_shapes[2]]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, True, False], [True, True, True], [True, False, False],
                [True, True, False], [True, True, False], [False, False, False]]

    def L_op(self, inputs, outputs, output_grads):
        x, dy, scale, x_mean, x_invstd, _ = inputs
        ddinputs, ddscale, ddbias = output_grads
        axes = self.axes

        def mean(v):
            return _mean(v, axis=axes, keepdims=True)

        def total(v):
            return _sum(v, axis=axes, keepdims=True)

        x_diff = m.sub(x, x_mean)
        mean_dy_x_diff = mean(m.mul(dy, x_diff))
        invstd3 = m.pow(x_invstd, 3)
        g = {"x": [], "dy": [], "scale": [], "x_mean": [], "x_invstd": []}
        if ddinputs is not None and not is_disconnected(ddinputs):
            ccc = m.mul(scale, m.sub(ddinputs, mean(ddinputs)))
            ddd = m.mul(invstd3, m.add(m.mul(ccc, mean_dy_x_diff), m.mul(dy, mean(m.mul(ccc, x_diff)))))
            g["x"].append(m.neg(ddd))
            g["dy"].append(m.sub(m.mul(ccc, x_invstd),
                                 m.mul(m.mul(invstd3, x_diff), mean(m.mul(ccc, x_diff)))))
            eee = m.sub(m.mul(dy, x_invstd), m.mul(m.mul(invstd3, x_diff), mean_dy_x_diff))
            g["scale"].append(total(m.mul(ddinputs, m.sub(eee, mean(eee)))))
            g["x_mean"].append(total(ddd))
            g["x_invstd"].append(total(m.mul(ccc, m.sub(dy, m.mul(m.mul(m.mul(m.mul(x_invstd, x_invstd), 3),
                                                                          x_diff), mean_dy_x_diff)))))
        if ddscale is not None and not is_disconnected(ddscale):
            g["x"].append(m.mul(m.mul(x_invstd, ddscale), dy))
            g["dy"].append(m.mul(m.mul(x_invstd, ddscale), x_diff))
            g["x_mean"].append(m.neg(m.mul(m.mul(x_invstd, ddscale), total(dy))))
            g["x_invstd"].append(m.mul(ddscale, total(m.mul(dy, x_diff))))
        if ddbias is not None and not is_disconnected(ddbias):
            g["dy"].append(fill(dy, ddbias))
        results = [m.add(*terms) if len(terms) > 1 else terms[0] if terms else disconnected_type()
                   for terms in g.values()]
        return results + [disconnected_type()]
