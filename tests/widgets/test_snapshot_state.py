"""A widget's saved snapshot follows its state: after an edit, a step, an opened node or a
refresh, the output displayed under the snapshot's display id is replaced by one showing
the new state (what a notebook saved then keeps)."""

import urllib.parse

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.widgets import GraphExplorer, ProfileView, RewriteStepper, TestValueEditor
from symnb.compile.profiling import seconds_text


@pytest.fixture
def kernel(monkeypatch):
    """Displays and display updates, recorded as (display_id, bundle)."""
    shown, updated = [], []
    monkeypatch.setattr("symnb.widgets._view.in_kernel", lambda: True)
    monkeypatch.setattr("IPython.display.display", lambda data, raw=False, display_id=None:
                        shown.append((display_id, data)))
    monkeypatch.setattr("IPython.display.update_display", lambda data, raw=False, display_id=None:
                        updated.append((display_id, data)))
    return shown, updated


def _last_html(updated, widget):
    key, bundle = updated[-1]
    assert key == widget.snapshot_key
    assert bundle["text/html"].startswith(f'<div class="symnb-snapshot" data-symnb-key="{key}">')
    return urllib.parse.unquote(bundle["text/html"])


def test_an_edited_value_is_what_the_saved_snapshot_shows(kernel):
    shown, updated = kernel
    x = T.vector("x", test_value=np.array([1.0, 2.0], "float32"))
    y = (x * 3).sum()
    editor = TestValueEditor(y)
    editor.display()
    assert [key for key, _ in shown] == [None, editor.snapshot_key]
    assert updated == []  # nothing changed yet
    editor.fields[0].value = "[4.0, 5.0, 6.0]"
    page = _last_html(updated, editor)
    assert "[4.0, 5.0, 6.0]" in page and str(float(np.sum([4, 5, 6]) * 3)) in page
    assert "[1.0, 2.0]" not in page
    # Marked as an edit the cell does not hold, with the line that would make it hold it.
    assert "edited here, not in the code" in page
    assert "x.tag.test_value = np.array([4.0, 5.0, 6.0], dtype=&#x27;float32&#x27;)" in page


def test_the_steppers_position_is_what_the_saved_snapshot_shows(kernel):
    _, updated = kernel
    x = T.vector("x", test_value=np.array([1.0, 2.0], "float32"))
    stepper = RewriteStepper(sn.function([x], T.exp(T.log(x)) * 2 + 0))
    assert len(stepper.history) >= 2
    stepper.display()
    stepper.next_button.click()
    page = _last_html(updated, stepper)
    assert f"Rewrite 2 of {len(stepper.history)}: {stepper.history[1].name}" in page


def test_an_opened_node_and_a_refreshed_profile_follow_into_the_snapshot(kernel):
    _, updated = kernel
    xs = T.matrix("xs", test_value=np.ones((3, 2), "float32"))
    hs, _ = sn.scan(lambda x_t, h: T.tanh(x_t + 0.5 * h), sequences=[xs],
                    outputs_info=[T.zeros(2, "float32")])
    explorer = GraphExplorer(hs.sum())
    explorer.display()
    loop = next(i for i, node in explorer.picture.nodes.items() if node.has_inner)
    explorer.select(loop)  # the Python API: the saved state output follows...
    key, bundle = updated[-1]
    assert key == explorer.snapshot_key + "-state"
    assert f'&quot;selected&quot;:&quot;{loop}&quot;' in bundle["text/html"]
    # ...and so does the browser's (one debounced message), without resending the snapshot.
    explorer._on_message(explorer.widget, {"state": {"open": [], "selected": "", "overlay": "nan_count"}}, None)
    key, bundle = updated[-1]
    assert key == explorer.snapshot_key + "-state" and "nan_count" in bundle["text/html"]
    assert all(k == explorer.snapshot_key + "-state" for k, _ in updated)

    f = sn.function([xs], hs.sum(), profile=True)
    f(np.ones((3, 2), "float32"))
    view = ProfileView(f)
    view.display()
    measured = view.report
    refresh = view.widget.children[0].children[0]  # [refresh, timeline]
    refresh.click()
    assert view.report is not measured
    page = _last_html(updated, view)
    assert page.count("per call") >= 1 and seconds_text(view.report.call_seconds) in page


def _sgd_step(profile):
    x = T.matrix("x", test_value=np.ones((4, 3), "float32"))
    W = sn.shared(np.full((3, 2), 0.5, "float32"), name="W")
    loss = T.tanh(T.dot(x, W)).sum()
    f = sn.function([x], loss, updates=[(W, W - np.float32(0.1) * sn.grad(loss, W))], profile=profile)
    if profile:
        for _ in range(3):
            f(np.ones((4, 3), "float32"))
    return f


def test_a_profiled_function_opens_shaded_by_time_share():
    """As GraphExplorer's docstring, the README and notebooks 05 and 12 say: a profiled,
    called function's view opens with the time-share overlay; any other with none."""
    profiled = GraphExplorer(_sgd_step(profile=True))
    shares = profiled.view_model()["overlays"]["time_share"]["values"]
    assert shares and profiled.view_state()["overlay"] == "time_share"
    plain = GraphExplorer(_sgd_step(profile=False))
    assert "time_share" not in plain.view_model()["overlays"]
    assert plain.view_state()["overlay"] == ""
    # times={} draws a profiled function uncoloured (the documented way out).
    assert GraphExplorer(_sgd_step(profile=True), times={}).view_state()["overlay"] == ""
    # The user's choice, once the browser said it, wins.
    profiled._take_state({"open": [], "selected": "", "overlay": ""})
    assert profiled.view_state()["overlay"] == ""


def test_the_browsers_layout_is_kept_in_the_saved_state(kernel):
    """The layout the live view drew (ELK's) goes into the state output the saved viewer
    reads: it opens at the live view's positions, not laid out again."""
    import html
    import json

    explorer = GraphExplorer(_sgd_step(profile=False))
    layout = {"open": [], "geometry": {"width": 300, "height": 120, "boxes": {"v0": [10, 20, 90, 40, ""]},
                                       "frames": {}, "edges": [], "regions": [["forward", 0, 0, 300, 120]]}}
    explorer._take_state({"open": [], "selected": "", "overlay": "", "layout": layout})
    assert explorer.view_state()["layout"] == layout
    from symnb.widgets.viewer import state_html

    text = state_html(explorer.snapshot_key, explorer.view_state())
    saved = json.loads(html.unescape(text.split('data-state="', 1)[1].split('"', 1)[0]))
    assert saved["layout"] == layout
    # Not a layout: not kept (the browser's message is checked, not trusted).
    explorer._take_state({"open": [], "selected": "", "overlay": "", "layout": "<script>"})
    assert "layout" not in explorer.view_state()
