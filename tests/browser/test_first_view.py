"""The first views a newcomer meets (issue 40), in Chromium: the 12-layer MLP's training
function whole in a 750 px notebook cell at 9 px text or more, its regions stacked when
side by side would not fit; the minimap beside the view, never over the boxes; `fit`
under 9 px only when pressed again; the card panel folded; "open" bringing what it
opened into view; the saved view at the live view's positions (the layout kept in the
saved state); a profiled function shaded by time with share tags, in one unit; a click
made while ELK's late layout is on its way keeping the selection.

Screenshots go to build/screenshots/first_view/ (looked at: see the report). Skipped
where no browser can be had (tests/optional_tools.py)."""

from __future__ import annotations

import json

import pytest

from tests.browser.mlp12 import mlp12_train
from tests.browser.test_jupyterlab import SCREENSHOTS, chromium_browser
from tests.browser.test_viewer import smallest_text_px
from tests.browser.viewer_page import viewer_page
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]

SHOTS = SCREENSHOTS / "first_view"
CELL = 750  # px: a notebook cell's output width on a laptop


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def trained():
    from symnb.widgets import GraphExplorer

    explorer = GraphExplorer(mlp12_train())
    return explorer.view_model(), explorer.view_state()


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def open_cell(browser, path, width=CELL):
    page = browser.new_page(viewport={"width": width + 16, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    assert page.evaluate("window.ready") is True, errors
    return page, errors


SCREEN = """(root) => { const r = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const host = document.querySelector(root);
  const mini = host.querySelector('.symnb-minimap');
  return { viewport: r(host.querySelector('.symnb-viewport')),
           boxes: Object.fromEntries([...host.querySelectorAll('g.symnb-node')].map((g) => [g.dataset.id, r(g.querySelector('rect.symnb-box'))])),
           minimap: mini && mini.offsetParent !== null ? r(mini) : null,
           card: host.querySelector('.symnb-card').offsetParent !== null }; }"""


def on_screen(page, root="#host"):
    return page.evaluate(SCREEN, root)


def inside(rect, outer, slack=1.0):
    return (rect[0] >= outer[0] - slack and rect[1] >= outer[1] - slack
            and rect[2] <= outer[2] + slack and rect[3] <= outer[3] + slack)


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("width", [CELL, 1050], ids=["750px_cell", "1050px_lab_cell_card_beside"])
def test_the_mlp_training_functions_first_view_is_whole_in_a_750px_cell(browser, tmp_path, trained, width):
    model, state = trained
    page, errors = open_cell(browser, viewer_page(tmp_path / "mlp.html", model, state=state, width=width), width)
    assert page.evaluate("document.querySelector('.symnb-viewer').dataset.engine") == "ELK layered"
    seen = on_screen(page)
    boxes = seen["boxes"]
    assert len(boxes) >= 5  # x, y, layer() x12, the loss, the gradient, the updates
    # Whole: every box inside the view, none cut at an edge.
    cut = [i for i, r in boxes.items() if not inside(r, seen["viewport"])]
    assert not cut, cut
    assert smallest_text_px(page) >= 9
    # The regions did not fit side by side: stacked, each under the one before.
    geo = page.evaluate("""() => { const g = mounted.view.geometry();
      return { arrangement: g.arrangement, regions: g.regions.map((r) => [r.region, r.x, r.y, r.w, r.h]) }; }""")
    regions = geo["regions"]
    assert [r[0] for r in regions][:2] == ["forward", "gradient"]
    if geo["arrangement"] == "stacked":
        assert all(b[2] >= a[2] + a[4] for a, b in zip(regions, regions[1:]))
    # The picture fits: no minimap; were there one, it would stand beside the view.
    assert seen["minimap"] is None
    assert page.locator(".symnb-map-toggle").is_hidden()
    shot(page, f"01_mlp_train_first_view_{width}px")
    assert not errors


def test_fit_goes_under_9px_only_when_pressed_again_and_the_minimap_clears_the_boxes(browser, tmp_path, trained):
    model, _ = trained
    series = next(g["id"] for g in model["groups"] if g.get("series") and g["parent"] is None)
    grads = [g["id"] for g in model["groups"] if g["region"] == "gradient" and g["parent"] is None]
    state = {"open": [series, *grads], "selected": "", "overlay": ""}
    page, errors = open_cell(browser, viewer_page(tmp_path / "mlp.html", model, state=state, width=CELL))
    assert page.evaluate("window.mounted.view.transform().scale") >= 0.75
    seen = on_screen(page)
    assert any(not inside(r, seen["viewport"]) for r in seen["boxes"].values()), "the opened picture should not fit"
    # Bigger than the view: the minimap shows, beside the view, over no box.
    assert seen["minimap"] is not None
    assert not overlap(seen["minimap"], seen["viewport"])
    assert not any(overlap(seen["minimap"], r) for r in seen["boxes"].values())
    shot(page, "02_mlp_opened_minimap_beside")
    page.locator(".symnb-button", has_text="fit").click()
    assert page.evaluate("window.mounted.view.transform().scale") >= 0.75  # first press: text stays legible
    page.locator(".symnb-button", has_text="fit").click()  # second press: the whole picture, however small
    scale = page.evaluate("window.mounted.view.transform().scale")
    seen = on_screen(page)
    assert scale < 0.75
    assert all(inside(r, seen["viewport"]) for r in seen["boxes"].values())
    assert seen["minimap"] is None  # the whole picture shows: no minimap
    shot(page, "03_mlp_opened_fit_pressed_twice")
    # The card panel folds away, and comes back.
    assert seen["card"]
    page.locator(".symnb-card-toggle").click()
    assert not on_screen(page)["card"]
    page.locator(".symnb-card-toggle").click()
    assert on_screen(page)["card"]
    assert not errors


def test_opening_a_group_brings_what_it_opened_into_view(browser, tmp_path, trained):
    model, state = trained
    grad = next(g["id"] for g in model["groups"] if g["region"] == "gradient" and g["parent"] is None)
    page, errors = open_cell(browser, viewer_page(tmp_path / "mlp.html", model, state=state, width=CELL))
    # The user zoomed in on the top left corner: the gradient is out of view.
    page.evaluate("() => { const v = mounted.view; v.zoomAt(1.6, 0, 0); }")
    seen = on_screen(page)
    assert not inside(seen["boxes"][grad], seen["viewport"])
    page.evaluate(f"mounted.view.open({json.dumps(grad)})")
    frame = page.evaluate(f"""() => {{ const b = document.querySelector('g.symnb-frame[data-group={json.dumps(grad)}] rect')
      .getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }}""")
    viewport = on_screen(page)["viewport"]
    # Its frame's title row (where it closes) is in view, with as much of the frame as the
    # view holds (it is taller than the view here: its top left corner shows).
    assert inside([frame[0], frame[1], frame[0] + 20, frame[1] + 20], viewport)
    shown = [min(frame[2], viewport[2]) - max(frame[0], viewport[0]), min(frame[3], viewport[3]) - max(frame[1], viewport[1])]
    room = [min(frame[2] - frame[0], viewport[2] - viewport[0]), min(frame[3] - frame[1], viewport[3] - viewport[1])]
    assert shown[0] >= room[0] - 26 and shown[1] >= room[1] - 26, (shown, room)
    assert page.evaluate("window.mounted.view.transform().scale") == pytest.approx(1)  # back to full-size text
    shot(page, "04_gradient_opened_in_view")
    assert not errors


def test_the_saved_view_opens_at_the_live_views_positions(browser, tmp_path):
    from symnb.widgets import GraphExplorer
    from symnb.widgets._view import snapshot_html
    from symnb.widgets.viewer import saved_viewer_html, state_html, viewer_css

    explorer = GraphExplorer(mlp12_train())
    model = explorer.view_model()
    # The live view (ELK), telling its state as the widget does.
    live, errors = open_cell(browser, viewer_page(tmp_path / "live.html", model, state=explorer.view_state(), width=CELL,
                                                  options=", onState: (s) => { window.told = s; }"))
    assert live.evaluate("document.querySelector('.symnb-viewer').dataset.engine") == "ELK layered"
    told = live.evaluate("window.told")
    assert told["layout"]["open"] == sorted(told["open"])
    live_boxes = on_screen(live)["boxes"]
    live_geo = live.evaluate("() => Object.fromEntries([...mounted.view.geometry().boxes].map(([k, r]) => [k, [r.x, r.y, r.w, r.h]]))")
    # The kernel keeps it (the widget's state message) and writes it into the state output.
    explorer._take_state(json.loads(json.dumps(told)))
    key = explorer.snapshot_key
    body = snapshot_html(key, saved_viewer_html(key, explorer.view_data())) + state_html(key, explorer.view_state())
    (tmp_path / "saved.html").write_text(f'<!doctype html><meta charset="utf-8"><style>{viewer_css()}</style>'
                                         f'<body style="margin:8px;width:{CELL}px">{body}</body>', encoding="utf-8")
    saved = browser.new_page(viewport={"width": CELL + 16, "height": 1000})
    saved.goto((tmp_path / "saved.html").as_uri())
    saved.wait_for_function("document.querySelector('.symnb-snapshot').symnbView !== undefined", timeout=30_000)
    engine = saved.evaluate("document.querySelector('.symnb-saved-viewer .symnb-viewer').dataset.engine")
    assert engine == "the saved layout"  # ELK is not saved: its layout is
    saved_geo = saved.evaluate("""() => Object.fromEntries([...document.querySelector('.symnb-snapshot').symnbView
      .geometry().boxes].map(([k, r]) => [k, [r.x, r.y, r.w, r.h]]))""")
    assert saved_geo.keys() == live_geo.keys()
    for box, rect in live_geo.items():
        assert saved_geo[box] == pytest.approx(rect, abs=0.06), box
    # On screen too: each box where the live view drew it (relative to the view's corner).
    saved_boxes = on_screen(saved, ".symnb-saved-viewer")["boxes"]
    lv, sv = on_screen(live)["viewport"], on_screen(saved, ".symnb-saved-viewer")["viewport"]
    for box, rect in live_boxes.items():
        moved = [a - b for a, b in zip(saved_boxes[box], [sv[0], sv[1], sv[0], sv[1]])]
        assert moved == pytest.approx([a - b for a, b in zip(rect, [lv[0], lv[1], lv[0], lv[1]])], abs=0.6), box
    shot(live, "05_live_view")
    shot(saved, "06_saved_view_at_the_live_positions")
    assert not errors


def test_a_profiled_function_opens_shaded_by_time_with_share_tags(browser, tmp_path):
    from symnb.widgets import GraphExplorer

    explorer = GraphExplorer(mlp12_train(profile=True))
    model, state = explorer.view_model(), explorer.view_state()
    assert state["overlay"] == "time_share"
    page, errors = open_cell(browser, viewer_page(tmp_path / "prof.html", model, state=state, width=CELL))
    assert page.locator("select.symnb-overlay").input_value() == "time_share"
    shares = model["overlays"]["time_share"]["values"]
    parents = {g["id"]: g["parent"] for g in model["groups"]}
    holder = {n["id"]: n["group"] for n in model["nodes"]}

    def within(item, box):  # item (a node or group) is box or inside it
        group = item if item in parents else holder.get(item)
        while group is not None:
            if group == box:
                return True
            group = parents.get(group)
        return item == box

    tags = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('g.symnb-node')]
      .map((g) => [g.dataset.id, (g.querySelector('.symnb-share-tag') || {}).textContent || null]))""")
    fills = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('g.symnb-node')]
      .map((g) => [g.dataset.id, g.querySelector('rect.symnb-box').getAttribute('style') || ""]))""")
    checked = 0
    titles = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('g.symnb-node')].map((g) => {
      const t = g.querySelector('text.symnb-box-title').getBoundingClientRect(), s = g.querySelector('.symnb-share-tag');
      const r = s && s.getBoundingClientRect(); return [g.dataset.id, r ? [t.right, r.left, t.bottom, r.top] : null]; }))""")
    for box, tag in tags.items():
        expected = sum(v for item, v in shares.items() if within(item, box))
        if not any(within(item, box) for item in shares):
            assert tag is None, box
            continue
        # The tag: the box's share of the call, as a percentage (NumPy-free: the model's shares summed here).
        assert tag is not None and tag.endswith("%"), (box, tag)
        assert float(tag[:-1]) == pytest.approx(100 * expected, rel=5e-3, abs=1e-3), (box, tag, expected)
        assert "fill:rgb" in fills[box]
        right, left, bottom, top = titles[box]
        assert right <= left or bottom <= top, box  # the tag beside or under the title, not over it
        checked += 1
    assert checked >= 2  # the layers and the gradient at least (others may run fused with no share of their own)
    # One unit in the legend: every number a percentage.
    legend = page.locator(".symnb-legend").inner_text()
    numbers = [w for w in legend.replace(":", " ").split() if w[:1].isdigit()]
    assert numbers and all(w.endswith("%") for w in numbers), legend
    shot(page, "07_profiled_first_view_shaded")
    assert not errors


LATE_ELK = """async ([data, elk]) => {
  let give = null;
  const source = new Promise((r) => { give = r; });
  let gate = null;
  window.openGate = new Promise((r) => { gate = r; }).then(() => null);
  window.gate = gate;
  const runner = new SymnbViewer.ElkRunner(source);
  const layout = runner.layout.bind(runner);
  window.layouts = 0;
  runner.layout = (g, t) => { window.layouts += 1; return window.openGate.then(() => layout(g, t)); };
  const model = await SymnbViewer.decodeModel(data);
  window.mounted = SymnbViewer.mount(document.getElementById("host"), { model, state: null, elk: runner, elkWaitMs: 50 });
  await window.mounted.ready;
  window.giveSource = () => give(elk);
  return document.querySelector('.symnb-viewer').dataset.engine;
}"""


def test_a_click_while_elks_late_layout_is_on_its_way_keeps_the_selection(browser, tmp_path, trained):
    from symnb.widgets.viewer import elk_source, viewer_css, viewer_source

    model, _ = trained
    (tmp_path / "late.html").write_text(f'<!doctype html><meta charset="utf-8"><style>{viewer_css()}</style>'
                                        f'<body style="width:{CELL}px"><div id="host"></div>'
                                        f'<script>{viewer_source()}</script></body>', encoding="utf-8")
    page = browser.new_page(viewport={"width": CELL + 16, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((tmp_path / "late.html").as_uri())
    data = json.dumps(model)
    assert page.evaluate(LATE_ELK, [data, elk_source()]) == "simple layered layout"
    page.evaluate("window.giveSource()")  # ELK's source comes: the view is laid out again...
    page.wait_for_function("window.layouts > 0")
    assert page.evaluate("document.querySelector('.symnb-viewer').dataset.engine") == "simple layered layout"
    target = next(n["id"] for n in model["nodes"] if n["kind"] == "input")
    page.locator(f'g.symnb-node[data-id="{target}"]').click()  # ...and the user clicks meanwhile
    assert page.evaluate("window.mounted.view.state().selected") == target
    page.evaluate("window.gate()")  # ELK's layout lands
    page.wait_for_function("document.querySelector('.symnb-viewer').dataset.engine === 'ELK layered'", timeout=30_000)
    assert page.evaluate("window.mounted.view.state().selected") == target
    assert page.locator(f'g.symnb-node.symnb-selected[data-id="{target}"]').count() == 1
    label = next(n["label"] for n in model["nodes"] if n["id"] == target)
    assert label in page.locator(".symnb-card-title").inner_text()
    assert not errors
