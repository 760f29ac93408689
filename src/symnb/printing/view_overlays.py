"""The viewer's overlays: a number per node, chosen from a menu, that colours the boxes
(:func:`overlays`, read by :mod:`symnb.printing.view_model`).

- ``nan_count``, ``inf_count``, ``max_abs``, ``mean``, ``std`` of each node's value
  (its first output's): a failed call's (``err.call_values``) when the model is of a
  failed call, else the test values already computed (none is computed here);
- ``bytes``: the node's outputs' size, from their concrete shapes;
- ``grad_norm``: on a parameter's node (a shared variable), the norm of its gradient's
  test value, for the gradients ``sn.grad`` made in the graph (:func:`gradients_of`);
- ``time_share``: each node's share of the call in the last profile. A fused XLA
  operation is one unit: a node whose time the profile split among the nodes fused
  with it gets no share of its own; the fused operation's time goes to the innermost
  group holding all its nodes (a group's id as the key), or, when they share no group,
  is named in the overlay's ``note``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Apply

__all__ = ["overlays", "values_source", "value_numbers"]

_STATS = (("nan_count", "NaN count", ""), ("inf_count", "Inf count", ""),
          ("max_abs", "max |value|", ""), ("mean", "mean", ""), ("std", "std", ""))


def values_source(call_values: Any) -> str:
    """Where the values' overlays come from, as the legend says it."""
    if call_values is not None:
        return "the failed call's values (err.call_values)"
    return "test values"


def value_numbers(value: Any) -> dict[str, float] | None:
    """NaN and Inf counts, max |value|, mean and std (over the finite elements) of a
    numeric value; None for a value that has none (empty, not numeric)."""
    if value is None:
        return None
    array = np.asarray(value)
    if array.size == 0 or array.dtype.kind not in "biuf":
        return None
    numbers = array.astype(np.float64, copy=False)
    if array.dtype.kind == "f":
        finite_mask = np.isfinite(numbers)
        nan = int(np.isnan(numbers).sum())
        inf = int(array.size - nan - finite_mask.sum())
        finite = numbers[finite_mask] if nan or inf else numbers.ravel()
    else:
        nan = inf = 0
        finite = numbers.ravel()
    result = {"nan_count": nan, "inf_count": inf}
    if finite.size:
        result.update(max_abs=float(np.abs(finite).max()), mean=float(finite.mean()),
                      std=float(finite.std()))
    return result


def overlays(builder: Any, source: str) -> dict[str, dict]:
    """Every overlay of the model ``builder`` (a ``view_model`` builder) is making."""
    found: dict[str, dict] = {key: {"label": text, "source": source, "unit": unit, "values": {}}
                              for key, text, unit in _STATS}
    sizes: dict[str, float] = {}
    cache: dict[int, dict | None] = {}
    for node_id, obj in builder.node_objects:
        var = obj.outputs[0] if isinstance(obj, Apply) else obj
        numbers = cache.get(id(var), False)
        if numbers is False:
            numbers = cache[id(var)] = value_numbers(builder.value(var))
        for key, number in (numbers or {}).items():
            found[key]["values"][node_id] = number
        size = _bytes(builder, obj)
        if size is not None:
            sizes[node_id] = size
    found["bytes"] = {"label": "bytes", "source": "concrete shapes", "unit": "B", "values": sizes}
    return {key: overlay for key, overlay in found.items() if overlay["values"]}


def _bytes(builder: Any, obj: Any) -> float | None:
    outputs = obj.outputs if isinstance(obj, Apply) else [obj]
    total = 0
    for var in outputs:
        shape = builder.picture.shapes.shape(var)
        try:
            itemsize = np.dtype(var.dtype).itemsize
        except TypeError:
            return None
        if shape is None or any(d is None for d in shape):
            return None
        total += int(np.prod(shape, dtype=np.int64)) * itemsize
    return float(total)
