"""A laid-out graph picture (``GraphPicture``) as SVG text: ``GraphExplorer.svg()``,
``graph_picture``, the rewrite stepper's two sides and a small graph's static overview
(the picture a saved explorer shows where no script runs: GitHub, an untrusted notebook).
The live and saved explorer's viewer draws the view model instead
(:mod:`symnb.printing.view_model`). Each node is a ``<g class="symnb-node" data-id=...>`` whose
``<title>`` (the tooltip) holds its op, type, test value summary and creation line.
A picture carrying times (a profile's) shades each timed node from white to red by its
heat (the costliest unit darkest), writes its share of the call after its op (inside its
box) and its time in its tooltip and ``data-seconds``; a colour scale above the picture
says what the colours and shares mean, and under it the parts of the call that are no
single box (each fused XLA operation, whose member nodes say ``in F1``, and the time
outside the program) are boxes of their own on the same scale: the shares drawn add up
to the whole call. A saved notebook keeps it all.
"""

from __future__ import annotations

import html
import urllib.parse
from typing import Any

from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.printing.graph_model import GraphPicture, PictureNode, creation_text, value_of
from symnb.printing.label_places import LABEL_FONT
from symnb.printing.labels import op_name
from symnb.printing.layout import Layout, layout
from symnb.printing.values import value_stats

__all__ = ["picture_svg", "graph_svg", "picture_img", "node_title", "time_fill", "FILL",
           "MONOSPACE", "CHANGE_STROKES", "CHANGE_FILLS"]

MONOSPACE = ("var(--jp-code-font-family, ui-monospace, SFMono-Regular, Menlo, Consolas, "
             "'DejaVu Sans Mono', monospace)")

FILL = {
    "elemwise": "#ffd9e1", "fused": "#ffc2d0", "reduce": "#d9e6ff", "blas": "#ffe3b8",
    "index": "#f1d9ff", "shape": "#d4f4f4", "control": "#fff4b0", "check": "#ececec",
    "other": "#ffffff", "input": "#c9f0c9", "shared": "#ffe38a", "constant": "#e4e4e4",
    "group": "#e8effa",
}
# A rewrite comparison's marks (Model Explorer's colours): removed nodes red and dashed,
# added ones green; unchanged nodes keep their family's fill.
CHANGE_STROKES = {"removed": ("#c62828", 2.4), "added": ("#2e7d32", 2.4)}
CHANGE_FILLS = {"removed": "#ffd7d5", "added": "#ccf5d3"}
# A node's fill at heat 0 and at heat 1: the hot end stays light enough for black text
# (contrast 7:1), since the node's own label sits on it.
_COOL, _HOT = (255, 245, 240), (244, 109, 67)
_LEGEND_HEIGHT = 34  # pixels above a timed picture for its colour scale
_UNIT_HEIGHT = 22  # and for each part of the call that is no single box
_GROUP_STROKE = "#4a6fa5"
_VALUES_IN_TOOLTIPS_UP_TO = 300  # nodes; larger pictures show values on a click only


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def node_title(node: PictureNode, with_value: bool = True) -> str:
    """The tooltip of a node: what it is, its type, its value, where it was built."""
    if node.kind == "group":
        return group_title(node)
    var = node.variable
    what = op_name(node.obj) if node.kind == "apply" else node.kind
    lines = [f"{node.label}: {what}", f"type: {var.type.short()}"]
    if node.role:
        lines[0] = f"{node.role}: {what}"
    if with_value:
        lines.append(f"test value: {value_stats(value_of(var))}")
    lines.append(f"created at {creation_text(var)}")
    if node.time_text():
        lines.append(f"time: {node.time_text()}")
    return "\n".join(lines)


def group_title(node: PictureNode) -> str:
    """The tooltip of a closed group: what made it, where, what it holds; a click opens it."""
    group = node.obj
    lines = [f"{group.title}: {group.describe()}"]
    where = group.where()
    if where:
        lines.append(f"called at {where}")
    lines.append(f"{node.sublabel} (click to open)")
    return "\n".join(lines)


def time_fill(heat: float) -> str:
    """The fill of a node at ``heat`` (0: no time, 1: the costliest node): white to red."""
    heat = min(max(heat, 0.0), 1.0)
    return "#" + "".join(f"{round(c + (h - c) * heat):02x}" for c, h in zip(_COOL, _HOT))


_MARGIN = 5  # pixels around the drawing (more than an output's second border, 3 + stroke)


def graph_svg(obj: Any, engine: str = "auto", **picture_options: Any) -> str:
    """Build, lay out and draw the picture of ``obj`` in one call."""
    picture = GraphPicture(obj, **picture_options)
    return picture_svg(picture, layout(picture, engine))


def picture_svg(picture: GraphPicture, laid: Layout, max_width: int | None = 900) -> str:
    """The ``<svg>`` of ``picture`` as ``laid`` out; scaled down to ``max_width`` pixels
    wide when larger (``None``: natural size)."""
    width, height = laid.width, laid.height
    count = picture.count()
    body = _draw(picture, laid, bool(laid.labels), count <= _VALUES_IN_TOOLTIPS_UP_TO)
    if picture.max_share > 0:  # a time-coloured picture: its scale and units above it
        legend = _LEGEND_HEIGHT + _UNIT_HEIGHT * len(picture.time_units)
        width, height = max(width, 470.0), height + legend
        body = (_time_legend(picture.max_share, picture.share_of) + _time_units(picture.time_units, width)
                + f'<g transform="translate(0,{legend})">{body}</g>')
    # dot's bounding box ends at the boxes' edges: an output's second border and the
    # strokes would be cut at the picture's edge without a margin all round.
    body = f'<g transform="translate({_MARGIN},{_MARGIN})">{body}</g>'
    width, height = width + 2 * _MARGIN, height + 2 * _MARGIN
    shown_width = width if max_width is None else min(width, max_width)
    return (f'<svg class="symnb-graph" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" width="{shown_width:.0f}" '
            f'height="{height * shown_width / max(width, 1):.0f}" '
            f'data-engine="{laid.engine}" data-nodes="{picture.count()}" '
            f'style="font-family:{MONOSPACE};font-size:12px;max-width:100%;height:auto">'
            '<defs><marker id="symnb-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>'
            f"{body}</svg>")


def picture_img(svg: str, min_scale: float | None = None) -> str:
    """The picture as an ``<img>`` holding the SVG (a ``data:`` URI): what a saved
    notebook keeps. Notebook viewers sanitize the HTML of outputs they do not trust (a
    notebook from elsewhere, GitHub) and drop inline ``<svg>``, but keep images. The SVG
    is percent-encoded, not base64, so its text (labels, types, values) can still be
    compared by the notebook tests.

    ``min_scale``: the picture shrinks to fit its cell, but never below this fraction of
    its natural size (its text stays legible); past that it scrolls sideways in its cell."""
    head = svg[:svg.index(">")]
    width = _attribute(head, "width")
    uri = "data:image/svg+xml;charset=utf-8," + urllib.parse.quote(svg, safe=" =:/,;()._-{}!*+@$[]'")
    if min_scale is None:
        return (f'<img class="symnb-graph" src="{uri}" width="{width}" '
                'alt="graph picture" style="max-width:100%;height:auto">')
    natural = float(_attribute(head, "viewBox").split()[2])
    shown = max(float(width), natural * min_scale)
    return (f'<div class="symnb-scroll" style="overflow-x:auto;max-width:100%">'
            f'<img class="symnb-graph" src="{uri}" width="{shown:.0f}" alt="graph picture" '
            f'style="width:100%;max-width:{shown:.0f}px;min-width:{natural * min_scale:.0f}px;height:auto"></div>')


def _attribute(tag: str, name: str) -> str:
    start = tag.index(f' {name}="') + len(name) + 3
    return tag[start:tag.index('"', start)]


def _draw(picture: GraphPicture, laid: Layout, edge_labels: bool, values: bool) -> str:
    parts = [_frame(group_id, title, laid.frames[group_id]) for group_id, title, _, _ in picture.frames()
             if group_id in laid.frames]
    labels = laid.labels if edge_labels and laid.labels else [None] * len(picture.edges)
    parts += [_edge(edge, path, laid.curved, place)
              for edge, path, place in zip(picture.edges, laid.paths, labels) if path]
    for node_id, node in picture.nodes.items():
        parts.append(_node(node, laid.boxes[node_id], laid.inner.get(node_id, []), edge_labels, values))
    return "".join(parts)


def _path_data(points: list[tuple[float, float]], curved: bool) -> str:
    head = f"M{points[0][0]:.1f},{points[0][1]:.1f}"
    if curved and (len(points) - 1) % 3 == 0:
        pieces = [f"C{a[0]:.1f},{a[1]:.1f} {b[0]:.1f},{b[1]:.1f} {c[0]:.1f},{c[1]:.1f}"
                  for a, b, c in zip(points[1::3], points[2::3], points[3::3])]
    else:
        pieces = [f"L{x:.1f},{y:.1f}" for x, y in points[1:]]
    return head + "".join(pieces)


def _edge(edge: Any, points: list, curved: bool, place: tuple | None) -> str:
    title = f"<title>{_e(_edge_title(edge))}</title>"
    path = (f'<path d="{_path_data(points, curved)}" fill="none" stroke="#777" '
            f'stroke-width="1.2" marker-end="url(#symnb-arrow)"/>')
    text = ""
    if place is not None:
        x, y, w, h = place
        text = (f'<rect class="symnb-label-bg" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
                f'height="{h:.1f}" rx="2" fill="#ffffff" fill-opacity="0.85"/>'
                f'<text class="symnb-edge-label" x="{x + w / 2:.1f}" y="{y + h - 3:.1f}" '
                f'text-anchor="middle" font-size="{LABEL_FONT}" fill="#335">{_e(edge.label)}</text>')
    return (f'<g class="symnb-edge" data-source="{_e(edge.source)}" '
            f'data-target="{_e(edge.target)}">{title}{path}{text}</g>')


def _edge_title(edge: Any) -> str:
    """An edge's tooltip: its label (the shape), then each variable it carries with its
    static type (names only where the user gave them: reading source lines for
    thousands of edges would slow a big picture down)."""
    lines = [edge.label] + [f"{v.name + ': ' if v.name else ''}static type {v.type.short()}"
                            for v in edge.variables[:12]]
    return "\n".join(lines) + ("\n\u2026" if len(edge.variables) > 12 else "")


def _frame(group_id: str, title: str, rect: tuple) -> str:
    """An open group: a frame around its boxes, its title on top (a click closes it)."""
    x, y, w, h = rect
    return (f'<g class="symnb-frame" data-group="{_e(group_id)}"><title>{_e(title)} (click the '
            f'title to close)</title><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'rx="6" fill="#f5f8fd" stroke="{_GROUP_STROKE}" stroke-width="1" stroke-dasharray="4,3"/>'
            f'<text class="symnb-frame-title" x="{x + 6:.1f}" y="{y + 12:.1f}" font-size="11" '
            f'fill="{_GROUP_STROKE}">\u229f {_e(title)}</text></g>')


def _node(node: PictureNode, box: tuple, inner: list, edge_labels: bool, values: bool) -> str:
    x, y, w, h = box
    classes = f"symnb-node symnb-{node.kind}" + (" symnb-error" if node.error else "") \
        + (" symnb-output" if node.is_output else "") + (" symnb-expanded" if node.inner else "") \
        + (" symnb-timed" if node.seconds is not None else "") \
        + (f" symnb-{node.change}" if node.change else "")
    stroke, stroke_width = ("#d00000", 3) if node.error else CHANGE_STROKES.get(node.change, ("#444", 1.2))
    if node.kind == "group":
        stroke, stroke_width = _GROUP_STROKE, 1.6
    radius = h / 2 if node.kind in ("input", "shared") and not node.inner else 8 if node.kind == "group" else 4
    dash = ' stroke-dasharray="5,3"' if node.change == "removed" else ""
    timed = node.seconds is not None
    fill = time_fill(node.heat) if timed else CHANGE_FILLS.get(node.change) or FILL.get(node.family, "#fff")
    shapes = [f'<rect class="symnb-box" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{radius:.1f}" '
              f'fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width}"{dash}/>']
    if node.kind == "group":  # a stack of boxes: it holds several
        shapes.insert(0, f'<rect x="{x + 3:.1f}" y="{y + 3:.1f}" width="{w:.1f}" height="{h:.1f}" '
                         f'rx="{radius:.1f}" fill="#c9d6ea" stroke="{_GROUP_STROKE}" stroke-width="1"/>')
    if node.is_output:  # a second border, as Theano drew outputs
        shapes.append(f'<rect x="{x - 3:.1f}" y="{y - 3:.1f}" width="{w + 6:.1f}" '
                      f'height="{h + 6:.1f}" rx="{radius + 3:.1f}" fill="none" stroke="#2060c0" '
                      'stroke-width="1.5"/>')
    center = x + w / 2
    top = y if node.inner else y + h / 2 - 18
    label = node.label + (f"  [{node.note}]" if node.note else "")
    texts = [f'<text x="{center:.1f}" y="{top + 15:.1f}" text-anchor="middle" '
             f'font-weight="bold">{_e(label)}</text>',
             f'<text x="{center:.1f}" y="{top + 29:.1f}" text-anchor="middle" font-size="11" '
             f'fill="#333">{_e(node.sublabel)}{_time_tag(node)}</text>']
    if node.kind == "group":
        texts.append(f'<text x="{x + w - 5:.1f}" y="{y + 12:.1f}" text-anchor="end" '
                     f'font-size="11" fill="{_GROUP_STROKE}">\u229e</text>')  # "open me" mark
    if node.has_inner and not node.inner:
        texts.append(f'<text x="{x + w - 4:.1f}" y="{y + 11:.1f}" text-anchor="end" '
                     'font-size="10" fill="#555">\u229e</text>')  # "open me" mark
    body = "".join(shapes + texts) + _inner(node, x, y, inner, edge_labels, values)
    seconds = f' data-seconds="{node.seconds:.6g}"' if timed else ""
    # data-search: read by no view now (the viewer searches its model), kept because the
    # notebooks' stored pictures carry it and nbval compares them with fresh ones.
    return (f'<g class="{classes}" data-id="{_e(node.id)}"{seconds} '
            f'data-search="{_e(node.search_text())}">'
            f"<title>{_e(node_title(node, values))}</title>{body}</g>")


def _time_tag(node: PictureNode) -> str:
    """A timed node's share of the call, after its op on the same line (inside the box,
    which the layout widens for it): never on top of other text."""
    if not node.time_tag:
        return ""
    return f'<tspan class="symnb-time-tag" font-weight="bold" fill="#111">{_e(node.time_tag)}</tspan>'


def _time_units(units: list, width: float) -> str:
    """The call's parts that are no single box, one row each under the scale: a box on
    the heat scale with the unit's share, its text beside it (cut to the picture's
    ``width``), its whole text and time in its tooltip."""
    fits = max(int((width - 80) / 6.7), 10)  # characters of 11px monospace
    rows = []
    for k, unit in enumerate(units):
        y = _LEGEND_HEIGHT + k * _UNIT_HEIGHT
        tip = f"{unit.text}: {seconds_text(unit.seconds)} per call ({percent_text(100 * unit.share)})"
        rows.append(f'<g class="symnb-time-unit" data-seconds="{unit.seconds:.6g}"><title>{_e(tip)}</title>'
                    f'<rect x="4" y="{y}" width="64" height="{_UNIT_HEIGHT - 4}" rx="3" '
                    f'fill="{time_fill(unit.heat)}" stroke="#444" stroke-width="1"/>'
                    f'<text x="36" y="{y + 13}" font-size="11" font-weight="bold" text-anchor="middle" '
                    f'fill="#111">{_e(percent_text(100 * unit.share))}</text>'
                    f'<text x="76" y="{y + 13}" font-size="11" fill="#222">{_e(_cut(unit.text, fits))}</text></g>')
    return "".join(rows)


def _cut(text: str, fits: int) -> str:
    return text if len(text) <= fits else text[:fits - 1] + "\u2026"


def _time_legend(max_share: float, share_of: str) -> str:
    """The colour scale of a time-coloured picture: white (no time) to the costliest
    node's red, with what the shares in the nodes mean."""
    stops = "".join(f'<stop offset="{k}" stop-color="{time_fill(k)}"/>' for k in (0, 1))
    return ('<g class="symnb-time-legend" font-size="11">'
            f'<defs><linearGradient id="symnb-heat">{stops}</linearGradient></defs>'
            '<text x="4" y="14" fill="#222">time per call:</text>'
            '<rect x="104" y="4" width="120" height="12" fill="url(#symnb-heat)" stroke="#999"/>'
            '<text x="104" y="28" font-size="10" fill="#444">0%</text>'
            f'<text x="224" y="28" font-size="10" fill="#444" text-anchor="end">'
            f"{percent_text(100 * max_share)}</text>"
            f'<text x="234" y="14" fill="#222">after each op: its share of {_e(share_of)}</text>'
            "</g>")


def _inner(node: PictureNode, x: float, y: float, inner: list, edge_labels: bool, values: bool) -> str:
    parts = []
    for placed, sub in zip(inner, node.inner):
        ox, oy = x + placed.x, y + placed.y
        parts.append(f'<text x="{ox:.1f}" y="{oy - 5:.1f}" font-size="11" font-style="italic" '
                     f'fill="#333">{_e(placed.title)}</text>'
                     f'<rect x="{ox:.1f}" y="{oy:.1f}" width="{placed.layout.width:.1f}" '
                     f'height="{placed.layout.height:.1f}" fill="#ffffff" fill-opacity="0.7" '
                     'stroke="#999" stroke-dasharray="3,2"/>'
                     f'<g transform="translate({ox:.1f},{oy:.1f})">'
                     f"{_draw(sub.picture, placed.layout, edge_labels, values)}</g>")
    return "".join(parts)

