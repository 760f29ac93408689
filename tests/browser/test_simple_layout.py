"""The simple layered layout (viewer_simple.js: the saved view's layout, and the fallback
when ELK fails or times out) measured in Chromium on the 12-layer MLP's training function,
the checks test_viewer_layout.py makes for ELK plus the ones a hand-made router can get
wrong: no edge over a box it does not join, each frame holding its children, no edge
label over a box or over another label, no edge running along a frame's title row, no two
edges into different boxes drawn on top of each other. Screenshots go to
build/screenshots/viewer/ (looked at: see the report)."""

from __future__ import annotations

import pytest

from tests.browser.test_viewer import crosses, open_page, shot
from tests.browser.test_viewer import browser, mlp  # noqa: F401 (the same module-scoped fixtures)
from tests.browser.test_viewer_layout import groups_by_id, top_series
from tests.browser.viewer_page import viewer_page
from tests.printing.test_view_model import _ancestors
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]

TITLE_ROW = 26  # a frame's title row: its text sits at y + 19 (viewer_draw.js drawPicture)


def laid_out(page):
    """Boxes and frames {id: (x, y, w, h)}, edges (points, labels as (x, y, w, h), whether
    they join two regions), in layout units."""
    return page.evaluate("""() => { const g = mounted.view.geometry();
      const rect = (r) => [r.x, r.y, r.w, r.h];
      return { boxes: Object.fromEntries([...g.boxes].map(([k, r]) => [k, rect(r)])),
               frames: Object.fromEntries([...g.frames].map(([k, r]) => [k, rect(r)])),
               edges: g.edges.map((e) => ({ src: e.src, dst: e.dst, across: !!e.across,
                 labels: e.labels.map((l) => [l.x, l.y, l.w, l.h]), points: e.points.map((p) => [p.x, p.y]) })) }; }""")


def overlap(a, b):
    """Whether rectangles (x, y, w, h) share more than a 1-unit rim."""
    return a[0] + 1 < b[0] + b[2] and b[0] + 1 < a[0] + a[2] and a[1] + 1 < b[1] + b[3] and b[1] + 1 < a[1] + a[3]


def holders(model, item):
    """The groups holding a node or group (innermost first), from the model (Python's reading)."""
    groups = groups_by_id(model)
    if item in groups:
        return _ancestors(groups, groups[item]["parent"])
    return _ancestors(groups, next(n["group"] for n in model["nodes"] if n["id"] == item))


def segments(points):
    return list(zip(points, points[1:]))


def shared_run(a, b):
    """Length two axis-parallel segments share when drawn on one line (0 when they do not)."""
    (p, q), (r, s) = a, b
    for axis in (0, 1):
        other = 1 - axis
        if p[other] == q[other] == r[other] == s[other]:
            lo = max(min(p[axis], q[axis]), min(r[axis], s[axis]))
            hi = min(max(p[axis], q[axis]), max(r[axis], s[axis]))
            return max(hi - lo, 0)
    return 0


def assert_clean(model, laid):
    boxes, frames, edges = laid["boxes"], laid["frames"], laid["edges"]
    for e in edges:  # no edge over a box it does not join
        for box_id, box in boxes.items():
            if box_id not in (e["src"], e["dst"]):
                assert not crosses(e["points"], box), ("edge over a box", e["src"], e["dst"], box_id)
    for item, rect in [*boxes.items(), *frames.items()]:  # each frame holds its children
        for g in holders(model, item):
            if g in frames:
                f = frames[g]
                assert f[0] <= rect[0] and f[1] <= rect[1] and rect[0] + rect[2] <= f[0] + f[2] \
                    and rect[1] + rect[3] <= f[1] + f[3], ("frame does not hold its child", g, item)
    labels = [(e["src"], e["dst"], label) for e in edges for label in e["labels"]]
    for src, dst, label in labels:  # labels over no box
        for box_id, box in boxes.items():
            assert not overlap(label, box), ("edge label over a box", src, dst, box_id)
    for i, (src, dst, label) in enumerate(labels):  # nor over each other
        for other in labels[i + 1:]:
            assert not overlap(label, other[2]), ("edge labels over each other", (src, dst), other[:2])
    for e in edges:  # no edge along a frame's title row
        for (a, b) in segments(e["points"]):
            if a[1] != b[1]:
                continue
            for g, f in frames.items():
                if f[1] < a[1] < f[1] + TITLE_ROW and min(a[0], b[0]) < f[0] + f[2] - 1 and max(a[0], b[0]) > f[0] + 1:
                    raise AssertionError(("edge along a frame's title row", e["src"], e["dst"], g))
    inside = [e for e in edges if not e["across"]]  # two edges into different boxes never drawn on one line
    for i, e in enumerate(inside):
        for other in inside[i + 1:]:
            if other["dst"] == e["dst"] or other["src"] == e["src"]:
                continue
            for a in segments(e["points"]):
                for b in segments(other["points"]):
                    assert shared_run(a, b) <= 2, ("edges drawn on one line", (e["src"], e["dst"]), (other["src"], other["dst"]))


def opened(model, which):
    series = top_series(model)
    gradient = next(g for g in model["groups"] if g["kind"] == "grad" and g["parent"] is None)
    mirror = next(g for g in model["groups"] if g["kind"] == "series" and g["region"] == "gradient")
    return {"top_level": [],
            "forward_series": [series["id"]],
            "gradient": [gradient["id"]],
            "first_layer": [series["id"], series["series"]["items"][0]],
            "both_series": [series["id"], gradient["id"], mirror["id"]]}[which]


@pytest.mark.parametrize("which", ["top_level", "forward_series", "gradient", "first_layer", "both_series"])
def test_simple_layout_draws_no_edge_or_label_over_boxes_frames_or_each_other(browser, tmp_path, mlp, which):
    state = {"open": opened(mlp, which), "selected": "", "overlay": ""}
    page, errors = open_page(browser, viewer_page(tmp_path / "saved.html", mlp, state=state, elk=False))
    assert page.get_attribute(".symnb-viewer", "data-engine") == "simple layered layout"
    laid = laid_out(page)
    assert set(state["open"]) <= set(laid["frames"])
    assert_clean(mlp, laid)
    shot(page, f"30_simple_layout_{which}")
    assert not errors
