"""The static overview of a view model (VIEWER_FORMAT.md): its collapsed top level as an
SVG that fits a notebook cell, for where the saved viewer cannot run (an untrusted
notebook, GitHub, a page without JavaScript).

One column per region (the forward data path, the gradient, the updates), each box a
top-level group (``layer() x12``, ``grad(loss)``) or node, in data-flow order, with an
arrow where a box feeds the next one in its column. Parameters and constants that feed
one group of their region only are drawn inside it, and the function's inputs are boxes of
their own at the top of the spine, as the viewer draws them (``SN.boxMap`` in
static/viewer_model.js). Text is
12 px (11 px for the second line) at the picture's natural width, which is the cell's.
"""

from __future__ import annotations

import html
from typing import Any

from symnb.core.graph.type import describe_shape

__all__ = ["overview_svg"]

_REGIONS = ("forward", "gradient", "updates")
_FILL = {"forward": "#eef3fb", "gradient": "#fdecea", "updates": "#fff4e0"}
_STROKE = {"forward": "#4a6fa5", "gradient": "#b3261e", "updates": "#9a6700"}
_LEAVES = {"shared", "constant"}  # drawn inside the one group using them (the viewer's LEAVES)
_CHAR = 7.3  # the monospace font's advance at 12 px
_BOX_H, _GAP, _TOP = 40, 26, 26


def overview_svg(model: dict[str, Any], width: int = 860) -> str:
    """The collapsed top level of ``model`` as an ``<svg>`` ``width`` pixels wide."""
    boxes, feeds = _top_level(model)
    columns = [[b for b in boxes if b["region"] == r] for r in _REGIONS]
    columns += [[b for b in boxes if b["region"] not in _REGIONS]]
    names = [r for r, c in zip(_REGIONS + ("other",), columns) if c]
    columns = [c for c in columns if c]
    column_w = width / max(len(columns), 1)
    box_w = column_w - 24
    height = _TOP + max((len(c) for c in columns), default=0) * (_BOX_H + _GAP) + 4
    parts = []
    for i, (name, column) in enumerate(zip(names, columns)):
        x = i * column_w + 12
        parts.append(f'<text x="{x:.1f}" y="14" font-size="11" fill="#777">{name}</text>')
        for k, box in enumerate(column):
            y = _TOP + k * (_BOX_H + _GAP)
            if k and (column[k - 1]["id"], box["id"]) in feeds:
                parts.append(f'<path d="M{x + box_w / 2:.1f},{y - _GAP + 1}V{y - 2}" stroke="#8a94a6" '
                             'stroke-width="1.3" marker-end="url(#symnb-overview-arrow)"/>')
            parts.append(_box(box, x, y, box_w))
    return (f'<svg class="symnb-graph symnb-overview-svg" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {width} {height:.0f}" width="{width}" height="{height:.0f}" '
            'style="font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px">'
            '<defs><marker id="symnb-overview-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="#8a94a6"/>'
            f'</marker></defs>{"".join(parts)}</svg>')


def _box(box: dict, x: float, y: float, w: float) -> str:
    chars = max(int((w - 14) / _CHAR), 6)
    fill, stroke = _FILL.get(box["region"], "#f4f4f4"), _STROKE.get(box["region"], "#666")
    if box["failing"]:
        stroke = "#d00000"
    return (f'<g class="symnb-node"><rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{_BOX_H}" rx="5" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{2 if box["failing"] else 1.2}"/>'
            f'<text x="{x + 7:.1f}" y="{y + 16}" font-weight="bold">{_clip(box["title"], chars)}</text>'
            f'<text x="{x + 7:.1f}" y="{y + 32}" font-size="11" fill="#555">{_clip(box["sub"], chars)}</text></g>')


def _clip(text: str, chars: int) -> str:
    text = text if len(text) <= chars else text[:chars - 1] + "\u2026"
    return html.escape(text, quote=False)  # names reach the picture as text


def _top_level(model: dict) -> tuple[list[dict], set[tuple[str, str]]]:
    """The top-level boxes (in data-flow order) and the pairs of boxes an edge joins."""
    groups = {g["id"]: g for g in model.get("groups", [])}
    nodes = {n["id"]: n for n in model.get("nodes", [])}

    def top_group(group_id: str | None) -> str | None:
        seen = 0
        while group_id in groups and groups[group_id].get("parent") in groups and seen < 10_000:
            group_id, seen = groups[group_id]["parent"], seen + 1
        return group_id if group_id in groups else None

    def top_box(nid: str) -> str:
        group = top_group(nodes[nid].get("group"))
        holder = groups[group].get("holder") if group is not None and groups[group].get("kind") == "inner" else None
        if holder in nodes and holder != nid:  # a top-level loop's body: drawn as the loop's box
            return top_box(holder)
        return group or nid

    top_of = {nid: top_box(nid) for nid in nodes}
    users: dict[str, set[str]] = {}
    for e in model.get("edges", []):
        if e["src"] in nodes and e["dst"] in nodes:
            users.setdefault(e["src"], set()).add(top_of[e["dst"]])
    def region(box: str) -> str:
        return (groups[box] if box in groups else nodes[box]).get("region") or "forward"

    for nid, n in nodes.items():  # a root feeding one group (of its own region) is drawn inside it
        every = users.get(nid, set()) - {nid}
        own = {u for u in every if region(u) == (n.get("region") or "forward")}
        mine = own or every
        if top_of[nid] == nid and n.get("kind") in _LEAVES and len(mine) == 1 and next(iter(mine)) in groups:
            top_of[nid] = next(iter(mine))
    order = _data_flow_order(model, nodes)
    members: dict[str, list[str]] = {}
    for nid, top in top_of.items():
        members.setdefault(top, []).append(nid)
    boxes = []
    for top, inside in members.items():
        computed = [order[n] for n in inside if nodes[n].get("kind") not in _LEAVES]
        place = min(computed) if computed else min(order[n] for n in inside)
        boxes.append({**_text(top, groups, nodes, len(inside)), "id": top, "place": place,
                      "failing": any(nodes[n].get("failing") for n in inside),
                      "region": (groups[top].get("region") if top in groups else nodes[top].get("region"))
                      or "forward"})
    boxes.sort(key=lambda b: b["place"])
    feeds = {(top_of[e["src"]], top_of[e["dst"]]) for e in model.get("edges", [])
             if e["src"] in nodes and e["dst"] in nodes}
    return boxes, feeds


def _text(box_id: str, groups: dict, nodes: dict, count: int) -> dict[str, str]:
    if box_id in groups:
        g = groups[box_id]
        calls = f"{g['series']['count']} calls \u00b7 " if g.get("series") else ""
        return {"title": str(g.get("label") or box_id), "sub": f"{calls}{count} node{'s' * (count != 1)}"}
    n = nodes[box_id]
    out = (n.get("outs") or [{}])[0]
    shape = out.get("shape")
    # Python's tuple notation, as every view writes shapes (describe_shape: (3,), (2, 4), ()).
    typ = f"{out.get('dtype', '')}" + ("" if shape is None else f" {describe_shape(shape)}")
    # The type first, as the viewer's boxes: a long op clipped at the width would cut it off.
    return {"title": str(n.get("label") or n.get("op") or box_id), "sub": f"{typ}  {n.get('op') or n.get('kind')}"}


def _data_flow_order(model: dict, nodes: dict) -> dict[str, int]:
    """Each node's place in data-flow order (Kahn's; ties in the model's order)."""
    waiting = {nid: 0 for nid in nodes}
    consumers: dict[str, list[str]] = {}
    for e in model.get("edges", []):
        if e["src"] in nodes and e["dst"] in nodes:
            waiting[e["dst"]] += 1
            consumers.setdefault(e["src"], []).append(e["dst"])
    ready = [nid for nid, count in waiting.items() if count == 0]
    order: dict[str, int] = {}
    for nid in ready:
        order[nid] = len(order)
        for dst in consumers.get(nid, []):
            waiting[dst] -= 1
            if waiting[dst] == 0:
                ready.append(dst)
    for nid in nodes:  # a cycle's rest, last
        order.setdefault(nid, len(order))
    return order
