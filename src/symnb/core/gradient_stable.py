"""``sn.grad`` differentiates the stable forms of what the user wrote.

The graph keeps the user's expressions as written (``log(sigmoid(z))``,
``1 / (1 + exp(-x))``, ``log(softmax(x))``...); their gradients, built node by node
from the written form, would be NaN or infinite where the written form overflows.
Before backpropagating, :func:`stabilized_seeds` makes a copy of the cost graph in
which each written form (:mod:`symnb.core.tensor.stable_forms`) is replaced by its
stable equivalent, and the nodes above it are rebuilt on the replacement; the
gradient is built from that copy. The user's graph is left as it was; the copy's
nodes carry test values and the ``sn.grad`` line like any gradient node, and the
merge pass folds the rebuilt nodes into the originals where they compute the same.

Kept as they are (never replaced, so the gradient still reaches them): the ``wrt``
variables and the ``consider_constant`` ones, and a written form that reads one of
them (the gradient then goes through it as written).
"""

from __future__ import annotations

from typing import Iterable

from symnb.core.graph import Apply, Variable, ancestors, toposort
from symnb.core.tensor.stable_forms import lifted_reshape, stable_equivalent

__all__ = ["stabilized_seeds"]


def stabilized_seeds(seeds: dict[int, tuple[Variable, Variable]], kept: Iterable[Variable],
                     blockers: Iterable[Variable]) -> dict[int, tuple[Variable, Variable]]:
    """``seeds`` (``{id(var): (var, its gradient)}``) moved onto the stable copy of
    their graph; the same dict when the graph holds no written unstable form."""
    kept = [*kept, *blockers]
    kept_ids = {id(v) for v in kept}
    # Variables computed by the graph (not leaves) that a form could swallow.
    inner_kept = {id(v) for v in kept if v.owner is not None}
    sources = [var for var, _ in seeds.values()]
    replaced: dict[int, Variable] = {}
    for node in toposort(sources, list(blockers)):
        if any(id(out) in kept_ids for out in node.outputs):
            continue
        inputs = [replaced.get(id(v), v) for v in node.inputs]
        stable = stable_equivalent(node.op, inputs) if len(node.outputs) == 1 else None
        if stable is None:  # a reshape of an elementwise f: f of the reshape, for f's reader
            stable = lifted_reshape(node.op, inputs)
        if stable is not None and not _swallows(inner_kept, inputs, stable):
            replaced[id(node.outputs[0])] = stable
        elif any(new is not old for new, old in zip(inputs, node.inputs)):
            replaced.update(_rebuilt(node, inputs))
    if not replaced:
        return seeds
    moved = {}
    for var, g in seeds.values():
        new = replaced.get(id(var), var)
        moved[id(new)] = (new, g)
    return moved


def _swallows(inner_kept: set[int], inputs: list[Variable], stable: Variable) -> bool:
    """Whether the stable expression no longer reads a kept variable that the written
    one did (``log(s)`` with ``s = sigmoid(z)`` a ``wrt``: ``-softplus(-z)`` skips
    ``s``, whose gradient would be lost). Walks the graphs only when a kept variable
    is computed by the graph (rare: ``wrt`` are usually parameters)."""
    if not inner_kept:
        return False
    read = {id(v) for v in ancestors(inputs)} & inner_kept
    return bool(read - {id(v) for v in ancestors([stable])})


def _rebuilt(node: Apply, inputs: list[Variable]) -> dict[int, Variable]:
    """``node``'s op applied to ``inputs``: ``{id(old output): new output}``; nothing
    when the op refuses them (an op checking static shapes the replacement does not
    carry): the gradient then goes through the written node, as written."""
    try:
        outputs = node.op(*inputs)
    except (TypeError, ValueError):
        return {}
    outputs = outputs if isinstance(outputs, list) else [outputs]
    if any(new.type.dtype != old.type.dtype or new.type.ndim != old.type.ndim
           for old, new in zip(node.outputs, outputs)):
        return {}
    return {id(old): new for old, new in zip(node.outputs, outputs)}
