"""The explorer's search in JupyterLab (Chromium, through Playwright): on a graph that
opens with its groups closed, a parameter inside a helper's call is found by the viewer's
own search (in the page, no kernel round trip), and Enter opens the group around it and
selects it; once fitted, the viewport shows the whole graph or text at 9 px.
Skipped where no browser can be had (see test_jupyterlab.py, whose fixtures this reuses)."""

from __future__ import annotations

import pytest

from tests.browser.test_jupyterlab import (  # noqa: F401 (fixtures)
    browser, lab, open_notebook, run_all, shot, shut_down_kernels, write_notebook,
)
from tests.optional_tools import needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium]

MLP = '''import numpy as np
import symnb as sn
import symnb.tensor as T
from symnb.widgets import GraphExplorer
rng = np.random.RandomState(0)
def init(n_in, n_out, name):
    return (sn.shared(rng.uniform(-0.2, 0.2, (n_in, n_out)).astype("float32"), name="W_" + name),
            sn.shared(np.zeros(n_out, "float32"), name="b_" + name))
def layer(inp, W, b, act=T.nnet.relu):
    return act(T.dot(inp, W) + b)
x = T.matrix("x", test_value=rng.randn(16, 20).astype("float32"))
y = T.ivector("y", test_value=rng.randint(0, 3, 16).astype("int32"))
params, h = [], x
for k, n_in in enumerate([20, 64, 64]):
    W, b = init(n_in, 64, f"h{k + 1}")
    params += [W, b]
    h = layer(h, W, b, T.tanh)
W, b = init(64, 3, "out"); params += [W, b]
p_y = T.nnet.softmax(T.dot(h, W) + b)
cost = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y]) + 1e-4 * sum((p ** 2).sum() for p in params[::2])
ex = GraphExplorer([cost] + T.grad(cost, params))
hidden = [h for h in ex.search("W_h2") if h.startswith("v")]  # the parameter (then the calls reading it)
assert hidden and not set(hidden) & set(ex.node_ids())  # inside a closed group
ex'''


def test_search_opens_the_group_around_a_hit(lab, browser):
    write_notebook(lab["root"] / "search.ipynb", [MLP])
    page = open_notebook(browser, lab, "search.ipynb")
    run_all(page)
    explorer = page.locator(".symnb-explorer .symnb-viewer").first
    explorer.locator("g.symnb-node").first.wait_for(timeout=120_000)
    search = explorer.locator("input.symnb-search")
    search.fill("W_h2")  # answered by the page's own index (no kernel round trip)
    found = explorer.locator(".symnb-found")
    page.wait_for_function("document.querySelector('.symnb-found').textContent.includes('of')")
    assert "in closed groups" in found.inner_text()
    # The first hit: the parameter itself, not drawn (inside the closed call of layer()).
    hit = explorer.locator(".symnb-hit").first
    assert hit.inner_text().startswith("W_h2 in layer()")
    w_h2 = hit.get_attribute("data-id")
    assert explorer.locator(f'g.symnb-node[data-id="{w_h2}"]').count() == 0
    search.press("Enter")  # opens the groups around the hit and selects it
    selected = explorer.locator("g.symnb-node.symnb-selected")
    selected.wait_for(timeout=20_000)
    assert selected.get_attribute("data-id") == w_h2
    assert "W_h2" in selected.text_content()
    assert explorer.locator("g.symnb-frame").count() >= 1  # the group around it, opened
    assert found.inner_text().startswith("1 of ")  # the first hit
    assert "W_h2" in explorer.locator(".symnb-card-title").inner_text()
    shot(page, explorer, "16_explorer_search_opens_group")
    search.fill("")
    explorer.locator("button.symnb-button", has_text="fit").click()
    # Fitted: the whole picture inside the viewport (no minimap), unless that would draw
    # text under 9 px: then at that floor (scale 9/12), the minimap showing where it is.
    scale = float(explorer.get_attribute("data-scale"))
    fits = explorer.locator(".symnb-minimap").is_hidden()
    assert scale >= 0.75 and (fits or scale == 0.75), (scale, fits)
    page.close()
    shut_down_kernels(lab)
