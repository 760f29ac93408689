"""The viewer's overlays: a number per node, chosen from a menu, that colours the boxes
(:func:`overlays`, read by :mod:`symnb.printing.view_model`).

- ``nan_count``, ``inf_count``, ``max_abs``, ``mean``, ``std`` (three significant
  digits) of each node's value (its first output's): a failed call's (``err.call_values``) when the model is of a
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

import math
from typing import Any

import numpy as np

from symnb.core.graph.basic import Apply

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
    for node_id, obj in builder.node_objects:
        var = obj.outputs[0] if isinstance(obj, Apply) else obj
        numbers = builder.numbers[id(var)][1] or {}
        for key, overlay in found.items():
            if key in numbers:
                overlay["values"][node_id] = _rounded(numbers[key])
        size = _bytes(builder, obj, itemsizes)
        if size is not None:
            sizes[node_id] = size
    found["bytes"] = {"label": "bytes", "source": "concrete shapes", "unit": "B", "values": sizes}
    return {key: overlay for key, overlay in found.items() if overlay["values"]}


def _rounded(number: float) -> float | int:
    """A colour's number: three significant digits (the saved model stays small; the
    node's card shows the value's own summary)."""
    if isinstance(number, int) or number == 0 or not math.isfinite(number):
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
