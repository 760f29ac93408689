"""The rewrite stepper's comparison page in Chromium (the saved snapshot's HTML, no
kernel needed): a screenshot of each step in build/screenshots/, and the marks drawn."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.widgets import RewriteStepper
from tests.browser.test_jupyterlab import SCREENSHOTS, chromium_browser
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]


def test_the_comparison_page_in_a_browser():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    W = sn.shared(np.ones((3, 3), "float32"), name="W")
    h = T.tanh(T.dot(x, W))
    loss = (T.exp(T.log(h * 2 + 1)) + h).sum()
    stepper = RewriteStepper(sn.function([x], loss))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_browser() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        for position in range(len(stepper.history)):
            stepper.position = position
            compared = stepper.comparison()
            page.set_content(f"<html><body>{stepper.snapshot_body()}</body></html>")
            images = page.locator("img.symnb-graph")
            images.first.wait_for()
            # Every picture loaded (a broken SVG would be 0 wide).
            assert all(w > 0 for w in page.eval_on_selector_all(
                "img.symnb-graph", "els => els.map(e => e.naturalWidth)"))
            removed = page.locator("span.symnb-removed").count()
            added = page.locator("span.symnb-added").count()
            assert (removed, added) == (len(compared.removed), len(compared.added))
            page.locator(".symnb-stepper-page").screenshot(
                path=str(SCREENSHOTS / f"stepper_comparison_{position + 1}.png"))
        page.close()
