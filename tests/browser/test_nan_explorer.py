"""A NaN explorer in JupyterLab (Chromium, through Playwright): ``GraphExplorer(err)`` for
a ``NanGuardError`` shows the error's message, the arguments of the call that made the
NaN and the failing node's values in that call (not the test values), live and in the
snapshot. Screenshots go to build/screenshots/. Skipped where no browser can be had
(see test_jupyterlab.py, whose server and browser fixtures this reuses)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.browser.test_jupyterlab import (  # noqa: F401 (fixtures)
    browser, lab, open_notebook, run_all, shot, shut_down_kernels, write_notebook,
)
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]

CALL = np.array([0.0, 0.5, 0.5], "float32")
TEST_VALUE = np.array([0.2, 0.5, 0.3], "float32")

NAN_CELLS = [
    """import numpy as np
import symnb as sn
import symnb.tensor as T
from symnb.compile import NanGuardMode
from symnb.widgets import GraphExplorer
p = T.vector("p", test_value=np.array([0.2, 0.5, 0.3], "float32"))
entropy = -(p * T.log(p)).sum()
guarded = sn.function([p], entropy, mode=NanGuardMode())
try:
    guarded(np.array([0.0, 0.5, 0.5], "float32"))
except Exception as err:
    nan_error = err""",
    "GraphExplorer(nan_error)",
]


def _spelled(value: np.ndarray) -> str:
    """A small value as the views spell it (NumPy's own printing, on one line)."""
    return " ".join(np.array2string(value, separator=", ").split())


def test_a_nan_explorer_shows_the_calls_values_and_the_message(lab, browser):
    write_notebook(lab["root"] / "nan.ipynb", NAN_CELLS)
    page = open_notebook(browser, lab, "nan.ipynb")
    run_all(page)
    explorer = page.locator(".symnb-explorer").first
    explorer.locator("svg.symnb-graph g.symnb-node").first.wait_for(timeout=120_000)  # drawn
    shot(page, explorer, "14_nan_explorer_call_values")
    header = explorer.locator(".symnb-header")
    assert "NanGuardError" in header.inner_text() and "NanGuardMode: Inf in output #0" in header.inner_text()
    # The picture comes first: the call's arguments are folded behind a toggle.
    assert not header.locator("img").first.is_visible() if header.locator("img").count() else True
    header.locator("summary").click()  # unfold them
    values = header.inner_text().split("This call's arguments", 1)[1]
    assert _spelled(CALL) in values  # p in this call
    assert _spelled(TEST_VALUE) not in values  # the test values are not shown as the call's
    # Red: the fused chain holding the failing node (the viewer draws the function's
    # graph), selected first and still red.
    red = explorer.locator("g.symnb-node.symnb-failing")
    assert red.count() == 1 and "fused: log\u00b7mul" in red.text_content()
    assert "symnb-selected" in red.get_attribute("class")
    assert red.locator("rect.symnb-box").evaluate("r => getComputedStyle(r).stroke") == "rgb(217, 48, 37)"
    with np.errstate(divide="ignore"):
        logged = np.log(CALL)
    card = explorer.locator(".symnb-failing-card")  # under the picture: what the failing node read and made
    details = card.inner_text()
    assert "pending" not in details and _spelled(CALL) in details
    assert _spelled(logged) in details  # the failing node's output in this call
    assert header.inner_text().count("Failing node") == 0
    shot(page, card, "15_nan_explorer_failing_node_details")
    page.close()
    shut_down_kernels(lab)
