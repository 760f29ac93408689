"""The failure view tells the truth (issue 29): a scan step reads ``E[i_t]`` with ``i_t = 7``
out of range at iteration 3. The failing node's card shows *that* iteration's inputs and
says its output was not computed, never another iteration's value unlabelled; any
iteration's values (replayed on demand) and a value's summary over the iterations match
NumPy; every level of a nested scan is named; no internal name reaches the view. The
expected values are computed here with NumPy from the call's arguments."""

import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.config import config
from symnb.core.loop_values import summary_over_iterations, values_at
from symnb.printing.values import value_stats
from symnb.widgets import GraphExplorer

E_VALUE = np.arange(40, dtype="float32").reshape(5, 8) / 10
INDICES = np.array([0, 1, 2, 7, 3])
FAILING = 3  # INDICES[3] = 7 is out of range for E's 5 rows


def _text(page: str) -> str:
    """What a page reads as: its text, tags and heatmaps left out."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<img[^>]*>", "", page))).replace("&#x27;", "'")


@pytest.fixture(scope="module")  # one compile; each test makes its own explorer of it
def scan_error():
    return make_scan_error()


def make_scan_error() -> BaseException:
    """The issue's case: the step reads ``E[i_t]`` with ``i_t = 7`` at iteration 3."""
    E = sn.shared(E_VALUE, name="E")
    idx = T.lvector("idx")

    def step(i_t, h, E):
        return h + E[i_t].sum()

    hs, _ = sn.scan(step, sequences=[idx], outputs_info=[T.constant(np.float32(0))],
                    non_sequences=[E], name="step")
    f = sn.function([idx], hs[-1])
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(INDICES)
    return info.value


def _states():
    """h after each iteration that ran (NumPy)."""
    h, states = np.float32(0), []
    for i in INDICES[:FAILING]:
        h = h + E_VALUE[i].sum()
        states.append(h)
    return states


def test_the_failing_nodes_card_shows_that_iterations_inputs_and_no_other_value(scan_error):
    explorer = GraphExplorer(scan_error)
    header, details = explorer.footer, explorer.details_html()  # the card: under the picture
    # The node's card (the kernel's details, selected first) showed E[2], iteration 2's
    # output, as its "value in this call".
    assert value_stats(E_VALUE[INDICES[FAILING - 1]]) not in details
    card = _text(header.split('class="symnb-failing-card"', 1)[1])
    assert "i_t = 7" in card and "float32 (5, 8)" in card  # the inputs of iteration 3
    assert f"iteration {FAILING} of scan(step)" in card
    assert "not computed" in card
    # The failing node's output at iteration 2 (E[2]) was shown as its "value in this call".
    for page in (header, details):
        assert value_stats(E_VALUE[INDICES[FAILING - 1]]) not in page
        assert "iteration 2" not in _text(page)
    assert f"not computed: this node failed at iteration {FAILING} of scan(step)" in _text(details)
    assert "i_t (reads idx[t])" in _text(details)  # the step's parameter, as the user wrote it
    # The line above the picture names the loop and the node as the picture does.
    assert f"Failed at iteration {FAILING} of scan(step) of this call (E[i_t] in the loop body)" in _text(explorer.header)


def test_picked_iterations_show_numpys_values(scan_error):
    explorer = GraphExplorer(scan_error)
    node = scan_error.node  # E[i_t]
    subtensor_out, (E_in, i_in) = node.outputs[0], node.inputs
    states = _states()
    for k in (0, 2):
        page = explorer.pick_iteration(k)
        values = explorer.iteration_values()
        assert int(values[i_in]) == INDICES[k]
        np.testing.assert_array_equal(values[subtensor_out], E_VALUE[INDICES[k]])
        np.testing.assert_array_equal(values[E_in], E_VALUE)
        outputs = [v for v in values if v.owner is not None and v.owner.outputs[0] is v
                   and v.owner.op.display_name().startswith("Elemwise{add")]
        np.testing.assert_allclose(values[outputs[0]], states[k], rtol=1e-6)
        assert f"Values at iteration {k} of scan(step)" in _text(page)
        assert f"i_t = {INDICES[k]}" in _text(page)
    page = explorer.pick_iteration(FAILING)  # the failing one: its output not computed
    assert "the iteration that failed" in _text(page) and "raised the error" in _text(page)
    with pytest.raises(ValueError, match="ran iterations 0 to 3"):
        explorer.pick_iteration(4)  # never ran: the call failed at 3


def test_a_values_summary_over_the_iterations_matches_numpy_and_marks_the_failure(scan_error):
    explorer = GraphExplorer(scan_error)
    loop = scan_error.call_values.loops[-1][0]
    out = scan_error.node.outputs[0]
    for measure, reference in (("norm", np.linalg.norm), ("mean", np.mean),
                               ("max |value|", lambda a: np.abs(a).max())):
        points = summary_over_iterations(scan_error.call_values, [], loop, out, measure)
        assert [i for i, _ in points] == [0, 1, 2]  # iteration 3 computed nothing
        np.testing.assert_allclose([y for _, y in points],
                                   [reference(E_VALUE[i].astype("float64")) for i in INDICES[:FAILING]], rtol=1e-6)
    svg = explorer.plot_svg(out, "norm")
    plotted = [float(v) for v in re.findall(r'data-value="([^"]+)"', svg)]
    np.testing.assert_allclose(plotted, [np.linalg.norm(E_VALUE[i]) for i in INDICES[:FAILING]], rtol=1e-4)
    assert svg.startswith("<svg") and "failed, not computed" in svg


NESTED_ROWS = np.arange(12, dtype="float32").reshape(3, 4)
NESTED_PICKS = np.array([[0, 1, 2], [3, 0, 9], [1, 1, 1]])  # row 1, inner iteration 2: index 9


def make_nested_scan_error():
    """A scan in a scan: ``row[j]`` out of bounds at inner iteration 2 of outer iteration 1
    (``NESTED_PICKS[1][2]`` is 9, a row holds 4). Returns pytest's ``ExceptionInfo``."""
    X, P = T.matrix("X"), T.lmatrix("P")

    def row_total(row, picked):
        def take(j, acc, row):
            return acc + row[j]

        sums, _ = sn.scan(take, sequences=[picked], outputs_info=[T.constant(np.float32(0))],
                          non_sequences=[row], name="inner")
        return sums[-1]

    totals, _ = sn.scan(row_total, sequences=[X, P], name="outer")
    f = sn.function([X, P], totals)
    with pytest.raises(sn.IndexOutOfBoundsError) as info:
        f(NESTED_ROWS, NESTED_PICKS)
    return info


def test_every_level_of_a_nested_scan_is_marked():
    rows, picks = NESTED_ROWS, NESTED_PICKS
    info = make_nested_scan_error()
    call = info.value.call_values
    assert [(loop.op.display_name(), n) for loop, n in call.loops] == [("Scan{outer}", 1), ("Scan{inner}", 2)]
    assert call.where == "iteration 2 of Scan{inner}, in iteration 1 of Scan{outer}"
    explorer = GraphExplorer(info.value)
    card = _text(explorer.footer.split('class="symnb-failing-card"', 1)[1])
    assert "loop scan(outer)" in card and "failed in iteration 1" in card
    assert "loop nested 1 level deep scan(inner)" in card and "failed in iteration 2" in card
    assert "j = 9" in card and "float32 (4,)" in card  # the inputs: j, and the row of iteration 1
    details = _text(explorer.details_html())  # the node's card: each value says both levels
    assert "iteration 2 of scan(inner), in iteration 1 of scan(outer): int64 () 9" in details
    assert "row (reads X[t])" in details and "j (reads P[t][t])" in details
    # The inner loop's values at inner iteration 1 of outer iteration 1 (NumPy: row 1, picks[1][1]).
    explorer.pick_iteration(1, level=-1)
    values = explorer.iteration_values()
    row_in, j_in = info.value.node.inputs[:2]  # row[j]: what it reads
    np.testing.assert_array_equal(values[row_in], rows[1])
    assert int(values[j_in]) == picks[1][1]
    # Outer iteration 0 ran whole: its inner loop ran 3 iterations, picked again from 0.
    page = explorer.pick_iteration(0, level=0)
    assert explorer.picked == [0, 0] and explorer.iteration_count(-1) == 3
    assert "iteration 0 of scan(inner), in iteration 0 of scan(outer)" in _text(page)
    found = values_at(call, [(call.loops[0][0], 0), (call.loops[1][0], 2)])
    assert int(next(x for v, x in found.values() if v is j_in)) == picks[0][2]


def test_no_internal_name_reaches_the_failure_view(scan_error):
    explorer = GraphExplorer(scan_error)
    model = explorer.view_model()
    pages = [explorer.footer, explorer.details_html(), explorer.iteration_html(), explorer.overview_svg(),
             " ".join(str(n["label"]) + " " + str(n["op"]) for n in model["nodes"]),
             " ".join(g["label"] for g in model["groups"])]
    pages += [explorer.select(node_id) for node_id in explorer.node_ids()]
    for page in pages:
        assert "TensorType" not in page and "scan_keep_last_step" not in page, _text(page)[:400]
    assert "Toposort" not in explorer.footer.split('class="symnb-failing-card"', 1)[1]
    with config.change_flags(exception_verbosity="high"):  # asked for: the rewrite named
        assert "scan_keep_last_step" in GraphExplorer(scan_error).overview_svg()


def test_the_viewer_selects_the_failing_node_in_the_loop_and_shows_the_calls_values(scan_error):
    explorer = GraphExplorer(scan_error)
    loop = scan_error.call_values.loops[-1][0]
    model = explorer.view_model()
    nodes = {n["id"]: n for n in model["nodes"]}
    holder = explorer.picture.id_of(loop)
    assert "/" in explorer.selected  # the kernel's own selection: the node inside the loop
    # The viewer selects that node too (the model holds the loop's body), the loop marked.
    selected = explorer.view_state()["selected"]
    assert selected == explorer.selected and nodes[selected]["failing"] and nodes[holder]["failing"]
    assert nodes[selected]["group"] in explorer.view_state()["open"]  # its body drawn open
    loop_card = _text(explorer.select(holder))  # the loop's card: why it has no value
    assert f"not computed: E[i_t] inside it failed at iteration {FAILING} of scan(step)" in loop_card
    # The boxes show the call's values (the saved view keeps them), not test values.
    shared_E = next(n for n in model["nodes"] if n["name"] == "E")
    assert shared_E["summary"] == value_stats(E_VALUE)
    assert model["overlays"]["max_abs"]["source"].startswith("the failed call's values")
    page = explorer.snapshot_body()
    assert "symnb-failing-card" in page and "symnb-iteration-snapshot" in page
    assert "i_t = 7" in _text(page)


def test_the_live_picker_replays_the_iteration_picked(scan_error):
    widgets = pytest.importorskip("ipywidgets", reason="the live view needs ipywidgets")
    explorer = GraphExplorer(scan_error)
    explorer.widget  # noqa: B018 -- builds the live view: the viewer and the picker under it
    picker = explorer._picker
    slider = next(c for c in picker.children if isinstance(c, widgets.IntSlider))
    assert (slider.value, slider.max) == (FAILING, FAILING)  # opens at the failing iteration
    assert "scan(step)" in slider.description
    shown = picker.children[-1]
    slider.value = 1
    assert explorer.picked == [1]
    assert "i_t = 1" in _text(shown.value) and value_stats(E_VALUE[INDICES[1]]) in shown.value
    summary = next(c for c in picker.children[-2].children if c.description == "summary")
    summary.value = "mean"
    plotted = [float(v) for v in re.findall(r'data-value="([^"]+)"', shown.value)]
    np.testing.assert_allclose(plotted, [E_VALUE[i].mean() for i in INDICES[:FAILING]], rtol=1e-5)


def test_the_saved_view_keeps_the_iteration_last_picked(scan_error, monkeypatch):
    widgets = pytest.importorskip("ipywidgets", reason="the live view needs ipywidgets")
    explorer = GraphExplorer(scan_error)
    explorer.widget  # noqa: B018
    sent = []
    explorer._shown = True  # as displayed in a kernel: the snapshot is replaced in place
    monkeypatch.setattr("IPython.display.update_display",
                        lambda bundle, **kw: sent.append((bundle, kw)))
    slider = next(c for c in explorer._picker.children if isinstance(c, widgets.IntSlider))
    slider.value = 2
    snapshots = [b["text/html"] for b, kw in sent if kw.get("display_id") == explorer.snapshot_key]
    assert snapshots and "Values at iteration 2 of scan(step)" in _text(snapshots[-1])
    assert value_stats(E_VALUE[INDICES[2]]) in snapshots[-1]
