"""Bounded memory for test values: a cache of computed values, with a byte budget.

Every node keeps its test value, so a long graph over large values would hold them all
(a 1,000-step RBM sampler's scan outputs are 60 MB each). Computed values count against
``config.test_value_memory_mb``; beyond it the least recently used are dropped, and a
dropped value is computed again, the same, when something reads it
(``test_value.compute_missing``).

The same: a node recomputed runs on the values its inputs had when it first ran. An
input computed by a node has one value for good (dropped, it is recomputed, the same);
a root's value may change since (``x.tag.test_value = ...``, ``W.set_value(...)``, a
random stream reseeded), so a tracked value keeps, until it is recomputed or freed, the
values its node's root inputs had: ``roots_used``. Nothing else is kept for a dropped
value: recomputation walks up to the values still held, or to those roots.

A value counts against the budget when it is at least ``tracked_bytes()``: 1 MB, or the
whole budget when that is smaller (a budget of 0 drops every value but the newest
and the checkpoints).
Smaller ones are kept without bookkeeping: the budget holds what matters, and a node
over small values pays nothing for it.

Checkpoints: a value whose recomputation ran more than ``CHECKPOINT_AFTER`` nodes (its
inputs were dropped too, and theirs) is kept outside the budget, as one of the
``CHECKPOINTS`` most recently used checkpoints (``checkpoint``); the checkpoint it
displaces goes back to the budget as its least recently used value. Without them, when
every value is larger than the budget only the newest is held, and a residual network's
shortcut (``relu(f(x) + x)``, ``x`` read again three layers later) recomputed ``x`` from
the network's inputs through every block before it: a quadratic build (ResNet-50 at
224x224, every layer built and read, ran 5,301 nodes for its 1,079). With them a
recomputation walks back to the previous checkpoint at most: a chain of blocks whose
nodes read values of their own block or the block before (residual, Inception) builds in
linear time, each node recomputed a bounded number of times (ResNet-50: 1,640 runs).
No rule this small bounds every read order: a node reading values from far back, in
turn, still walks back to the nearest value held.
Memory held: the budget (or the newest node's outputs, when larger) plus the
``CHECKPOINTS`` checkpoint values.
"""

from __future__ import annotations

import collections
import sys
import weakref
from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.config import config

__all__ = ["MB", "LARGE_BYTES", "CHECKPOINTS", "CHECKPOINT_AFTER", "tracked_bytes", "kept",
           "checkpoints", "keep", "touch", "checkpoint", "roots_used", "is_dropped",
           "copy_dropped", "into_spare"]

MB = 1 << 20
#: Values at least this large always count against the budget.
LARGE_BYTES = MB
#: How many recomputed values are kept as checkpoints, outside the budget. Two are the
#: fewest for ResNet's projection blocks (the sum's two branches both start at ``x``);
#: four let an Inception block's branches each keep theirs with ``x``.
CHECKPOINTS = 4
#: A recomputation that ran more nodes than this keeps its value as a checkpoint; one
#: that ran fewer was cheap, and would be as cheap again.
CHECKPOINT_AFTER = 4


def tracked_bytes() -> float:
    """The size from which a computed value counts against the budget."""
    return min(LARGE_BYTES, config.test_value_memory_mb * MB)


#: The values counted, least recently used first: id(var) -> (weak reference to var,
#: bytes, the node's root input values it was computed from).
kept: "collections.OrderedDict[int, tuple]" = collections.OrderedDict()
_kept_bytes = 0
#: The checkpoints (entries as in ``kept``), least recently used first.
checkpoints: "collections.OrderedDict[int, tuple]" = collections.OrderedDict()
#: The variables whose value was dropped -> the node's root input values (as above).
_dropped: "weakref.WeakKeyDictionary[Variable, list]" = weakref.WeakKeyDictionary()


def keep(var: Variable, value: np.ndarray, node: Apply, inputs: Sequence[np.ndarray]) -> None:
    """Count ``var``'s new test value ``value`` (computed by ``node`` from ``inputs``)
    against the budget, as the most recently used, dropping the least recently used
    values beyond the budget (never the newest)."""
    global _kept_bytes
    recipe = _dropped.pop(var, None)
    if recipe is None:
        recipe = [v if i.owner is None else None for i, v in zip(node.inputs, inputs)]
    _forget(id(var))
    key = id(var)
    kept[key] = (weakref.ref(var, lambda ref: _forget(key, ref)), value.nbytes, recipe)
    _kept_bytes += value.nbytes
    _shrink()


def _shrink() -> None:
    """Drop the least recently used values beyond the budget (never the newest)."""
    budget = config.test_value_memory_mb * MB
    while _kept_bytes > budget and len(kept) > 1:
        _drop_oldest()


def checkpoint(var: Variable, value: np.ndarray) -> None:
    """Keep ``var``'s value ``value``, just recomputed (after a long walk), as the most
    recently used checkpoint, outside the budget; the least recently used checkpoint
    beyond ``CHECKPOINTS`` goes back to the budget, as its least recently used value."""
    global _kept_bytes
    key = id(var)
    entry = kept.pop(key, None)
    if entry is not None:
        _kept_bytes -= entry[1]
    else:
        recipe = _dropped.pop(var, None)
        if recipe is None:  # not counted (small), or a checkpoint already
            if key in checkpoints:
                checkpoints.move_to_end(key)
            return
        var._test_value = value  # dropped again at once: its node's outputs exceed the budget
        entry = (weakref.ref(var, lambda ref: _forget(key, ref)), value.nbytes, recipe)
    checkpoints[key] = entry
    if len(checkpoints) > CHECKPOINTS:
        old_key, old_entry = checkpoints.popitem(last=False)
        kept[old_key] = old_entry
        kept.move_to_end(old_key, last=False)
        _kept_bytes += old_entry[1]
        _shrink()


def _forget(key: int, ref: "weakref.ref | None" = None) -> None:
    """Stop counting the value of the variable ``id == key`` (only the entry of ``ref``
    when given: a freed variable's id may be reused by a new one)."""
    global _kept_bytes
    entry = kept.get(key)
    if entry is not None and (ref is None or entry[0] is ref):
        del kept[key]
        _kept_bytes -= entry[1]
    entry = checkpoints.get(key)
    if entry is not None and (ref is None or entry[0] is ref):
        del checkpoints[key]


def _drop_oldest() -> None:
    global _kept_bytes
    _, (ref, nbytes, recipe) = kept.popitem(last=False)
    _kept_bytes -= nbytes
    var = ref()
    if var is None or var._test_value is None:
        return
    value, var._test_value = var._test_value, None
    _dropped[var] = recipe
    _keep_spare(value)


def touch(inputs: Sequence[Variable], values: Sequence[np.ndarray]) -> None:
    """Mark the counted values among ``inputs`` (checkpoints included) as just used
    (read by a node)."""
    floor = tracked_bytes()
    for var, value in zip(inputs, values):
        if getattr(value, "nbytes", 0) >= floor:  # a sparse value has none: not kept
            key = id(var)
            if key in kept:
                kept.move_to_end(key)
            elif key in checkpoints:
                checkpoints.move_to_end(key)


def is_dropped(var: Variable) -> bool:
    """Whether ``var``'s test value was dropped to save memory (and is recomputed when read)."""
    return var in _dropped


def copy_dropped(source: Variable, copy: Variable) -> None:
    """``copy`` (an output of a copy of ``source``'s node, on the same or copied inputs)
    recomputes, when read, the value ``source`` dropped, from the same root values."""
    recipe = _dropped.get(source)
    if recipe is not None:
        _dropped[copy] = recipe


def roots_used(node: Apply) -> list | None:
    """The values ``node``'s root inputs had when it computed an output that was since
    dropped (None at a position of a computed input); None when no output of ``node``
    was dropped (it never ran, or its outputs are all held)."""
    for var in node.outputs:
        recipe = _dropped.get(var)
        if recipe is not None:
            return recipe
    return None


# -- reusing the memory of dropped values -----------------------------------------------
# A dropped value's buffer, freed, goes back to the system, and the next value of that
# size is faulted in page by page: a 40-node chain over 1000x1000 values took twice the
# time NumPy takes eagerly (measured). So a dropped value nobody else holds is kept as a
# spare, and the next node whose output has its dtype and shape, of an op that can
# compute into a given array (``perform_into``), is computed into it.

_spares: list[np.ndarray] = []
_MAX_SPARES = 2


def _keep_spare(value: np.ndarray) -> None:
    # Held by _drop_oldest's name, this argument and getrefcount's own only: a value the
    # user (or a view of it, or any other object: an evaluation's values) still holds is
    # never written over.
    if len(_spares) < _MAX_SPARES and value.flags.owndata and value.flags.writeable \
            and value.flags.c_contiguous and sys.getrefcount(value) <= 3:
        _spares.append(value)


def into_spare(node: Apply, values: list[np.ndarray]) -> list[np.ndarray] | None:
    """``node``'s outputs computed into a spare buffer; None when none fits (or the op
    cannot), and the caller computes them as usual (errors included)."""
    perform_into = getattr(node.op, "perform_into", None)
    if not _spares or perform_into is None or len(node.outputs) != 1:
        return None
    dtype = node.outputs[0].type.numpy_dtype
    try:
        shape = np.broadcast_shapes(*(v.shape for v in values))
    except ValueError:
        return None
    for i, spare in enumerate(_spares):
        if spare.shape == shape and spare.dtype == dtype:
            try:
                outputs = perform_into(node, values, spare)
            except Exception:
                return None
            if outputs is not None:
                del _spares[i]
            return outputs
    return None
