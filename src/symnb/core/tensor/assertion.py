"""``Assert(msg)(x, *conditions)``: ``x``, checked.

Every element of every condition must be true (non-zero); otherwise the test value
fails on the line that built the assert, and the compiled function raises an error
carrying ``msg`` and that line.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import GraphRuntimeError
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["Assert", "AssertionFailedError"]


class AssertionFailedError(GraphRuntimeError, AssertionError):
    """An ``Assert`` condition was false when a compiled function ran: an
    ``AssertionError``, as Theano's ``Assert`` raised, whether the condition was decided
    while tracing (static shapes) or by the running program, and a ``GraphRuntimeError``
    (the compiled function failed on its arguments)."""


class Assert(Op):
    """Pass ``x`` through, after checking that every condition holds (Theano's ``Assert``).

    ``T.Assert("Shape mismatch!")(x, T.eq(x.shape[0], y.shape[0]))``
    """

    __props__ = ("msg",)
    # The check must run in the compiled program even when the conditions are static.
    has_effects = True  # it must check when the compiled function runs

    def __init__(self, msg: str = "symnb Assert failed!") -> None:
        self.msg = str(msg)

    def display_name(self) -> str:
        return f"Assert{{msg={self.msg!r}}}"

    def make_node(self, x: Any, *conditions: Any) -> Apply:
        x = as_tensor_variable(x)
        conditions = [as_tensor_variable(c) for c in conditions]
        return Apply(self, [x, *conditions], [x.type])

    def failed_condition(self, conditions: Sequence[np.ndarray]) -> int | None:
        """The index of the first condition that is not all true, or None."""
        return next((i for i, c in enumerate(conditions) if not np.all(c)), None)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        x, *conditions = inputs
        failed = self.failed_condition(conditions)
        if failed is not None:
            # Only a user-given name: a condition built inline would take the name
            # assigned on its line, which is the assert's own output.
            raise AssertionError(failure_text(self, failed, node.inputs[1 + failed].name))
        return [x]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def scalar_source(self, node: Apply, known: Any) -> Any:
        """``x``, when every condition is a scalar known to be true (Theano's rule)."""
        conditions = node.inputs[1:]
        if all(c.ndim == 0 and (value := known(c)) is not None and value != 0 for c in conditions):
            return node.inputs[0]
        return None

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0]] + [None] * (len(inputs) - 1)


def failure_text(op: Assert, index: int, name: str | None = None) -> str:
    """The message of a failed condition: ``msg``, then which condition (#1 is the first
    after ``x``) failed, with its name when the user gave it one."""
    which = f"#{index + 1} ({name!r})" if name else f"#{index + 1}"
    return f"{op.msg} (condition {which} is false)"
