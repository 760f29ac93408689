"""Elementwise steps for the differential fuzz: unary, binary (comparisons, logical
ops and Python-scalar operands included), switch, clip and casts.

Each op carries its own NumPy reference (SciPy where NumPy has none) and a float64
version used to carry the operands' errors through it (see ``bounds``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import scipy.special
from hypothesis import strategies as st

import symnb as sn
import symnb.tensor as T
from tests.fuzz import bounds
from tests.fuzz.bounds import CORRECTLY_ROUNDED, TRANSCENDENTAL
from tests.fuzz.program import Builder
from tests.reference import theano_true_divide
from tests.fuzz.shapes import (
    DTYPES, broadcast_partner, integer_result_exact, pick, python_scalar,
)

__all__ = ["unary", "binary", "compare", "logical", "switch", "clip", "cast"]


def theano_float_dtype(dtype) -> np.dtype:
    """Theano 1.0's ``upgrade_to_float`` (theano/scalar/basic.py), written out here: the
    float dtype a float-valued op computes a bool or integer operand in (8 and 16 bits:
    float32, 32 and 64 bits: float64); a float keeps its dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        return np.dtype(np.float32 if dtype.itemsize <= 2 else np.float64)
    return dtype


def _upgraded(numpy_fn: Callable) -> Callable:
    """``numpy_fn`` on the operand cast to :func:`theano_float_dtype` (Theano's
    ``sqrt(int8)`` is float32; NumPy's is float16)."""
    def reference(x):
        x = np.asarray(x)
        return numpy_fn(x.astype(theano_float_dtype(x.dtype)))
    return reference


def _float_like(numpy_fn: Callable) -> Callable:
    """A reference computed in float64, then rounded to Theano's float dtype for the
    operand (sigmoid, softplus and erf)."""
    def reference(x):
        x = np.asarray(x)
        return numpy_fn(np.asarray(x, np.float64)).astype(theano_float_dtype(x.dtype))
    return reference


@dataclass(frozen=True)
class Unary:
    name: str
    symbolic: Callable
    numpy: Callable
    #: float64 function for carrying errors; None for ops that are exact on their domain.
    f64: Callable | None
    k: float = TRANSCENDENTAL
    lipschitz: float | None = None
    #: For discontinuous ops: the step whose jumps make a value unstable.
    jump: Callable | None = None


UNARY = [
    Unary("T.neg", T.neg, np.negative, np.negative, 0.0),
    Unary("T.abs", T.abs, np.abs, np.abs, 0.0),
    Unary("T.sign", T.sign, np.sign, None, jump=np.sign),
    Unary("T.floor", T.floor, _upgraded(np.floor), None, jump=np.floor),
    Unary("T.ceil", T.ceil, _upgraded(np.ceil), None, jump=np.ceil),
    Unary("T.round", T.round, np.round, None, jump=np.round),
    Unary("T.exp", T.exp, _upgraded(np.exp), np.exp),
    Unary("T.log", T.log, _upgraded(np.log), np.log),
    Unary("T.log1p", T.log1p, _upgraded(np.log1p), np.log1p),
    Unary("T.expm1", T.expm1, _upgraded(np.expm1), np.expm1),
    Unary("T.sqrt", T.sqrt, _upgraded(np.sqrt), np.sqrt, CORRECTLY_ROUNDED),
    Unary("T.square", T.square, np.square, np.square, CORRECTLY_ROUNDED),
    Unary("T.sin", T.sin, _upgraded(np.sin), np.sin, lipschitz=1.0),
    Unary("T.cos", T.cos, _upgraded(np.cos), np.cos, lipschitz=1.0),
    Unary("T.tanh", T.tanh, _upgraded(np.tanh), np.tanh),
    Unary("T.sigmoid", T.sigmoid, _float_like(scipy.special.expit), scipy.special.expit),
    Unary("T.softplus", T.softplus, _float_like(lambda x: np.logaddexp(0.0, x)),
          lambda x: np.logaddexp(0.0, x)),
    Unary("T.erf", T.erf, _float_like(scipy.special.erf), scipy.special.erf),
    Unary("T.isnan", T.isnan, np.isnan, None),
    Unary("T.isinf", T.isinf, np.isinf, None),
    Unary("T.invert", T.invert, np.invert, None),
]


def _reference(numpy_fn: Callable, *operands) -> np.ndarray | None:
    """NumPy's result, or None when NumPy refuses these dtypes (then symnb may too)."""
    try:
        with np.errstate(all="ignore"):
            return np.asarray(numpy_fn(*operands))
    except (TypeError, ValueError, OverflowError):
        return None


def unary(draw, b: Builder) -> int | None:
    op = draw(st.sampled_from(UNARY))
    x = pick(draw, b)
    xr, xe = b.ref(x), b.err(x)
    ref = _reference(op.numpy, xr)
    if ref is None or not integer_result_exact(op.numpy, ref, xr):
        return None
    err = _unary_error(op, xr, xe, ref)
    return b.add_step(f"{op.name}({{}})", [x], op.symbolic, op.numpy, ref, err)


def _unary_error(op: Unary, x: np.ndarray, e: np.ndarray, ref: np.ndarray) -> np.ndarray:
    if op.jump is not None:
        return np.where(bounds.jump_free(op.jump, x, e), 0.0, np.inf)
    if op.f64 is None:  # isnan, isinf, invert: exact where the operand is not unstable
        return np.where(np.isfinite(e), 0.0, np.inf)
    if not bounds.is_float(ref.dtype):
        return np.where(np.isfinite(e), 0.0, np.inf)  # integer neg, abs, square: exact
    carried = bounds.through_unary(op.f64, x, e, op.lipschitz)
    return bounds.guard_overflow(ref, carried + bounds.rounding(ref, op.k))


@dataclass(frozen=True)
class Binary:
    name: str
    symbolic: Callable
    numpy: Callable
    k: float = CORRECTLY_ROUNDED
    #: Integer operands: which divisor values are undefined behaviour (division by zero).
    needs_nonzero_divisor: bool = False
    jump: bool = False


BINARY = [
    Binary("T.add", T.add, np.add),
    Binary("T.sub", T.sub, np.subtract),
    Binary("T.mul", T.mul, np.multiply),
    Binary("T.true_div", T.true_div, theano_true_divide),
    Binary("T.floor_div", T.floor_div, np.floor_divide, needs_nonzero_divisor=True, jump=True),
    Binary("T.mod", T.mod, np.mod, needs_nonzero_divisor=True, jump=True),
    Binary("T.pow", T.pow, np.power, k=TRANSCENDENTAL),
    Binary("T.maximum", T.maximum, np.maximum, k=0.0),
    Binary("T.minimum", T.minimum, np.minimum, k=0.0),
]


def binary(draw, b: Builder) -> int | None:
    op = draw(st.sampled_from(BINARY))
    a = pick(draw, b)
    ar = b.ref(a)
    scalar = python_scalar(draw, ar.dtype)
    if scalar is not None:
        swap = draw(st.booleans())
        return _scalar_binary(b, op, a, scalar, swap)
    other = broadcast_partner(draw, b, a)
    return _tensor_binary(b, op, a, other)


def _binary_error(op: Binary, ar, ae, br, be, ref) -> np.ndarray | None:
    """The error of ``op(a, b)``; None when the example must not use it (undefined
    behaviour: an integer divisor that is 0, a negative integer power)."""
    exact_inputs = np.where(np.isfinite(ae) & np.isfinite(be), 0.0, np.inf)
    if not bounds.is_float(ref.dtype) or (op.jump and not bounds.is_float(np.result_type(ar, br))):
        if op.needs_nonzero_divisor and np.any(np.asarray(br) == 0):
            return None
        if op.name == "T.pow" and np.any(np.asarray(br) < 0):
            return None
        return exact_inputs
    if op.needs_nonzero_divisor:  # float floor_div / mod: jumps where a / b crosses an integer
        stable = _quotient_stable(ar, ae, br, be)
        if op.name == "T.floor_div":  # an integer, rounded once it exceeds the float's mantissa
            return np.where(stable, exact_inputs + bounds.rounding(ref, 2), np.inf)
        with np.errstate(all="ignore"):
            carried = np.asarray(ae, np.float64) + np.abs(np.floor(_div(ar, br))) * np.asarray(be, np.float64)
        return bounds.guard_overflow(ref, np.where(stable, carried + bounds.rounding(ref, 2), np.inf))
    carried = bounds.through_binary(lambda x, y: op.numpy(x, y), ar, ae, br, be)
    singular = _singular(op, ar, ae, br, be)
    rounding = bounds.rounding(ref, op.k)
    if op.name == "T.pow":  # pow(x, y) = exp(y log x): the log's rounding grows with it
        with np.errstate(all="ignore"):
            rounding = rounding + 2 * bounds.ulp(ref) * np.nan_to_num(np.abs(np.log(np.abs(
                ref.astype(np.float64)))), posinf=0.0)
    return bounds.guard_overflow(ref, np.where(singular, np.inf, carried + rounding))


def _div(a, b):
    with np.errstate(all="ignore"):
        return np.asarray(a, np.float64) / np.asarray(b, np.float64)


def _quotient_stable(ar, ae, br, be) -> np.ndarray:
    """True where floor(a / b) is the same over the operands' error boxes."""
    a, b = np.asarray(ar, np.float64), np.asarray(br, np.float64)
    ae, be = np.asarray(ae, np.float64), np.asarray(be, np.float64)
    with np.errstate(all="ignore"):
        floors = [np.floor((a + sa * ae) / (b + sb * be)) for sa in (-1, 1) for sb in (-1, 1)]
        center = np.floor(a / b)
        same = np.ones(np.broadcast(a, b).shape, bool)
        for f in floors:
            same &= (f == center) | (np.isnan(f) & np.isnan(center))
        same &= ~((be > 0) & (be >= np.abs(b)))
    return ((ae == 0) & (be == 0)) | (same & np.isfinite(ae) & np.isfinite(be))


def _singular(op: Binary, ar, ae, br, be) -> np.ndarray:
    """Where the op has a pole inside the operands' error box (1 / b near b = 0,
    x ** negative near x = 0): the carried error is unbounded there."""
    a, b = np.asarray(ar, np.float64), np.asarray(br, np.float64)
    ae, be = np.asarray(ae, np.float64), np.asarray(be, np.float64)
    if op.name == "T.true_div":
        return (be > 0) & (be >= np.abs(b)) & np.ones_like(a, bool)
    if op.name == "T.pow":
        return (ae > 0) & (ae >= np.abs(a)) & (b - be < 0)
    return np.zeros(np.broadcast(a, b).shape, bool)


def _tensor_binary(b: Builder, op: Binary, x: int, y: int) -> int | None:
    xr, yr = b.ref(x), b.ref(y)
    ref = _reference(op.numpy, xr, yr)
    if ref is None or not integer_result_exact(op.numpy, ref, xr, yr):
        return None
    err = _binary_error(op, xr, b.err(x), yr, b.err(y), ref)
    if err is None:
        return None
    return b.add_step(f"{op.name}({{}}, {{}})", [x, y], op.symbolic, op.numpy, ref, err)


def theano_constant_dtype(scalar: Any) -> np.dtype:
    """Theano 1.0's dtype of a Python number made a constant (``NumpyAutocaster``,
    ``config.cast_policy='custom'``), written out here: an int the smallest of int8,
    int16, int32, int64 holding it; a float floatX unless floatX is float64, then
    float32 when it holds the float exactly, else float64."""
    if isinstance(scalar, bool):
        return np.dtype(bool)
    if isinstance(scalar, int):
        return next(np.dtype(d) for d in ("int8", "int16", "int32", "int64")
                    if np.iinfo(d).min <= scalar <= np.iinfo(d).max)
    floatx = sn.config.floatX
    if floatx != "float64":
        return np.dtype(floatx)
    return np.dtype(np.float32 if float(np.float32(scalar)) == scalar else np.float64)


def _as_numpy_operand(scalar: Any, dtype: np.dtype) -> Any:
    """The NumPy operand that computes what symnb does with a Python scalar: a 0-d array
    of Theano's dtype for it (:func:`theano_constant_dtype`), promoted with the other
    operand as arrays are (``x_uint8 + 1`` is int16, ``x_float16 + 0.5`` float32)."""
    return np.asarray(scalar, dtype=theano_constant_dtype(scalar))


def _scalar_binary(b: Builder, op: Binary, x: int, scalar: Any, swap: bool) -> int | None:
    """``op(x, 2)`` or ``op(2, x)``: a Python scalar, a constant of Theano's dtype for it
    (:func:`_as_numpy_operand`)."""
    xr = b.ref(x)
    written, scalar = scalar, _as_numpy_operand(scalar, xr.dtype)
    operands = (scalar, xr) if swap else (xr, scalar)
    ref = _reference(op.numpy, *operands)
    if ref is None or not integer_result_exact(op.numpy, ref, *operands):
        return None
    zero = np.zeros(())
    if swap:
        err = _binary_error(op, scalar, zero, xr, b.err(x), ref)
        build, numpy, text = (lambda v: op.symbolic(written, v)), (lambda v: op.numpy(scalar, v)), \
            f"{op.name}({written!r}, {{}})"
    else:
        err = _binary_error(op, xr, b.err(x), scalar, zero, ref)
        build, numpy, text = (lambda v: op.symbolic(v, written)), (lambda v: op.numpy(v, scalar)), \
            f"{op.name}({{}}, {written!r})"
    if err is None:
        return None
    return b.add_step(text, [x], build, numpy, ref, err)


COMPARISONS = [("T.eq", T.eq, np.equal), ("T.neq", T.neq, np.not_equal), ("T.lt", T.lt, np.less),
               ("T.le", T.le, np.less_equal), ("T.gt", T.gt, np.greater), ("T.ge", T.ge, np.greater_equal)]


def compare(draw, b: Builder) -> int | None:
    name, symbolic, numpy_fn = draw(st.sampled_from(COMPARISONS))
    x = pick(draw, b)
    y = broadcast_partner(draw, b, x)
    xr, yr = b.ref(x), b.ref(y)
    ref = _reference(numpy_fn, xr, yr)
    if ref is None:
        return None
    # In the dtype NumPy compares in, a comparison is exact unless the operands' error
    # boxes overlap.
    a, c = np.asarray(xr, np.float64), np.asarray(yr, np.float64)
    ea, ec = np.asarray(b.err(x)), np.asarray(b.err(y))
    with np.errstate(all="ignore"):
        apart = np.abs(a - c) > ea + ec
    stable = (ea + ec == 0) | apart | np.isnan(a) | np.isnan(c)
    err = np.where(stable & np.isfinite(ea) & np.isfinite(ec), 0.0, np.inf)
    return b.add_step(f"{name}({{}}, {{}})", [x, y], symbolic, numpy_fn, ref, err)


LOGICAL = [("T.and_", T.and_, np.bitwise_and), ("T.or_", T.or_, np.bitwise_or), ("T.xor", T.xor, np.bitwise_xor)]


def logical(draw, b: Builder) -> int | None:
    name, symbolic, numpy_fn = draw(st.sampled_from(LOGICAL))
    exact_kinds = lambda i: b.ref(i).dtype.kind in "biu"  # noqa: E731
    x = pick(draw, b, exact_kinds)
    if x is None:
        return None
    y = broadcast_partner(draw, b, x, kinds="biu")
    ref = _reference(numpy_fn, b.ref(x), b.ref(y))
    if ref is None:
        return None
    err = np.where(np.isfinite(b.err(x)) & np.isfinite(b.err(y)), 0.0, np.inf)
    return b.add_step(f"{name}({{}}, {{}})", [x, y], symbolic, numpy_fn, ref, err)


def switch(draw, b: Builder) -> int | None:
    """``T.switch(c, a, b)`` on tensors."""
    c = pick(draw, b)
    x = broadcast_partner(draw, b, c)
    y = broadcast_partner(draw, b, c)
    cr, xr, yr = b.ref(c), b.ref(x), b.ref(y)
    numpy_fn = lambda c, a, b: np.where(c.astype(bool), a, b)  # noqa: E731
    ref = _reference(lambda c, a, b: np.where(c, a, b), cr, xr, yr)
    if ref is None:
        return None
    condition = np.asarray(cr, np.float64)
    ce = np.asarray(b.err(c))
    # The condition is x != 0: unstable where its error box reaches 0.
    decided = (ce == 0) | (np.abs(condition) > ce) | np.isnan(condition)
    chosen = np.where(cr.astype(bool), b.err(x), b.err(y))
    err = np.where(decided & np.isfinite(ce), chosen, np.inf)
    return b.add_step("T.switch({}, {}, {})", [c, x, y], T.switch, numpy_fn, ref, err)


def clip(draw, b: Builder) -> int | None:
    """``T.clip(x, low, high)`` with tensor or Python-scalar bounds (low may exceed high:
    NumPy then gives high everywhere)."""
    x = pick(draw, b, lambda i: b.ref(i).dtype.kind in "iuf")
    if x is None:
        return None
    xr = b.ref(x)
    bounds_given = draw(st.sampled_from(["scalars", "tensors"]))
    if bounds_given == "scalars":
        low, high = python_scalar(draw, xr.dtype, always=True), python_scalar(draw, xr.dtype, always=True)
        if low is None or high is None:
            return None
        as_low, as_high = _as_numpy_operand(low, xr.dtype), _as_numpy_operand(high, xr.dtype)
        ref = _reference(np.clip, xr, as_low, as_high)
        if ref is None:
            return None
        err = bounds.guard_overflow(ref, b.err(x) + bounds.rounding(ref, 0.5 * (ref.dtype != xr.dtype)))
        return b.add_step(f"T.clip({{}}, {low!r}, {high!r})", [x], lambda v: T.clip(v, low, high),
                          lambda v: np.clip(v, as_low, as_high), ref, err)
    low = broadcast_partner(draw, b, x, kinds="iuf")
    high = broadcast_partner(draw, b, x, kinds="iuf")
    ref = _reference(np.clip, xr, b.ref(low), b.ref(high))
    if ref is None:
        return None
    carried = b.err(x) + b.err(low) + b.err(high)
    err = bounds.guard_overflow(ref, carried + bounds.rounding(ref, 0.5 * (ref.dtype.kind == "f")))
    return b.add_step("T.clip({}, {}, {})", [x, low, high], T.clip, np.clip, ref, err)


def cast(draw, b: Builder) -> int | None:
    x = pick(draw, b)
    target = draw(st.sampled_from(DTYPES))
    xr, xe = b.ref(x), b.err(x)
    source = xr.dtype
    if source.kind == "f" and np.dtype(target).kind in "iu":
        # Undefined behaviour: NaN, inf, or a truncated value out of the target's range.
        info = np.iinfo(target)
        with np.errstate(all="ignore"):
            truncated = np.trunc(xr.astype(np.float64))
        if not np.all(np.isfinite(truncated) & (truncated >= info.min) & (truncated <= info.max)):
            return None
        err = np.where(bounds.jump_free(np.trunc, xr, xe), 0.0, np.inf)
    elif source.kind == "f" and target == "bool":
        # v != 0 jumps at 0 alone: a value within its error of 0 (a subnormal, which XLA
        # on CPU reads as 0) is unstable although both sides of it agree.
        near_zero = np.abs(xr.astype(np.float64)) <= xe
        err = np.where(bounds.jump_free(lambda v: v != 0, xr, xe) & ~near_zero, 0.0, np.inf)
    else:
        ref = xr.astype(target)
        err = np.where(np.isfinite(xe), 0.0, np.inf) if not bounds.is_float(target) else \
            bounds.guard_overflow(ref, xe + bounds.rounding(ref, 0.5 * (ref.dtype != source)))
    ref = xr.astype(target)
    return b.add_step(f"T.cast({{}}, {target!r})", [x], lambda v: T.cast(v, target),
                      lambda v: v.astype(target), ref, err)
