"""The failure view in Chromium (Playwright; no JupyterLab): the failing node drawn red in
the viewer while it is selected (the live view's first state) -- it showed the blue
selection border --, and the saved form of ``GraphExplorer(err)`` for a scan that read
``E[i_t]`` with ``i_t = 7`` at iteration 3: the failing node's card with that iteration's
inputs, the plot over the iterations, and the viewer on the call's values. Screenshots go
to build/screenshots/viewer/ (looked at: see the report).

Skipped where no browser can be had (see tests/optional_tools.py)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.widgets import GraphExplorer
from tests.browser.test_jupyterlab import chromium_browser
from tests.browser.test_viewer import open_page, shot
from tests.browser.viewer_page import viewer_page
from tests.optional_tools import needs_chromium
from tests.widgets.test_build_failure_view import make_build_error
from tests.widgets.test_failure_view import make_scan_error

pytestmark = [pytest.mark.slow, needs_chromium]

RED = "rgb(217, 48, 37)"


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as chromium:
        yield chromium


def _scan_error():
    return make_scan_error()


def _top_level_error():
    x = T.matrix("x")
    idx = T.ivector("idx")
    f = sn.function([x, idx], (T.tanh(x)[idx] ** 2).sum())
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(np.ones((3, 2), "float32"), np.array([0, 5], "int32"))
    return info.value


def _stroke(page, node_id):
    return page.evaluate(f"""() => {{ const r = document.querySelector('g.symnb-node[data-id="{node_id}"] > rect.symnb-box');
      return r ? getComputedStyle(r).stroke : null; }}""")


@pytest.mark.parametrize("make", [_top_level_error, _scan_error], ids=["top_level", "in_scan"])
def test_the_failing_node_is_red_while_selected(browser, tmp_path, make):
    explorer = GraphExplorer(make())
    state = explorer.view_state()  # what the live view starts from
    failing = [n["id"] for n in explorer.view_model()["nodes"] if n["failing"]]
    assert state["selected"] in failing  # the failing node (or the loop holding it) selected first
    path = viewer_page(tmp_path / "failing.html", explorer.view_model(), state=state)
    page, errors = open_page(browser, path)
    assert page.evaluate("mounted.view.state().selected") == state["selected"]
    box = page.locator(f'g.symnb-node[data-id="{state["selected"]}"]')
    assert "symnb-selected" in box.get_attribute("class") and "symnb-failing" in box.get_attribute("class")
    assert _stroke(page, state["selected"]) == RED
    shot(page, f"failure_selected_red_{make.__name__.strip('_')}")
    assert not errors
    page.close()


def test_the_saved_error_view_keeps_the_card_the_plot_and_the_calls_values(browser, tmp_path):
    err = _scan_error()
    explorer = GraphExplorer(err)
    saved = explorer.snapshot_bundle()["text/html"]
    path = tmp_path / "saved.html"
    path.write_text(f'<!doctype html><html><head><meta charset="utf-8"></head><body style="width:1100px">'
                    f"{saved}</body></html>", encoding="utf-8")
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function("document.querySelector('.symnb-snapshot').dataset.symnbBooted === '1'", timeout=60_000)
    page.locator(".symnb-saved-viewer g.symnb-node").first.wait_for(timeout=60_000)
    card = page.locator(".symnb-failing-card")
    assert card.is_visible()
    text = card.inner_text()
    assert "i_t = 7" in text and "float32 (5, 8)" in text and "not computed" in text
    assert page.locator("svg.symnb-iteration-plot").is_visible()
    holder = explorer.view_state()["selected"]
    assert _stroke(page, holder) == RED
    # The viewer's boxes carry the call's values: E's card says E's value in the call.
    e_id = next(n["id"] for n in explorer.view_model()["nodes"] if n["name"] == "E")
    page.evaluate(f"here = document.querySelector('.symnb-snapshot'); here.symnbView.select('{e_id}')")
    assert "float32 (5, 8) mean=1.95" in page.locator(".symnb-saved-viewer .symnb-card").inner_text()
    shot(page, "failure_saved_scan_view")
    assert not errors
    page.close()


def test_a_loop_failing_as_it_is_built_shows_its_body_its_card_and_its_values(browser, tmp_path):
    """Issue 40: the build-time loop failure as good as the call-time one: the body
    open with ``bias[t]`` red and selected, the failing iteration's inputs (t = 3, bias
    as NumPy has it), the plot over the iterations, in the saved view."""
    explorer = GraphExplorer(make_build_error())
    model, state = explorer.view_model(), explorer.view_state()
    inner = next(n for n in model["nodes"] if n["label"] == "bias[t]")
    assert inner["failing"] and state["selected"] == inner["id"] and inner["group"] in state["open"]
    path = viewer_page(tmp_path / "built.html", model, state=state)
    page, errors = open_page(browser, path, width=900)
    box = page.locator(f'g.symnb-node[data-id="{inner["id"]}"]')
    assert box.is_visible() and _stroke(page, inner["id"]) == RED
    shot(page, "failure_build_time_loop_viewer")
    page.close()
    saved = explorer.snapshot_bundle()["text/html"]
    path = tmp_path / "built_saved.html"
    path.write_text(f'<!doctype html><html><head><meta charset="utf-8"></head><body style="width:1000px">'
                    f"{saved}</body></html>", encoding="utf-8")
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function("document.querySelector('.symnb-snapshot').dataset.symnbBooted === '1'", timeout=60_000)
    page.locator(".symnb-saved-viewer g.symnb-node").first.wait_for(timeout=60_000)
    card = page.locator(".symnb-failing-card").inner_text()
    assert "Failed: bias[t]" in card and "t = 3" in card and "[0.1, 0.2, 0.3]" in card
    assert page.locator("svg.symnb-iteration-plot").is_visible()
    assert _stroke(page, inner["id"]) == RED
    shot(page, "failure_build_time_loop_saved")
    assert not errors
    page.close()


# -- live, in JupyterLab: the viewer with the failing loop red and selected, the card under
# it, and the iteration picker replaying the call in the kernel ------------------------------
from tests.browser.test_jupyterlab import (  # noqa: E402,F401 (fixtures and helpers)
    lab, open_notebook, run_all, shut_down_kernels, write_notebook,
)
from tests.browser.test_jupyterlab import shot as lab_shot  # noqa: E402

SCAN_CELLS = [
    """import numpy as np
import symnb as sn
import symnb.tensor as T
from symnb.widgets import GraphExplorer
E = sn.shared(np.arange(40, dtype="float32").reshape(5, 8) / 10, name="E")
idx = T.lvector("idx")
def step(i_t, h, E):
    return h + E[i_t].sum()
hs, _ = sn.scan(step, sequences=[idx], outputs_info=[T.constant(np.float32(0))], non_sequences=[E], name="step")
f = sn.function([idx], hs[-1])
try:
    f(np.array([0, 1, 2, 7, 3]))
except Exception as e:
    err = e""",
    "GraphExplorer(err)",
]


def test_the_live_failure_view_in_jupyterlab(lab, browser):
    write_notebook(lab["root"] / "scan_failure.ipynb", SCAN_CELLS)
    page = open_notebook(browser, lab, "scan_failure.ipynb")
    run_all(page)
    explorer = page.locator(".symnb-explorer").first
    explorer.locator("svg.symnb-graph g.symnb-node").first.wait_for(timeout=120_000)
    page.wait_for_timeout(2_000)
    lab_shot(page, explorer, "16_failure_view_live")
    # Two boxes red: the loop, and E[i_t] in the loop's body (opened), which is selected.
    assert explorer.locator("g.symnb-node.symnb-failing").count() == 2
    failing = explorer.locator("g.symnb-node.symnb-failing.symnb-selected")
    assert failing.count() == 1 and "/" in failing.get_attribute("data-id")
    assert failing.locator("rect.symnb-box").evaluate("r => getComputedStyle(r).stroke") == RED
    card = explorer.locator(".symnb-failing-card")
    assert "i_t = 7" in card.inner_text() and "float32 (5, 8)" in card.inner_text()
    picker = page.locator(".symnb-iteration-picker").first
    picker.wait_for(timeout=60_000)
    values = picker.locator(".symnb-iteration-values-live")
    assert "Values at iteration 3 of scan(step)" in values.inner_text()
    slider = picker.locator(".symnb-iteration-slider .slider-container, .symnb-iteration-slider .widget-readout").last
    slider.click()  # the readout takes a typed iteration
    page.keyboard.press("Control+A")
    page.keyboard.type("1")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('.symnb-iteration-values-live').innerText"
                           ".includes('Values at iteration 1 of scan(step)')", timeout=60_000)
    assert "i_t = 1" in values.inner_text()
    lab_shot(page, picker, "17_failure_view_iteration_picker")
    page.close()
    shut_down_kernels(lab)
