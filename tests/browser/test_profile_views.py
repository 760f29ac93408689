"""The profile's views in Chromium (slow): the ProfileView's saved tables fit the cell's
width, and the timeline of one call draws one bar per XLA operation the trace recorded.
Screenshots go to build/screenshots/. Skipped where no browser can be had."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.widgets import ProfileView
from tests.browser.test_jupyterlab import chromium_browser
from tests.browser.test_viewer import shot
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]

CELL_WIDTH = 800  # about a JupyterLab cell's output width on a laptop


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as chromium:
        yield chromium


def _profiled():
    x = T.matrix("x", test_value=np.ones((64, 64), "float32"))
    W = sn.shared(np.full((64, 64), 0.01, "float32"), name="W")
    cost = T.nnet.sigmoid(T.dot(x, W)).sum()
    f = sn.function([x], cost, profile=True)
    for _ in range(20):
        f(np.ones((64, 64), "float32"))
    return f


def _page(browser, tmp_path, name, body):
    path = tmp_path / f"{name}.html"
    path.write_text(f'<!doctype html><meta charset="utf-8"><body style="width:{CELL_WIDTH}px;margin:0">'
                    f"{body}</body>", encoding="utf-8")
    page = browser.new_page(viewport={"width": CELL_WIDTH, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


def test_the_profile_tables_fit_the_cell_and_state_measured_times(browser, tmp_path):
    f = _profiled()
    view = ProfileView(f)
    page, errors = _page(browser, tmp_path, "profile", view.table_html(open_tables=True))
    # Nothing is cut off at the right: the page is no wider than the cell.
    assert page.evaluate("document.documentElement.scrollWidth") <= CELL_WIDTH
    text = page.inner_text("body")
    assert "e-0" not in text  # times in s/ms/µs, not 7.944e-03s
    assert any(unit in text for unit in (" ms", " µs"))
    shot(page, "profile_tables_fit_the_cell")
    assert not errors


def test_the_timeline_draws_each_xla_operation_of_the_call(browser, tmp_path):
    f = _profiled()
    timeline = f.profile.timeline()
    if timeline.reason:
        pytest.skip(f"no trace here: {timeline.reason}")
    page, errors = _page(browser, tmp_path, "timeline", timeline._repr_html_())
    titles = page.locator(".symnb-timeline svg title").evaluate_all("ts => ts.map(t => t.textContent)")
    operations = [event.name for event in timeline.operations()]
    assert operations and all(any(title.startswith(name) for title in titles) for name in operations)
    assert page.evaluate("document.documentElement.scrollWidth") <= CELL_WIDTH
    shot(page, "profile_timeline_of_one_call")
    assert not errors


def test_the_profile_view_shows_the_timeline_under_its_tables(browser, tmp_path):
    """Issue 40: the timeline is in ``ProfileView`` (its button, or ``view.timeline()``),
    not only ``f.profile.timeline()``: the saved view shows the tables and the call's
    XLA operations in time, within the cell's width."""
    view = ProfileView(_profiled())
    timeline = view.timeline()
    if timeline.reason:
        pytest.skip(f"no trace here: {timeline.reason}")
    page, errors = _page(browser, tmp_path, "profile_view_timeline", view.snapshot_body())
    assert page.locator(".symnb-profile .symnb-profile-tables").count() == 1
    bars = page.locator('.symnb-profile .symnb-timeline svg [data-kind="xla"]')
    assert bars.count() == len(timeline.operations()) > 0 and bars.first.is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= CELL_WIDTH
    shot(page, "profile_view_with_timeline")
    assert not errors
