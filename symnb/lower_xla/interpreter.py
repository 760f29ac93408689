"""The lowering interpreter: a short loop over the graph, run once under ``jax.jit``.

Each node's rule is looked up once (when the program is built); when JAX traces the
program, the loop evaluates the rules on traced arrays (or, for nodes whose inputs
are all known at trace time, the op's NumPy ``perform``). A rule that fails (an input
shape the node cannot take) is reported as a ``NodeFailure`` carrying the node, so
the error can name the user's line that built it.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import numpy as np

from symnb.core.graph import Apply, Constant, Variable
from symnb.lower_xla.registry import lower

__all__ = ["NodeFailure", "build_program", "scope_name"]


class NodeFailure(Exception):
    """A node's lowering rule failed while the program was traced for new input shapes."""

    def __init__(self, node: Apply, index: int, arrays: Sequence[Any], error: Exception) -> None:
        super().__init__(str(error))
        self.node = node
        self.index = index
        self.shapes = [tuple(np.shape(a)) for a in arrays]
        self.dtypes = [str(a.dtype) for a in arrays]
        self.error = error


def scope_name(node: Apply) -> str:
    """The named scope tagging a node's operations in jaxpr/HLO: op and user's line."""
    frame = node.site.frame
    where = f"@{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
    return f"{type(node.op).__name__}{where}"


def build_program(inputs: Sequence[Variable], outputs: Sequence[Variable],
                  nodes: Sequence[Apply]) -> Callable[..., list[Any]]:
    """A function of the input arrays computing ``outputs`` through ``nodes`` (toposorted)."""
    rules = [lower(node.op, node) for node in nodes]
    constants = {id(v): v.data for node in nodes for v in node.inputs if isinstance(v, Constant)}
    constants.update({id(v): v.data for v in outputs if isinstance(v, Constant)})

    def program(*arrays: Any) -> list[Any]:
        env = dict(constants)
        env.update(zip(map(id, inputs), arrays))
        for index, (node, rule) in enumerate(zip(nodes, rules)):
            args = [env[id(v)] for v in node.inputs]
            with jax.named_scope(scope_name(node)):
                try:
                    results = _evaluate(node, rule, args)
                except NodeFailure:
                    raise
                except Exception as err:  # the graph cannot run on these shapes
                    raise NodeFailure(node, index, args, err) from err
            for var, value in zip(node.outputs, results):
                if value.dtype != var.type.dtype:
                    value = value.astype(var.type.dtype)
                env[id(var)] = value
        return [env[id(v)] for v in outputs]

    return program


def _evaluate(node: Apply, rule: Callable[..., Any], args: list[Any]) -> Sequence[Any]:
    """Run a node on traced arrays, or at trace time when all its inputs are static.

    Inputs known while tracing (constants, and values computed from input *shapes*
    only) stay NumPy arrays and go through the op's NumPy ``perform``: shapes derived
    from input shapes thus stay static, as XLA requires, without recompiling.
    """
    if node.op.static_evaluable and all(type(a) is np.ndarray for a in args):
        return node.op.perform(node, args)
    result = rule(*args)
    return result if isinstance(result, (tuple, list)) else (result,)
