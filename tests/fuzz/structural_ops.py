"""Reductions, products, shape ops, joins and softmax steps for the differential fuzz.

References are NumPy's (``np.sum``, ``np.dot``, ``np.concatenate``...) and SciPy's
(``scipy.special.softmax``); the error of a floating-point reduction grows with the
number of terms and the sum of their magnitudes, as in any summation error bound.
``sum``, ``prod`` and ``mean`` follow Theano's rule: they accumulate in Theano's
``acc_dtype`` (float32 in float64, integers in 64 bits), then cast.
"""

from __future__ import annotations

import numpy as np
import scipy.special
from hypothesis import strategies as st

import symnb.tensor as T
from tests.fuzz import bounds
from tests.fuzz.program import Builder
from tests.fuzz.shapes import LENGTHS, MAX_SIZE, draw_shape, integer_result_exact, new_input, pick

__all__ = ["reduction", "product", "reshape", "permute", "join", "normalize"]


def _axes(draw, ndim: int, single: bool = False):
    """None, an axis (negative now and then) or, unless ``single``, a tuple of axes."""
    kind = draw(st.sampled_from(["none", "int", "int"] + ([] if single else ["tuple"])))
    if kind == "none" or ndim == 0:
        return None
    if kind == "int":
        axis = draw(st.integers(0, ndim - 1))
        return axis - ndim if draw(st.booleans()) else axis
    chosen = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(chosen)


def _reduced(shape: tuple, axis) -> int:
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    axes = (axis,) if isinstance(axis, int) else axis
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


def _sum_like(fn, values, axis, keepdims):
    return fn(np.asarray(values, np.float64), axis=axis, keepdims=keepdims)


def _summation_error(xr, xe, axis, keepdims, ref, n: int) -> np.ndarray:
    """Sum of the terms' errors plus (n + 2) eps times the sum of their magnitudes;
    an infinite result is exact when every infinite term is."""
    finite = np.isfinite(xr)
    magnitude = _sum_like(np.sum, np.where(finite, np.abs(xr.astype(np.float64)), 0.0), axis, keepdims)
    carried = _sum_like(np.sum, xe, axis, keepdims)
    err = carried + (n + 2) * float(np.finfo(ref.dtype).eps) * magnitude + bounds.rounding(ref, 2)
    certain_specials = _sum_like(np.sum, np.where(~finite, xe, 0.0), axis, keepdims) == 0
    has_specials = _sum_like(np.sum, ~finite, axis, keepdims) > 0
    err = np.where(has_specials, np.where(certain_specials & ~np.isfinite(ref), 0.0, np.inf), err)
    return np.asarray(err, np.float64)


#: Theano's default accumulators (``CAReduceDtype._acc_dtype``).
_THEANO_ACC = {"bool": "int64", "int8": "int64", "int16": "int64", "int32": "int64", "uint8": "uint64",
               "uint16": "uint64", "uint32": "uint64", "float16": "float32", "float32": "float64",
               "complex64": "complex128"}


def _theano_accumulating(name: str):
    """Theano's ``sum``/``prod`` (NumPy's in ``acc_dtype``, cast to NumPy's output dtype)
    and ``mean`` (that sum, float32 for float16, divided in float32 or float64)."""
    fn = np.prod if name == "prod" else np.sum

    def reduce(x, axis=None, keepdims=False):
        x = np.asarray(x)
        acc = _THEANO_ACC.get(str(x.dtype), str(x.dtype))
        out = "float32" if name == "mean" and x.dtype == np.float16 else fn(np.zeros(1, x.dtype)).dtype
        total = np.asarray(fn(x, axis=axis, keepdims=keepdims, dtype=acc)).astype(out)
        if name != "mean":
            return total
        divide = np.float32 if total.dtype in (np.float32, np.complex64) else np.float64
        axes = range(x.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
        total = total.astype(np.result_type(total.dtype, divide))  # (an integer sum: float64, axes or not)
        for a in axes:
            total = total / divide(x.shape[a])
        return total.astype(np.float16) if x.dtype == np.float16 else total

    return reduce


def reduction(draw, b: Builder) -> int | None:
    name = draw(st.sampled_from(["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin",
                                 "any", "all"]))
    x = pick(draw, b)
    xr, xe = b.ref(x), b.err(x)
    axis = _axes(draw, xr.ndim, single=name in ("argmax", "argmin"))
    keepdims = draw(st.booleans())
    params = {"axis": axis, "keepdims": keepdims}
    if name in ("var", "std"):
        params["ddof"] = draw(st.sampled_from([0, 1]))
    numpy_fn = _theano_accumulating(name) if name in ("sum", "prod", "mean") else getattr(np, name)
    try:
        with np.errstate(all="ignore"):
            ref = np.asarray(numpy_fn(xr, **params))
    except (TypeError, ValueError):  # an empty axis has no maximum; bool has no variance
        return None
    n = _reduced(xr.shape, axis)
    if name in ("var", "std") and ref.size and n - params["ddof"] <= 0:
        return None  # dividing by N - ddof <= 0: NumPy's inf/NaN and a warning
    if not integer_result_exact(lambda v: numpy_fn(v, **params), ref, xr):
        return None
    err = _reduction_error(name, xr, xe, params, ref, n)
    text = "T.{}({{}}, {})".format(name, ", ".join(f"{k}={v!r}" for k, v in params.items()))
    return b.add_step(text, [x], lambda v: getattr(T, name)(v, **params),
                      lambda v: numpy_fn(v, **params), ref, err)


def _reduction_error(name, xr, xe, params, ref, n):
    axis, keepdims = params["axis"], params["keepdims"]
    unstable_input = _sum_like(np.sum, ~np.isfinite(xe), axis, keepdims) > 0
    if name in ("argmax", "argmin"):
        return _arg_error(name, xr, xe, axis, keepdims, ref)
    if name in ("any", "all"):
        decided = np.isfinite(xe) & ((xe == 0) | (np.abs(xr.astype(np.float64)) > xe) | np.isnan(xr))
        return np.where(_sum_like(np.sum, ~decided, axis, keepdims) > 0, np.inf, 0.0)
    if not bounds.is_float(ref.dtype):
        return np.where(unstable_input, np.inf, 0.0)
    if name in ("max", "min"):
        err = _sum_like(np.max, xe, axis, keepdims) if xe.size else np.zeros(ref.shape)
    elif name == "sum":
        err = _summation_error(xr, xe, axis, keepdims, ref, n)
    elif name == "mean":
        with np.errstate(all="ignore"):
            err = _summation_error(xr, xe, axis, keepdims, ref, n) / max(n, 1)
    elif name == "prod":
        err = _product_error(xr, xe, axis, keepdims, ref, n)
    else:
        err = _moment_error(name, xr, xe, axis, keepdims, ref, n, params["ddof"])
    return bounds.guard_overflow(ref, np.asarray(err, np.float64) + bounds.rounding(ref, 2))


def _product_error(xr, xe, axis, keepdims, ref, n):
    magnitude = np.abs(xr.astype(np.float64))
    with np.errstate(all="ignore"):
        upper = _sum_like(np.prod, magnitude + xe, axis, keepdims)
        exact = _sum_like(np.prod, magnitude, axis, keepdims)
        err = upper * (1 + (n + 2) * float(np.finfo(ref.dtype).eps)) - exact
    return np.where(np.isnan(err), np.inf, err)


def _moment_error(name, xr, xe, axis, keepdims, ref, n, ddof):
    """Two-pass variance: the mean's error, each deviation's, their squares' and the
    final sum's; the square root's for std."""
    eps = float(np.finfo(ref.dtype).eps)
    x = xr.astype(np.float64)
    with np.errstate(all="ignore"):
        mean = np.mean(x, axis=axis, keepdims=True)
        e_mean = (np.sum(xe, axis=axis, keepdims=True) + (n + 2) * eps * np.sum(np.abs(x), axis=axis,
                                                                                   keepdims=True)) / n
        d = np.abs(x - mean)
        e_d = xe + e_mean + eps * (np.abs(x) + np.abs(mean))
        var = np.sum(d * d, axis=axis, keepdims=keepdims) / (n - ddof)
        err = (np.sum(2 * d * e_d + e_d * e_d, axis=axis, keepdims=keepdims)
               + (n + 4) * eps * np.sum(d * d, axis=axis, keepdims=keepdims)) / (n - ddof)
        if name == "std":
            err = np.sqrt(var + err) - np.sqrt(np.maximum(var - err, 0.0))
    return np.where(np.isnan(err), np.inf, err)


def _arg_error(name, xr, xe, axis, keepdims, ref):
    """An argmax is exact where the maximum is unique beyond the errors (or the tie is
    exact: both give the first index), or where a NaN decides it."""
    x = np.asarray(xr, np.float64)
    e = np.asarray(xe, np.float64)
    if name == "argmin":
        x = -x
    if axis is None:
        rows, errs = x.reshape(1, -1), e.reshape(1, -1)
    else:
        rows = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
        errs = np.moveaxis(e, axis, -1).reshape(-1, x.shape[axis])
    stable = np.array([_unique_top(r, er) for r, er in zip(rows, errs)], bool)
    return np.where(stable, 0.0, np.inf).reshape(ref.shape)


def _unique_top(row: np.ndarray, err: np.ndarray) -> bool:
    if not np.all(np.isfinite(err)):
        return False
    nan = np.isnan(row)
    if nan.any():
        return True  # the first NaN, in NumPy and XLA alike
    top = int(np.argmax(row))
    rivals = row + err >= row[top] - err[top]
    rivals[top] = False
    return not np.any(rivals & ~((row == row[top]) & (err == 0) & (err[top] == 0)))


def product(draw, b: Builder) -> int | None:
    """``T.dot`` (vectors and matrices) or ``T.matmul`` (batches broadcast)."""
    name = draw(st.sampled_from(["dot", "matmul"]))
    if name == "dot":
        ndims = draw(st.sampled_from([(1, 1), (2, 1), (1, 2), (2, 2)]))
    else:
        ndims = draw(st.sampled_from([(1, 1), (2, 2), (3, 2), (2, 3), (3, 3), (1, 3), (2, 1)]))
    x = pick(draw, b, lambda i: b.ref(i).ndim == ndims[0])
    if x is None:
        x = new_input(draw, b, shape=draw_shape(draw, ndims[0]))
    shape = b.ref(x).shape
    k = shape[-1]
    other = [draw(st.sampled_from(LENGTHS)) for _ in range(ndims[1])]
    if ndims[1] == 1:
        other = [k]
    else:
        other[-2] = k
        if name == "matmul" and ndims[0] == 3 and ndims[1] == 3:
            other[0] = draw(st.sampled_from([shape[0], 1]))
    y = pick(draw, b, lambda i: b.ref(i).shape == tuple(other))
    if y is None:
        y = new_input(draw, b, shape=tuple(other))
    blas_fn = getattr(np, name)
    numpy_fn = _every_term(blas_fn)
    xr, yr = b.ref(x), b.ref(y)
    with np.errstate(all="ignore"):
        ref = np.asarray(numpy_fn(xr, yr))
    if ref.size > MAX_SIZE or not integer_result_exact(blas_fn, ref, xr, yr):
        return None
    err = _product_step_error(numpy_fn, xr, b.err(x), yr, b.err(y), ref, k)
    return b.add_step(f"T.{name}({{}}, {{}})", [x, y], getattr(T, name), numpy_fn, ref, err)


def _every_term(blas_fn):
    """``np.dot`` / ``np.matmul``, with every product computed when an operand is not
    finite: BLAS may skip a zero operand's terms (``[[0]] @ [[inf]]`` is 0 there), IEEE
    arithmetic (XLA's) makes ``0 * inf`` NaN."""
    def product(x, y):
        if all(a.dtype.kind not in "fc" or np.isfinite(a).all() for a in (x, y)):
            return blas_fn(x, y)
        x2 = x[None, :] if x.ndim == 1 else x
        y2 = y[:, None] if y.ndim == 1 else y
        out = (x2[..., :, :, None] * y2[..., None, :, :]).sum(axis=-2)
        out = out[..., 0] if y.ndim == 1 else out
        out = out[..., 0, :] if x.ndim == 1 and y.ndim > 1 else (out[..., 0] if x.ndim == 1 else out)
        return out.astype(np.result_type(x, y))
    return product


def _product_step_error(fn, xr, xe, yr, ye, ref, k):
    if not bounds.is_float(ref.dtype):
        unstable = fn(~np.isfinite(xe) * 1.0, np.ones(yr.shape)) + fn(np.ones(xr.shape), ~np.isfinite(ye) * 1.0)
        return np.where(np.asarray(unstable) > 0, np.inf, 0.0)
    a, c = np.abs(xr.astype(np.float64)), np.abs(yr.astype(np.float64))
    with np.errstate(all="ignore"):
        err = fn(a, ye) + fn(xe, c) + fn(xe, ye) + (k + 2) * float(np.finfo(ref.dtype).eps) * fn(a, c)
    err = np.where(np.isnan(err) | ~np.isfinite(ref), np.inf, err)
    return bounds.guard_overflow(ref, err + bounds.rounding(ref, 2))


def _factorizations(size: int, ndim: int) -> list[tuple]:
    """Shapes of ``ndim`` lengths whose product is ``size``."""
    if ndim == 0:
        return [()] if size == 1 else []
    if ndim == 1:
        return [(size,)]
    found = []
    for first in range(0 if size == 0 else 1, max(size, 3) + 1):
        if (size == 0 and first == 0) or (first and size % first == 0):
            rest = 0 if first == 0 else size // first
            found.extend((first,) + tail for tail in _factorizations(rest, ndim - 1))
    return found


def reshape(draw, b: Builder) -> int | None:
    x = pick(draw, b)
    xr = b.ref(x)
    ndim = draw(st.integers(0, 3))
    shapes = _factorizations(xr.size, ndim)
    if not shapes:
        return None
    shape = list(draw(st.sampled_from(shapes)))
    if shape and xr.size and draw(st.booleans()):
        shape[draw(st.integers(0, len(shape) - 1))] = -1
    shape = tuple(shape)
    ref = xr.reshape(shape)
    if draw(st.booleans()) and xr.ndim >= 1 and shape and shape[0] == xr.shape[0] and -1 not in shape:
        # The first length read from the graph (symbolic), the others constant.
        rest = shape[1:]
        return b.add_step(f"{{0}}.reshape(({{0}}.shape[0],) + {rest!r})", [x],
                          lambda v: v.reshape((v.shape[0],) + rest), lambda v: v.reshape(shape),
                          ref, b.err(x).reshape(shape))
    return b.add_step(f"{{}}.reshape({shape!r})", [x], lambda v: v.reshape(shape),
                      lambda v: v.reshape(shape), ref, b.err(x).reshape(shape))


def permute(draw, b: Builder) -> int | None:
    """``dimshuffle`` (with new broadcastable axes), ``transpose`` or ``flatten``."""
    x = pick(draw, b)
    xr, xe = b.ref(x), b.err(x)
    kind = draw(st.sampled_from(["dimshuffle", "transpose", "flatten"]))
    order = list(draw(st.permutations(range(xr.ndim))))
    if kind == "dimshuffle":
        for _ in range(draw(st.integers(0, 2 if xr.ndim < 3 else 1))):
            order.insert(draw(st.integers(0, len(order))), "x")
        pattern = tuple(order)
        axes = [p for p in pattern if p != "x"]
        shape = tuple(1 if p == "x" else xr.shape[p] for p in pattern)

        def numpy_fn(v):
            return np.transpose(v, axes).reshape(shape)

        return b.add_step(f"{{}}.dimshuffle{pattern!r}", [x], lambda v: v.dimshuffle(*pattern), numpy_fn,
                          numpy_fn(xr), numpy_fn(xe))
    if kind == "transpose":
        axes = tuple(order) if draw(st.booleans()) else None
        return b.add_step(f"T.transpose({{}}, {axes!r})", [x], lambda v: T.transpose(v, axes),
                          lambda v: np.transpose(v, axes), np.transpose(xr, axes), np.transpose(xe, axes))
    if xr.ndim == 0:
        return None
    ndim = draw(st.integers(1, xr.ndim))
    shape = xr.shape[:ndim - 1] + (int(np.prod(xr.shape[ndim - 1:], dtype=np.int64)),)
    return b.add_step(f"T.flatten({{}}, {ndim})", [x], lambda v: T.flatten(v, ndim),
                      lambda v: v.reshape(shape), xr.reshape(shape), xe.reshape(shape))


def join(draw, b: Builder) -> int | None:
    """``T.concatenate`` or ``T.stack`` of 2 or 3 values of any dtypes (promoted)."""
    name = draw(st.sampled_from(["concatenate", "stack"]))
    x = pick(draw, b, (lambda i: b.ref(i).ndim >= 1) if name == "concatenate" else None)
    if x is None:
        return None
    shape = b.ref(x).shape
    ndim = len(shape) + (name == "stack")
    axis = draw(st.integers(-ndim, ndim - 1))
    parts = [x]
    for _ in range(draw(st.integers(1, 2))):
        other = list(shape)
        if name == "concatenate":
            other[axis] = draw(st.sampled_from(LENGTHS))
        found = pick(draw, b, lambda i: b.ref(i).shape == tuple(other))
        parts.append(found if found is not None and draw(st.booleans()) else new_input(draw, b, shape=tuple(other)))
    refs = [b.ref(i) for i in parts]
    numpy_fn = getattr(np, name)
    ref = numpy_fn(refs, axis=axis)
    if ref.size > MAX_SIZE:
        return None
    errs = numpy_fn([b.err(i) for i in parts], axis=axis)
    widened = any(r.dtype != ref.dtype for r in refs)
    err = bounds.guard_overflow(ref, errs + (bounds.rounding(ref, 0.5) if widened else 0.0))
    names = ", ".join("{}" for _ in parts)
    return b.add_step(f"T.{name}([{names}], axis={axis})", parts,
                      lambda *vs: getattr(T, name)(list(vs), axis=axis),
                      lambda *vs: numpy_fn(list(vs), axis=axis), ref, err)


def normalize(draw, b: Builder) -> int | None:
    """``T.softmax`` / ``T.log_softmax`` along an axis, a tuple of axes or all."""
    name = draw(st.sampled_from(["softmax", "log_softmax"]))
    x = pick(draw, b, lambda i: b.ref(i).dtype.kind in "biuf")
    xr, xe = b.ref(x), b.err(x)
    axis = _axes(draw, xr.ndim)
    if axis is None and xr.ndim and draw(st.booleans()):
        axis = -1
    dtype = np.exp(np.zeros(0, xr.dtype)).dtype
    scipy_fn = getattr(scipy.special, name)

    def numpy_fn(v):
        if v.size == 0:  # SciPy takes no maximum of nothing; the result is empty anyway
            return np.zeros(v.shape, dtype)
        return scipy_fn(np.asarray(v, np.float64), axis=axis).astype(dtype)

    with np.errstate(all="ignore"):
        ref = numpy_fn(xr)
    err = _normalize_error(name, xr, xe, axis, ref)
    return b.add_step(f"T.{name}({{}}, axis={axis!r})", [x], lambda v: getattr(T, name)(v, axis=axis),
                      numpy_fn, ref, err)


def _normalize_error(name, xr, xe, axis, ref):
    x = xr.astype(np.float64)
    eps = float(np.finfo(ref.dtype).eps)
    n = _reduced(xr.shape, axis)
    with np.errstate(all="ignore"):
        worst = np.max(xe, axis=axis, keepdims=True, initial=0.0)
        spread = np.abs(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))
        if name == "softmax":
            err = np.abs(ref) * (np.expm1(2 * worst) + (n + 8) * eps + 2 * eps * spread)
        else:
            err = 2 * worst + (n + 8) * eps * (1 + np.abs(ref)) + 2 * eps * spread
    special = np.max(~np.isfinite(x), axis=axis, keepdims=True, initial=False)
    err = np.where(special | np.isnan(err), np.inf, err)
    return bounds.guard_overflow(ref, err + bounds.rounding(ref, 8))
