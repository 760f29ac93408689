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


def _json(model: Any) -> bytes:
    return json.dumps(model, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _encoded(model: Any, text: bytes | None = None) -> str:
    text = _json(model) if text is None else text
    return base64.b64encode(gzip.compress(text, compresslevel=6, mtime=0)).decode("ascii")


def _base64_length(size: int) -> int:
    return 4 * ((size + 2) // 3)


def decode_view_model(encoded: str) -> dict:
    """The model :func:`encode_view_model` encoded (what the page reads back)."""
    return json.loads(gzip.decompress(base64.b64decode(encoded)).decode("utf-8"))


def encode_view_model(model: dict, budget_bytes: int = BUDGET_BYTES) -> str:
    """``model`` as gzip + base64 text of at most ``budget_bytes`` characters: when the
    whole model is larger, the details of the deepest groups' nodes are left out first
    (then every node's, then overlays), each omission named in ``not_saved``. Raises
    ValueError when even the nodes, edges and groups alone do not fit."""
    text = _json(model)
    # The fastest compression is (in practice) a bound on the thorough one's size: a
    # model it fits is saved whole without measuring its parts.
    if _base64_length(len(gzip.compress(text, compresslevel=1, mtime=0))) <= budget_bytes:
        encoded = _encoded(model, text)
        if len(encoded) <= budget_bytes:
            return encoded
    depth = _depths(model)
    steps = [(-1, "nothing")] + _omissions(max(depth.values(), default=0))
    # Each part's size is measured apart once (the parts compress no worse together), so
    # the model is encoded whole only for the step the estimate picks, and the next ones.
    first = _first_fitting(model, depth, steps, budget_bytes)
    encoded = ""
    for index in range(first, len(steps)):
        encoded = _encoded(_trimmed(model, depth, *steps[index]))
        if len(encoded) <= budget_bytes:
            # The estimate errs on the safe side: one step less left out may fit too.
            while index > 0:
                fuller = _encoded(_trimmed(model, depth, *steps[index - 1]))
                if len(fuller) > budget_bytes:
                    break
                encoded, index = fuller, index - 1
            return encoded
    raise ValueError(f"the graph's model does not fit in {budget_bytes:,} bytes even without its "
                     f"nodes' details and overlays ({len(encoded):,} bytes): raise budget_bytes")


def _first_fitting(model: dict, depth: dict[str, int], steps: list, budget: int) -> int:
    """The first omission step whose estimated size fits ``budget``."""
    skeleton = len(_encoded(_trimmed(model, depth, 0, "overlays")))
    details: dict[int, list] = {}
    numbers: dict[int, list] = {}
    for node in model["nodes"]:
        details.setdefault(depth[node["id"]], []).append([node.get(k) for k in _DETAILS])
    for key, overlay in model.get("overlays", {}).items():
        for node_id, value in overlay["values"].items():
            numbers.setdefault(depth.get(node_id, 0), []).append([key, node_id, value])
    detail_size = {d: len(_encoded(part)) for d, part in details.items()}
    number_size = {d: len(_encoded(part)) for d, part in numbers.items()}
    for index, (cut, what) in enumerate(steps):
        kept = sum(size for d, size in number_size.items() if what != "overlays" or d < cut)
        if what == "nothing":
            kept += sum(detail_size.values())
        elif what == "details":
            kept += sum(size for d, size in detail_size.items() if d < cut)
        if skeleton + kept <= budget:
            return index
    return len(steps) - 1


def _omissions(deepest: int) -> list[tuple[int, str]]:
    """``(depth, what)`` in the order tried: ``what`` of the nodes at least ``depth``
    groups deep is left out (details, then overlays), deepest first."""
    steps = [(d, "details") for d in range(deepest, 0, -1)] + [(0, "details")]
    steps += [(d, "overlays") for d in range(deepest, 0, -1)] + [(0, "overlays")]
    return steps


def _depths(model: dict) -> dict[str, int]:
    """Each node's depth: how many groups hold it (0 at the top level)."""
    parent = {g["id"]: g["parent"] for g in model["groups"]}
    group_depth: dict = {None: 0}

    def depth_of(group_id):
        if group_id not in group_depth:
            group_depth[group_id] = depth_of(parent.get(group_id)) + 1
        return group_depth[group_id]

    return {node["id"]: depth_of(node["group"]) for node in model["nodes"]}


def _trimmed(model: dict, depth: dict[str, int], cut: int, what: str) -> dict:
    if what == "nothing":
        return model
    trimmed = dict(model)
    dropped_details = cut if what == "details" else 0
    nodes = []
    left_out = 0
    for node in model["nodes"]:
        if depth[node["id"]] >= dropped_details and any(node.get(k) is not None for k in _DETAILS):
            node = {**node, **{k: None for k in _DETAILS}}
            left_out += 1
        nodes.append(node)
    trimmed["nodes"] = nodes
    not_saved = list(model.get("not_saved", []))
    not_saved.append(_details_note(dropped_details, left_out))
    if what == "overlays":
        overlays = {}
        dropped = 0
        for key, overlay in model.get("overlays", {}).items():
            values = {k: v for k, v in overlay["values"].items() if k in depth and depth[k] < cut
                      or k not in depth and cut > 0}
            dropped += len(overlay["values"]) - len(values)
            overlays[key] = {**overlay, "values": values}
        trimmed["overlays"] = overlays
        where = f"nodes {cut} or more groups deep" if cut else "every node"
        not_saved.append(f"overlay numbers of the {where} ({dropped:,} numbers)")
    trimmed["not_saved"] = not_saved
    return trimmed


def _details_note(cut: int, count: int) -> str:
    where = f"nodes {cut} or more groups deep" if cut else "every node"
    return f"source lines and value summaries of the {where} ({count:,} nodes)"
