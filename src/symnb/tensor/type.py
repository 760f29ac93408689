"""``T.type``: Theano's module of the tensor type (``theano.tensor.type``): ``TensorType``
and the value comparisons its ``values_eq_approx`` can be swapped for."""

from typing import Any

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.graph.type import TensorType as TensorType

__all__ = ["TensorType", "values_eq_approx_remove_inf", "values_eq_approx_remove_nan",
           "values_eq_approx_remove_inf_nan", "values_eq_approx_always_true"]


def values_eq_approx_remove_inf(a: Any, b: Any) -> bool:
    """``values_eq_approx``, infinities in ``a`` matching anything (Theano's)."""
    return TensorType.values_eq_approx(a, b, allow_remove_inf=True)


def values_eq_approx_remove_nan(a: Any, b: Any) -> bool:
    """``values_eq_approx``, NaNs in ``a`` matching anything (Theano's)."""
    return TensorType.values_eq_approx(a, b, allow_remove_nan=True)


def values_eq_approx_remove_inf_nan(a: Any, b: Any) -> bool:
    """``values_eq_approx``, infinities and NaNs in ``a`` matching anything (Theano's)."""
    return TensorType.values_eq_approx(a, b, allow_remove_inf=True, allow_remove_nan=True)


def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """Always True (Theano's, for outputs whose values need no comparison)."""
    return True


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
