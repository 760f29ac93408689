"""``as_op``: a NumPy function as an op, Theano's ``theano.compile.ops.as_op``.

    @as_op(itypes=[T.dmatrix, T.dmatrix], otypes=[T.dmatrix],
           infer_shape=lambda node, shapes: [shapes[0][:-1] + shapes[1][-1:]])
    def numpy_dot(a, b):
        return np.dot(a, b)

The function runs on NumPy values: for test values as the graph is built, and in
compiled programs as Python called from XLA (``lower_xla/rules/python_op.py``, which
needs the output shapes: ``infer_shape``, or static shapes in ``otypes``). It has no
gradient (as in Theano: write an ``Op`` with a ``grad`` method for one).
"""

from __future__ import annotations

import importlib
import pickle
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.graph.theano_ops import as_type

__all__ = ["as_op", "FromFunctionOp"]


class FromFunctionOp(Op):
    """An op computing ``fn(*inputs)`` (one array, or a list/tuple of them); equal by
    ``fn``, as Theano's."""

    __props__ = ("fn",)
    perform_only = True  # its perform is the function: run from the program as Python

    def __init__(self, fn: Callable[..., Any], itypes: Sequence[Any], otypes: Sequence[Any],
                 infer_shape: Callable[..., Any] | None) -> None:
        self.fn = fn
        self.itypes = list(itypes)
        self.otypes = list(otypes)
        self.shape_function = infer_shape

    def display_name(self) -> str:
        return f"FromFunctionOp{{{getattr(self.fn, '__name__', type(self.fn).__name__)}}}"

    def public_name(self) -> str:
        return getattr(self.fn, "__name__", type(self.fn).__name__)  # the user's function

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        outputs = self.fn(*inputs)
        if not isinstance(outputs, (list, tuple)):
            outputs = (outputs,)
        if len(outputs) != len(output_storage):
            raise ValueError(f"{self.display_name()}: the function returned {len(outputs)} "
                             f"value(s) for {len(output_storage)} otypes")
        for cell, value in zip(output_storage, outputs):
            cell[0] = value

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        if self.shape_function is None:
            raise NotImplementedError(f"{self.display_name()} was made by as_op without "
                                      f"infer_shape")
        return self.shape_function(node, input_shapes)

    def __reduce__(self) -> tuple:
        # Pickled by name, as Theano's: the decorated name is the op itself.
        module, name = self.fn.__module__, self.fn.__name__
        try:
            found = _load_back(module, name)
        except (ImportError, AttributeError) as err:
            raise pickle.PicklingError(f"cannot pickle {self.display_name()}: {module}.{name} "
                                       f"is not found ({err})") from None
        if found is not self:
            raise pickle.PicklingError(f"cannot pickle {self.display_name()}: {module}.{name} "
                                       f"is another object")
        return _load_back, (module, name)


def _load_back(module: str, name: str) -> Any:
    """``module.name``: a decorated function's op, found again by name when unpickled."""
    found: Any = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found


def as_op(itypes: Any, otypes: Any, infer_shape: Callable[..., Any] | None = None
          ) -> Callable[[Callable[..., Any]], FromFunctionOp]:
    """Decorate a NumPy function to make it an op (Theano's ``as_op``).

    ``itypes``/``otypes``: the types of its inputs and outputs (``T.dmatrix``, a
    ``TensorType``, or a list of them); ``infer_shape(node, input_shapes)``: the output
    shapes (as an op's ``infer_shape``), which a compiled program needs unless ``otypes``
    fix every length. The op has no gradient.
    """
    itypes = list(itypes) if isinstance(itypes, (list, tuple)) else [itypes]
    otypes = list(otypes) if isinstance(otypes, (list, tuple)) else [otypes]
    for where, types in (("itypes", itypes), ("otypes", otypes)):
        for spec in types:
            as_type(spec, f"as_op's {where}")  # refuses what is not a type, now
    if infer_shape is not None and not callable(infer_shape):
        raise TypeError(f"as_op: infer_shape must be a callable, got {infer_shape!r}")

    def make_op(fn: Callable[..., Any]) -> FromFunctionOp:
        return FromFunctionOp(fn, itypes, otypes, infer_shape)

    return make_op

