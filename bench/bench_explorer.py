"""Graph explorer benchmarks (issue 20): how long a big graph takes to its first picture.

    python bench/bench_explorer.py [--quick]

For a training graph (a deep residual MLP in ``sn.name_scope`` blocks, built by a
``layer`` function, with its ``sn.grad`` gradients) of about 2,000 and about 50,000
nodes, it measures:

- the explorer's build time to the first picture (``GraphExplorer(outputs)``: the
  groups, the closed picture, its layout and its SVG), best of a few runs. Targets:
  1 s for 2,000 nodes, 5 s for 50,000;
- the boxes drawn and the snapshot's size (the HTML kept in the saved notebook), in KB;
- the time to open one group (a click in the browser);
- apart, a flat picture of a 1,000-step chain (4,001 boxes, no groups: every box
  drawn), laid out by symnb's own layered layout and drawn as SVG, best of a few runs.
  Target: 1 s (tests/printing/test_graph_picture.py asserts only its order of magnitude).

The same views' times in a real browser are bench/bench_browser.py's.

Building the graph (test values included) is not timed.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.printing.graph_model import GraphPicture
from symnb.printing.layout import layout
from symnb.printing.svg import picture_svg
from symnb.widgets import GraphExplorer

TARGETS = {2_000: 1.0, 50_000: 5.0}
FLAT_TARGET_S = 1.0


def layer(h, W, b):
    return T.tanh(T.dot(h, W) + b)


def block(h, width: int, rng: np.random.Generator, params: list):
    """Two layers and a residual connection: 7 nodes forward."""
    W1, W2 = (sn.shared((rng.standard_normal((width, width)) * 0.1).astype("float32")) for _ in range(2))
    b1, b2 = (sn.shared(np.zeros(width, "float32")) for _ in range(2))
    params += [W1, b1, W2, b2]
    return h + layer(layer(h, W1, b1), W2, b2)


def training_graph(blocks: int, width: int = 8) -> list:
    """The loss and the gradients of a model of ``blocks`` blocks (half in an encoder
    scope, half in a decoder scope)."""
    rng = np.random.default_rng(0)
    x = T.matrix("x", test_value=rng.random((4, width), dtype="float32"))
    params: list = []
    h = x
    for scope in ("encoder", "decoder"):
        with sn.name_scope(scope):
            for _ in range(blocks // 2):
                h = block(h, width, rng, params)
    loss = T.mean(T.square(h - x))
    return [loss] + sn.grad(loss, params)


def nodes_in(outputs: list) -> int:
    from symnb.core.graph import toposort

    return len(toposort(outputs))


def measure(target_nodes: int, repeat: int) -> dict:
    small, larger = nodes_in(training_graph(2)), nodes_in(training_graph(4))
    per_two_blocks = larger - small  # the graph grows linearly with the blocks
    blocks = 2 + 2 * max(0, round((target_nodes - small) / per_two_blocks))
    outputs = training_graph(blocks)
    count = nodes_in(outputs)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        explorer = GraphExplorer(outputs)
        best = min(best, time.perf_counter() - started)
    snapshot = explorer.snapshot_bundle()["text/html"]
    boxes = explorer.picture.count()
    group = next(node_id for node_id, node in explorer.picture.nodes.items() if node.kind == "group")
    started = time.perf_counter()
    explorer.open(group)
    open_seconds = time.perf_counter() - started
    target = TARGETS.get(target_nodes)
    verdict = "ok" if target is None or best <= target else "OVER TARGET"
    print(f"{count:>7,} nodes  first picture {best:6.3f} s (target <= {target} s) {verdict}   "
          f"boxes {boxes:>3}   snapshot {len(snapshot.encode()) / 1024:7.1f} KB   "
          f"open one group {open_seconds:6.3f} s ({explorer.picture.count()} boxes)")
    return {"nodes": count, "first_picture_s": best, "snapshot_kb": len(snapshot.encode()) / 1024,
            "open_group_s": open_seconds}


def flat_picture(repeat: int) -> dict:
    """A 1,000-step chain (``tanh(w * 0.5 + x)``: 4,001 boxes) drawn whole, by the layered layout."""
    x = T.vector("x", test_value=np.ones(3, "float32"))
    w = x
    for _ in range(1000):
        w = T.tanh(w * np.float32(0.5) + x)
    # One line at the top level: one line group cut into parts (groups.py), all opened here.
    groups = [g.id for g in GraphPicture(w).tree.groups()]
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        picture = GraphPicture(w, opened=groups)
        laid = layout(picture, "layered")
        picture_svg(picture, laid)
        best = min(best, time.perf_counter() - started)
    verdict = "ok" if best <= FLAT_TARGET_S else "OVER TARGET"
    print(f"{picture.count():>7,} boxes  flat picture, layered layout and SVG {best:6.3f} s "
          f"(target <= {FLAT_TARGET_S} s) {verdict}")
    return {"boxes": picture.count(), "flat_picture_s": best}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the 2,000-node graph only, one run")
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    measure(2_000, 1 if args.quick else 3)
    flat_picture(1 if args.quick else 3)
    if not args.quick:
        measure(50_000, 2)


if __name__ == "__main__":
    main()
