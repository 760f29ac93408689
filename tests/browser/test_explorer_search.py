"""The explorer's search in JupyterLab (Chromium, through Playwright): on a graph that
opens with its groups closed, a parameter inside a helper's call is found, and Enter
opens the group around it and selects it; the box shows the whole graph once fitted.
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
hidden = ex.search("W_h2")
assert hidden and not set(hidden) & set(ex.node_ids())  # inside a closed group
ex'''


def test_search_opens_the_group_around_a_hit(lab, browser):
    write_notebook(lab["root"] / "search.ipynb", [MLP])
    page = open_notebook(browser, lab, "search.ipynb")
    run_all(page)
    explorer = page.locator(".symnb-explorer").first
    explorer.locator("svg.symnb-graph").wait_for(timeout=120_000)
    w_h2 = explorer.locator('g.symnb-node[data-search^="w_h2 "]')
    assert w_h2.count() == 0  # not drawn: its group is closed
    search = explorer.locator("input.symnb-search")
    search.fill("W_h2")
    search.press("Enter")  # before or after Python's answer: it waits for it
    selected = explorer.locator("g.symnb-node.symnb-selected")
    selected.wait_for(timeout=20_000)
    assert "W_h2" in selected.text_content() and w_h2.count() == 1
    assert explorer.locator("g.symnb-frame").count() >= 1  # the group around it, opened
    assert explorer.locator(".symnb-found").inner_text().startswith("1 of 1")
    assert "W_h2" in explorer.locator(".symnb-details").inner_text()
    shot(page, explorer, "16_explorer_search_opens_group")
    search.fill("")
    explorer.locator("button.symnb-button", has_text="fit").click()
    viewport = explorer.locator(".symnb-viewport")
    assert viewport.evaluate("v => v.scrollHeight <= v.clientHeight + 1 && v.scrollWidth <= v.clientWidth + 1")
    page.close()
    shut_down_kernels(lab)
