"""Ops written in Python only (Theano's way of extending it: a ``perform``, no lowering
rule) inside the XLA program: their ``perform`` runs on the host, called from the
program (``jax.pure_callback``), as Theano ran it between its compiled nodes.

XLA needs every shape before the program runs, so each output's shape is found while
tracing: from the output's static type when it is fully known, else from the op's
``infer_shape`` on the call's input shapes, else from its test value when the op
declares its shapes fixed (``Op.fixed_output_shapes``); otherwise the call is refused,
saying what to add. What ``perform`` returns is checked against those shapes and the
declared dtypes (``evaluate.run_node``): a mismatch is an error naming the op, never a
value XLA would read wrongly.

An exception raised by ``perform`` in a compiled call stops the program; the callback
keeps it (:func:`take_failure`), and the call reports it as any node's failure, at the
user's line that built the node, with the input shapes (``Function._execution_error``).
A program holding such a node donates nothing (a failure must leave the shared variables
as they were) and is kept on no disk cache (its callback is a Python object of this
process: ``executable_cache.py`` refuses it, and JAX writes no program with host
callbacks to its own cache).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, NamedTuple, Sequence

import jax
import numpy as np

from symnb.core.graph.basic import Apply, Variable, walk_nodes
from symnb.core.graph.evaluate import run_node
from symnb.core.graph.op import Op
from symnb.core.graph.static import static_value
from symnb.lower_xla.interpreter import NodeFailure
from symnb.lower_xla.jax_private import silence_callback_log
from symnb.lower_xla.registry import install_host_rule

__all__ = ["python_op", "output_shapes", "take_failure", "PythonOpFailed", "ShapesUnknown", "Shapes"]


class ShapesUnknown(ValueError):
    """Nothing gives the output shapes of an op run as Python (raised while tracing: the
    call's error names the node and the user's line that built it)."""


class PythonOpFailed(Exception):
    """Raised in the host callback of a node whose ``perform`` failed: what stops the
    program (the error the user sees is made from the kept failure)."""


# The failures of callbacks, by node (the program's), until the call that ran them
# reports them. Weak: a program dropped with its nodes drops its failures.
_failures: "weakref.WeakKeyDictionary[Apply, NodeFailure]" = weakref.WeakKeyDictionary()
_failures_lock = threading.Lock()

silence_callback_log(lambda error: isinstance(error, PythonOpFailed))


def take_failure(nodes: Sequence[Apply]) -> NodeFailure | None:
    """The failure of a Python op's ``perform`` in a program over ``nodes`` (its loop
    bodies and branches too), taken: None when none of them failed."""
    with _failures_lock:
        found = [_failures.pop(node) for node in walk_nodes(nodes) if node in _failures]
    return found[-1] if found else None


def python_op(op: Op, node: Apply) -> Callable[..., Any]:
    """The rule: ``node``'s ``perform`` run on the host, called from the program."""
    dtypes = [var.type.numpy_dtype for var in node.outputs]

    def run(*arrays: Any) -> tuple[Any, ...]:
        if not any(isinstance(a, jax.core.Tracer) for a in arrays):
            # Run eagerly, node by node (a debugging mode): perform itself, whose
            # exception reaches the mode as any rule's.
            values = [np.asarray(a) for a in arrays]
            return tuple(_outputs(node, values, output_shapes(node, [v.shape for v in values])))
        expected = output_shapes(node, [tuple(a.shape) for a in arrays])

        def on_host(*values: np.ndarray) -> tuple[np.ndarray, ...]:
            try:
                return tuple(_outputs(node, [np.asarray(v) for v in values], expected))
            except Exception as err:  # kept for the call's error (see the module)
                with _failures_lock:
                    _failures[node] = NodeFailure(node, 0, values, err)
                raise PythonOpFailed(f"{op.display_name()}.perform failed: {err}") from err

        results = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in zip(expected.shapes, dtypes)]
        # "sequential": under jax.vmap, perform runs once per element (it may not
        # broadcast over a leading axis it was not written for).
        return tuple(jax.pure_callback(on_host, results, *arrays, vmap_method="sequential"))

    return run


install_host_rule(python_op)


def _outputs(node: Apply, inputs: list[np.ndarray], expected: "Shapes") -> list[np.ndarray]:
    """``perform``'s outputs (of exactly the declared dtypes: ``run_node``), checked to
    have the shapes the program was compiled for."""
    outputs = run_node(node, inputs)
    for index, (value, shape) in enumerate(zip(outputs, expected.shapes)):
        if value.shape != tuple(shape):
            raise ValueError(
                f"{node.op.display_name()}.perform returned shape {value.shape} for output "
                f"{index}; the compiled program expects {tuple(shape)} (from "
                f"{expected.source}, for inputs of shapes "
                f"{', '.join(str(v.shape) for v in inputs)})")
    return outputs


class Shapes(NamedTuple):
    """The output shapes of a node run as Python, and what gave them (for messages)."""

    shapes: list[tuple[int, ...]]
    source: str


def output_shapes(node: Apply, input_shapes: Sequence[tuple]) -> Shapes:
    """The shape of each of ``node``'s outputs for inputs of ``input_shapes`` (see the
    module); raises :class:`ShapesUnknown` when nothing gives them."""
    types = [var.type for var in node.outputs]
    if all(t.fully_known for t in types):
        return Shapes([t.shape for t in types], "its output types")
    op = node.op
    try:
        inferred = op.infer_shape(node, [tuple(int(n) for n in s) for s in input_shapes])
    except NotImplementedError:  # none (as_op without infer_shape: see core's Op)
        inferred = None
    if inferred is not None:
        return Shapes([_static_shape(node, i, shape) for i, shape in enumerate(inferred)],
                      "its infer_shape")
    if op.fixed_output_shapes:
        return Shapes([tuple(var.test_value.shape) for var in node.outputs],
                      "its test values: fixed_output_shapes")
    raise ShapesUnknown(
        f"{op.display_name()} runs as Python in the compiled program (its perform, called "
        f"from XLA), which needs its output shapes before it runs; the output types "
        f"({', '.join(repr(t) for t in types)}) do not fix them. Give the op an "
        f"infer_shape(node, input_shapes) method, output types with static shapes, or "
        f"fixed_output_shapes = True when its outputs always have their test values' shapes")


def _static_shape(node: Apply, index: int, shape: Sequence[Any]) -> tuple[int, ...]:
    """One output's shape from ``infer_shape``: its lengths as ints (a symbolic length
    built from the ints given must be known without any input value)."""
    lengths = []
    for axis, length in enumerate(shape):
        value = static_value(length) if isinstance(length, Variable) else length
        if value is None or np.ndim(value) != 0:
            raise ShapesUnknown(
                f"{node.op.display_name()}.infer_shape gave length {length!r} for axis {axis} "
                f"of output {index}, not a number computed from the input shapes; the "
                f"compiled program (which runs its perform from XLA) needs a static length")
        lengths.append(int(value))
    return tuple(lengths)

