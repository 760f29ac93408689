"""``specify_shape``: a length check that also tells the graph the static shape.

It sits below :mod:`symnb.core.tensor.shape` (which states the length of a shape vector
with it) and is re-exported by :mod:`symnb.core.tensor.extra_ops`, Theano's home for it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import describe_shape
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["SpecifyShape", "specify_shape"]


class SpecifyShape(Op):
    """``x`` unchanged, checked to have ``shape`` (an int per axis, or None for any
    length); the output's static shape says so. Axes listed in ``unknown`` lose their
    static length (what ``T.unbroadcast`` needs)."""

    __props__ = ("shape", "unknown")

    def __init__(self, shape: tuple | None = None, unknown: tuple = ()) -> None:
        # Theano's SpecifyShape()(x, shape): no shape here, the shape an input (constant)
        self.shape = None if shape is None else tuple(shape)
        self.unknown = tuple(unknown)

    def make_node(self, x: Variable, shape: Any = None) -> Apply:
        x = as_tensor_variable(x)
        if self.shape is None:
            if shape is None:
                raise build_error("SpecifyShape()(x, shape): the shape is missing", TypeError,
                                  op=self, inputs=[x])
            return SpecifyShape(_static_entries(shape)).make_node(x)
        if shape is not None:
            raise build_error(f"{self.display_name()} holds its shape; call it on x alone",
                              TypeError, op=self, inputs=[x])
        if len(self.shape) != x.ndim:
            raise build_error(f"specify_shape: {label(x)!r} has {x.ndim} dimension(s), the shape "
                              f"given has {len(self.shape)}: {describe_shape(self.shape)}",
                              ValueError, op=self, inputs=[x])
        for d, (want, have) in enumerate(zip(self.shape, x.type.shape)):
            if want is not None and have is not None and want != have:
                raise build_error(f"specify_shape: {label(x)!r} has length {have} along axis {d}, "
                                  f"not {want} (shape {describe_shape(x.type.shape)}, expected "
                                  f"{describe_shape(self.shape)})", ValueError, op=self, inputs=[x])
        static = tuple(None if d in self.unknown else (want if want is not None else have)
                       for d, (want, have) in enumerate(zip(self.shape, x.type.shape)))
        return Apply(self, [x], [x.type.clone(shape=static)])

    def check(self, shape: tuple, name: str) -> None:
        """Raise a ValueError when ``shape`` (a value's) is not the one specified."""
        if any(want is not None and want != have for want, have in zip(self.shape, shape)):
            raise ValueError(f"specify_shape: {name} has shape {describe_shape(shape)}, expected "
                             f"{describe_shape(self.shape)}")

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.check(np.shape(inputs[0]), repr(label(node.inputs[0])))
        return [inputs[0]]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [tuple(have if want is None else want
                      for want, have in zip(self.shape, input_shapes[0]))]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]


def _static_entries(shape: Any) -> tuple:
    """``shape`` (a list of ints and int constants, or a constant vector) as ints."""
    from symnb.core.graph.basic import Constant
    from symnb.core.graph.static import NotScalarConstantError, get_scalar_constant_value

    if isinstance(shape, Variable) and not isinstance(shape, Constant):
        raise build_error(f"SpecifyShape: the shape {label(shape)!r} is symbolic; symnb's static "
                          "shapes are Python ints, so it must be a list of ints or a constant",
                          NotImplementedError)
    entries = shape.data if isinstance(shape, Constant) else shape
    out = []
    for entry in (entries.tolist() if isinstance(entries, np.ndarray) else list(entries)):
        if isinstance(entry, Variable):
            try:
                entry = get_scalar_constant_value(entry)
            except NotScalarConstantError:
                raise build_error(f"SpecifyShape: the length {label(entry)!r} is symbolic; symnb's "
                                  "static shapes are Python ints", NotImplementedError) from None
        out.append(None if entry is None else int(entry))
    return tuple(out)


def specify_shape(x: Any, shape: Sequence[Any]) -> Variable:
    """``x``, checked to have ``shape`` (ints, or None for any length) when the graph
    runs; the result's static shape is ``shape`` (Theano's ``T.specify_shape``)."""
    x = as_tensor_variable(x)
    entries = []
    for entry in shape:
        if isinstance(entry, Variable):
            raise NotImplementedError(
                "specify_shape: symnb's static shapes are Python ints; a symbolic length "
                f"({label(entry)!r}) cannot become one. Pass ints (or None).")
        entries.append(None if entry is None else int(entry))
    return SpecifyShape(tuple(entries))(x)
