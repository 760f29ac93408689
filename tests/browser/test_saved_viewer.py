"""The graph viewer saved with the notebook, in Chromium (issue 28): opened with no kernel
in nbconvert's HTML and in trusted JupyterLab, in the state the user left; the static
overview where no script runs; what the saved budget left out named in the view; names
as text; the live view sending no kernel message for opening, closing, selecting and
searching, and leaving nothing behind in the page.

Screenshots go to build/screenshots/saved/ (looked at: see the report). Skipped where no
browser can be had (tests/optional_tools.py) or without jupyterlab / nbconvert."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.parse

import pytest

from tests.browser.mlp12 import mlp12_train
from tests.browser.test_jupyterlab import (SCREENSHOTS, sync_api, chromium_browser, jupyterlab_server, open_notebook,
                                           run_all, save_and_close, shut_down_kernels, write_notebook)
from tests.browser.viewer_page import STAND_IN_MODEL
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]
nbformat = pytest.importorskip("nbformat", reason="the nbformat package is not installed")

SHOTS = SCREENSHOTS / "saved"
XSS = "<img src=x onerror=window.__xss=1>"


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as chromium:
        yield chromium


def shot(page, name, locator=None):
    SHOTS.mkdir(parents=True, exist_ok=True)
    if locator is None:
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    else:
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(SHOTS / f"{name}.png"))


def xss_graph():
    import numpy as np

    import symnb.tensor as T

    x = T.vector(XSS, test_value=np.ones(3, "float32"))
    return T.tanh(x * np.float32(2))


def outputs_of(explorer, state=None):
    """The three outputs a kernel displays for an explorer: the live view, the snapshot
    (with the saved viewer) and the state output."""
    from symnb.widgets.viewer import state_html

    state_out = {"text/html": state_html(explorer.snapshot_key, state or explorer.view_state()), "text/plain": ""}
    return [nbformat.v4.new_output("display_data", data=d)
            for d in (explorer.live_bundle(), explorer.snapshot_bundle(), state_out)]


def to_html(tmp_path, cells):
    """Write a notebook of ``cells`` (source, outputs) and convert it with nbconvert."""
    notebook = nbformat.v4.new_notebook()
    for source, outputs in cells:
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = outputs
        notebook.cells.append(cell)
    path = tmp_path / "saved.ipynb"
    nbformat.write(notebook, path)
    done = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", str(path)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "No module named nbconvert" in done.stderr:
        pytest.skip("nbconvert is not installed")
    assert done.returncode == 0, done.stderr[-2000:]
    return path, tmp_path / "saved.html"


def series_of(model):
    return next(g for g in model["groups"] if g["kind"] == "series" and g["parent"] is None)


def test_two_saved_views_boot_in_the_state_left_with_no_kernel(browser, tmp_path):
    """nbconvert's HTML: both views of the page boot (the second one failed with a
    SyntaxError: the viewer was declared again), each in the state saved with it."""
    from symnb.widgets import GraphExplorer

    mlp = GraphExplorer(mlp12_train())
    model = mlp.view_model()
    series = series_of(model)
    op = next(n for n in model["nodes"] if n["kind"] == "op" and n["group"] == series["series"]["items"][3])
    overlay = sorted(model["overlays"])[0]
    state = {"open": [series["id"]], "selected": op["id"], "overlay": overlay}
    named = GraphExplorer(xss_graph())
    _, html_path = to_html(tmp_path, [("GraphExplorer(train)", outputs_of(mlp, state)),
                                      ("GraphExplorer(y)", outputs_of(named))])
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html_path.as_uri())
    views = page.locator(".symnb-snapshot")
    assert views.count() == 2
    for i in range(2):
        views.nth(i).scroll_into_view_if_needed()
        views.nth(i).locator(".symnb-saved-viewer g.symnb-node").first.wait_for(timeout=60_000)
    assert not errors, errors
    first = views.nth(0)
    first.scroll_into_view_if_needed()
    # The state the user left: the series open, the node selected (its groups opened around
    # it), the overlay chosen, its legend shown.
    assert first.locator(f'g.symnb-frame[data-group="{series["id"]}"]').count() == 1
    assert first.locator("g.symnb-node.symnb-selected").count() == 1
    assert first.locator(".symnb-card-title").inner_text() == op["label"]
    assert first.locator("select.symnb-overlay").input_value() == overlay
    assert first.locator(".symnb-legend").is_visible()
    assert first.locator(".symnb-overview").is_hidden()
    shot(page, "01_nbconvert_state_left", first)
    # A group opens with no kernel; a node's card shows what the model saved.
    item = series["series"]["items"][0]
    box = first.locator(f'g.symnb-node[data-id="{item}"]')
    box.click()
    box.click()
    first.locator(f'g.symnb-frame[data-group="{item}"]').wait_for(timeout=30_000)
    inside = next(n for n in model["nodes"] if n["group"] == item and n["kind"] == "op")
    first.locator(f'g.symnb-node[data-id="{inside["id"]}"]').click()
    assert first.locator(".symnb-card-title").inner_text() == inside["label"]
    assert "live kernel" in first.locator(".symnb-card").inner_text()
    shot(page, "02_nbconvert_group_opened_card", first)
    # The second view: a variable named like an HTML tag shows as those characters.
    second = views.nth(1)
    second.scroll_into_view_if_needed()
    root = next(n for n in named.view_model()["nodes"] if n["name"] == XSS)
    second.locator(f'g.symnb-node[data-id="{root["id"]}"]').click()
    assert second.locator(".symnb-card-title").inner_text() == XSS
    assert second.locator("g.symnb-node text", has_text="<img src=x").count() >= 1
    assert page.evaluate("window.__xss") is None and second.locator(".symnb-saved-viewer img").count() == 0
    shot(page, "03_nbconvert_name_as_text", second)


def test_where_no_script_runs_the_collapsed_top_level_shows_legibly(browser, tmp_path):
    from symnb.widgets import GraphExplorer

    mlp = GraphExplorer(mlp12_train())
    named = GraphExplorer(xss_graph())
    _, html_path = to_html(tmp_path, [("GraphExplorer(train)", outputs_of(mlp)),
                                      ("GraphExplorer(y)", outputs_of(named))])
    context = browser.new_context(java_script_enabled=False, viewport={"width": 900, "height": 900})
    page = context.new_page()
    page.goto(html_path.as_uri())
    overview = page.locator(".symnb-overview img.symnb-graph").first
    assert overview.is_visible()
    assert_legible_in_its_cell(overview, page.locator(".jp-OutputArea-output").first)
    # The collapsed top level: few boxes.
    svg = urllib.parse.unquote(overview.get_attribute("src").split(",", 1)[1])
    assert svg.count('class="symnb-node') <= 20
    # The model is not shown as text where its script does not run.
    assert "H4sI" not in page.locator("body").inner_text()
    shot(page, "04_no_javascript_overview")
    named_svg = urllib.parse.unquote(page.locator(".symnb-overview img.symnb-graph").nth(1)
                                     .get_attribute("src").split(",", 1)[1])
    assert "&lt;img src=x" in named_svg and "<img src=x" not in named_svg
    context.close()


def assert_legible_in_its_cell(overview, cell):
    """The overview's smallest text (11 px in its SVG) is drawn at 9 px or more, and what
    shows of it (a wide one scrolls sideways) stays inside the cell."""
    svg = urllib.parse.unquote(overview.get_attribute("src").split(",", 1)[1])
    natural = float(svg.split('viewBox="', 1)[1].split('"', 1)[0].split()[2])
    shown = overview.bounding_box()["width"]
    assert 11 * shown / natural >= 9 - 0.05, (shown, natural)
    frame = overview.locator("xpath=..").bounding_box()
    assert frame["width"] <= cell.bounding_box()["width"] + 1


def test_past_the_budget_what_was_not_saved_is_named(browser, tmp_path):
    from symnb.printing.view_encode import decode_view_model, encode_view_model
    from symnb.widgets import GraphExplorer
    from symnb.widgets._view import snapshot_html
    from symnb.widgets.viewer import saved_viewer_html

    explorer = GraphExplorer(mlp12_train())
    model = explorer.view_model()
    whole = len(encode_view_model(model, budget_bytes=10**9))
    trimmed = encode_view_model(model, budget_bytes=int(whole * 0.8))
    left_out = decode_view_model(trimmed)["not_saved"]
    assert left_out
    body = snapshot_html("k1", saved_viewer_html("k1", trimmed))
    page = browser.new_page(viewport={"width": 1100, "height": 1000})
    page.set_content(f"<!doctype html><meta charset=utf-8><body>{body}</body>")
    page.locator(".symnb-saved-viewer g.symnb-node").first.wait_for(timeout=30_000)
    banner = page.locator(".symnb-not-saved")
    assert banner.is_visible() and left_out[0] in banner.inner_text()
    saved = decode_view_model(trimmed)
    bare = next(n for n in saved["nodes"] if n["summary"] is None and n["code"] is None and n["kind"] == "op")
    page.evaluate(f"document.querySelector('.symnb-snapshot').symnbView.reveal({json.dumps(bare['id'])})")
    page.locator(f'g.symnb-node[data-id="{bare["id"]}"]').click()
    assert "not saved" in page.locator(".symnb-card-not-saved").inner_text()
    shot(page, "05_past_the_budget_named")


LEFT_BEHIND = """async ([esm, data, elk]) => {
  // What the view's module (loaded from a Blob URL) adds to the page, less what it removes.
  const ours = () => /blob:/.test(new Error().stack);
  window.added = { workers: 0, urls: 0, windowListeners: 0 };
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) { super(...a); if (ours()) { window.added.workers += 1; } }
    terminate() { window.added.workers -= 1; super.terminate(); }
  };
  const create = URL.createObjectURL, revoke = URL.revokeObjectURL;
  const mine = new Set();
  URL.createObjectURL = (b) => { const u = create(b); if (ours()) { mine.add(u); window.added.urls += 1; } return u; };
  URL.revokeObjectURL = (u) => { if (mine.delete(u)) window.added.urls -= 1; revoke(u); };
  const add = window.addEventListener.bind(window), remove = window.removeEventListener.bind(window);
  window.addEventListener = (...a) => { if (ours()) window.added.windowListeners += 1; add(...a); };
  window.removeEventListener = (...a) => { if (ours()) window.added.windowListeners -= 1; remove(...a); };
  const model = STAND_IN(data, elk, []);
  const module = await import(create(new Blob([esm], { type: "text/javascript" })));
  window.again = () => module.default.render({ model, el: document.getElementById("host") });
  const el = document.getElementById("host");
  window.cleanup = module.default.render({ model, el });
  for (let i = 0; i < 400 && !(el.querySelector(".symnb-viewer") && el.querySelector(".symnb-viewer").dataset.drawn); i++)
    await new Promise((r) => setTimeout(r, 50));
  return el.querySelector(".symnb-viewer").dataset.engine;
}""".replace("STAND_IN", STAND_IN_MODEL)


def test_the_live_view_removes_what_it_added(browser, tmp_path):
    """Workers, Blob URLs, window listeners and the style hiding the snapshot go with the
    view (the style stayed, hiding the snapshot of a view that was gone)."""
    from symnb.printing.view_encode import encode_view_model
    from symnb.printing.view_model import view_model
    from symnb.widgets._view import snapshot_html
    from symnb.widgets.viewer import elk_source, viewer_css, widget_esm

    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    snapshot = snapshot_html("k1", "<p>the saved view</p>")
    (tmp_path / "w.html").write_text(f"<!doctype html><style>{viewer_css()}</style><div id=host></div>{snapshot}")
    page.goto((tmp_path / "w.html").as_uri())
    engine = page.evaluate(LEFT_BEHIND, [widget_esm(), encode_view_model(view_model(mlp12_train(layers=3))),
                                         elk_source()])
    assert engine == "ELK layered"
    added = page.evaluate("window.added")
    assert added["workers"] == 1 and added["urls"] == 1, added
    assert page.locator(".symnb-snapshot").is_hidden()  # while the live view shows
    page.locator("g.symnb-node").first.wait_for()
    box = page.locator(".symnb-viewport").bounding_box()
    page.mouse.move(box["x"] + 5, box["y"] + box["height"] - 5)
    page.mouse.down()  # panning: listening on the window
    assert page.evaluate("window.added.windowListeners") > 0
    page.evaluate("window.cleanup()")
    assert page.evaluate("window.added") == {"workers": 0, "urls": 0, "windowListeners": 0}
    assert page.locator("#host *").count() == 0
    assert page.locator("style[id^='symnb-live-']").count() == 0
    assert page.locator(".symnb-snapshot").is_visible()  # the view is gone: its snapshot shows
    # A view gone before ELK's source reaches it (its worker would start then) leaves no worker.
    page.evaluate("window.again()()")
    page.wait_for_timeout(300)
    assert page.evaluate("window.added") == {"workers": 0, "urls": 0, "windowListeners": 0}


# -- JupyterLab ---------------------------------------------------------------------------------

LAB_NOTEBOOK = "saved_viewer.ipynb"
LAB_CELLS = ["""import numpy as np
import symnb.tensor as T
from tests.browser.mlp12 import mlp12_train
from symnb.widgets import GraphExplorer
train = mlp12_train()
x = T.vector(%r, test_value=np.ones(3, "float32"))
y = T.tanh(x * np.float32(2))""" % XSS, "GraphExplorer(train)", "GraphExplorer(y)"]


def comm_messages(frames, kind: str | None = None) -> int:
    """How many comm messages the page sent; with ``kind``, how many of the views' custom
    messages of that kind (their content's key: "state", "details", "elk")."""
    texts = [f if isinstance(f, str) else f.decode("latin-1") for f in frames]
    texts = [t for t in texts if "comm_msg" in t]
    if kind is None:
        return len(texts)
    return sum(1 for t in texts if kind in re.findall(r'"content":\s*\{\s*"(\w+)"', t))


def test_in_jupyterlab_no_kernel_message_then_saved_and_reopened_with_no_kernel(browser, tmp_path):
    pytest.importorskip("jupyterlab", reason="the jupyterlab package is not installed")
    from symnb.widgets.viewer import STATE_DEBOUNCE_MS

    write_notebook(tmp_path / LAB_NOTEBOOK, LAB_CELLS)
    with jupyterlab_server(tmp_path) as lab:
        page = open_notebook(browser, lab, LAB_NOTEBOOK)
        frames = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(payload)))
        page.reload()  # the kernel's websocket opened again, now watched
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=60_000)
        run_all(page)
        views = page.locator(".symnb-explorer .symnb-viewer")
        try:
            views.nth(1).locator("g.symnb-node").first.wait_for(timeout=180_000)
        except sync_api.TimeoutError:
            shot(page, "lab_failed_to_show")
            raise
        live = views.nth(0)
        live.locator("g.symnb-node").first.wait_for(timeout=60_000)
        page.wait_for_timeout(STATE_DEBOUNCE_MS + 1000)  # the views' first state messages, if any
        assert frames, "the kernel's websocket was not seen"
        before, states = comm_messages(frames), comm_messages(frames, "state")

        # Open, select, search, close: no kernel message.
        # The kernel's ids: read from the page (its boxes), found by their text.
        series = {"id": live.locator("g.symnb-node", has_text="12 calls").get_attribute("data-id")}
        box = live.locator(f'g.symnb-node[data-id="{series["id"]}"]')
        box.click()
        box.click()
        live.locator(f'g.symnb-frame[data-group="{series["id"]}"]').wait_for(timeout=30_000)
        item = live.locator("g.symnb-node", has_text="layer(W2)").get_attribute("data-id")
        live.locator(f'g.symnb-node[data-id="{item}"]').click()
        live.locator(f'g.symnb-node[data-id="{item}"]').click()
        live.locator(f'g.symnb-frame[data-group="{item}"]').wait_for(timeout=30_000)
        live.locator("input.symnb-search").type("W5", delay=30)
        live.locator("input.symnb-search").press("Enter")
        page.wait_for_function("() => document.querySelector('.symnb-viewer .symnb-card-title')"
                               " && document.querySelector('.symnb-viewer .symnb-card-title').textContent.includes('W5')")
        live.locator("input.symnb-search").fill("")
        # Close (the frame's title; the search's hit list may lie over it: the click goes
        # to the title all the same, as the user's would once the list is gone).
        live.locator(f'g.symnb-frame[data-group="{item}"] .symnb-frame-title').dispatch_event("click")
        page.wait_for_function(f"() => !document.querySelector('g.symnb-frame[data-group=\"{item}\"]')")
        overlay = live.locator("select.symnb-overlay option").nth(1).get_attribute("value")
        live.locator("select.symnb-overlay").select_option(overlay)
        # None but the state, saved once the user pauses: a machine slower than the
        # debounce between two of these steps sends it between them too.
        sent = comm_messages(frames) - before
        assert sent == comm_messages(frames, "state") - states, "a click sent the kernel a message"
        shot(page, "06_lab_live_after_clicks", live.locator("xpath=.."))
        # After the user stops: the state, once (unless a slow machine sent it already);
        # the heavy details on demand: one message.
        page.wait_for_timeout(STATE_DEBOUNCE_MS + 1500)
        assert comm_messages(frames, "state") - states == max(sent, 1) or \
            comm_messages(frames, "state") - states == sent + 1
        assert comm_messages(frames) == before + comm_messages(frames, "state") - states
        after = comm_messages(frames)
        left = live.evaluate("v => v.parentNode.symnbView.state()")
        live.locator(".symnb-kernel-details").click()
        live.locator(".symnb-card-kernel").get_by_text("W5").first.wait_for(timeout=60_000)
        assert comm_messages(frames) == after + 1 and comm_messages(frames, "details") == 1
        assert series["id"] in left["open"] and left["overlay"] == overlay
        page.wait_for_timeout(1500)  # the state output updated in the page

        # Save, close, no kernel: the saved viewer, in the state left.
        save_and_close(page, lab)
        saved = json.loads((lab["root"] / LAB_NOTEBOOK).read_text())
        size = len(json.dumps(saved))
        assert size < 2_000_000, size
        page = open_notebook(browser, lab, LAB_NOTEBOOK, kernel=False)
        snapshot = page.locator(".symnb-snapshot").first
        snapshot.scroll_into_view_if_needed()
        snapshot.locator(".symnb-saved-viewer g.symnb-node").first.wait_for(timeout=60_000)
        view = snapshot.locator(".symnb-saved-viewer")
        assert view.locator(f'g.symnb-frame[data-group="{series["id"]}"]').count() == 1
        assert "W5" in view.locator(".symnb-card-title").inner_text()
        assert view.locator("g.symnb-node.symnb-selected").count() == 1
        assert view.locator("select.symnb-overlay").input_value() == overlay
        shot(page, "07_lab_reopened_no_kernel_state_left", snapshot)
        # A group opens, a node's card shows, with no kernel.
        item = view.locator("g.symnb-node", has_text="layer(W0)").get_attribute("data-id")
        view.locator(f'g.symnb-node[data-id="{item}"]').click()
        view.locator(f'g.symnb-node[data-id="{item}"]').click()
        view.locator(f'g.symnb-frame[data-group="{item}"]').wait_for(timeout=30_000)
        view.locator("g.symnb-node", has_text="T.dot(x, W)").first.click()
        assert view.locator(".symnb-card-title").inner_text() == "T.dot(x, W)"
        shot(page, "08_lab_reopened_group_opened_card", snapshot)
        named = page.locator(".symnb-snapshot").nth(1)
        named.scroll_into_view_if_needed()
        named.locator(".symnb-saved-viewer g.symnb-node", has_text="<img src=x").first.wait_for(timeout=60_000)
        assert page.evaluate("window.__xss") is None
        shot(page, "09_lab_reopened_name_as_text", named)
        page.close()
        shut_down_kernels(lab)

        # Untrusted (a copy JupyterLab has not signed): the static overview, legible.
        saved["metadata"]["copied"] = True
        (lab["root"] / "untrusted.ipynb").write_text(json.dumps(saved))
        page = open_notebook(browser, lab, "untrusted.ipynb", kernel=False)
        overview = page.locator(".symnb-snapshot .symnb-overview img.symnb-graph").first
        overview.wait_for(timeout=30_000)
        assert page.locator(".symnb-saved-viewer g.symnb-node").count() == 0
        assert_legible_in_its_cell(overview, page.locator(".jp-OutputArea-output").first)
        assert "H4sI" not in page.locator(".jp-Notebook").inner_text()
        shot(page, "10_lab_untrusted_overview", page.locator(".symnb-snapshot").first)
        page.close()
        shut_down_kernels(lab)
