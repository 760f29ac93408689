"""The rows a ``scan_until`` loop computed, as Theano returned them.

The ``Scan`` node of a ``scan_until`` loop runs in XLA up to ``n_steps`` steps with its
rows buffered (``n_steps`` rows, those past the last step run repeating it) and
counts the steps run. What ``scan`` returns is :class:`StepsRun` of each buffer: its
first ``count`` rows. That length is known only at run time, so its static type says
the length is unknown, and a compiled function runs ``StepsRun`` on the host between two
programs (``symnb.compile.split_program``: the rest is compiled per length bucket).

Its gradient writes the rows' gradient back into a buffer of ``n_steps`` rows with
zeros past the steps run (:class:`PadRows`), for the loop's gradient
(``symnb.core.scan.grad``, which skips the steps not run).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable, clone_replace, toposort
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType, is_float
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["StepsRun", "PadRows", "last_row_of_buffer", "last_rows_from_buffers"]


class StepsRun(Op):
    """``buffer[:count]``: the first ``count`` rows of a ``scan_until`` loop's buffered
    output (``count``: the steps it ran). Its length depends on values: a compiled
    function runs it on the host."""

    __props__ = ()
    #: The output's length is the number of steps run (see ``Op.length_from_values``).
    length_from_values = True

    def make_node(self, buffer: Variable, count: Variable) -> Apply:
        buffer, count = as_tensor_variable(buffer), as_tensor_variable(count)
        if buffer.ndim < 1 or count.ndim != 0 or count.dtype != "int64":
            raise TypeError(f"StepsRun: expected the rows of a loop and an int64 count, got "
                            f"{buffer.type.short()} and {count.type.short()}")
        return Apply(self, [buffer, count], [TensorType(buffer.dtype, (None, *buffer.type.shape[1:]))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        buffer, count = inputs
        return [np.asarray(buffer[:int(count)])]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(node.inputs[1], *input_shapes[0][1:])]

    def L_op(self, inputs, outputs, output_grads):
        buffer, _ = inputs
        (g,) = output_grads
        if not is_float(buffer.dtype):
            return [None, None]
        return [PadRows()(g, buffer), None]


class PadRows(Op):
    """``rows`` written into zeros shaped like ``like``: row ``i < count`` is
    ``rows[i]``, the others are 0; ``count`` defaults to ``rows.shape[0]``. (Given
    explicitly by a program whose ``rows`` are padded to a length bucket:
    ``symnb.compile.split_buckets``.)"""

    __props__ = ()

    def make_node(self, rows: Variable, like: Variable, count: Variable | None = None) -> Apply:
        rows, like = as_tensor_variable(rows), as_tensor_variable(like)
        if rows.ndim != like.ndim or rows.dtype != like.dtype:
            raise TypeError(f"PadRows: rows {rows.type.short()} do not fit {like.type.short()}")
        inputs = [rows, like]
        if count is not None:
            count = as_tensor_variable(count)
            if count.ndim != 0 or count.dtype != "int64":
                raise TypeError(f"PadRows: the count must be an int64 scalar, got {count.type.short()}")
            inputs.append(count)
        return Apply(self, inputs, [like.type])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        rows, like = inputs[:2]
        count = len(rows) if len(inputs) == 2 else int(inputs[2])
        count = min(count, len(rows), len(like))
        out = np.zeros_like(like)
        out[:count] = rows[:count]
        return [out]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        (g,) = output_grads
        # Row i < count of ``rows`` went to row i: its gradient is g's row i; the others 0.
        return [PadRows()(g, inputs[0], *inputs[2:]), None] + [None] * (len(inputs) - 2)


def last_row_of_buffer(node: Apply) -> Variable | None:
    """For ``node`` = ``StepsRun(buffer, count)[-1]``: ``buffer[-1]``, the same row (the
    buffer's rows past the steps run repeat the last step; with no step run, both are
    empty and ``[-1]`` fails alike), read with no length known at run time only. Else
    None."""
    from symnb.core.tensor.subtensor import Subtensor

    rows = node.inputs[0] if node.inputs else None
    if not isinstance(node.op, Subtensor) or node.op.idx_list != (-1,) or rows.owner is None \
            or not isinstance(rows.owner.op, StepsRun):
        return None
    made = node.op.make_node(rows.owner.inputs[0])
    made.site = node.site
    return made.outputs[0]


def last_rows_from_buffers(outputs: list[Variable], inputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` (a loop step's, built from ``inputs``) with each ``rows[-1]`` of an
    inner ``scan_until`` loop read from its buffer (``last_row_of_buffer``): a step
    holding no length known at run time compiles (the function's own graph gets the
    same by the ``steps_run_last_row`` rewrite; rewrites do not enter loop bodies)."""
    replace = {}
    for node in toposort(outputs, inputs):
        row = last_row_of_buffer(node)
        if row is not None:
            replace[node.outputs[0]] = row
    return clone_replace(outputs, replace) if replace else outputs
