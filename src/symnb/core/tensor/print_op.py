"""``Print``: the identity that prints its value (or some attributes) when computed.

It prints when the graph computes it: at test-value time as the graph is built, and
inside the compiled XLA program each time the function runs (in execution order,
inside loop bodies too).
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["Print"]


class Print(Op):
    """``Print(message, attrs=('__str__',))(x)`` returns ``x`` and prints
    ``message attr = value`` for each attribute when ``x`` is computed.

    ``attrs`` names attributes or methods of the NumPy value: ``'__str__'`` (the
    value), ``'shape'``, ``'min'``, ``'max'``, ``'mean'``, ``'dtype'``...
    """

    __props__ = ("message", "attrs")
    has_effects = True  # it must print when the compiled function runs

    def __init__(self, message: str = "", attrs: Sequence[str] = ("__str__",)) -> None:
        self.message = message
        self.attrs = tuple(attrs)

    def display_name(self) -> str:
        return f"Print{{{self.message}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        self.emit(inputs[0])
        return [inputs[0]]

    def emit(self, value: np.ndarray) -> None:
        """Print the attributes of ``value`` (called by perform and by the compiled program)."""
        value = np.asarray(value)
        for attr in self.attrs:
            shown = getattr(value, attr)
            if callable(shown):
                shown = shown()
            print(f"{self.message} {attr} = {shown}", file=sys.stdout, flush=True)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]]
