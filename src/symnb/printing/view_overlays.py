"""The viewer's overlays: a number per node, chosen from a menu, that colours the boxes
(:func:`overlays`, read by :mod:`symnb.printing.view_model`).

- ``nan_count``, ``inf_count``, ``max_abs``, ``mean``, ``std`` (three significant
  digits) of each node's value (its first output's): a failed call's (``err.call_values``) when the model is of a
  failed call, else the test values already computed (none is computed here); not of
  the integer shape bookkeeping (:func:`shape_bookkeeping`);
- ``bytes``: the node's outputs' size, from their concrete shapes;
- ``grad_norm``: on a parameter's node (a shared variable), the norm of its gradient's
  test value, for the gradients ``sn.grad`` made in the graph (:func:`gradients_of`);
- ``time_share``: each node's share of the call in the last profile. A fused XLA
  operation is one unit: its members get no share of their own; its time goes to the
  innermost group holding all its nodes (a group's id as the key), or, when they share
  no group, is named in the overlay's ``note``. The time outside the XLA program is the
  overlay's ``outside`` (a fraction of the call, as the values), XLA's unnamed work its
  ``unnamed``: the values and these add up to the call. ``fused`` lists every fused
  operation (XLA's name, its share, its members' node ids, the group given its time).
"""

from __future__ import annotations

import math
from typing import Mapping, Any

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.tensor.shared import SharedVariable
from symnb.printing.node_facts import value_of

__all__ = ["overlays", "values_source"]

_STATS = (("nan_count", "NaN count", ""), ("inf_count", "Inf count", ""),
          ("max_abs", "max |value|", ""), ("mean", "mean", ""), ("std", "std", ""))


def values_source(call_values: Any) -> str:
    """Where the values' overlays come from, as the legend says it."""
    if call_values is not None:
        return "the failed call's values (err.call_values)"
    return "test values"


def overlays(builder: Any, source: str) -> dict[str, dict]:
    """Every overlay of the model ``builder`` (a ``view_model`` builder) is making."""
    found: dict[str, dict] = {key: {"label": text, "source": source, "unit": unit, "values": {}}
                              for key, text, unit in _STATS}
    sizes: dict[str, float] = {}
    itemsizes: dict[str, int] = {}
    bookkeeping = shape_bookkeeping(builder.order)
    for node_id, obj in builder.node_objects:
        var = obj.outputs[0] if isinstance(obj, Apply) else obj
        # A shape's length (64) is no value of the model: it would set max |value|'s scale.
        numbers = (builder.numbers[id(var)][1] or {}) if id(var) not in bookkeeping else {}
        for key, overlay in found.items():
            if key in numbers:
                overlay["values"][node_id] = _rounded(numbers[key])
        size = _bytes(builder, obj, itemsizes)
        if size is not None:
            sizes[node_id] = size
    found["bytes"] = {"label": "bytes", "source": "concrete shapes", "unit": "B", "values": sizes}
    found["grad_norm"] = {"label": "gradient norm", "unit": "",
                          "source": "test values of the gradients sn.grad made",
                          "values": _gradient_norms(builder)}
    found["time_share"] = _time_shares(builder)
    # A profile's time share is kept with no node value too: the call may be all outside
    # the program or in fused operations that share no group (its "outside", "fused").
    return {key: overlay for key, overlay in found.items() if overlay["values"] or "outside" in overlay}


def shape_bookkeeping(order: list[Apply]) -> set[int]:
    """``id`` of the integer variables that only count lengths: a shape, a length
    (``xs.shape[0]``), integer constants, and integer arithmetic on those alone
    (``n_steps``, an ``alloc``'s sizes). The values' overlays skip them (a length of 64
    is not a value of the model); the user's integer data (labels, indices) is kept."""
    found: set[int] = set()

    def counts(var: Variable) -> bool:
        if var.dtype[:3] not in ("int", "uin"):
            return False
        return id(var) in found or (var.owner is None and isinstance(var, Constant))

    for node in order:
        if node.op.reads_shape_only or (node.inputs and all(counts(v) for v in node.inputs)):
            found.update(id(out) for out in node.outputs if out.dtype[:3] in ("int", "uin"))
    found.update(id(v) for node in order for v in node.inputs if v.owner is None and counts(v))
    return found


def _gradient_norms(builder: Any) -> dict[str, float]:
    """``{parameter's node id: the L2 norm of its gradient's test value}``, for the
    parameters (shared variables) of the graph whose gradient ``sn.grad`` made (its
    result records ``tag.gradient_of``): in the graph drawn, or, for a compiled function,
    in the graph it was compiled from (its outputs and updates as the user wrote them,
    where a rewrite may have fused the gradient away)."""
    candidates = [node.outputs for node in builder.order]
    original = _written_graph(builder.obj)
    candidates += [node.outputs for node in toposort(original)] if original else []
    norms: dict[str, float] = {}
    for outputs in candidates:
        for var in outputs:
            tag = var._tag
            param = getattr(tag, "gradient_of", None) if tag is not None else None
            if not isinstance(param, SharedVariable) or id(param) not in builder.ids:
                continue
            value = value_of(var)
            if value is not None and np.asarray(value).dtype.kind in "fiu":
                norm = float(np.sqrt(np.sum(np.square(np.asarray(value, dtype=np.float64)))))
                norms[builder.ids[id(param)]] = _rounded(norm)
    return norms


def _written_graph(obj: Any) -> list:
    """A compiled function's outputs and update expressions as ``sn.function`` was given
    them (before its rewrites), or []."""
    plan = getattr(obj, "plan", None)
    construction = getattr(plan, "construction", None)
    if not isinstance(construction, Mapping):
        return []
    outputs = construction.get("outputs")
    written = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    updates = construction.get("updates") or []
    pairs = updates.items() if isinstance(updates, dict) else updates
    written += [expression for _, expression in pairs]
    return [v for v in written if isinstance(v, Variable)]


def _time_shares(builder: Any) -> dict:
    """Each node's share of the call in the last profile (``times``, else a profiled
    function's ``f.profile.node_times()``). An XLA operation fused from several nodes is
    one unit: its time goes to the innermost group holding them all, keyed by the
    group's id, and its members have no share of their own (none was measured). The
    parts of the call no box shows are keys of the overlay: ``outside`` (the time
    outside the XLA program) and ``unnamed`` (XLA work no node names), so that the
    values and these add up to the whole call."""
    overlay: dict[str, Any] = {"label": "time share", "unit": "", "source": "", "values": {}}
    times, total = builder.times, builder.time_total
    if times is None:
        profile = getattr(builder.obj, "profile", None)
        times = profile.node_times() if profile is not None and hasattr(profile, "node_times") else None
        if not times:
            return overlay
    source = getattr(times, "source", "")
    overlay["source"] = f"the last profile ({source})" if source else "the times given"
    fused = getattr(times, "fused", ())
    whole = total or getattr(times, "call_seconds", None) or \
        sum(times.values()) + sum(unit.seconds for unit in fused)
    if not whole:
        return overlay
    units: dict[str, float] = {}
    spanning = 0.0
    listed = []
    for unit in fused:
        group = builder.groups.common_ancestor([builder.groups.group_of(n) for n in unit.members])
        if group is None:
            spanning += unit.seconds
        else:
            units[group.id] = units.get(group.id, 0.0) + unit.seconds
        listed.append({"name": unit.name, "share": _rounded(unit.seconds / whole),
                       "members": [builder.ids[id(n)] for n in unit.members if id(n) in builder.ids],
                       "group": group.id if group is not None else None})
    if listed:
        overlay["fused"] = listed
    members = {id(node) for unit in fused for node in unit.members}
    own = {id(node): float(s) for node, s in times.items()}
    values = overlay["values"]
    for node_id, obj in builder.node_objects:
        seconds = own.get(id(obj))
        if seconds is None or (id(obj) in members and seconds <= whole * 1e-9):
            continue  # untimed, or a fused operation's member with no time of its own
        values[node_id] = _rounded(max(seconds, 0.0) / whole)
    values.update((group_id, _rounded(seconds / whole)) for group_id, seconds in units.items())
    if getattr(times, "call_seconds", None) is not None:
        overlay["outside"] = _rounded(times.outside / whole)
        if times.unnamed > 0:
            overlay["unnamed"] = _rounded(times.unnamed / whole)
    if spanning:
        overlay["note"] = (f"{100 * spanning / whole:.3g}% of the call ran in fused XLA operations "
                           "whose nodes share no group: shown on no box")
    return overlay


def _rounded(number: float) -> float | int:
    """A colour's number: three significant digits (the saved model stays small; the
    node's card shows the value's own summary)."""
    if number == 0:
        return number + 0  # -0.0 (max |value| of zeros, as -min) reads as 0
    if isinstance(number, int) or not math.isfinite(number):
        return number
    return float(f"{number:.3g}")


def _bytes(builder: Any, obj: Any, itemsizes: dict[str, int]) -> float | None:
    """The bytes of ``obj``'s outputs (a root's value), from their concrete shapes; None
    when a shape is not known."""
    outputs = obj.outputs if isinstance(obj, Apply) else [obj]
    total = 0
    for var in outputs:
        shape = builder.shapes.shape(var)
        dtype = var.dtype
        if dtype not in itemsizes:
            try:
                itemsizes[dtype] = np.dtype(dtype).itemsize
            except TypeError:  # not an array type (a random state, a list)
                itemsizes[dtype] = 0
        if shape is None or not itemsizes[dtype] or any(d is None for d in shape):
            return None
        total += math.prod(shape) * itemsizes[dtype]
    return float(total)
