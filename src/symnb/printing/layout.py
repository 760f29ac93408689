"""Where each node of a :class:`~symnb.printing.graph_model.GraphPicture` goes.

Two engines, one result (:class:`Layout`: boxes and edge paths, top to bottom):

- ``"dot"``: Graphviz's ``dot`` through pydot, when the program is installed: the best
  pictures (crossings minimised over the whole graph, splines around the boxes);
- ``"layered"``: a layered (Sugiyama) layout written here, for a fresh ``pip install``
  without Graphviz: layers by longest path, crossings reduced by barycenter sweeps,
  positions by the neighbours' mean with overlaps pushed apart. Linear in the graph's
  size per sweep, so a 2,000-node graph lays out in a fraction of a second.

``"auto"`` (the default) uses ``dot`` when it is on PATH and the graph is small enough
for it to answer quickly, else ``"layered"``. An expanded node's inner graphs are laid
out first, on their own, and the node becomes a box of their size.

Edge labels (the shapes) are placed with the boxes: ``dot`` places them as it routes
the edges; then every label is checked against every box and every label placed
before it (:mod:`symnb.printing.label_places`), and one that would overlap either moves
to another point of its edge or is left out of the picture (its edge's tooltip keeps
it). Open groups are ``dot`` clusters, framed around their boxes (``layered`` draws
no frames: its layers do not keep a group's boxes together).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from symnb.printing.graph_model import GraphPicture, PictureNode
from symnb.printing.label_places import LABEL_HEIGHT, label_size, settle_labels

__all__ = ["Layout", "InnerLayout", "layout", "node_size", "ENGINES"]

ENGINES = ("auto", "dot", "layered")

CHAR_WIDTH = 7.2        # px per character of the 12 px monospace labels
SUB_CHAR_WIDTH = 6.6    # px per character of the 11 px second line
NODE_HEIGHT = 36
ROOT_HEIGHT = 32
HEADER_HEIGHT = 38      # an expanded node's own two lines
TITLE_HEIGHT = 18       # the title above each inner graph
PAD = 10
LAYER_GAP = 34          # vertical room for the edges and their labels
NODE_GAP = 18
_DOT_MAX_NODES = 600    # dot's crossing minimisation grows fast; beyond this, layered
_LONG_EDGE = 12         # edges spanning more layers are drawn straight, without waypoints
LABELS_UP_TO = 600      # boxes: a larger picture keeps its edges' shapes in their tooltips
_HUB_FROM = 6           # edges into a box reading more than this many do not straighten
FRAME_PAD = 6           # an open group's frame around its boxes
FRAME_TITLE = 16        # and the room for its title


@dataclass
class InnerLayout:
    title: str
    layout: "Layout"
    x: float  # offset of the inner picture inside its node's box
    y: float


@dataclass
class Layout:
    """Boxes ``{node id: (x, y, width, height)}`` (top-left corner) and one path per edge
    of the picture (same order): points, as a polyline (``layered``) or the control points
    of cubic Bezier pieces (``dot``: 3n + 1 points)."""

    boxes: dict[str, tuple[float, float, float, float]]
    paths: list[list[tuple[float, float]]]
    curved: bool
    width: float
    height: float
    engine: str
    inner: dict[str, list[InnerLayout]] = field(default_factory=dict)
    label_at: dict[int, list] = field(default_factory=dict)  # dot's label centres, by edge
    labels: list = field(default_factory=list)  # per edge: its label's (x, y, w, h) or None
    frames: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)


def node_size(node: PictureNode) -> tuple[float, float]:
    """A node's box: wide enough for its two lines of text."""
    width = max(len(node.label) * CHAR_WIDTH, len(node.caption) * SUB_CHAR_WIDTH, 24) + 18
    return round(width, 1), float(ROOT_HEIGHT if node.kind != "apply" else NODE_HEIGHT)


def layout(picture: GraphPicture, engine: str = "auto", with_labels: bool | None = None) -> Layout:
    """Lay ``picture`` out with ``engine`` (see the module docstring); ``with_labels``:
    place the edges' labels (else the picture draws none; by default, for pictures of up
    to ``LABELS_UP_TO`` boxes: a larger one is read by zooming and its edges' tooltips)."""
    if with_labels is None:
        with_labels = len(picture.nodes) <= LABELS_UP_TO
    if engine not in ENGINES:
        raise ValueError(f"layout engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    sizes, inner = {}, {}
    for node in picture.nodes.values():
        if node.inner:
            inner[node.id], sizes[node.id] = _inner_layouts(node, engine)
        else:
            sizes[node.id] = node_size(node)
    edges = [(e.source, e.target) for e in picture.edges]
    ports = [e.port for e in picture.edges]
    # An edge carrying several values into a closed group keeps its list in its tooltip.
    texts = [e.label if len(e.variables) == 1 else "" for e in picture.edges] if with_labels else []
    backward = picture.backward_ids()
    if engine == "auto":
        engine = "dot" if _dot_available() and len(sizes) <= _DOT_MAX_NODES else "layered"
    frames = picture.frames()
    if engine == "dot":
        result = _dot_layout(list(picture.nodes), sizes, edges, texts, frames, backward)
    else:
        # No clusters here: a frame around a group's boxes could cover other boxes.
        result = _layered_layout(list(picture.nodes), sizes, edges, ports)
    result.inner = inner
    result.labels = settle_labels(result, texts, _label_points(result, texts))
    return result


def _label_points(laid: "Layout", texts: list[str]) -> list[list[tuple[float, float]]]:
    """Where each label may go (its centre), best first: where ``dot`` put it, then
    points along its edge, beside the line."""
    points = []
    for i, text in enumerate(texts):
        path = laid.paths[i] if i < len(laid.paths) else []
        wanted = list(laid.label_at.get(i, []))
        if len(path) >= 2:
            width = label_size(text)[0]
            for t in (0.5, 0.35, 0.65, 0.2, 0.8):
                x, y = _along(path, t)
                wanted += [(x + width / 2 + 4, y), (x - width / 2 - 4, y)]
        points.append(wanted)
    return points


def _along(path: list[tuple[float, float]], t: float) -> tuple[float, float]:
    """The point at fraction ``t`` of the polyline through ``path`` (a curve's control
    points are close enough to it for placing a label)."""
    lengths = [((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5 for (ax, ay), (bx, by) in zip(path, path[1:])]
    goal = t * sum(lengths)
    for (ax, ay), (bx, by), length in zip(path, path[1:], lengths):
        if goal <= length and length > 0:
            f = goal / length
            return ax + (bx - ax) * f, ay + (by - ay) * f
        goal -= length
    return path[-1]


def _frames_around(frames: list, boxes: dict) -> dict[str, tuple[float, float, float, float]]:
    """Each open group's frame: around its boxes and its open subgroups' frames (inner
    frames first), with room for its title above."""
    placed: dict[str, tuple[float, float, float, float]] = {}
    for group_id, _title, _parent, members in reversed(frames):
        rects = [boxes[m] for m in members if m in boxes]
        rects += [placed[g] for g, _, parent, _ in frames if parent == group_id and g in placed]
        if not rects:
            continue
        left = min(r[0] for r in rects) - FRAME_PAD
        top = min(r[1] for r in rects) - FRAME_PAD - FRAME_TITLE
        right = max(r[0] + r[2] for r in rects) + FRAME_PAD
        bottom = max(r[1] + r[3] for r in rects) + FRAME_PAD
        placed[group_id] = (left, top, right - left, bottom - top)
    return placed


def _inner_layouts(node: PictureNode, engine: str) -> tuple[list[InnerLayout], tuple[float, float]]:
    """Lay out the inner pictures side by side under the node's header; the node's size."""
    placed, x, height = [], PAD, 0.0
    for inner in node.inner:
        sub = layout(inner.picture, engine)
        placed.append(InnerLayout(inner.title, sub, x, HEADER_HEIGHT + TITLE_HEIGHT))
        x += sub.width + PAD
        height = max(height, sub.height)
    header_width = node_size(node)[0]
    return placed, (max(x, header_width), HEADER_HEIGHT + TITLE_HEIGHT + height + PAD)


def _dot_available() -> bool:
    if shutil.which("dot") is None:
        return False
    try:
        import pydot  # noqa: F401
    except ImportError:
        return False
    return True


# -- Graphviz ------------------------------------------------------------------------------

def _dot_layout(order: list[str], sizes: dict, edges: list[tuple[str, str]], texts: list[str],
                frames: list, backward: set[str] = frozenset()) -> Layout:
    import pydot

    graph = pydot.Dot("g", graph_type="digraph", rankdir="TB", nodesep=f"{NODE_GAP / 72:.3f}",
                      ranksep=f"{LAYER_GAP / 72:.3f}", splines="spline")
    names = {node_id: f"n{i}" for i, node_id in enumerate(order)}
    clusters = {"": graph}
    for i, (group_id, title, parent, _members) in enumerate(frames):
        # The label reserves the room the frame's title takes; the frame is drawn here.
        cluster = pydot.Cluster(f"c{i}", label=title, labelloc="t", labeljust="l", fontname="Courier",
                                fontsize="11", margin="10")
        clusters.get(parent, graph).add_subgraph(cluster)
        clusters[group_id] = cluster
    home = {m: group_id for group_id, _, _, members in frames for m in members}
    for node_id in order:
        width, height = sizes[node_id]
        clusters.get(home.get(node_id, ""), graph).add_node(pydot.Node(
            names[node_id], shape="box", fixedsize="true", label='""',
            width=f"{width / 72:.3f}", height=f"{height / 72:.3f}"))
    fan_in = {node_id: 0 for node_id in order}
    for _, target in edges:
        fan_in[target] += 1
    for i, (source, target) in enumerate(edges):
        extra = {}
        if i < len(texts) and texts[i]:
            width, height = label_size(texts[i])
            # dot sizes a label by its own font metrics: an invisible box of the drawn
            # label's size stands for it (the label's centre is read back).
            extra = {"label": f'"{"M" * max(1, round(width / 7.2))}"', "fontname": "Courier",
                     "fontsize": "12"}
        if (target in backward and source not in backward) or fan_in[target] > _HUB_FROM:
            # The forward graph feeding its gradient, or a box collecting from many
            # (the updates): these edges must not bend the forward chain out of line
            # (dot straightens heavier edges first).
            extra["weight"] = "0"
        graph.add_edge(pydot.Edge(names[source], names[target], **extra))
    plain = graph.create(prog="dot", format="plain").decode()
    laid = _read_plain(plain, order, names, edges)
    laid.frames = _frames_around(frames, laid.boxes)
    return laid


def _read_plain(plain: str, order: list[str], names: dict, edges: list) -> Layout:
    """Parse ``dot -Tplain``: inches, y up; turned into pixels, y down."""
    ids = {name: node_id for node_id, name in names.items()}
    boxes: dict[str, tuple[float, float, float, float]] = {}
    splines: dict[tuple[str, str], list] = {}
    height = 0.0
    width = 0.0
    for line in plain.splitlines():
        # Names and the stand-in labels ("MMMM") hold no spaces: a split reads them.
        parts = [part.strip('"') for part in line.split()]
        if not parts:
            continue
        if parts[0] == "graph":
            width, height = float(parts[2]) * 72, float(parts[3]) * 72
        elif parts[0] == "node":
            x, y, w, h = (float(v) * 72 for v in parts[2:6])
            boxes[ids[parts[1]]] = (x - w / 2, height - y - h / 2, w, h)
        elif parts[0] == "edge":
            count = int(parts[3])
            values = [float(v) * 72 for v in parts[4:4 + 2 * count]]
            points = [(values[i], height - values[i + 1]) for i in range(0, len(values), 2)]
            rest = parts[4 + 2 * count:]
            label = (float(rest[1]) * 72, height - float(rest[2]) * 72) if len(rest) >= 5 else None
            splines.setdefault((ids[parts[1]], ids[parts[2]]), []).append((points, label))
    paths, label_at = [], {}
    for i, edge in enumerate(edges):
        points, label = splines[edge].pop(0) if splines.get(edge) else ([], None)
        paths.append(points)
        if label is not None:
            label_at[i] = [label]
    for (source, target), path in zip(edges, paths):
        # dot stops a spline where its arrowhead starts; the SVG marker draws the head at
        # the path's end, so the ends are moved onto the boxes.
        # dot may also end a spline beside its box (it aims at the box's side): the end is
        # kept over the box, or the arrow points at empty space.
        if path:
            path[0] = (_over(path[0][0], boxes[source]), boxes[source][1] + boxes[source][3])
            path[-1] = (_over(path[-1][0], boxes[target]), boxes[target][1])
    return Layout(boxes, paths, True, width, height, "dot", label_at=label_at)


def _over(x: float, box: tuple[float, float, float, float]) -> float:
    """``x`` moved within ``box``'s width, a few pixels in from its corners."""
    inset = min(6.0, box[2] / 2)
    return min(max(x, box[0] + inset), box[0] + box[2] - inset)


# -- layered (Sugiyama) ----------------------------------------------------------------------

def _layered_layout(order: list[str], sizes: dict, edges: list[tuple[str, str]],
                    ports: list[tuple[int, int]]) -> Layout:
    preds: dict[str, list[str]] = {n: [] for n in order}
    succs: dict[str, list[str]] = {n: [] for n in order}
    for source, target in edges:
        succs[source].append(target)
        preds[target].append(source)
    rank = _ranks(order, preds, succs)
    layers, chains = _layers_with_waypoints(order, rank, edges)
    up, down = _adjacency(layers, edges, chains, rank)
    _reduce_crossings(layers, up, down)
    width_of = {n: sizes[n][0] if n in sizes else 2.0 for layer in layers for n in layer}
    xs = _x_positions(layers, up, down, width_of)
    ys, layer_heights = _y_positions(layers, sizes)
    boxes = {}
    for r, layer in enumerate(layers):
        for n in layer:
            if n in sizes:
                w, h = sizes[n]
                boxes[n] = (xs[n] - w / 2, ys[r] + (layer_heights[r] - h) / 2, w, h)
    paths = []
    for (source, target), chain, (position, count) in zip(edges, chains, ports):
        sx, sy, sw, sh = boxes[source]
        tx, ty, tw, th = boxes[target]
        points = [(sx + sw / 2, sy + sh)]
        points += [(xs[d], ys[rank_of] + layer_heights[rank_of] / 2) for d, rank_of in chain]
        points.append((tx + tw * (position + 1) / (count + 1), ty))  # one port per input
        paths.append(points)
    min_x = min((b[0] for b in boxes.values()), default=0.0) - PAD
    boxes = {n: (x - min_x, y, w, h) for n, (x, y, w, h) in boxes.items()}
    paths = [[(x - min_x, y) for x, y in path] for path in paths]
    width = max((x + w for x, _, w, _ in boxes.values()), default=0.0) + PAD
    height = ys[-1] + layer_heights[-1] + PAD if layers else 2 * PAD
    return Layout(boxes, paths, False, width, height, "layered")


def _ranks(order: list[str], preds: dict, succs: dict) -> dict[str, int]:
    """Longest path from the sources; a source then moves down next to its first consumer
    (an input used deep in the graph is drawn near where it is used)."""
    rank: dict[str, int] = {}
    for n in _topological(order, preds, succs):
        rank[n] = max((rank[p] + 1 for p in preds[n]), default=0)
    for n in order:
        if not preds[n] and succs[n]:
            rank[n] = max(min(rank[s] for s in succs[n]) - 1, 0)
    return rank


def _topological(order: list[str], preds: dict, succs: dict) -> list[str]:
    waiting = {n: len(preds[n]) for n in order}
    ready = [n for n in reversed(order) if waiting[n] == 0]
    result = []
    while ready:
        n = ready.pop()
        result.append(n)
        for s in reversed(succs[n]):
            waiting[s] -= 1
            if waiting[s] == 0:
                ready.append(s)
    if len(result) != len(order):  # not a DAG: keep the given order for the rest
        seen = set(result)
        result += [n for n in order if n not in seen]
    return result


def _layers_with_waypoints(order: list[str], rank: dict, edges: list) -> tuple[list[list[str]], list]:
    """Nodes by layer, with a waypoint (``~k``) where an edge crosses a layer; the
    waypoints of each edge, as ``(waypoint, layer)``."""
    depth = max(rank.values(), default=-1) + 1
    layers: list[list[str]] = [[] for _ in range(depth)]
    for n in order:
        layers[rank[n]].append(n)
    chains = []
    count = 0
    for source, target in edges:
        chain = []
        span = rank[target] - rank[source]
        if 1 < span <= _LONG_EDGE:
            for r in range(rank[source] + 1, rank[target]):
                waypoint = f"~{count}"
                count += 1
                layers[r].append(waypoint)
                chain.append((waypoint, r))
        chains.append(chain)
    return layers, chains


def _adjacency(layers: list, edges: list, chains: list, rank: dict) -> tuple[dict, dict]:
    """Neighbours one layer up and one layer down, through the waypoints."""
    up: dict[str, list[str]] = {n: [] for layer in layers for n in layer}
    down: dict[str, list[str]] = {n: [] for layer in layers for n in layer}
    for (source, target), chain in zip(edges, chains):
        if rank[target] - rank[source] > _LONG_EDGE:
            continue  # drawn straight: it takes no part in the ordering
        path = [source] + [w for w, _ in chain] + [target]
        for a, b in zip(path, path[1:]):
            down[a].append(b)
            up[b].append(a)
    return up, down


def _reduce_crossings(layers: list[list[str]], up: dict, down: dict, sweeps: int = 4) -> None:
    """Barycenter heuristic: sort each layer by its neighbours' mean position in the
    layer above (going down), then below (going up)."""
    for _ in range(sweeps):
        for neighbours, indices in ((up, range(1, len(layers))),
                                    (down, range(len(layers) - 2, -1, -1))):
            for r in indices:
                ref = layers[r - 1] if neighbours is up else layers[r + 1]
                where = {n: i for i, n in enumerate(ref)}
                layer = layers[r]
                keys = {}
                for i, n in enumerate(layer):
                    positions = [where[m] for m in neighbours[n] if m in where]
                    keys[n] = sum(positions) / len(positions) if positions else i
                layer.sort(key=keys.__getitem__)


def _x_positions(layers: list, up: dict, down: dict, width_of: dict) -> dict[str, float]:
    """Each node at its neighbours' mean x, overlaps pushed apart symmetrically."""
    xs: dict[str, float] = {}
    for layer in layers:
        x = 0.0
        for n in layer:
            xs[n] = x + width_of[n] / 2
            x += width_of[n] + NODE_GAP
    for _ in range(3):
        for neighbours, indices in ((up, range(1, len(layers))),
                                    (down, range(len(layers) - 2, -1, -1))):
            for r in indices:
                layer = layers[r]
                wanted = []
                for n in layer:
                    near = [xs[m] for m in neighbours[n]]
                    wanted.append(sum(near) / len(near) if near else xs[n])
                _place(layer, wanted, width_of, xs)
    return xs


def _place(layer: list[str], wanted: list[float], width_of: dict, xs: dict) -> None:
    """Positions as close to ``wanted`` as the order and the gaps allow: the mean of a
    left-to-right and a right-to-left packing."""
    count = len(layer)
    if count == 0:
        return
    forward = list(wanted)
    for i in range(1, count):
        gap = (width_of[layer[i - 1]] + width_of[layer[i]]) / 2 + NODE_GAP
        forward[i] = max(forward[i], forward[i - 1] + gap)
    backward = list(wanted)
    for i in range(count - 2, -1, -1):
        gap = (width_of[layer[i]] + width_of[layer[i + 1]]) / 2 + NODE_GAP
        backward[i] = min(backward[i], backward[i + 1] - gap)
    for i, n in enumerate(layer):
        xs[n] = (forward[i] + backward[i]) / 2
    for i in range(1, count):  # the mean of two packings can still overlap: push right
        gap = (width_of[layer[i - 1]] + width_of[layer[i]]) / 2 + NODE_GAP
        xs[layer[i]] = max(xs[layer[i]], xs[layer[i - 1]] + gap)


def _y_positions(layers: list, sizes: dict) -> tuple[list[float], list[float]]:
    heights = [max((sizes[n][1] for n in layer if n in sizes), default=4.0) for layer in layers]
    ys, y = [], float(PAD)
    for h in heights:
        ys.append(y)
        y += h + LAYER_GAP
    return ys, heights

