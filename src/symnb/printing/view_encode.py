"""The viewer's model as a notebook saves it: :func:`encode_view_model`, gzip then
base64 (the page decodes it with ``DecompressionStream``), within a byte budget.

What lies past the budget is left out, the least needed first, and named in the
model's ``not_saved`` (the viewer fetches it from the kernel while one lives, and says
it was not saved when none does): the source lines and value summaries of the nodes
in the deepest groups first, then everyone's, then the overlays' numbers of the
deepest groups' nodes, then every overlay.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

__all__ = ["encode_view_model", "decode_view_model", "BUDGET_BYTES"]

BUDGET_BYTES = 2_000_000
_DETAILS = ("summary", "code")  # what a node's card shows beyond its box
_STATISTICS = ("mean", "std", "max_abs")  # overlays left out before the others


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _compressed(text: str) -> str:
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")


def _quick_length(text: str) -> int:
    """The saved length at gzip's fastest level: a few times faster to learn, and (in
    practice) never shorter than the saved text's own."""
    size = len(gzip.compress(text.encode("utf-8"), compresslevel=1, mtime=0))
    return 4 * ((size + 2) // 3)


def decode_view_model(encoded: str) -> dict:
    """The model :func:`encode_view_model` encoded (what the page reads back)."""
    return json.loads(gzip.decompress(base64.b64decode(encoded)).decode("utf-8"))


def encode_view_model(model: dict, budget_bytes: int = BUDGET_BYTES) -> str:
    """``model`` as gzip + base64 text of at most ``budget_bytes`` characters: when the
    whole model is larger, the details of the deepest groups' nodes are left out first
    (then every node's, then overlays), each omission named in ``not_saved``. Raises
    ValueError when even the nodes, edges and groups alone do not fit."""
    pieces = _Pieces(model)
    if _quick_length(pieces.text(_WHOLE)) <= budget_bytes:
        encoded = _compressed(_json(model))  # as it is, its nodes in their order
        if len(encoded) <= budget_bytes:
            return encoded
    steps = _omissions(pieces.deepest)
    # Leaving more out never makes the saved text longer: the first step that fits (at
    # the fastest level) is found by halving, a few quick compressions of a 50,000-node
    # model, not one per step; the thorough level then may fit a step less left out.
    low, high, first = 0, len(steps) - 1, len(steps)
    while low <= high:
        middle = (low + high) // 2
        if _quick_length(pieces.text(steps[middle])) <= budget_bytes:
            first, high = middle, middle - 1
        else:
            low = middle + 1
    index = min(first, len(steps) - 1)
    found = _compressed(pieces.text(steps[index]))
    while len(found) > budget_bytes:  # the quick estimate erred (unlikely): leave out more
        if index == len(steps) - 1:
            raise ValueError(f"the graph's model does not fit in {budget_bytes:,} bytes even without "
                             f"its nodes' details and overlays ({len(found):,} bytes): raise budget_bytes")
        index += 1
        found = _compressed(pieces.text(steps[index]))
    while index > 0:  # the thorough level may fit a step less left out
        fuller = _compressed(pieces.text(steps[index - 1]))
        if len(fuller) > budget_bytes:
            break
        found, index = fuller, index - 1
    return found


_WHOLE = (0, "nothing")  # the first step: nothing left out


def _omissions(deepest: int) -> list[tuple[int, str]]:
    """``(depth, what)`` in the order tried: ``what`` of the nodes at least ``depth``
    groups deep is left out, deepest first: details, then the statistics overlays
    (``_STATISTICS``: many digits, they compress least), then every overlay (the NaN and
    Inf counts, bytes, gradient norms and times last)."""
    return [(d, what) for what in ("details", "statistics", "overlays") for d in range(deepest, -1, -1)]


def _depths(model: dict) -> dict[str, int]:
    """Each node's depth: how many groups hold it (0 at the top level)."""
    parent = {g["id"]: g["parent"] for g in model["groups"]}
    group_depth: dict = {None: 0}

    def depth_of(group_id):
        if group_id not in group_depth:
            group_depth[group_id] = depth_of(parent.get(group_id)) + 1
        return group_depth[group_id]

    return {node["id"]: depth_of(node["group"]) for node in model["nodes"]}


class _Pieces:
    """The model's JSON text cut into pieces written once, a piece per depth (the nodes
    that deep with and without their details; each overlay's numbers of those nodes),
    from which the text of any omission step is joined: a 50,000-node model is
    serialized a few times in whole lists, not once per step tried nor once per node.
    The nodes of a text so joined are listed by depth."""

    def __init__(self, model: dict) -> None:
        self.model = model
        depth = _depths(model)
        self.deepest = max(depth.values(), default=0)
        self.keys = list(model) + [k for k in ("not_saved",) if k not in model]
        self.fixed = {key: _json(value) for key, value in model.items()
                      if key not in ("nodes", "overlays", "not_saved")}
        by_depth: dict[int, list] = {}
        for node in model["nodes"]:
            by_depth.setdefault(depth[node["id"]], []).append(node)
        self.depths = sorted(by_depth)
        self._by_depth = by_depth
        self._texts: dict[tuple, str] = {}  # (depth, with details?) -> those nodes' text
        self.detailed = {d: sum(1 for n in nodes if any(n.get(k) is not None for k in _DETAILS))
                         for d, nodes in by_depth.items()}
        self.overlays = []  # (key, the overlay's text before its values, {depth: (count, text)})
        for key, overlay in model.get("overlays", {}).items():
            head = _json({k: v for k, v in overlay.items() if k != "values"})
            values: dict[int, dict] = {}
            for node_id, value in overlay["values"].items():
                values.setdefault(depth.get(node_id, 0), {})[node_id] = value
            self.overlays.append((key, head, {d: (len(v), _json(v)[1:-1]) for d, v in values.items()}))

    def _nodes_text(self, depth: int, details: bool) -> str:
        """The nodes ``depth`` groups deep, with or without their details, written once."""
        key = (depth, details)
        if key not in self._texts:
            nodes = self._by_depth[depth]
            if not details:
                nodes = [{**n, **{k: None for k in _DETAILS}} for n in nodes]
            self._texts[key] = _json(nodes)[1:-1]
        return self._texts[key]

    def text(self, step: tuple[int, str]) -> str:
        cut, what = step
        nothing = self.deepest + 1
        details_from = {"details": cut, "statistics": 0, "overlays": 0}.get(what, nothing)
        statistics_from = {"statistics": cut, "overlays": 0}.get(what, nothing)
        numbers_from = cut if what == "overlays" else nothing
        not_saved = list(self.model.get("not_saved", []))
        nodes = [self._nodes_text(d, d < details_from) for d in self.depths]
        left_out = sum(self.detailed[d] for d in self.depths if d >= details_from)
        if left_out:
            not_saved.append(f"source lines and value summaries of {_where(details_from)} ({left_out:,} nodes)")
        overlays, dropped = [], {True: 0, False: 0}  # statistics?, numbers left out
        for key, head, values in self.overlays:
            statistic = key in _STATISTICS
            start = statistics_from if statistic else numbers_from
            kept = [text for d, (_, text) in sorted(values.items()) if d < start and text]
            dropped[statistic] += sum(count for d, (count, _) in values.items() if d >= start)
            separator = "," if head != "{}" else ""
            overlays.append(f'{_json(key)}:{head[:-1]}{separator}"values":{{{",".join(kept)}}}}}')
        if dropped[True]:
            not_saved.append(f"overlay numbers mean, std and max |value| of {_where(statistics_from)} "
                             f"({dropped[True]:,} numbers)")
        if dropped[False]:
            not_saved.append(f"the other overlay numbers of {_where(numbers_from)} ({dropped[False]:,} numbers)")
        parts = []
        for key in self.keys:
            if key == "nodes":
                value = "[" + ",".join(text for text in nodes if text) + "]"
            elif key == "overlays":
                value = "{" + ",".join(overlays) + "}"
            elif key == "not_saved":
                value = _json(not_saved)
            else:
                value = self.fixed[key]
            parts.append(f"{_json(key)}:{value}")
        return "{" + ",".join(parts) + "}"


def _where(cut: int) -> str:
    return f"the nodes {cut} or more groups deep" if cut else "every node"
