"""Pictures of graphs: what is drawn (GraphPicture), where (layout), how (SVG)."""

import time

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing.graph_model import GraphPicture
from symnb.printing.layout import layout
from symnb.printing.svg import picture_svg
from tests.optional_tools import LAYOUT_ENGINES


@pytest.fixture
def graph():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    b = sn.shared(np.float32(0.5), name="b")
    y = T.exp(T.log(x)) * 2
    z = (y + b).sum()
    return x, b, y, z


def check_layout(picture, laid):
    """Every node placed inside the picture, no two boxes overlapping, every edge going
    down from its source's box to its target's."""
    boxes = laid.boxes
    assert set(boxes) == set(picture.nodes)
    for x, y, w, h in boxes.values():
            assert -1 <= x and x + w <= laid.width + 1 and -1 <= y and y + h <= laid.height + 1
    items = list(boxes.values())
    for i, (x1, y1, w1, h1) in enumerate(items):
        for x2, y2, w2, h2 in items[i + 1:]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    for edge, path in zip(picture.edges, laid.paths):
        source, target = boxes[edge.source], boxes[edge.target]
        assert source[1] + source[3] <= target[1]
        (x0, y0), (x1, y1) = path[0], path[-1]
        assert abs(y0 - (source[1] + source[3])) < 2 and abs(y1 - target[1]) < 2
        assert source[0] - 1 <= x0 <= source[0] + source[2] + 1
        assert target[0] - 1 <= x1 <= target[0] + target[2] + 1


@pytest.mark.parametrize("engine", LAYOUT_ENGINES)
def test_layout_places_every_node_and_edge(graph, engine):
    picture = GraphPicture(graph[3])
    laid = layout(picture, engine)
    assert laid.engine == engine
    check_layout(picture, laid)


def test_auto_layout_uses_graphviz_only_where_it_is_installed(graph, monkeypatch):
    picture = GraphPicture(graph[3])
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert layout(picture).engine == "layered"
    with pytest.raises(ValueError, match="layout engine must be one of"):
        layout(picture, "neato")


def test_expanded_loop_is_drawn_inside_its_node():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    out, _ = sn.scan(lambda a, acc: acc + a * 2, sequences=[x], outputs_info=[T.zeros((), "float32")])
    closed = GraphPicture(out)
    loop = next(n for n in closed.nodes.values() if n.has_inner)
    opened = GraphPicture(out, expanded=[loop.id])
    (body,) = opened.nodes[loop.id].inner
    assert body.title == "loop body (one step)"
    labels = {n.label for n in body.picture.nodes.values()}
    assert "x[t] \u2190 x" in labels and "acc + a * 2" in labels
    inner_ids = list(body.picture.nodes)
    assert all(i.startswith(f"{loop.id}/0/") for i in inner_ids)
    assert opened.find(inner_ids[-1]) is body.picture.nodes[inner_ids[-1]]
    laid = layout(opened, "layered")
    outer_box = laid.boxes[loop.id]
    inner = laid.inner[loop.id][0]
    assert outer_box[2] >= inner.x + inner.layout.width and outer_box[3] >= inner.y + inner.layout.height
    check_layout(body.picture, inner.layout)
    svg = picture_svg(opened, laid)
    assert svg.count('class="symnb-node') == opened.count() == len(closed.nodes) + len(inner_ids)


def test_highlighted_node_is_marked(graph):
    x, b, y, z = graph
    picture = GraphPicture(z, highlight=[y.owner])
    assert [n.label for n in picture.nodes.values() if n.error] == ["y"]
    svg = picture_svg(picture, layout(picture, "layered"))
    assert svg.count("symnb-error") == 1 and 'stroke="#d00000"' in svg


def test_two_thousand_nodes_lay_out_in_seconds():
    """The layered layout is linear per sweep. Its speed (under a second for this
    chain's 4,001 boxes) is measured by bench/bench_explorer.py; under load a test asserts
    its order of magnitude only (a quadratic layout would take minutes)."""
    x = T.vector("x", test_value=np.ones(3, "float32"))
    w = x
    for _ in range(1000):
        w = T.tanh(w * np.float32(0.5) + x)
    # Built on one line at the top level, the chain is one line group cut into parts
    # (groups.py): all of them opened, its 4,001 boxes are drawn.
    groups = [g.id for g in GraphPicture(w).tree.groups()]
    started = time.perf_counter()
    picture = GraphPicture(w, opened=groups)
    laid = layout(picture)
    svg = picture_svg(picture, laid)
    seconds = time.perf_counter() - started
    assert picture.count() >= 2000 and laid.engine == "layered"
    assert svg.count('class="symnb-node') == picture.count()
    assert seconds < 30, f"2,000 boxes took {seconds:.1f} s to lay out and draw"
