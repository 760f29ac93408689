"""The tutorials as shipped render everywhere: no stored output is a picture that only an
trusted notebook shows (a bare ``image/svg+xml``: untrusted JupyterLab prints
``<IPython.core.display.SVG object>``, GitHub and sanitizers drop inline ``<svg>``), and
they teach with the public API only (no private symnb modules or attributes). Their
stored pictures, laid out by Graphviz, compare equal under nbval to the pictures symnb's
own layout draws where Graphviz is not installed, and a changed graph does not."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from nbval.plugin import get_sanitize_patterns

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import toposort
from tests.browser.cnn09 import cnn09_loss
from tests.optional_tools import needs_dot

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
SANITIZE = Path(__file__).resolve().parents[1] / "notebooks" / "nbval_sanitize.cfg"
# A symnb module or attribute whose name starts with "_", or a module the tutorials'
# readers should not need: the profile's table builders, the picture's model.
# A name with one leading underscore is private; dunders (``sn.__version__``) are public.
PRIVATE = re.compile(r"symnb(?:\.\w+)*\._(?!_)\w+|\b\w+\._(?!repr_|_)\w+|profiling\.(?:render|xla|measure|attribute|stats)\b"
                     r"|\.picture\.nodes|\bgraph_model\b")


def _code_cells(path):
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_stored_picture_renders_untrusted(path):
    for number, cell in enumerate(_code_cells(path)):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/svg+xml" in data:
                assert "text/html" in data or "image/png" in data, (
                    f"{path.name}, code cell {number}: an image/svg+xml output with no text/html "
                    "or PNG beside it does not render in an untrusted notebook")
            html = "".join(data.get("text/html", ""))
            assert "<svg" not in html.split("<img", 1)[0] or "symnb-snapshot" not in html, (
                f"{path.name}, code cell {number}: a snapshot with an inline <svg> (sanitizers drop it)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_tutorials_use_the_public_api(path):
    for number, cell in enumerate(_code_cells(path)):
        source = "".join(cell["source"])
        found = PRIVATE.findall(source)
        assert not found, f"{path.name}, code cell {number} uses private names: {found}"


# What a stored output may not hold: a frame of a file in the symnb package (errors start
# at the user's line: core/graph/traceback_filter.py), or a path of the machine that ran
# the notebook (an absolute path: '/home/...', 'C:\...').
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LIBRARY_FRAME = re.compile(r'File "?\S*symnb[/\\]\S+\.py')
ABSOLUTE_PATH = re.compile(r'(?:^|[\s"\'(=])((?:/|[A-Za-z]:\\)(?:[\w.-]+[/\\])+[\w.-]+)', re.MULTILINE)


def _shown_text(output: dict) -> str:
    """What an output shows as text: a traceback, a stream, or a value's text/plain."""
    if output["output_type"] == "error":
        text = "\n".join(output["traceback"])
    elif output["output_type"] == "stream":
        text = "".join(output["text"])
    else:
        text = "".join(output.get("data", {}).get("text/plain", ""))
    return ANSI.sub("", text)


def _leaks(text: str) -> list[str]:
    return LIBRARY_FRAME.findall(text) + ABSOLUTE_PATH.findall(text)


def test_a_library_frame_or_a_machines_path_is_seen():
    """The patterns below find what notebooks 01 and 07 once stored."""
    stored = ("\x1b[36mFile \x1b[39m\x1b[32m/work/main/src/symnb/compile/function.py:450\x1b[39m, "
              "in \x1b[36m_weak_method.<locals>.call\x1b[39m")
    assert _leaks(ANSI.sub("", stored)) == ["File /work/main/src/symnb/compile/function.py",
                                             "/work/main/src/symnb/compile/function.py"]
    assert _leaks('  File "C:\\Users\\me\\symnb\\compile\\function.py", line 450, in call')
    assert not _leaks("Cell In[12], line 2\n----> 2 guarded(batch)\n(x / y) created at shape_bug.py:5")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stored_output_holds_a_library_frame_or_a_machines_path(path):
    for number, cell in enumerate(_code_cells(path)):
        for output in cell.get("outputs", []):
            leaks = _leaks(_shown_text(output))
            assert not leaks, (f"{path.name}, code cell {number}: {leaks} (re-run the notebook: "
                               f"errors start at the user's line, without symnb's frames)")


def _as_nbval_compares(output: str) -> str:
    """``output`` with the sanitizers applied, as nbval applies them (in the file's order)."""
    for regex, replace in dict(get_sanitize_patterns(SANITIZE.read_text())).items():
        output = re.sub(regex, replace, output)
    return output


def _convnet_loss(images: int):
    """notebooks/09_convnets.ipynb's graph: conv, pool, dense, softmax, the mean NLL."""
    return cnn09_loss(images)[2]


@needs_dot
def test_a_stored_picture_compares_the_same_whichever_layout_drew_it():
    loss = _convnet_loss(images=8)
    drawn = {engine: sn.printing.graph_picture(loss, engine=engine)._repr_mimebundle_()["text/html"]
             for engine in ("dot", "layered")}
    # The engines differ where a picture depends on its layout: dot frames the open
    # groups and fits more edge labels beside its boxes.
    assert "symnb-frame" in drawn["dot"] and "symnb-frame" not in drawn["layered"]
    assert drawn["dot"].count("symnb-edge-label") != drawn["layered"].count("symnb-edge-label")
    assert _as_nbval_compares(drawn["dot"]) == _as_nbval_compares(drawn["layered"])
    # What the graph is stays compared: 6 images instead of 8 change the shapes (drawn in
    # the edges' labels and kept in their tooltips) and the test values.
    other = sn.printing.graph_picture(_convnet_loss(images=6), engine="layered")._repr_mimebundle_()["text/html"]
    assert _as_nbval_compares(other) != _as_nbval_compares(drawn["layered"])



def _layers(depth: int):
    """A chain of ``depth`` calls of a layer (its picture opens with closed groups) and its
    nodes."""
    def layer(h, w):
        return T.tanh(T.dot(h, w) + 1.0)

    h = T.matrix("h", test_value=np.ones((2, 3), "float32"))
    for i in range(depth):
        h = layer(h, sn.shared(np.eye(3, dtype="float32"), name=f"w{i}"))
    loss = h.sum()
    return loss, toposort([loss])


def _timed_picture(loss, times) -> str:
    return sn.printing.graph_picture(loss, engine="layered", times=times)._repr_mimebundle_()["text/html"]


def test_a_time_coloured_picture_of_closed_groups_compares_the_same_whatever_the_times():
    loss, nodes = _layers(25)
    rng = np.random.default_rng(0)
    drawn = []
    for _ in range(2):  # two runs: every node's time differs, so does every closed group's shade
        drawn.append(_timed_picture(loss, dict(zip(nodes, rng.uniform(1e-6, 1e-3, len(nodes)).tolist()))))
        assert "symnb-group symnb-timed" in drawn[-1]
    assert drawn[0] != drawn[1]
    assert _as_nbval_compares(drawn[0]) == _as_nbval_compares(drawn[1])
    # What the graph is stays compared: one layer fewer is another picture.
    fewer, nodes = _layers(24)
    other = _timed_picture(fewer, dict(zip(nodes, rng.uniform(1e-6, 1e-3, len(nodes)).tolist())))
    assert _as_nbval_compares(other) != _as_nbval_compares(drawn[0])


def _notebook(prefix: str) -> dict:
    (path,) = [p for p in NOTEBOOKS if p.name.startswith(prefix)]
    return json.loads(path.read_text())


def test_the_lasagne_explorers_edges_show_shapes():
    """Notebook 11 sets test values: its explorer's edges carry the values' shapes, not
    ``float32 (?, ?)`` (the static type, which is all a graph without values knows)."""
    from symnb.printing.view_encode import decode_view_model

    cells = _notebook("11_")["cells"]
    (snapshot,) = ["".join(o["data"]["text/html"]) for c in cells if c["cell_type"] == "code"
                   for o in c.get("outputs", []) if "symnb-explorer-snapshot" in "".join(
                       o.get("data", {}).get("text/html", ""))]
    # The saved viewer's model: each edge's dtype and shape are its source's output's.
    (blob,) = re.findall(r'class="symnb-model">([A-Za-z0-9+/=\s]+)</script>', snapshot)
    model = decode_view_model(blob)
    outs = {node["id"]: node["outs"] for node in model["nodes"]}
    carried = [outs[e["src"]][e["out"]] for e in model["edges"]]
    labels = {f'{o["dtype"]} {tuple(o["shape"])}' for o in carried if o["shape"] is not None}
    assert "float32 (8, 2)" in labels and "int32 (8,)" in labels
    unknown = [o for o in carried if o["shape"] is None or None in o["shape"]]
    assert not unknown, unknown


def test_the_nan_notebooks_text_states_what_its_numbers_show():
    """Notebook 10's last words on the fixed model quote its printed numbers, and do not
    call falling a loss that swings."""
    cells = _notebook("10_")["cells"]
    (fixed,) = [i for i, c in enumerate(cells) if "fixed_step = sn.function" in "".join(c["source"])]
    printed = "".join("".join(o.get("text", "")) for o in cells[fixed]["outputs"])
    losses = [float(v) for v in re.findall(r"loss\s+(-?\d+\.\d+)", printed)]
    assert any(b > a for a, b in zip(losses[1:], losses[2:]))  # it swings: not falling throughout
    text = "".join(cells[fixed + 1]["source"]) + "".join(cells[fixed]["source"])
    assert "still falling" not in text and "falls\ntoward" not in text
    quoted = re.findall(r"-?\d+\.\d+", "".join(cells[fixed + 1]["source"]))
    assert len(quoted) >= 5
    for number in quoted:
        digits = len(number.split(".")[1])
        shown = [float(v) for v in re.findall(r"-?\d+\.\d+", printed)]
        assert any(round(v, digits) == float(number) for v in shown), f"{number} is not a printed number"


def test_a_saved_viewers_model_is_compared_through_the_pictures_beside_it():
    """The saved viewer's compressed model and boot-script key are sanitized (cell numbers
    inside the compressed text cannot be); the overview picture beside them, which draws
    the same graph, still tells a changed graph."""
    from symnb.widgets import GraphExplorer

    x = T.vector("x", test_value=np.ones(3, "float32"))
    first, again, other = (GraphExplorer(v).snapshot_bundle()["text/html"]
                           for v in (x * 2, x * 2, x * 3))
    assert first != again and 'class="symnb-model">' in first
    assert _as_nbval_compares(first) == _as_nbval_compares(again)
    assert _as_nbval_compares(first) != _as_nbval_compares(other)


def test_a_saved_viewers_library_is_not_compared_but_its_view_is():
    """The saved viewer's own script and style (symnb's JavaScript, tested in
    tests/browser/) change with symnb, not with the notebook: a stored view made by an
    older viewer compares equal to a fresh one. Its boot script and the view it draws
    (the overview picture, the model's text beside it) stay compared."""
    from symnb.widgets import GraphExplorer
    from symnb.widgets.viewer import viewer_version

    x = T.vector("x", test_value=np.ones(3, "float32"))
    fresh = GraphExplorer(x * 2).snapshot_bundle()["text/html"]
    version = viewer_version()
    older = (fresh.replace(version, "0123456789ab")
             .replace("const SN = {};", "const SN = { older: true };")
             .replace(".symnb-viewer {", ".symnb-viewer { color: red;", 1))
    assert older != fresh and "older: true" in older and "color: red" in older
    assert _as_nbval_compares(older) == _as_nbval_compares(fresh)
    assert "const SymnbViewer = window.SymnbViewers" in _as_nbval_compares(fresh)  # the boot script stays
    changed_boot = fresh.replace("watch.observe(here);", "watch.observe(document.body);")
    assert _as_nbval_compares(changed_boot) != _as_nbval_compares(fresh)


@needs_dot
def test_a_saved_explorer_compares_the_same_whichever_layout_drew_its_picture():
    """The saved explorer's overview picture shrinks to its cell between two widths (its
    style), which follow the picture's natural size: Graphviz's and symnb's own layout
    differ there, as in the picture's geometry. The notebooks stored with Graphviz failed
    under nbval where it is not installed."""
    from symnb.widgets import GraphExplorer

    loss = _convnet_loss(images=8)
    saved = {engine: GraphExplorer(loss, engine=engine).snapshot_bundle()["text/html"] for engine in ("dot", "layered")}
    widths = {engine: re.findall(r"max-width:\d+px;min-width:\d+px", html) for engine, html in saved.items()}
    assert widths["dot"] and widths["dot"] != widths["layered"]
    assert _as_nbval_compares(saved["dot"]) == _as_nbval_compares(saved["layered"])
    other = GraphExplorer(_convnet_loss(images=6), engine="layered").snapshot_bundle()["text/html"]
    assert _as_nbval_compares(other) != _as_nbval_compares(saved["layered"])
