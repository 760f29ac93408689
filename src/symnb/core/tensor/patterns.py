"""Structural predicates on tensor graphs: "is this variable made by op X", "is this
operand a constant equal to 1 that cannot widen the result".

Shared by the stable forms recognized as a graph is built
(:mod:`symnb.core.tensor.stable_forms`) and by the rewrites of
:mod:`symnb.core.rewriting`, so a pattern means the same thing in both.
"""

from __future__ import annotations

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable

__all__ = ["owner_op", "is_fill_constant", "other_operand", "same_computation"]


def owner_op(var: Variable, op_class: type | tuple[type, ...]) -> Apply | None:
    """``var``'s node when its op is an instance of ``op_class``, else None."""
    node = var.owner
    if node is not None and isinstance(node.op, op_class):
        return node
    return None


def is_fill_constant(var: Variable, value: float, out: Variable) -> bool:
    """True when ``var`` is a constant equal to ``value`` everywhere that cannot widen
    ``out`` by broadcasting (a single element with no more dimensions than ``out``)."""
    if not isinstance(var, Constant):
        return False
    data = var.data
    if data.size != 1 or data.ndim > out.ndim:
        return False
    with np.errstate(all="ignore"):
        return bool(data.reshape(()) == value)


def other_operand(node: Apply, value: float) -> Variable | None:
    """For a binary node, the operand that is not a fill constant equal to ``value``
    (and that alone determines the output's shape); None when there is none."""
    out = node.outputs[0]
    a, b = node.inputs
    if is_fill_constant(b, value, out) and a.ndim == out.ndim:
        return a
    if is_fill_constant(a, value, out) and b.ndim == out.ndim:
        return b
    return None


def same_computation(a: Variable, b: Variable) -> bool:
    """True when ``a`` and ``b`` are the same value: the same variable, equal constants,
    or the same output of equal ops applied to inputs that are the same values.

    A graph being built is not merged yet: ``T.exp(x) / T.exp(x).sum()`` holds two
    ``exp(x)`` nodes, which the rewrites would only see as one after the merge pass.
    """
    stack = [(a, b)]
    seen: set[tuple[int, int]] = set()
    while stack:
        a, b = stack.pop()
        if a is b or (id(a), id(b)) in seen:
            continue
        seen.add((id(a), id(b)))
        if isinstance(a, Constant) or isinstance(b, Constant):
            if not (isinstance(a, Constant) and isinstance(b, Constant) and _equal_constants(a, b)):
                return False
            continue
        x, y = a.owner, b.owner
        if x is None or y is None or a.index != b.index or x.op != y.op \
                or len(x.inputs) != len(y.inputs):
            return False
        stack.extend(zip(x.inputs, y.inputs))
    return True


def _equal_constants(a: Constant, b: Constant) -> bool:
    """Same type and bytes (as the merge pass compares them: -0.0 is not 0.0)."""
    return a.type == b.type and a.data.tobytes() == b.data.tobytes()
