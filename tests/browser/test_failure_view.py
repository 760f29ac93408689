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

pytestmark = [pytest.mark.slow, needs_chromium]

RED = "rgb(217, 48, 37)"
E_VALUE = np.arange(40, dtype="float32").reshape(5, 8) / 10


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as chromium:
        yield chromium


def _scan_error():
    E = sn.shared(E_VALUE, name="E")
    idx = T.lvector("idx")

    def step(i_t, h, E):
        return h + E[i_t].sum()

    hs, _ = sn.scan(step, sequences=[idx], outputs_info=[T.constant(np.float32(0))],
                    non_sequences=[E], name="step")
    f = sn.function([idx], hs[-1])
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(np.array([0, 1, 2, 7, 3]))
    return info.value


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
