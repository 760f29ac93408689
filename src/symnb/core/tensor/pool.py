"""Pooling over the last ``ndim`` axes, with Theano's semantics (``signal.pool.pool_2d``).

Windows of ``ws`` positions every ``stride``, on the input padded with ``pad`` on both
sides of each pooled axis:

- ``ignore_border=True``: only whole windows, ``(n + 2 * pad - ws) // stride + 1`` of them
  (at least 0). ``ignore_border=False``: also the partial windows at the far border, so
  every position is covered: ``(n - 1) // stride + 1`` when ``stride >= ws``, else
  ``max(0, (n - 1 - ws) // stride + 1) + 1`` (Theano allows ``pad`` only with
  ``ignore_border=True``).
- ``'max'`` and ``'sum'`` never see the padding; ``'average_inc_pad'`` divides by the
  window's size within the padded input, ``'average_exc_pad'`` by its size within the
  unpadded input.

Gradients: max pooling routes each output's gradient to the *first* maximum of its
window (row-major order), as XLA's select-and-scatter does (Theano gave it to every
tied maximum); the other modes spread it over the window, divided as the forward
divides. The NumPy ``perform`` methods are vectorized over strided window views.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op, snake_case
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.conv_reference import pad_spatial, window_view
from symnb.core.tensor.pool_from_values import PoolFromValues
from symnb.core.tensor.pool_window import renamed, window
from symnb.core.graph.type import TensorType, is_bool, is_float

__all__ = ["Pool", "MaxPoolGrad", "MaxPoolGradGrad", "AveragePoolGrad", "MODES", "pool_output_length"]

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def pool_output_length(length: Any, ws: int, stride: int, pad: int, ignore_border: bool) -> Any:
    """The number of windows along an axis of ``length`` (an int, None or a symbolic scalar)."""
    if length is None:
        return None
    padded = length + 2 * pad if pad else length
    if ignore_border:
        count = (padded - ws) // stride + 1
        return max(count, 0) if isinstance(count, int) else m.maximum(count, 0)
    if stride >= ws:
        return (padded - 1) // stride + 1
    count = (padded - 1 - ws) // stride + 1
    return (max(count, 0) if isinstance(count, int) else m.maximum(count, 0)) + 1


class PoolBase(Op):
    """The window geometry shared by the pooling ops; ``x`` is the pooled input."""

    __props__ = ("ndim", "ws", "stride", "pad", "ignore_border", "mode")
    #: A gradient op gives the shape of ``x``; the pooling, its pooled shape.
    is_gradient = False

    #: The mode Theano's constructor of the class defaults to, and the modes it takes.
    default_mode = "max"
    modes = MODES
    #: The modes for which Theano's constructor takes a padding as wide as the window (a
    #: window wholly in the padding: 0 for the sums, a division by 0 for average_exc_pad).
    wide_pad_modes: tuple[str, ...] = ()

    def __init__(self, ignore_border: bool = False, mode: str | None = None, ndim: int = 2,
                 openmp: Any = None, *, ws: Sequence[int] | None = None,
                 stride: Sequence[int] | None = None, pad: Sequence[int] | None = None) -> None:
        """Theano 1.0's constructor, ``Pool(ignore_border=False, mode='max', ndim=2,
        openmp=None)``: the window is given with the input, ``op(x, ws, stride, pad)``.
        ``ws``, ``stride`` and ``pad`` given here make the op of that window, whose
        inputs are the tensors only (:meth:`bound`: what the graph holds, since XLA
        needs the window when compiling). ``openmp`` (Theano's C code) is accepted and
        has no effect."""
        mode = self.default_mode if mode is None else mode
        if mode == "max_deterministic":  # Theano's GPU-only alias: max pooling is deterministic
            mode = "max"
        if mode not in self.modes:
            raise build_error(f"{type(self).__name__}: mode must be one of "
                              f"{', '.join(map(repr, self.modes))}; got {mode!r}", ValueError)
        self.ndim = int(ndim)
        self.ws, self.stride, self.pad = (None if v is None else tuple(int(i) for i in v)
                                          for v in (ws, stride, pad))
        self.ignore_border = bool(ignore_border)
        self.mode = mode

    @classmethod
    def bound(cls, ndim: int, ws: Sequence[int], stride: Sequence[int], pad: Sequence[int],
              ignore_border: bool, mode: str) -> "PoolBase":
        """The op of this window (its ``_props()`` order), taking the tensors only."""
        return cls(ignore_border, mode, ndim, ws=ws, stride=stride, pad=pad)

    @staticmethod
    def out_shape(imgshape: Sequence[Any], ws: Any = None, ignore_border: bool = False,
                  stride: Any = None, pad: Any = None, ndim: int = 2, ds: Any = None,
                  st: Any = None, padding: Any = None) -> list[Any]:
        """Theano's ``Pool.out_shape``: the shape (a list) of the pooling of an input of
        shape ``imgshape`` (ints or symbolic scalars); ``ds``, ``st``, ``padding`` are
        the deprecated names of ``ws``, ``stride``, ``pad``."""
        ws = renamed(ws, ds, "ws", "ds")
        stride = renamed(stride, st, "stride", "st")
        pad = renamed(pad, padding, "pad", "padding", unset=(0,) * ndim)
        if ws is None:
            raise build_error("Pool.out_shape: give the window size ws", ValueError)
        if len(imgshape) < ndim:
            raise build_error(f"Pool.out_shape: imgshape must have at least {ndim} dimensions; "
                              f"got {tuple(imgshape)}", TypeError)
        ws = [int(w) for w in ws]
        stride = ws if stride is None else [int(s) for s in stride]
        pad = [0] * ndim if pad is None else [int(p) for p in pad]
        spatial = list(imgshape)[len(imgshape) - ndim:]
        return list(imgshape)[:len(imgshape) - ndim] + [
            pool_output_length(n if isinstance(n, Variable) else int(n), w, s, p, ignore_border)
            for n, w, s, p in zip(spatial, ws, stride, pad)]

    # -- Theano's interface: the window given with the input ------------------------------
    #: The tensors Theano's ``make_node`` takes before ``ws`` (``x`` first).
    theano_tensors = ("x",)

    def __call__(self, *inputs: Any, ws: Any = None, stride: Any = None, pad: Any = None,
                 name: str | None = None) -> Any:
        """Theano's ``op(x, ws, stride=None, pad=None)``: the window may be given by keyword."""
        if ws is not None or stride is not None or pad is not None:
            count = len(self.theano_tensors)
            given = list(inputs[count:]) + [None] * (count + 3 - len(inputs))
            for i, value in enumerate((ws, stride, pad)):
                if value is not None:
                    if given[i] is not None:
                        raise build_error(f"{type(self).__name__}: {('ws', 'stride', 'pad')[i]} "
                                          f"given twice", TypeError)
                    given[i] = value
            inputs = tuple(inputs[:count]) + tuple(given)
        return super().__call__(*inputs, name=name)

    def make_node(self, *inputs: Any) -> Apply:
        if self.ws is not None:
            return self.make_bound_node(*inputs)
        return self.bind(*inputs)

    def bind(self, *inputs: Any) -> Apply:
        """``op(x, ..., ws, stride=None, pad=None)`` of an op made by Theano's constructor:
        the node of the op of that window (a window computed in the graph gives a
        ``PoolFromValues`` node, which takes it as inputs)."""
        count = len(self.theano_tensors)
        name = type(self).__name__
        if not count < len(inputs) <= count + 3:
            raise build_error(f"{name}: takes ({', '.join(self.theano_tensors)}, ws, stride=None, "
                              f"pad=None); got {len(inputs)} inputs", TypeError)
        tensors = [as_tensor_variable(t) for t in inputs[:count]]
        ws, stride, pad = (list(inputs[count:]) + [None, None])[:3]
        static, vectors = window(self.ndim, ws, stride, pad, self.ignore_border, name,
                                 self.mode in self.wide_pad_modes)
        tensors = self.theano_tensors_used(tensors, static)
        if static is None:
            return self.bind_computed(tensors, vectors)
        return type(self).bound(self.ndim, *static, self.ignore_border, self.mode).make_node(*tensors)

    def theano_tensors_used(self, tensors: list[Variable], static: Any) -> list[Variable]:
        """The tensors of Theano's inputs that the bound op takes (all, here)."""
        return tensors

    def bind_computed(self, tensors: list[Variable], vectors: list[Variable]) -> Apply:
        raise build_error(f"{type(self).__name__}: give ws, stride and pad as ints (or constants): "
                          f"symnb has this op only for a window known when the graph is built",
                          NotImplementedError)

    def public_name(self) -> str:
        name = snake_case(type(self).__name__)
        return f"pool_{self.ndim}d" if name == "pool" else name

    def display_name(self) -> str:
        if self.ws is None:
            return f"{type(self).__name__}{{{self.mode}, ndim={self.ndim}, ignore_border={self.ignore_border}}}"
        extra = [f"ws={self.ws}"] + ([f"stride={self.stride}"] if self.stride != self.ws else [])
        extra += [f"pad={self.pad}"] if any(self.pad) else []
        extra += [] if self.ignore_border else ["ignore_border=False"]
        return f"{type(self).__name__}{{{self.mode}, {', '.join(extra)}}}"

    def out_lengths(self, spatial: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(pool_output_length(n, w, s, p, self.ignore_border)
                     for n, w, s, p in zip(spatial, self.ws, self.stride, self.pad))

    def output_shape(self, shape: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(shape[:-self.ndim]) + self.out_lengths(shape[-self.ndim:])

    def paddings(self, spatial: Sequence[int]) -> list[tuple[int, int]]:
        """``(low, high)`` per pooled axis: ``pad``, plus room for the partial windows."""
        pads = []
        for n, out, w, s, p in zip(spatial, self.out_lengths(spatial), self.ws, self.stride, self.pad):
            reach = (out - 1) * s + w  # where the last window ends, in padded coordinates
            pads.append((p, max(p, reach - n - p)))
        return pads

    def fill_value(self, dtype: str) -> Any:
        """What the padding holds: never a maximum for 'max', nothing for the sums."""
        if self.mode != "max":
            return 0
        return -np.inf if is_float(dtype) else np.iinfo(dtype).min

    def window_counts(self, spatial: Sequence[int], dtype: str) -> np.ndarray | None:
        """The divisor of each window for the average modes (None for 'max' and 'sum')."""
        if not self.mode.startswith("average"):
            return None
        counts = np.ones((), dtype=np.int64)
        for n, out, w, s, p in zip(spatial, self.out_lengths(spatial), self.ws, self.stride, self.pad):
            starts = np.arange(out) * s
            if self.mode == "average_inc_pad":
                sizes = np.minimum(starts + w, n + 2 * p) - starts
            else:
                sizes = np.minimum(starts + w, n + p) - np.maximum(starts, p)
            counts = np.multiply.outer(counts, sizes)
        return counts.astype(dtype)

    def windows(self, x: np.ndarray, fill: Any) -> np.ndarray:
        """``(*lead, *positions, *window)`` view of ``x`` padded with ``fill``."""
        spatial = x.shape[-self.ndim:]
        view = window_view(pad_spatial(x, self.paddings(spatial), fill), self.ws, self.stride)
        crop = tuple(slice(0, n) for n in self.out_lengths(spatial))
        return view[(Ellipsis,) + crop + (slice(None),) * self.ndim]

    def pool(self, x: np.ndarray) -> np.ndarray:
        """The forward pooling of ``x`` (NumPy)."""
        dtype = x.dtype
        spatial = x.shape[-self.ndim:]
        out_shape = x.shape[:-self.ndim] + self.out_lengths(spatial)
        if 0 in out_shape[-self.ndim:]:
            return np.zeros(out_shape, dtype)
        axes = tuple(range(-self.ndim, 0))
        windows = self.windows(x, self.fill_value(str(dtype)))
        if self.mode == "max":
            return windows.max(axis=axes)
        total = windows.sum(axis=axes, dtype=dtype)
        counts = self.window_counts(spatial, str(dtype))
        return total if counts is None else total / counts

    def first_maxima(self, x: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """For each window, the flat index (in the padded pooled axes) of its first maximum,
        shaped ``(lead size, *positions)``; and the paddings."""
        spatial = x.shape[-self.ndim:]
        pads = self.paddings(spatial)
        flat = x.reshape((-1,) + spatial)
        windows = self.windows(flat, self.fill_value(str(x.dtype)))
        choice = windows.reshape(windows.shape[:1 + self.ndim] + (-1,)).argmax(axis=-1)
        taps = np.unravel_index(choice, self.ws)
        coords = []
        for i, (tap, s) in enumerate(zip(taps, self.stride)):
            starts = np.arange(choice.shape[1 + i]) * s
            coords.append(tap + starts.reshape((-1,) + (1,) * (self.ndim - 1 - i)))
        padded = tuple(n + low + high for n, (low, high) in zip(spatial, pads))
        return np.ravel_multi_index(coords, padded), pads

    def check_input(self, x: Variable, what: str = "pool") -> None:
        if x.ndim < self.ndim:
            raise build_error(f"{what}: the input needs at least {self.ndim} dimensions (it pools the "
                              f"last {self.ndim}); got {x.type.short()}", TypeError)
        if is_bool(x.dtype) or (self.mode.startswith("average") and not is_float(x.dtype)):
            raise build_error(f"{what}: mode {self.mode!r} does not take {x.dtype} inputs; cast "
                              f"them to a float dtype first", TypeError)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [self.output_shape(input_shapes[0])]


def _crop(padded: np.ndarray, pads: Sequence[tuple[int, int]], spatial: Sequence[int]) -> np.ndarray:
    return padded[(Ellipsis,) + tuple(slice(low, low + n) for (low, _), n in zip(pads, spatial))]


class Pool(PoolBase):
    """Pooling of ``x`` over its last ``ndim`` axes: Theano's ``Pool(ignore_border=False,
    mode='max', ndim=2)(x, ws, stride=None, pad=None)``."""

    def bind_computed(self, tensors: list[Variable], vectors: list[Variable]) -> Apply:
        return PoolFromValues(self.ndim, self.ignore_border, self.mode, Pool).make_node(*tensors, *vectors)

    @staticmethod
    def gradient_class(mode: str) -> type:
        """The op of this pooling's gradient (for the mode)."""
        return MaxPoolGrad if mode == "max" else AveragePoolGrad

    def make_bound_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        self.check_input(x)
        return Apply(self, [x], [TensorType(x.dtype, self.output_shape(x.type.shape))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(self.pool(inputs[0]), dtype=node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        if not is_float(x.dtype):
            return [None]
        return [self.gradient_class(self.mode).bound(*self._props())(x, g)]


class _PoolGradBase(PoolBase):
    """A linear map of ``g`` that depends on ``x`` (for its shape, or where its maxima are)."""

    is_gradient = True

    def make_bound_node(self, x: Any, g: Any) -> Apply:
        x, g = as_tensor_variable(x), as_tensor_variable(g)
        self.check_input(x, type(self).__name__)
        if not is_float(g.dtype) or g.ndim != x.ndim:
            raise build_error(f"{type(self).__name__}: the gradient must be a float tensor of "
                              f"{x.ndim} dimensions; got {g.type.short()}", TypeError)
        return Apply(self, [x, g], [TensorType(x.dtype, self.result_shape(x.type.shape))])

    def result_shape(self, x_shape: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(x_shape)  # the gradient with respect to x

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [self.result_shape(input_shapes[0])]

    #: Whether a window computed in the graph is taken (a ``PoolFromValues`` of this op).
    takes_computed_window = False

    def bind_computed(self, tensors: list[Variable], vectors: list[Variable]) -> Apply:
        if not self.takes_computed_window:
            return super().bind_computed(tensors, vectors)
        x, g = tensors
        return PoolFromValues(self.ndim, self.ignore_border, self.mode,
                              type(self)).make_node(x, *vectors, g)


class _MaximaFromX(_PoolGradBase):
    """Theano's ``(x, maxout, gz, ws, ...)``: ``maxout``, the max pooling of ``x``, says
    where the maxima are. symnb finds them in ``x`` again (XLA's select-and-scatter), so
    ``maxout`` must be that pooling, built in the graph: anything else is refused (its
    gradient would silently route elsewhere than Theano's)."""

    theano_tensors = ("x", "maxout", "gz")
    modes = ("max",)

    def theano_tensors_used(self, tensors: list[Variable], static: Any) -> list[Variable]:
        x, maxout, gz = tensors
        owner = maxout.owner
        if static is not None:
            expected = Pool.bound(self.ndim, *static, self.ignore_border, "max")
        else:
            expected = PoolFromValues(self.ndim, self.ignore_border, "max", Pool)
        if owner is None or owner.op != expected or owner.inputs[0] is not x:
            raise build_error(
                f"{type(self).__name__}: maxout ({label(maxout)!r}) must be the max pooling of "
                f"x ({label(x)!r}) with this window, built in the graph ({expected}): symnb "
                f"finds the maxima in x itself, so another maxout would not be used as Theano "
                f"uses it", NotImplementedError)
        return [x, gz]


class MaxPoolGrad(_MaximaFromX):
    """The gradient of max pooling: ``g`` sent to the first maximum of each window of ``x``.
    Theano's ``MaxPoolGrad(ignore_border, mode='max', ndim=2)(x, maxout, gz, ws, stride=None,
    pad=None)`` (see :class:`_MaximaFromX`)."""

    takes_computed_window = True

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, g = inputs
        spatial = x.shape[-self.ndim:]
        if g.size == 0:
            return [np.zeros(x.shape, node.outputs[0].type.dtype)]
        index, pads = self.first_maxima(x)
        padded = tuple(n + low + high for n, (low, high) in zip(spatial, pads))
        size = int(np.prod(padded))
        rows = np.arange(index.shape[0]).reshape((-1,) + (1,) * self.ndim) * size
        total = np.bincount((index + rows).ravel(), weights=g.reshape(-1), minlength=index.shape[0] * size)
        grad = _crop(total.reshape((-1,) + padded), pads, spatial).reshape(x.shape)
        return [grad.astype(node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (gg,) = output_grads
        # Piecewise linear in g, with a routing constant almost everywhere in x.
        return [zeros_like(x), MaxPoolGradGrad.bound(*self._props())(x, gg)]


class MaxPoolGradGrad(_MaximaFromX):
    """The forward-mode derivative of max pooling: ``t`` read at the first maximum of each
    window of ``x`` (shaped as the pooled output); the gradient of :class:`MaxPoolGrad`.
    Theano's ``DownsampleFactorMaxGradGrad(ignore_border, mode='max', ndim=2)(x, maxout, gz,
    ws, stride=None, pad=None)``, ``gz`` shaped as ``x``."""

    def result_shape(self, x_shape: Sequence[Any]) -> tuple[Any, ...]:
        return self.output_shape(x_shape)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, t = inputs
        out_shape = self.output_shape(x.shape)
        if 0 in out_shape:
            return [np.zeros(out_shape, node.outputs[0].type.dtype)]
        index, pads = self.first_maxima(x)
        spatial = x.shape[-self.ndim:]
        padded = pad_spatial(t.reshape((-1,) + spatial), pads).reshape(index.shape[0], -1)
        picked = np.take_along_axis(padded, index.reshape(index.shape[0], -1), axis=1)
        return [picked.reshape(out_shape).astype(node.outputs[0].type.dtype)]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (g,) = output_grads
        return [zeros_like(x), MaxPoolGrad.bound(*self._props())(x, g)]


class AveragePoolGrad(_PoolGradBase):
    """The gradient of the 'sum' and average poolings: the transpose of the forward map
    (``x`` only gives the shape). Theano's ``AveragePoolGrad(ignore_border,
    mode='average_inc_pad', ndim=2)(x, gz, ws, stride=None, pad=None)``."""

    default_mode = "average_inc_pad"
    modes = tuple(m for m in MODES if m != "max")
    wide_pad_modes = ("sum", "average_inc_pad")  # Theano's AveragePoolGrad takes them
    theano_tensors = ("x", "gz")
    takes_computed_window = True

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, g = inputs
        dtype = node.outputs[0].type.dtype
        spatial = x.shape[-self.ndim:]
        pads = self.paddings(spatial)
        out_lengths = self.out_lengths(spatial)
        counts = self.window_counts(spatial, dtype)
        share = g.astype(dtype) if counts is None else g.astype(dtype) / counts
        padded_spatial = tuple(n + low + high for n, (low, high) in zip(spatial, pads))
        padded = np.zeros(x.shape[:-self.ndim] + padded_spatial, dtype)
        if 0 not in out_lengths:
            for tap in np.ndindex(*self.ws):
                region = tuple(slice(t, t + (o - 1) * s + 1, s)
                               for t, o, s in zip(tap, out_lengths, self.stride))
                padded[(Ellipsis,) + region] += share
        return [np.ascontiguousarray(_crop(padded, pads, spatial))]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (gg,) = output_grads
        return [zeros_like(x), Pool.bound(*self._props())(gg)]
