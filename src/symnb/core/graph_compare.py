"""Structural equality of graphs: Theano's ``equal_computations`` and ``is_same_graph``.

Two graphs compute the same thing when their outputs are the same variable, equal
constants (same type and bytes), inputs paired by ``in_xs``/``in_ys``, or outputs of the
same index of nodes applying equal ops to inputs that are, recursively, the same. This
is what merging the two graphs into one (``core/rewriting/merge.py``) would find; it is
written as a walk so that comparing needs no function graph.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph import Constant, Variable

__all__ = ["equal_computations", "is_same_graph"]


def equal_computations(xs: Sequence[Variable], ys: Sequence[Variable],
                       in_xs: Sequence[Variable] | None = None,
                       in_ys: Sequence[Variable] | None = None) -> bool:
    """True when each of ``xs`` computes what the matching one of ``ys`` does, taking
    ``in_xs[i]`` and ``in_ys[i]`` as the same input (Theano's ``scan_utils`` function)."""
    if len(xs) != len(ys) or len(in_xs or ()) != len(in_ys or ()):
        return False
    paired = {id(x): y for x, y in zip(in_xs or (), in_ys or ())}
    seen: dict[tuple[int, int], bool] = {}
    return all(_same(x, y, paired, seen) for x, y in zip(xs, ys))


def is_same_graph(var1: Variable, var2: Variable, givens: dict | None = None) -> bool:
    """True when ``var1`` and ``var2`` compute the same thing (Theano's ``gof.graph``
    function); ``givens`` pairs variables of the first graph with ones of the second."""
    givens = dict(givens or {})
    return equal_computations([var1], [var2], list(givens), list(givens.values()))


def _same(x: Variable, y: Variable, paired: dict, seen: dict) -> bool:
    stack = [(x, y)]
    while stack:  # a walk, not recursion: graphs thousands of nodes deep stay comparable
        a, b = stack.pop()
        key = (id(a), id(b))
        if key in seen:
            continue
        seen[key] = True
        if not _locally_same(a, b, paired):
            return False
        if a is not b and id(a) not in paired and a.owner is not None:
            stack.extend(zip(a.owner.inputs, b.owner.inputs))
    return True


def _locally_same(a: Variable, b: Variable, paired: dict) -> bool:
    """Equal here (same variable, paired inputs, equal constants or equal ops), before
    looking at the inputs."""
    if id(a) in paired or id(b) in paired.values():
        return paired.get(id(a)) is b
    if a is b:
        return True
    if a.type != b.type:
        return False
    if isinstance(a, Constant) or isinstance(b, Constant):
        return (isinstance(a, Constant) and isinstance(b, Constant)
                and np.array_equal(a.data, b.data, equal_nan=a.data.dtype.kind in "fc"))
    if a.owner is None or b.owner is None:
        return False
    return (a.owner.op == b.owner.op and a.index == b.index
            and len(a.owner.inputs) == len(b.owner.inputs))
