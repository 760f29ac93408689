"""The values of a failed call's loop bodies at any iteration, replayed on demand.

A failed call's replay (:mod:`symnb.core.failed_call`) keeps the failing node's inputs
and, for a loop body, each variable's value of the last iteration it ran. To look at
another iteration, the call is replayed again in NumPy from its arguments (the one
evaluator, :func:`symnb.core.failed_call.replay`), keeping only what was asked: every
value of one iteration (:func:`values_at`), or one number per iteration of one value
(:func:`summary_over_iterations`). Nested loops are addressed by one iteration per
level: ``[(outer loop node, 2), (inner loop node, 1)]``, outermost first, as
``CallValues.loops`` gives them for the failing evaluation.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.failed_call import CallValues, NodeValues, loop_levels, replay
from symnb.core.graph import Apply, Variable

__all__ = ["values_at", "values_through", "summary_over_iterations", "iterations_run", "MEASURES"]

#: The numbers a value's summary over the iterations can plot, by name.
MEASURES: dict[str, Callable[[np.ndarray], float]] = {
    "mean": lambda a: float(np.mean(a)) if a.size else float("nan"),
    "max |value|": lambda a: float(np.max(np.abs(a))) if a.size else float("nan"),
    "norm": lambda a: float(np.linalg.norm(a.ravel())),
}

Loops = Sequence[tuple[Apply, int]]


def _same(loops: Loops, other: Loops) -> bool:
    return len(loops) == len(other) and all(a is b and i == j for (a, i), (b, j) in zip(loops, other))


def _rerun(call: CallValues, watch: Callable[[NodeValues], bool]) -> None:
    """Replay the failed call from its arguments, ``watch`` told of every evaluation
    (``True`` from it ends the replay)."""
    program = getattr(call, "program", None)
    if program is None:
        raise ValueError("these call values cannot be replayed again (they carry no program: "
                         "only a compiled function's failed call does)")
    nodes, inputs = program
    # Copies: an in-place node of the replay must not change the call's kept arguments.
    env = {id(v): np.array(value, copy=True) for v, (_, value) in zip(inputs, call.arguments)}
    replay(nodes, env, watch)


def values_through(call: CallValues) -> dict[int, tuple[Variable, Any]]:
    """``{id(variable): (variable, value)}`` of every output of the outer graph's nodes,
    the call replayed past its failure: after a failed value check (``NanGuardMode``'s
    NaN) the nodes after it compute on, as the call would have without the check (the
    NaN spreads); after a node that raised, nothing after it is computed (the replay stops
    there, as the call did). What the views colour a failed call's graph by."""
    kept: dict[int, tuple[Variable, Any]] = {}

    def watch(seen: NodeValues) -> bool:
        if seen.holder is None and seen.outputs is not None:
            kept.update((id(var), (var, value)) for var, value in zip(seen.node.outputs, seen.outputs))
        return False  # never the one sought: run on

    _rerun(call, watch)
    return kept


def values_at(call: CallValues, loops: Loops) -> dict[int, tuple[Variable, Any]]:
    """``{id(variable): (variable, value)}`` of every variable the body of the innermost
    loop of ``loops`` read or computed at those iterations (one per level, outermost
    first). Empty when the call never ran that iteration (it failed before)."""
    loops = list(loops)
    kept: dict[int, tuple[Variable, Any]] = {}
    outer, (loop, wanted) = loops[:-1], loops[-1]

    def watch(seen: NodeValues) -> bool:
        levels = loop_levels(seen.levels)
        if len(levels) < len(loops) or not _same(levels[:len(outer)], outer) or levels[len(outer)][0] is not loop:
            return False
        iteration = levels[len(outer)][1]
        if iteration > wanted:
            return True  # past it: the rest of the call is not needed
        if iteration == wanted and len(levels) == len(loops):
            kept.update((id(v), (v, x)) for v, x in zip(seen.node.inputs, seen.inputs))
            kept.update((id(v), (v, x)) for v, x in zip(seen.node.outputs, seen.outputs or ()))
        return False

    _rerun(call, watch)
    return kept


def summary_over_iterations(call: CallValues, outer: Loops, loop: Apply, var: Variable,
                            measure: str) -> list[tuple[int, float]]:
    """``[(iteration, measure(value))]`` of ``var`` (a variable of ``loop``'s body) over
    the iterations ``loop`` ran in the call (up to the failing one, where it failed),
    ``outer`` fixing the iterations of the loops around ``loop`` (outermost first).
    ``measure``: a name of :data:`MEASURES`."""
    number = MEASURES[measure]
    outer = list(outer)
    found: dict[int, float] = {}

    def watch(seen: NodeValues) -> bool:
        levels = loop_levels(seen.levels)
        if len(levels) != len(outer) + 1 or not _same(levels[:-1], outer) or levels[-1][0] is not loop:
            return False
        iteration = levels[-1][1]
        if iteration in found:
            return False
        pairs = list(zip(seen.node.inputs, seen.inputs)) + list(zip(seen.node.outputs, seen.outputs or ()))
        for known, value in pairs:
            if known is var:
                array = np.asarray(value)
                found[iteration] = number(array.astype("float64")) if array.dtype.kind in "biuf" else float("nan")
                break
        return False

    _rerun(call, watch)
    return sorted(found.items())


def iterations_run(call: CallValues, outer: Loops, loop: Apply) -> int:
    """How many iterations of ``loop`` (inside ``outer``'s iterations) the replayed call
    began: all of them for a loop that finished, up to the failing one for the loop
    that failed."""
    started: set[int] = set()

    def watch(seen: NodeValues) -> bool:
        levels = loop_levels(seen.levels)
        if len(levels) > len(outer) and _same(levels[:len(outer)], outer) and levels[len(outer)][0] is loop:
            started.add(levels[len(outer)][1])
        return False

    _rerun(call, watch)
    return max(started) + 1 if started else 0
