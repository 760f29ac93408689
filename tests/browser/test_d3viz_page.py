"""``symnb.d3viz.d3viz``'s page opened from disk in Chromium, with no kernel and no
server: the 12-layer MLP's training function (about 200 nodes) drawn by the explorer,
a group opened by a click. Screenshots go to build/screenshots/d3viz/."""

from __future__ import annotations

import pytest

from tests.browser.mlp12 import mlp12_train
from tests.browser.test_jupyterlab import SCREENSHOTS, chromium_browser
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]


def test_the_page_draws_the_training_function_and_opens_a_group(tmp_path):
    import symnb.d3viz as d3v

    train = mlp12_train()
    outfile = tmp_path / "mlp12.html"
    d3v.d3viz(train, outfile)
    shots = SCREENSHOTS / "d3viz"
    shots.mkdir(parents=True, exist_ok=True)
    with chromium_browser() as browser:
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(outfile.as_uri())
        page.wait_for_selector(".symnb-saved-viewer .symnb-node", timeout=30_000)
        first = page.locator(".symnb-saved-viewer .symnb-node").count()
        page.screenshot(path=str(shots / "mlp12_first_view.png"))
        groups = page.locator(".symnb-saved-viewer .symnb-node.symnb-group")
        assert groups.count() > 0, "the first view shows the layers folded into groups"
        groups.first.dblclick()
        page.wait_for_function(f"document.querySelectorAll('.symnb-saved-viewer .symnb-node').length > {first}",
                               timeout=15_000)
        page.screenshot(path=str(shots / "mlp12_group_opened.png"))
        assert not errors, errors
