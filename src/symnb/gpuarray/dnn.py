"""``symnb.gpuarray.dnn``: Theano's cuDNN functions, on any device.

``dnn_conv``, ``dnn_conv3d``, ``dnn_pool`` and the batch normalization functions take
Theano's signatures and checks and build symnb's convolution, pooling and batch
normalization nodes (those of ``T.nnet.conv2d``, ``pool_2d`` and ``T.nnet.bn``), which
XLA compiles to its convolution, ``reduce_window`` and arithmetic: on an NVIDIA GPU
those run through cuDNN, on the CPU through XLA's own kernels, with the same numbers
up to rounding. So the probes say cuDNN is there (``dnn_present()``,
``dnn_available()``: True), and libraries that ask for it (Lasagne's
``lasagne.layers.dnn``) import and run wherever symnb runs. docs/porting.md says why.

What only chose cuDNN's algorithm (``algo``, ``workmem``, ``direction_hint``) is
checked as Theano checked it and changes nothing: XLA chooses.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.graph.type import is_float
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.batchnorm import batch_normalization_test, batch_normalization_train
from symnb.core.tensor.blas import product_dtype
from symnb.core.tensor.conv import AbstractConv
from symnb.core.tensor.math import cast
from symnb.core.tensor.pool_api import pool_2d, pool_3d

__all__ = ["dnn_present", "dnn_available", "version", "dnn_conv", "dnn_conv3d", "dnn_pool",
           "dnn_batch_normalization_train", "dnn_batch_normalization_test"]

_REASON = ("symnb's cuDNN functions build XLA convolutions, pooling and batch normalization, "
           "which run on every device (through cuDNN on an NVIDIA GPU)")

#: The cuDNN release whose features these functions provide (Theano 1.0's newest:
#: dilation, groups, 3-d convolutions and pooling, deterministic max pooling).
FEATURE_VERSION = 7605


def dnn_present() -> bool:
    """True: symnb's cuDNN functions run on every device (``dnn_present.msg`` says how)."""
    return True


def dnn_available(context_name: object = None) -> bool:
    """True, as :func:`dnn_present` (``context_name``, Theano's GPU context, is ignored)."""
    return True


dnn_present.msg = _REASON
dnn_present.avail = True
dnn_available.msg = _REASON


def version(raises: bool = True) -> int:
    """The cuDNN API level these functions provide (7605, cuDNN 7.6.5's: the features of
    Theano 1.0's newest cuDNN), for code that checks a feature's version. It is not the
    version of a linked cuDNN library: XLA links cuDNN, on NVIDIA GPUs only."""
    return FEATURE_VERSION


version.v = FEATURE_VERSION

PRECISIONS = ("as_input_f32", "as_input", "float16", "float32", "float64")
ALGORITHMS = ("none", "small", "large", "fft", "fft_tiling", "winograd", "winograd_non_fused",
              "guess_once", "guess_on_shape_change", "time_once", "time_on_shape_change",
              "deterministic")


def _precision(fn: str, precision: Any, img: Variable, kerns: Variable) -> tuple[str, str]:
    """``(dtype of the computation, dtype of the result)``, as Theano's ``get_precision``."""
    dtype = product_dtype(img.dtype, kerns.dtype)
    if not is_float(dtype):
        raise build_error(f"{fn}: cuDNN convolution only works on real numbers; got {label(img)!r} "
                          f"({img.type.short()}) and {label(kerns)!r} ({kerns.type.short()})", TypeError)
    precision = "as_input_f32" if precision is None else precision
    if precision not in PRECISIONS:
        raise build_error(f"{fn}: precision must be one of {', '.join(map(repr, PRECISIONS))}; "
                          f"got {precision!r}", ValueError)
    if precision == "as_input_f32":
        precision = "float32" if dtype == "float16" else dtype
    elif precision == "as_input":
        precision = dtype
    return precision, dtype


def _algorithm(fn: str, algo: Any, workmem: Any) -> None:
    """Theano's checks of ``algo``/``workmem`` (XLA chooses the algorithm itself)."""
    if workmem is not None:
        if algo is not None:
            raise build_error(f"{fn}: you can't use both algo and workmem", ValueError)
        warn_at_user_line(f"{fn}: workmem is deprecated, use algo instead", DeprecationWarning)
        algo = workmem
    if algo is not None and algo not in ALGORITHMS:
        raise build_error(f"{fn}: algo must be one of {', '.join(map(repr, ALGORITHMS))}; got {algo!r}",
                          ValueError)


def _dnn_conv(fn: str, convdim: int, img: Any, kerns: Any, border_mode: Any, subsample: Any,
              dilation: Any, conv_mode: str, algo: Any, workmem: Any, precision: Any,
              num_groups: int) -> Variable:
    img, kerns = as_tensor_variable(img), as_tensor_variable(kerns)
    if conv_mode not in ("conv", "cross"):
        raise build_error(f"{fn}: conv_mode must be 'conv' (filters flipped) or 'cross' (a "
                          f"correlation); got {conv_mode!r}", ValueError)
    _algorithm(fn, algo, workmem)
    precision, dtype = _precision(fn, precision, img, kerns)
    try:
        op = AbstractConv(convdim, border_mode, subsample, filter_flip=conv_mode == "conv",
                          filter_dilation=dilation, num_groups=num_groups)
    except ValueError as err:
        raise build_error(f"{fn}: {err}") from None
    out = op(cast(img, precision), cast(kerns, precision))
    return cast(out, dtype)


def dnn_conv(img: Any, kerns: Any, border_mode: Any = "valid", subsample: Sequence[int] = (1, 1),
             dilation: Sequence[int] = (1, 1), conv_mode: str = "conv", direction_hint: Any = None,
             workmem: Any = None, algo: Any = None, precision: Any = None,
             num_groups: int = 1) -> Variable:
    """Theano's cuDNN 2-d convolution of ``img`` ``(batch, channels, rows, cols)`` by
    ``kerns`` ``(out channels, channels // num_groups, rows, cols)``.

    - ``conv_mode``: ``'conv'`` (the default: filters flipped, a true convolution) or
      ``'cross'`` (a correlation, as Lasagne's layers use);
    - ``border_mode``: ``'valid'``, ``'full'``, ``'half'``, an int or one int per axis;
      ``subsample``: strides; ``dilation``: spacing between filter taps;
    - ``precision``: the dtype the products are computed in: ``'as_input_f32'`` (the
      default: the inputs', float32 for float16 inputs), ``'as_input'``, ``'float16'``,
      ``'float32'``, ``'float64'``; the result has the inputs' dtype.

    ``algo``, ``workmem`` and ``direction_hint`` chose cuDNN's algorithm; XLA chooses
    its own, the numbers are the same. The node is ``T.nnet.conv2d``'s.
    """
    return _dnn_conv("dnn_conv", 2, img, kerns, border_mode, subsample, dilation, conv_mode, algo,
                     workmem, precision, num_groups)


def dnn_conv3d(img: Any, kerns: Any, border_mode: Any = "valid", subsample: Sequence[int] = (1, 1, 1),
               dilation: Sequence[int] = (1, 1, 1), conv_mode: str = "conv", direction_hint: Any = None,
               algo: Any = None, precision: Any = None, num_groups: int = 1) -> Variable:
    """:func:`dnn_conv` on volumes: ``img`` ``(batch, channels, depth, rows, cols)``,
    ``kerns`` ``(out channels, channels // num_groups, depth, rows, cols)``."""
    return _dnn_conv("dnn_conv3d", 3, img, kerns, border_mode, subsample, dilation, conv_mode, algo,
                     None, precision, num_groups)


POOL_MODES = ("max", "average_inc_pad", "average_exc_pad", "sum")


def dnn_pool(img: Any, ws: Sequence[Any], stride: Sequence[Any] | None = None, mode: str = "max",
             pad: Sequence[Any] | None = None) -> Variable:
    """Theano's cuDNN pooling of the last ``len(ws)`` (2 or 3) axes of ``img`` (4-d or
    5-d): whole windows only (``pool_2d``'s ``ignore_border=True``).

    - ``stride``: the step between windows, default 1 on every axis (not ``ws``, as in
      ``pool_2d``); ``pad``: zeros (for ``'max'``: values below every input) added on
      both sides of each axis, default none;
    - ``mode``: ``'max'``, ``'average_inc_pad'`` (the padding counted in the divisor;
      ``'average'`` is its old name), ``'average_exc_pad'`` (not counted), ``'sum'``,
      ``'max_deterministic'`` (the same as ``'max'``).

    ``ws``, ``stride`` and ``pad`` may hold int scalars computed in the graph (Lasagne's
    spatial pyramid pooling). The node is ``pool_2d``'s (``pool_3d``'s).
    """
    img = as_tensor_variable(img)
    n = ws.type.shape[0] if isinstance(ws, Variable) else len(ws)
    if n not in (2, 3) or img.ndim != n + 2:
        raise build_error(f"dnn_pool: pools 2 axes of a 4-d image or 3 axes of a 5-d one; got "
                          f"ws={ws!r} for {label(img)!r} ({img.type.short()})", ValueError)
    mode = {"average": "average_inc_pad", "max_deterministic": "max"}.get(mode, mode)
    if mode not in POOL_MODES:
        raise build_error(f"dnn_pool: mode must be one of {', '.join(map(repr, POOL_MODES))}; "
                          f"got {mode!r}", ValueError)
    stride = (1,) * n if stride is None else stride
    pad = (0,) * n if pad is None else pad
    pool = pool_2d if n == 2 else pool_3d
    return pool(img, ws, ignore_border=True, stride=stride, pad=pad, mode=mode)


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
