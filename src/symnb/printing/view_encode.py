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

__all__ = ["encode_view_model", "decode_view_model", "BUDGET_BYTES"]

BUDGET_BYTES = 2_000_000
_DETAILS = ("summary", "code")  # what a node's card shows beyond its box


def _encoded(model: dict) -> str:
    text = json.dumps(model, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)).decode("ascii")


def decode_view_model(encoded: str) -> dict:
    """The model :func:`encode_view_model` encoded (what the page reads back)."""
    return json.loads(gzip.decompress(base64.b64decode(encoded)).decode("utf-8"))


def encode_view_model(model: dict, budget_bytes: int = BUDGET_BYTES) -> str:
    """``model`` as gzip + base64 text of at most ``budget_bytes`` characters: when the
    whole model is larger, the details of the deepest groups' nodes are left out first
    (then every node's, then overlays), each omission named in ``not_saved``. Raises
    ValueError when even the nodes, edges and groups alone do not fit."""
    encoded = _encoded(model)
    if len(encoded) <= budget_bytes:
        return encoded
    depth = _depths(model)
    deepest = max(depth.values(), default=0)
    for cut, what in _omissions(deepest):
        trimmed = _trimmed(model, depth, cut, what)
        encoded = _encoded(trimmed)
        if len(encoded) <= budget_bytes:
            return encoded
    raise ValueError(f"the graph's model does not fit in {budget_bytes:,} bytes even without its "
                     f"nodes' details and overlays ({len(encoded):,} bytes): raise budget_bytes")


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
