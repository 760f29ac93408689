"""A loop's body in the client-side viewer (Chromium, Playwright; no JupyterLab): the
loop's card opens its body in place (notebook 06's ``tanh(x_t + 0.5 * h)`` drawn as the
step's nodes) and closes it again, and ``GraphExplorer(err)`` for a node that failed inside
a loop body draws that node red in its opened body. Screenshots go to
build/screenshots/viewer/.

Skipped where no browser can be had (see tests/optional_tools.py)."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing.view_model import view_model
from symnb.widgets import GraphExplorer
from tests.browser.test_failure_view import RED, _stroke
from tests.browser.test_jupyterlab import chromium_browser
from tests.browser.test_viewer import open_page, shot
from tests.browser.viewer_page import viewer_page
from tests.optional_tools import needs_chromium
from tests.widgets.test_failure_view import make_scan_error

pytestmark = [pytest.mark.slow, needs_chromium]


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as chromium:
        yield chromium


def _drawn(page):
    return set(page.evaluate("[...document.querySelectorAll('g.symnb-node')].map((n) => n.dataset.id)"))


def test_the_loops_card_opens_its_body_and_the_steps_nodes_are_drawn(browser, tmp_path):
    xs = T.matrix("xs", test_value=np.array([[1, 2], [3, 4], [5, 6]], "float32"))
    h0 = T.vector("h0", test_value=np.zeros(2, "float32"))
    hs, _ = sn.scan(lambda x_t, h: T.tanh(x_t + 0.5 * h), sequences=[xs], outputs_info=[h0], name="step")
    model = view_model(hs)
    loop = next(n["id"] for n in model["nodes"] if n["op"] == hs.owner.op.public_name())
    graph, = hs.owner.op.inner_graphs
    steps = {n["id"] for n in model["nodes"] if n["group"] == f"{loop}/0" and n["kind"] == "op"}
    assert len(steps) == len(graph.nodes)
    parents = {g["id"]: g["parent"] for g in model["groups"]}
    around, group = [], next(n["group"] for n in model["nodes"] if n["id"] == loop)
    while group is not None:  # the groups holding the loop (the scan call's), open
        around, group = around + [group], parents[group]
    page, errors = open_page(browser, viewer_page(tmp_path / "loop.html", model, state={"open": around}))
    drawn = _drawn(page)
    assert loop in drawn and not steps & drawn and f"{loop}/0" not in drawn  # closed: the loop's box only
    page.locator(f'g.symnb-node[data-id="{loop}"]').click()
    button = page.locator(".symnb-card button.symnb-card-inner")
    assert button.inner_text() == "open its body"
    button.click()
    page.wait_for_function(f"mounted.view.state().open.includes('{loop}/0')")
    assert steps <= _drawn(page) and loop in _drawn(page)
    frame = page.locator(f'g.symnb-frame[data-group="{loop}/0"]')
    assert "scan(step) body" in frame.text_content()
    assert page.locator(".symnb-card button.symnb-card-inner").inner_text() == "close its body"
    shot(page, "loop_body_open")
    page.locator(".symnb-card button.symnb-card-inner").click()
    page.wait_for_function(f"!mounted.view.state().open.includes('{loop}/0')")
    assert not steps & _drawn(page)
    assert not errors
    page.close()


def test_a_failing_node_in_a_loop_body_is_drawn_red(browser, tmp_path):
    err = make_scan_error()
    explorer = GraphExplorer(err)
    state = explorer.view_state()
    failing = next(n for n in explorer.view_model()["nodes"] if n["failing"] and n["id"].count("/") == 2)
    assert state["selected"] == failing["id"]  # the node inside the loop, not the loop
    page, errors = open_page(browser, viewer_page(tmp_path / "failing.html", explorer.view_model(), state=state))
    assert failing["id"] in _drawn(page)
    box = page.locator(f'g.symnb-node[data-id="{failing["id"]}"]')
    assert "symnb-failing" in box.get_attribute("class")
    assert _stroke(page, failing["id"]) == RED
    assert "E[i_t]" in page.locator(".symnb-card").inner_text()
    shot(page, "loop_body_failing_red")
    assert not errors
    page.close()
