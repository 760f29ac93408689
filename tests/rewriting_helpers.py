"""Helpers for the rewrite tests: compile a graph, compare it with the unoptimized
graph's NumPy reference, and look at what the optimized graph holds."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import symnb as sn
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.tensor.composite import Composite
from tests.reference import assert_same, symbolic_like


def compile_and_check(build: Callable[..., Any], values: list[Any], mode: Any = "FAST_RUN",
                      rtol: float | None = None, reference: Callable[..., Any] | None = None):
    """Build ``build(*inputs)`` on symbolic inputs holding ``values``; check the compiled
    result against the unoptimized graph's NumPy value (its test value, computed by
    each op's ``perform``), or ``reference(*values)`` when given. Return the function."""
    values = [np.asarray(v) for v in values]
    inputs = [symbolic_like(v, f"in{i}") for i, v in enumerate(values)]
    out = build(*inputs)
    expected = np.asarray(reference(*values)) if reference is not None else out.test_value
    f = sn.function(inputs, out, mode=mode, on_unused_input="ignore")
    assert_same(f(*values), expected, f"compiled ({mode})", rtol)
    return f


def op_names(fgraph: FunctionGraph) -> list[str]:
    """Class names of the ops in ``fgraph``, those inside Composite nodes included."""
    names = []
    for node in fgraph.toposort():
        names.append(type(node.op).__name__)
        if isinstance(node.op, Composite):
            names.extend(type(inner.op).__name__ for inner in node.op.graph.nodes)
    return names


def applied(fgraph: FunctionGraph) -> list[str]:
    """Names of the rewrites recorded in ``fgraph.history``."""
    return [record.name for record in fgraph.history]
