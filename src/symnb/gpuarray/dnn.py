"""``symnb.gpuarray.dnn``: Theano's cuDNN module, answering as a CPU-only Theano does.

symnb calls no cuDNN function by name; ``T.nnet.conv2d`` and ``pool_2d`` are compiled
by XLA, which uses cuDNN on an NVIDIA GPU. The probes (``dnn_present``,
``dnn_available``) say so. The batch normalization functions that libraries call when
Theano runs on a GPU (Keras's Theano backend with ``device=cuda``) are here with
Theano's signatures and checks, computed by ``T.nnet.bn``'s graph (the same numbers
cuDNN gives, up to rounding), so they run on any device.
"""

from __future__ import annotations

from typing import Any

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.batchnorm import batch_normalization_test, batch_normalization_train

__all__ = ["dnn_present", "dnn_available", "dnn_batch_normalization_train",
           "dnn_batch_normalization_test"]

_REASON = ("symnb has no libgpuarray backend: T.nnet.conv2d and pool_2d are compiled by XLA, "
           "which uses cuDNN on an NVIDIA GPU (see docs/devices.md)")


def dnn_present() -> bool:
    """False: Theano's cuDNN ops are not in symnb (``dnn_present.msg`` says why)."""
    return False


def dnn_available(context_name: object = None) -> bool:
    """False, as :func:`dnn_present` (``dnn_available.msg`` says why)."""
    return False


dnn_present.msg = _REASON
dnn_available.msg = _REASON


def _check(fn: str, mode: Any, epsilon: float, ndim: int, **params: Variable | None) -> None:
    """Theano's checks: the mode, cuDNN's smallest epsilon, and parameters with the
    input's number of dimensions (length 1 on the normalized axes)."""
    if mode not in ("per-activation", "spatial"):
        raise build_error(f"{fn}: mode must be 'per-activation' or 'spatial'; got {mode!r}", ValueError)
    if epsilon < 1e-5:
        raise build_error(f"{fn}: epsilon must be at least 1e-5 (cuDNN's minimum); got {epsilon!r}",
                          ValueError)
    wrong = {name: p.ndim for name, p in params.items() if p is not None and p.ndim != ndim}
    if wrong:
        shown = ", ".join(f"{name} {d}-d" for name, d in wrong.items())
        raise build_error(f"{fn}: {', '.join(params)} must have the input's {ndim} dimensions "
                          f"(length 1 on the normalized axes); got {shown}", ValueError)


def _tensors(*values: Any) -> list[Variable | None]:
    return [None if v is None else as_tensor_variable(v) for v in values]


def dnn_batch_normalization_train(inputs: Any, gamma: Any, beta: Any, mode: str = "per-activation",
                                  epsilon: float = 1e-4, running_average_factor: float = 0.1,
                                  running_mean: Any = None, running_var: Any = None) -> tuple[Variable, ...]:
    """Batch normalization of ``inputs`` with their own mean and variance (Theano's
    cuDNN function): over axis 0 (``mode='per-activation'``) or over every axis but 1
    (``'spatial'``). ``gamma``, ``beta`` (and the running averages) have the input's
    dimensions, with length 1 on the normalized axes.

    Returns ``(out, mean, invstd)`` in the parameters' layout, then, when
    ``running_mean`` and ``running_var`` are given, their new values:
    ``running_mean * (1 - f) + mean * f`` and ``running_var * (1 - f) + m / (m - 1) *
    var * f`` (``f = running_average_factor``, ``m`` the number of values averaged).
    ``epsilon``: at least 1e-5, as cuDNN requires. Computed as
    :func:`symnb.tensor.nnet.bn.batch_normalization_train`.
    """
    inputs, gamma, beta, running_mean, running_var = _tensors(inputs, gamma, beta, running_mean, running_var)
    _check("dnn_batch_normalization_train", mode, epsilon, inputs.ndim, gamma=gamma, beta=beta)
    if (running_mean is None) != (running_var is None):
        raise build_error("dnn_batch_normalization_train: running_mean and running_var must either both "
                          "be given or both be None", ValueError)
    _check("dnn_batch_normalization_train", mode, epsilon, inputs.ndim, running_mean=running_mean,
           running_var=running_var)
    return batch_normalization_train(inputs, gamma, beta, mode, epsilon, running_average_factor,
                                     running_mean, running_var)


def dnn_batch_normalization_test(inputs: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                                 mode: str = "per-activation", epsilon: float = 1e-4) -> Variable:
    """Batch normalization of ``inputs`` with given statistics (Theano's cuDNN function):
    ``(inputs - mean) * gamma / sqrt(var + epsilon) + beta``, every parameter with the
    input's dimensions and length 1 on the normalized axes (axis 0 for
    ``mode='per-activation'``, every axis but 1 for ``'spatial'``). Computed as
    :func:`symnb.tensor.nnet.bn.batch_normalization_test`."""
    inputs, gamma, beta, mean, var = _tensors(inputs, gamma, beta, mean, var)
    _check("dnn_batch_normalization_test", mode, epsilon, inputs.ndim, gamma=gamma, beta=beta)
    _check("dnn_batch_normalization_test", mode, epsilon, inputs.ndim, mean=mean, var=var)
    return batch_normalization_test(inputs, gamma, beta, mean, var, mode, epsilon)


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
