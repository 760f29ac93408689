"""The viewer's layout for ML graphs, measured in Chromium (issue 28, "How it is checked"):
the 12-layer MLP's training function and notebook 09's convnet. The numbers are read
from the drawn geometry and checked against the view model computed here in Python
(which box holds which node, how many edges join two boxes). Screenshots of each state go
to build/screenshots/viewer/ (looked at: see the report)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.browser.cnn09 import cnn09_train
from tests.browser.mlp12 import mlp12_train
from tests.browser.test_viewer import crosses, open_page, shot, smallest_text_px
from tests.browser.test_viewer import browser, mlp  # noqa: F401 (the same module-scoped fixtures)
from tests.browser.viewer_page import viewer_page
from tests.optional_tools import needs_chromium

WIDE = 3200  # px: a page where the MLP's opened regions fit side by side at full size

pytestmark = [pytest.mark.slow, needs_chromium]


def drawn(page):
    """Boxes {id: [x, y, w, h]}, frames, and edges (points; count label for bundles that
    join two regions), in layout units."""
    return page.evaluate("""() => { const g = mounted.view.geometry();
      const rect = (r) => [r.x, r.y, r.w, r.h];
      return { boxes: Object.fromEntries([...g.boxes].map(([k, r]) => [k, rect(r)])),
               frames: Object.fromEntries([...g.frames].map(([k, r]) => [k, rect(r)])),
               edges: g.edges.map((e) => ({ src: e.src, dst: e.dst, across: !!e.across,
                 label: e.across ? e.labels[0].text : null, points: e.points.map((p) => [p.x, p.y]) })) }; }""")


def centre(r):
    return r[0] + r[2] / 2, r[1] + r[3] / 2


def assert_no_edge_crosses_a_box(laid):
    for edge in laid["edges"]:
        for box_id, box in laid["boxes"].items():
            if box_id not in (edge["src"], edge["dst"]):
                assert not crosses(edge["points"], box), (edge["src"], edge["dst"], box_id)


def groups_by_id(model):
    return {g["id"]: g for g in model["groups"]}


def outermost(model, node):
    """The top-level box holding ``node`` with every group closed (Python's reading)."""
    groups = groups_by_id(model)
    g = node["group"]
    if g is None:
        return node["id"]
    while groups[g]["parent"] is not None:
        g = groups[g]["parent"]
    return g


def region_of(model, box):
    groups = groups_by_id(model)
    item = groups.get(box) or next(n for n in model["nodes"] if n["id"] == box)
    return item.get("region") or "forward"


def top_series(model):
    return next(g for g in model["groups"] if g["kind"] == "series" and g["parent"] is None and g["region"] == "forward")


def test_mlp12_top_level_spine_inputs_and_bundled_regions(browser, tmp_path, mlp):
    page, errors = open_page(browser, viewer_page(tmp_path / "mlp.html", mlp))
    laid = drawn(page)
    boxes = laid["boxes"]
    assert len(boxes) <= 20
    assert smallest_text_px(page) >= 9
    # The inputs are drawn, above the layers they feed.
    series = top_series(mlp)["id"]
    inputs = [n["id"] for n in mlp["nodes"] if n["kind"] == "input"]
    assert set(inputs) <= set(boxes)
    x = next(n["id"] for n in mlp["nodes"] if n["kind"] == "input" and n["name"] == "x")
    assert boxes[x][1] + boxes[x][3] <= boxes[series][1]
    # The forward groups in one column (spread within one box width).
    forward = [b for b in boxes if b in groups_by_id(mlp) and region_of(mlp, b) == "forward"]
    assert len(forward) >= 2
    xs = [centre(boxes[b])[0] for b in forward]
    assert max(xs) - min(xs) <= min(boxes[b][2] for b in forward), forward
    assert_no_edge_crosses_a_box(laid)
    # Between regions: one edge per pair of boxes, labelled with the model's edge count.
    expected = Counter()
    nodes = {n["id"]: n for n in mlp["nodes"]}
    for e in mlp["edges"]:
        a, b = outermost(mlp, nodes[e["src"]]), outermost(mlp, nodes[e["dst"]])
        if region_of(mlp, a) != region_of(mlp, b):
            expected[(a, b)] += 1
    across = [(e["src"], e["dst"]) for e in laid["edges"] if e["across"]]
    assert sorted(across) == sorted(expected)  # bundled: each pair once
    for e in laid["edges"]:
        if e["across"]:
            assert e["label"] == f"\u00d7{expected[(e['src'], e['dst'])]}"
    assert expected[(series, next(g["id"] for g in mlp["groups"] if g["kind"] == "grad" and g["parent"] is None))] > 12
    shot(page, "10_mlp12_top_level")
    # The loss the user wrote as one call is one box with that call's name.
    crossentropy = next(g["id"] for g in mlp["groups"] if g["kind"] == "opcall" and "crossentropy" in g["label"])
    assert page.evaluate(f"mounted.view.reveal({json.dumps(crossentropy)})") is True
    title = page.locator(f'g.symnb-node[data-id="{crossentropy}"] text.symnb-box-title').text_content()
    assert title == "categorical_crossentropy"
    assert not errors


def test_mlp12_series_opens_in_place_to_a_straight_column(browser, tmp_path, mlp):
    page, errors = open_page(browser, viewer_page(tmp_path / "mlp.html", mlp))
    series = top_series(mlp)["id"]
    layers = list(top_series(mlp)["series"]["items"])
    assert len(layers) == 12
    box = page.locator(f'g.symnb-node[data-id="{series}"]')
    box.click()  # select
    before = box.bounding_box()
    box.click()  # a selected group's second click opens it
    title = page.locator(f'g.symnb-frame[data-group="{series}"] .symnb-frame-title')
    title.wait_for()
    after = title.bounding_box()
    # The selection stays in place: the frame's title row is where the box's top was.
    assert abs(after["y"] - before["y"]) < 12 and abs(after["x"] - before["x"]) < before["width"]
    laid = drawn(page)
    assert len(laid["boxes"]) <= 20, sorted(laid["boxes"])
    centres = [centre(laid["boxes"][g])[0] for g in layers]
    width = min(laid["boxes"][g][2] for g in layers)
    assert max(centres) - min(centres) <= width
    assert_no_edge_crosses_a_box(laid)
    order = {g: i for i, g in enumerate(layers)}
    joins = {(order[e["src"]], order[e["dst"]]) for e in laid["edges"] if e["src"] in order and e["dst"] in order}
    assert joins == {(i, i + 1) for i in range(11)}  # only the data path joins two layers
    page.evaluate("mounted.view.fit()")
    assert smallest_text_px(page) >= 9
    shot(page, "11_mlp12_series_open_in_place")
    # relu (abs, add, mul and its constant) is one box named relu inside each layer.
    assert page.evaluate(f"mounted.view.open({json.dumps(layers[0])})") is True
    relu = next(g["id"] for g in mlp["groups"] if g["kind"] == "opcall" and g["parent"] == layers[0])
    assert page.locator(f'g.symnb-node[data-id="{relu}"] text.symnb-box-title').text_content() == "relu"
    assert_no_edge_crosses_a_box(drawn(page))
    assert not errors


@pytest.mark.parametrize("elk", [True, False], ids=["elk", "saved_view_simple_layout"])
def test_mlp12_gradient_mirrors_the_forward_layers(browser, tmp_path, mlp, elk):
    groups = groups_by_id(mlp)
    series = top_series(mlp)
    gradient = next(g for g in mlp["groups"] if g["kind"] == "grad" and g["parent"] is None)
    mirror = next(g for g in mlp["groups"] if g["kind"] == "series" and g["region"] == "gradient")
    assert mirror["mirrors"] == series["id"]
    state = {"open": [series["id"], gradient["id"], mirror["id"]], "selected": "", "overlay": ""}
    # Side by side where the regions fit the view's width at full size (a wide page); a
    # narrower one stacks them (tests/browser/test_first_view.py).
    page, errors = open_page(browser, viewer_page(tmp_path / "grad.html", mlp, state=state, elk=elk, width=WIDE), width=WIDE + 100)
    assert page.evaluate("mounted.view.geometry().arrangement") == "side by side"
    engine = "ELK layered" if elk else "simple layered layout"  # the saved view has no ELK
    assert page.get_attribute(".symnb-viewer", "data-engine") == engine
    laid = drawn(page)
    boxes = laid["boxes"]
    pairs = [(g, groups[g]["mirrors"]) for g in mirror["series"]["items"]]
    assert len(pairs) == 12
    for grad_call, forward_call in pairs:  # level with its forward layer
        assert abs(centre(boxes[grad_call])[1] - centre(boxes[forward_call])[1]) <= boxes[forward_call][3] / 2
        assert centre(boxes[grad_call])[0] > boxes[forward_call][0] + boxes[forward_call][2]
    straight = [e for e in laid["edges"] if e["across"] and groups.get(e["dst"], {}).get("mirrors") == e["src"]]
    assert len(straight) == 12 and all(len(e["points"]) == 2 for e in straight)  # layer k -> its gradient: one line
    assert_no_edge_crosses_a_box(laid)
    assert smallest_text_px(page) >= 9
    # Past "fit" at legible text: the minimap shows where the view is.
    assert page.locator("canvas.symnb-minimap").is_visible()
    shot(page, f"12_mlp12_gradient_mirrors_forward_{'elk' if elk else 'simple'}")
    updates = next(g["id"] for g in mlp["groups"] if g["region"] == "updates" and g["parent"] is None)
    assert page.evaluate(f"mounted.view.open({json.dumps(updates)})") is True
    page.evaluate("mounted.view.fit()")
    laid = drawn(page)
    assert_no_edge_crosses_a_box(laid)
    inside = [b for b in laid["boxes"] if any(n["id"] == b and n["group"] == updates for n in mlp["nodes"])]
    assert len(inside) == 24
    assert max(r[0] for r in map(laid["boxes"].get, inside)) - min(r[0] for r in map(laid["boxes"].get, inside)) < 600
    shot(page, f"13_mlp12_everything_open_{'elk' if elk else 'simple'}")
    assert not errors


def test_which_layers_gradient_vanished_is_one_click(browser, tmp_path, mlp):
    page, errors = open_page(browser, viewer_page(tmp_path / "mlp.html", mlp))
    page.select_option("select.symnb-overlay", "grad_norm")  # the one click
    series = top_series(mlp)
    cells = page.locator(f'g.symnb-node[data-id="{series["id"]}"] rect.symnb-strip-cell')
    assert cells.count() == 12
    # The outlined cell is the call whose parameters' gradient norm is smallest (Python).
    norms = mlp["overlays"]["grad_norm"]["values"]
    per_call = {call: max(v for k, v in norms.items() if next(n for n in mlp["nodes"] if n["id"] == k)["group"] == call)
                for call in series["series"]["items"]}
    lowest = min(per_call, key=per_call.get)
    assert page.locator("rect.symnb-strip-low").get_attribute("data-item") == lowest
    first = page.locator(".symnb-legend-link").first
    smallest = min(norms, key=norms.get)
    assert first.get_attribute("data-id") == smallest
    shot(page, "14_mlp12_grad_norm_one_click")
    first.click()  # shows that parameter, its layer opened
    page.wait_for_function(f"mounted.view.state().selected === {json.dumps(smallest)}")
    page.wait_for_selector(f'g.symnb-node.symnb-selected[data-id="{smallest}"]')
    shot(page, "15_mlp12_grad_norm_lowest_shown")
    assert not errors


def test_the_legends_scale_covers_every_node_it_names(browser, tmp_path, mlp):
    """The grad-norm legend's "lowest" is a parameter inside a closed layer: its bar runs
    from at most that value to at least the largest norm (every node the legend may
    name, not only the boxes drawn)."""
    page, errors = open_page(browser, viewer_page(tmp_path / "mlp.html", mlp))
    page.select_option("select.symnb-overlay", "grad_norm")
    norms = mlp["overlays"]["grad_norm"]["values"]
    low, high = (float(t) for t in page.locator(".symnb-legend-value").all_inner_texts()[:2])
    named = [float(t.split()[-1]) for t in page.locator(".symnb-legend-link").all_inner_texts()]
    half = 0.0005  # the legend writes three decimals
    assert abs(min(named) - min(norms.values())) <= half and abs(max(named) - max(norms.values())) <= half
    assert low <= min(named) + half and high >= max(named) - half
    shot(page, "40_mlp12_grad_norm_legend_covers_named_nodes")
    assert not errors


def test_notebook_09_convnet_flatten_is_one_box(browser, tmp_path):
    from symnb.printing.view_model import view_model

    model = view_model(cnn09_train())
    flatten = next(g for g in model["groups"] if g["kind"] == "opcall" and g["label"] == "flatten")
    parts = [n for n in model["nodes"] if n["group"] == flatten["id"]]
    assert len(parts) >= 2
    page, errors = open_page(browser, viewer_page(tmp_path / "cnn.html", model, state={"open": [], "selected": "", "overlay": ""}))
    laid = drawn(page)
    assert len(laid["boxes"]) <= 20
    assert_no_edge_crosses_a_box(laid)
    assert smallest_text_px(page) >= 9
    shot(page, "16_cnn09_top_level")
    page.evaluate(f"mounted.view.reveal({json.dumps(flatten['id'])})")
    page.wait_for_selector(f'g.symnb-node[data-id="{flatten["id"]}"]')
    assert "flatten" in page.locator(f'g.symnb-node[data-id="{flatten["id"]}"] text.symnb-box-title').text_content()
    assert_no_edge_crosses_a_box(drawn(page))
    shot(page, "17_cnn09_flatten_one_box")
    assert page.evaluate(f"mounted.view.open({json.dumps(flatten['id'])})") is True
    laid = drawn(page)
    assert {n["id"] for n in parts} <= set(laid["boxes"])  # opened: its parts
    assert_no_edge_crosses_a_box(laid)
    shot(page, "18_cnn09_flatten_opened")
    assert not errors


def test_time_share_of_a_closed_series_is_its_calls_sum(browser, tmp_path):
    """The time-share overlay from given times: the closed series box is coloured, and its
    card shows the sum of its nodes' shares (Python's sum of the model's numbers)."""
    from symnb.printing.view_model import view_model

    train = mlp12_train()
    times = {node: float(i + 1) for i, node in enumerate(train.nodes)}
    model = view_model(train, times=times, time_total=sum(times.values()))
    shares = model["overlays"]["time_share"]["values"]
    assert sum(shares.values()) == pytest.approx(1.0, rel=1e-2)
    series = top_series(model)
    groups = groups_by_id(model)

    def inside(group_id, target):
        while group_id is not None:
            if group_id == target:
                return True
            group_id = groups[group_id]["parent"]
        return False

    expected = sum(v for k, v in shares.items()
                   if inside(next((n["group"] for n in model["nodes"] if n["id"] == k), k), series["id"]))
    assert 0 < expected < 1
    page, errors = open_page(browser, viewer_page(tmp_path / "time.html", model))
    page.select_option("select.symnb-overlay", "time_share")
    assert page.locator(f'g.symnb-node[data-id="{series["id"]}"] > rect.symnb-box[style*="fill"]').count() == 1
    page.evaluate(f"mounted.view.select({json.dumps(series['id'])})")
    row = page.locator(".symnb-card-row", has_text="time share (sum inside)")
    # A share, as every part of the view writes it: a percentage.
    text = row.locator(".symnb-card-value").inner_text()
    assert text.endswith("%") and float(text[:-1]) == pytest.approx(100 * expected, rel=1e-2)
    shot(page, "19_mlp12_time_share_series_card")
    assert not errors


def test_an_overlay_where_nothing_differs_paints_nothing_alarming(browser, tmp_path, mlp):
    """No NaN anywhere (every count 0): the boxes take the scale's palest colour, not its
    darkest (a count of 0 must not read as the worst)."""
    assert set(mlp["overlays"]["nan_count"]["values"].values()) == {0}
    page, errors = open_page(browser, viewer_page(tmp_path / "nan.html", mlp))
    page.select_option("select.symnb-overlay", "nan_count")
    fills = page.evaluate("""() => [...document.querySelectorAll('g.symnb-node > rect.symnb-box[style*=fill]')]
        .map((r) => getComputedStyle(r).fill)""")
    assert fills and set(fills) == {"rgb(255, 245, 235)"}  # colourScale's colour at 0
    assert page.locator("g.symnb-dark").count() == 0
    assert not errors


def test_time_outside_the_program_is_in_the_legend_on_the_same_scale(browser, tmp_path):
    """A profile's time outside the XLA program (no box does that work) is drawn in the
    legend with its share and coloured on the boxes' scale: with the boxes it makes up
    the call. The share here is set in the model, as a profile's attribution writes it."""
    from symnb.printing.view_model import view_model

    train = mlp12_train()
    times = {node: float(i + 1) for i, node in enumerate(train.nodes)}
    model = view_model(train, times=times, time_total=sum(times.values()) / 0.6)
    overlay = model["overlays"]["time_share"]
    overlay["outside"] = 0.4  # the 40% of the call the node times above leave out
    assert sum(overlay["values"].values()) + overlay["outside"] == pytest.approx(1.0, rel=1e-2)
    page, errors = open_page(browser, viewer_page(tmp_path / "outside.html", model))
    page.select_option("select.symnb-overlay", "time_share")
    part = page.locator(".symnb-legend-part", has_text="outside the XLA program")
    assert part.count() == 1 and "40%" in part.inner_text()
    swatch = part.evaluate("el => getComputedStyle(el).borderLeftColor")
    r, g, b = (int(c) for c in swatch[4:-1].split(","))
    x = (245 - g) / 200  # where on the boxes' scale (viewer_draw.js colourScale) it sits
    assert abs(255 - 55 * x - r) <= 1 and abs(235 - 215 * x - b) <= 1
    assert x > 0.9  # 40% of the call: near the top of a scale whose boxes hold a few % each
    shot(page, "20_mlp12_time_outside_the_program_in_legend")
    assert not errors


def test_opening_a_forward_group_lays_out_only_the_forward_region_again(browser, tmp_path, mlp):
    """A region whose boxes did not change (the gradient, the updates, while a forward
    group opens) keeps its layout: ELK's worker lays out the forward region alone, and
    closing the group again lays out nothing (the first view's layout, drawn the same)."""
    page, errors = open_page(browser, viewer_page(tmp_path / "mlp.html", mlp))
    before = drawn(page)
    page.evaluate("""() => { window.laidOut = [];
      const run = SymnbViewer.ElkRunner.prototype.run;
      SymnbViewer.ElkRunner.prototype.run = function (graph, ms) { laidOut.push(graph.id); return run.call(this, graph, ms); }; }""")
    series = top_series(mlp)["id"]
    regions = {g.get("region") or "forward" for g in mlp["groups"]}
    assert {"forward", "gradient", "updates"} <= regions
    assert page.evaluate(f"mounted.view.open({json.dumps(series)})") is True
    assert page.evaluate("window.laidOut") == ["region:forward"]
    assert page.evaluate(f"mounted.view.close({json.dumps(series)})") is True
    assert page.evaluate("window.laidOut") == ["region:forward"]
    assert drawn(page) == before
    assert not errors


def chain_model(length: int) -> dict:
    """A flat chain of ``length`` ops after one input: as many boxes, no group."""
    nodes = [{"id": "n0", "kind": "input", "label": "x", "op": None, "name": "x", "group": None,
              "outs": [{"dtype": "float32", "shape": [4]}]}]
    for k in range(1, length + 1):
        nodes.append({"id": f"n{k}", "kind": "op", "label": f"tanh {k}", "op": "Elemwise", "name": None,
                      "group": None, "outs": [{"dtype": "float32", "shape": [4]}]})
    edges = [{"src": f"n{k - 1}", "out": 0, "dst": f"n{k}"} for k in range(1, length + 1)]
    return {"format": 1, "title": "chain", "nodes": nodes, "edges": edges, "groups": [], "open": [],
            "overlays": {}, "not_saved": []}


def test_a_view_past_what_elk_lays_out_in_seconds_is_laid_out_simply_and_says_so(browser, tmp_path):
    """ELK took 11-15 s on a 2,001-box view and never finished a 1,502-box flat one: past
    1,000 boxes the live view draws with the simple layout at once and names the reason."""
    page, errors = open_page(browser, viewer_page(tmp_path / "chain.html", chain_model(1200)))
    host = page.locator(".symnb-viewer")
    assert host.get_attribute("data-engine") == "simple layered layout"
    assert "1201 boxes, past the 1000 ELK lays out in seconds" in page.locator(".symnb-status").inner_text()
    laid = drawn(page)
    assert len(laid["boxes"]) == 1201
    ys = [laid["boxes"][f"n{k}"][1] for k in range(1201)]
    assert ys == sorted(ys) and len(set(ys)) == 1201  # the chain runs down, one box a row
    small = chain_model(300)  # under the limit: ELK
    page2, _ = open_page(browser, viewer_page(tmp_path / "small.html", small))
    assert page2.locator(".symnb-viewer").get_attribute("data-engine") == "ELK layered"
    assert not errors
