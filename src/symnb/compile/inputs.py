"""Checking and converting the arguments of a compiled function.

The fast path (a NumPy or JAX array of exactly the input's dtype and shape) costs a
few attribute reads; anything else goes through ``convert_argument``, which either
converts safely or raises an error naming the input, the expected and the actual type.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.compile.sharding import with_auto_axes
from symnb.core.graph.config import config
from symnb.core.graph.errors import label
from symnb.core.graph.basic import Variable
from symnb.core.graph.type import describe_shape

__all__ = ["ArgumentChecks", "make_checker", "strict_checker", "convert_argument"]


class ArgumentChecks:
    """The checks of a function's arguments: one per input (``checkers``), and a test
    of the common case that costs a few attribute reads per input.

    ``check_all(args)`` (a plain closure: the cheapest call) returns what to pass to
    the program. When every argument is a NumPy array (``type(a) is np.ndarray``) of
    exactly its input's dtype and number of dimensions, and the input has no static
    length, they are passed as they are: each check would pass them unchanged (a
    strict input takes them too). Anything else goes through each input's check,
    which converts safely or raises the clear error.
    """

    def __init__(self, inputs: Sequence[Variable], allow_downcast: bool | None = None,
                 checkers: Sequence[Callable[[Any], Any]] | None = None) -> None:
        self.inputs = tuple(inputs)
        #: Per input, the function validating its argument: ``checkers`` (a function's
        #: plan gives them: ``sn.In`` options included), else ``make_checker``'s.
        self.checkers = tuple(checkers) if checkers is not None else \
            tuple(make_checker(v, allow_downcast) for v in self.inputs)
        #: Per input, the ``(dtype, ndim)`` of the NumPy arrays passed as they are;
        #: dtype None for an input with static lengths (its check reads the shape too).
        #: A sparse input (SciPy values, converted by its check) has none: always checked.
        self.exact = tuple((None if any(n is not None for n in v.type.shape)
                            or getattr(v.type, "is_sparse", False)
                            else np.dtype(v.type.dtype), v.type.ndim) for v in self.inputs)
        self.check_all = _check_all(self.exact, self.checkers)

    def __call__(self, args: Sequence[Any]) -> Sequence[Any]:
        return self.check_all(args)


def _check_all(exact: tuple, checkers: tuple) -> Callable[[Sequence[Any]], Sequence[Any]]:
    ndarray = np.ndarray

    def check_all(args: Sequence[Any]) -> Sequence[Any]:
        # ``is``: NumPy's built-in dtypes are singletons (another equal dtype goes the
        # long way round, and passes the check).
        for value, (dtype, ndim) in zip(args, exact):
            if type(value) is not ndarray or value.dtype is not dtype or value.ndim != ndim:
                return [check(a) for check, a in zip(checkers, args)]
        return args

    return check_all


def make_checker(var: Variable, allow_downcast: bool | None,
                 exact_pattern: bool = True) -> Callable[[Any], Any]:
    """A function validating one argument for input ``var``, returning the array to pass.
    A sparse input's SciPy matrix is passed as its dense matrix, refused with stored zeros
    when ``exact_pattern`` (the program reads which entries it stores)."""
    if getattr(var.type, "is_sparse", False):
        what = f"input {label(var)!r}"
        return lambda value: var.type.to_program(value, what, exact_pattern)
    dtype = np.dtype(var.type.dtype)
    ndim = var.type.ndim
    static = var.type.shape
    fixed_axes = tuple((axis, n) for axis, n in enumerate(static) if n is not None)

    def check(value: Any) -> Any:
        # The arrays ArgumentChecks passes as they are.
        if type(value) is np.ndarray and value.dtype == dtype and value.ndim == ndim:
            return value
        return check_slowly(value)

    def check_fixed(value: Any) -> Any:
        if type(value) is np.ndarray and value.dtype == dtype and value.ndim == ndim \
                and all(value.shape[a] == n for a, n in fixed_axes):
            return value
        return check_slowly(value)

    def check_slowly(value: Any) -> Any:
        if isinstance(value, jax.Array) and value.dtype == dtype and value.ndim == ndim \
                and all(value.shape[a] == n for a, n in fixed_axes):
            return with_auto_axes(value)  # already on a device: no copy
        return convert_argument(var, value, allow_downcast)

    return check_fixed if fixed_axes else check


def _what(value: np.ndarray) -> str:
    return f"{value.dtype} array of shape {describe_shape(value.shape)}"


def convert_argument(var: Variable, value: Any, allow_downcast: bool | None) -> np.ndarray:
    name = label(var)
    want = var.type
    dtype = np.dtype(want.dtype)
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        array = _python_scalar(name, var, value, dtype, allow_downcast)
    else:
        try:
            array = np.asarray(value)
        except Exception as err:
            raise TypeError(f"input {name!r} expects {want.short()}, got {type(value).__name__}: {err}") from None
        if array.dtype == object:
            raise TypeError(f"input {name!r} expects {want.short()}, got {type(value).__name__} "
                            f"that is not a numeric array")
        if array.dtype != dtype:
            array = _cast_array(name, want, array, allow_downcast,
                                from_array=hasattr(value, "dtype"))
    if array.ndim != want.ndim:
        raise TypeError(f"input {name!r} expects {want.ndim} dimension(s) ({want.kind_name} "
                        f"{want.short()}), got {_what(array)}")
    if not want.accepts_shape(array.shape):
        raise ValueError(f"input {name!r} has static shape {describe_shape(want.shape)}, "
                         f"got {_what(array)}")
    return array


def _python_scalar(name: str, var: Variable, value: Any, dtype: np.dtype,
                   allow_downcast: bool | None) -> np.ndarray:
    array = np.asarray(value, dtype=dtype) if _holds_exactly(value, dtype) else None
    if array is None and isinstance(value, float) and str(dtype) == config.floatX \
            and allow_downcast is None:
        # As in Theano: a float for any floatX input, unless allow_input_downcast=False.
        array = np.asarray(value, dtype=dtype)
    if array is None and allow_downcast:
        array = np.asarray(value).astype(dtype)
    if array is None:
        raise TypeError(f"input {name!r} expects {var.type.short()}; the Python "
                        f"{type(value).__name__} {value!r} does not fit {dtype} exactly "
                        f"(pass allow_input_downcast=True to sn.function to round it)")
    return array


def _holds_exactly(value: Any, dtype: np.dtype) -> bool:
    try:
        with np.errstate(all="ignore"):
            converted = np.asarray(value, dtype=dtype)
    except (OverflowError, ValueError, TypeError):
        return False
    if dtype.kind == "b" and not isinstance(value, bool):
        return False
    # Compared as Python numbers: NumPy 2 would cast the Python value to the array's
    # dtype first (NEP 50), so np.float32(0.1) == 0.1 holds there.
    return converted.item() == value and not (dtype.kind in "iub" and isinstance(value, float))


def _cast_array(name: str, want: Any, array: np.ndarray, allow_downcast: bool,
                from_array: bool = True) -> np.ndarray:
    dtype = np.dtype(want.dtype)
    if np.can_cast(array.dtype, dtype, casting="safe") or allow_downcast:
        return array.astype(dtype)
    if not from_array and array.dtype.kind in "biuf":
        # A list (or tuple) of Python numbers has no dtype of its own: as in Theano
        # (TensorType.filter), it is accepted when every value converts exactly
        # ([1.0, 2.0] for a float32 input), and refused otherwise ([0.1]).
        with np.errstate(all="ignore"):
            converted = array.astype(dtype)
        if np.array_equal(converted, array, equal_nan=dtype.kind in "fc") and \
                (dtype.kind != "b" or np.isin(array, (0, 1)).all()):
            return converted
    if array.dtype.kind in "biu":
        # Integers are accepted wherever every value converts exactly (np.arange(9)
        # for a float32 input), as Python scalars are; floats follow safe casting
        # only, so whether a float array is accepted never depends on its values.
        with np.errstate(all="ignore"):
            converted = array.astype(dtype)
        if np.array_equal(converted.astype(array.dtype), array) and \
                (dtype.kind != "b" or np.isin(array, (0, 1)).all()):
            return converted
    raise TypeError(
        f"input {name!r} expects {want.short()}, got {_what(array)}: casting {array.dtype} to "
        f"{dtype} could lose information. Pass {name}.astype('{dtype}'), or compile with "
        f"sn.function(..., allow_input_downcast=True).")


def strict_checker(var: Variable, check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``check``, after refusing any value whose dtype is not exactly the input's
    (``sn.In(x, strict=True)``)."""
    dtype = np.dtype(var.type.dtype)

    def strict(value: Any) -> Any:
        actual = getattr(value, "dtype", None)
        if actual is None or np.dtype(actual) != dtype:
            got = type(value).__name__ if actual is None else f"a value of dtype {actual}"
            raise TypeError(f"input {label(var)!r} is strict: it takes arrays of dtype {dtype} "
                            f"only, got {got}")
        return check(value)

    return strict
