"""symnb.widgets.graph_view: the live viewer's widget carries no ELK in its saved state
and sends ELK's source to the page that asks for it (no browser; the page's side is
tests/browser/test_viewer.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

import symnb.tensor as T
from symnb.widgets import GraphExplorer
from symnb.widgets.viewer import widget_esm

pytest.importorskip("anywidget", reason="the anywidget package is not installed")

ELK_FILE = Path(__file__).resolve().parents[2] / "src" / "symnb" / "widgets" / "static" / "elk-worker.min.js"
needs_elk = pytest.mark.skipif(not ELK_FILE.exists(), reason="ELK's worker is not built (js/build.sh)")


@pytest.fixture
def explorer():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    return GraphExplorer((T.tanh(x) * 2).sum())


@needs_elk
def test_the_widget_module_holds_no_elk():
    """anywidget saves the module with each view's widget state: ELK's 1.6 MB there grew a
    saved notebook by that much per view."""
    esm, elk = widget_esm(), ELK_FILE.read_text(encoding="utf-8")
    assert len(elk) > 1_000_000  # what was left out is ELK
    assert len(esm) < 200_000, len(esm)
    assert "org.eclipse.elk" not in esm and elk[:2_000] not in esm


@needs_elk
def test_a_views_widget_state_is_the_model_not_elk(explorer):
    state = explorer.widget.get_state()
    synced = len(json.dumps(state))
    assert synced < 200_000 + len(state["model_data"]), synced


@needs_elk
def test_the_view_asking_for_elk_gets_its_source(explorer):
    view = explorer.widget
    sent = []
    view.send = lambda content, buffers=None: sent.append(content)
    view._handle_custom_msg({"elk": True}, [])  # what ipywidgets does with the page's message
    assert sent == [{"elk_source": ELK_FILE.read_text(encoding="utf-8")}]
    # The explorer's own messages are answered by the explorer alone (no ELK with them).
    view._handle_custom_msg({"details": explorer.id_of(explorer._outputs[0])}, [])
    assert len(sent) == 2 and "elk_source" not in sent[1]


def test_the_shipped_viewer_is_its_parts_code_without_their_comment_lines():
    """Every saved view carries the viewer's source: its whole-line comments stay in the
    files only. A line filter is safe because no part has a string spanning lines."""
    from symnb.widgets.viewer import _PARTS, _STATIC, viewer_source

    shipped = viewer_source()
    assert not [line for line in shipped.splitlines() if line.lstrip().startswith("//")]
    comments = 0
    for part in _PARTS:
        lines = (_STATIC / part).read_text(encoding="utf-8").splitlines()
        assert not [line for line in lines if line.count("`") % 2], f"{part}: a template literal spans lines"
        code = [line for line in lines if not line.lstrip().startswith("//")]
        comments += len(lines) - len(code)
        assert "\n".join(code) in shipped, part  # each part's code whole and in one piece
    assert comments > 300  # the files keep their comments (the split viewer's headers among them)
    assert "SN.mount = function mount(host, options)" in shipped and "SN.ViewState = class ViewState" in shipped
