"""Evaluate a graph with the NumPy reference (each op's ``perform``), no compilation."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from symnb.core.errors import MissingTestValueError, label
from symnb.core.graph import Constant, Variable, toposort

__all__ = ["evaluate_graph"]


def evaluate_graph(outputs: Sequence[Variable], givens: Mapping[Variable, Any]) -> list[np.ndarray]:
    """Values of ``outputs`` given values for the variables in ``givens``.

    Root variables not in ``givens`` use their constant data (constants) or current
    value (shared variables); any other root is an error.
    """
    env: dict[int, np.ndarray] = {id(v): np.asarray(value, dtype=v.dtype) for v, value in givens.items()}
    blockers = list(givens)
    for node in toposort(outputs, blockers):
        args = [_value(v, env) for v in node.inputs]
        for var, value in zip(node.outputs, node.op.perform(node, args)):
            env[id(var)] = value
    return [_value(v, env) for v in outputs]


def _value(var: Variable, env: dict[int, np.ndarray]) -> np.ndarray:
    found = env.get(id(var))
    if found is not None:
        return found
    if isinstance(var, Constant):
        return var.data
    if hasattr(var, "get_value"):
        return var.get_value(borrow=True)
    raise MissingTestValueError(f"evaluate_graph: no value given for {label(var)!r}")
