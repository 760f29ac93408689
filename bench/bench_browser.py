"""Graph explorer benchmarks in a real browser (issue 20): JupyterLab on 127.0.0.1 driven
by Playwright with the system's Chromium, through the browser tests' own helpers
(tests/browser/), which assert only an order of magnitude (seconds, not minutes).

    python bench/bench_browser.py [--runs N]

Each figure is the best of N runs (default 3), each in a fresh kernel:

- a 2,000-node graph (a 500-step chain) in ``GraphExplorer``, every box drawn: from
  running the cell to the 2,000 boxes in the page. Target: 2 s;
- a search in it, from typing the query to its first match selected. Target: 2 s;
- a 12-layer MLP's training function in ``GraphExplorer``, drawn closed, its cell run
  again in a kernel that has shown a widget once (best of three re-runs in each kernel).
  Target: 1 s.

Building and compiling the graphs is not timed. Needs the test extras (jupyterlab,
playwright) and Chromium (``apt-get install chromium``, or SYMNB_CHROMIUM).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.optional_tools import CHROMIUM  # noqa: E402

TARGETS_S = {"2,000-node explorer open": 2.0, "2,000-node explorer search": 2.0,
             "closed MLP explorer, again in its kernel": 1.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh kernels per figure (the best is kept)")
    args = parser.parse_args()
    if CHROMIUM is None:
        sys.exit("no Chromium: install Debian's `chromium` (apt-get install chromium) or set SYMNB_CHROMIUM")
    from tests.browser.test_big_graphs import MLP_CELLS, MLP_NOTEBOOK, open_mlp_explorer, reopen_mlp_explorer
    from tests.browser.test_jupyterlab import (BIG_CELLS, BIG_NOTEBOOK, chromium_browser, jupyterlab_server,
                                               open_big_graph, open_notebook, search_big_graph,
                                               shut_down_kernels, write_notebook)

    with tempfile.TemporaryDirectory(prefix="symnb-bench-browser-") as folder:
        root = Path(folder)
        write_notebook(root / BIG_NOTEBOOK, BIG_CELLS)
        write_notebook(root / MLP_NOTEBOOK, MLP_CELLS)
        with jupyterlab_server(root) as lab, chromium_browser() as browser:

            def in_a_fresh_kernel(notebook: str, measure):
                page = open_notebook(browser, lab, notebook)
                try:
                    return measure(page)
                finally:
                    page.close()
                    shut_down_kernels(lab)

            def big_graph(page) -> tuple[float, float]:
                opened = open_big_graph(page)
                return opened, search_big_graph(page.locator(".symnb-explorer").first)

            def mlp_again(page) -> float:
                open_mlp_explorer(page)
                return reopen_mlp_explorer(page)

            big = [in_a_fresh_kernel(BIG_NOTEBOOK, big_graph) for _ in range(args.runs)]
            mlp = [in_a_fresh_kernel(MLP_NOTEBOOK, mlp_again) for _ in range(args.runs)]
    figures = {"2,000-node explorer open": min(opened for opened, _ in big),
               "2,000-node explorer search": min(searched for _, searched in big),
               "closed MLP explorer, again in its kernel": min(mlp)}
    print(f"Chromium {CHROMIUM}; best of {args.runs} fresh kernels, wall clock")
    for name, seconds in figures.items():
        target = TARGETS_S[name]
        verdict = "ok" if seconds <= target else "OVER TARGET"
        print(f"{name:<44} {seconds:6.2f} s (target <= {target} s) {verdict}")


if __name__ == "__main__":
    main()
