"""Theano's ``CAReduce(scalar_op, axis)`` called itself: the reduction with a binary
scalar op (``add``, ``mul``, ``maximum``, ``minimum``, ``and_``, ``or_``, ``xor``), in the
input's dtype (Theano's CAReduce does not upcast: the sum of int8 wraps around in int8,
the "sum" of bools is their or)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.graph.errors import build_error, label
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.reduction import CAReduce, Reduce, _axis_str

__all__ = ["ScalarOpReduce", "REDUCIBLE"]

#: The scalar ops (by their row in elemwise_specs) a CAReduce reduces with, and NumPy's ufunc.
REDUCIBLE = {"add": np.add, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
             "and_": np.bitwise_and, "or_": np.bitwise_or, "xor": np.bitwise_xor}
_BITWISE = ("and_", "or_", "xor")


class ScalarOpReduce(Reduce, CAReduce):
    """``CAReduce(scalar_op, axis=None)``: ``scalar_op`` folded over ``axis``, in the input's
    dtype. Max and min of an empty axis are refused (no identity), as NumPy refuses."""

    __props__ = ("scalar_op", "axis", "keepdims")

    def __init__(self, scalar_op: Any, axis: Any = None) -> None:
        row = getattr(scalar_op, "row", None)
        if row not in REDUCIBLE or not scalar_op.keeps_row():
            raise TypeError(f"CAReduce({scalar_op!r}): symnb reduces with the scalar ops "
                            f"{', '.join(REDUCIBLE)}")
        super().__init__(axis if axis is None or isinstance(axis, tuple) else
                         tuple(axis) if isinstance(axis, (list, range)) else (axis,))
        self.scalar_op = scalar_op
        self.row = row
        self.fn_name = f"CAReduce{{{row}}}"
        self.needs_nonempty = row in ("maximum", "minimum")

    def numpy_fn(self, x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
        """NumPy's ``ufunc.reduce`` (its result cast back to the input's dtype by ``perform``:
        the same numbers, integer sums and products wrapping around as in the dtype)."""
        return REDUCIBLE[self.row].reduce(x, axis=axis, keepdims=keepdims)

    def output_dtype(self, in_dtype: str) -> str:
        return in_dtype

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.row in _BITWISE and np.dtype(x.dtype).kind not in "biu":
            raise build_error(f"{self.fn_name} of {label(x)!r} ({x.type.short()}): {self.row} "
                              f"takes booleans or integers", TypeError)
        return super().make_node(x)

    def display_name(self) -> str:
        return f"CAReduce{{{self.row}, axis={_axis_str(self.axis)}}}"

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.reduction import max, min, prod, sum
        (x,) = inputs
        public = {"add": sum, "mul": prod, "maximum": max, "minimum": min}.get(self.row)
        if public is None or np.dtype(x.dtype).kind not in "fc":
            return [None]
        # The same reduction through its public function, whose gradient symnb has.
        same = public(x, axis=self.axis)
        return [same.owner.op.L_op([x], [same], output_grads)[0]]


CAReduce._from_scalar_op = ScalarOpReduce  # CAReduce(scalar_op, axis) builds one
