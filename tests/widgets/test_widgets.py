"""symnb.widgets: each widget's model methods, and its ipywidgets children (no browser;
the browser test is tests/browser/)."""

import urllib.parse

import html

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.profiling import seconds_text
from symnb.core.graph import toposort
from symnb.printing.view_encode import decode_view_model
from symnb.widgets import GraphExplorer, ProfileView, RewriteStepper, TestValueEditor

NBSP = "\u00a0"


@pytest.fixture
def graph():
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    b = sn.shared(np.float32(0.5), name="b")
    y = T.exp(T.log(x)) * 2
    z = (y + b).sum()
    return x, b, y, z


def test_graph_explorer_tree_and_details(graph):
    x, b, y, z = graph
    explorer = GraphExplorer(z)
    assert [label.replace(NBSP, " ") for label in explorer.labels()] == [
        "Sum{axis=(0,)} 'z'", "  Elemwise{add,no_inplace} 'y + b'", "    Elemwise{mul,no_inplace} 'y'",
        "      Elemwise{exp,no_inplace} 'T.exp(T.log(x))'", "        Elemwise{log,no_inplace} 'T.log(x)'",
        "          x",
        "      TensorConstant{2}", "    b"]
    details = explorer.describe(2)
    assert details.splitlines()[0] == "y: mul"
    assert "created at test_widgets.py:" in details and ": y = T.exp(T.log(x)) * 2" in details
    assert "  #1 constant 2: TensorType(int8, shape=())  int8 () 2 mean=2 std=0 min=2 max=2" in details
    assert ("  #0 y: TensorType(float32, shape=(?,))  float32 (3,) [2., 4., 6.] mean=4 std=1.633 "
            "min=2 max=6 NaN=0 inf=0   <- selected") in details
    assert explorer.describe(7).splitlines() == [
        "b: shared variable", explorer.describe(7).splitlines()[1],
        "type: TensorType(float32, shape=())",
        "test value: float32 () 0.5 mean=0.5 std=0 min=0.5 max=0.5 NaN=0 inf=0"]


def test_graph_explorer_picture_has_a_node_per_apply_and_root(graph):
    x, b, y, z = graph
    explorer = GraphExplorer(z, engine="layered")
    nodes = explorer.picture.nodes
    assert sorted(n.label for n in nodes.values()) == sorted(
        ["T.log(x)", "T.exp(T.log(x))", "y", "y + b", "z", "x", "2", "b"])
    assert [n.kind for n in nodes.values() if n.label in ("x", "b", "2")] == ["input", "constant", "shared"]
    assert nodes[explorer.id_of(z)].is_output and not nodes[explorer.id_of(y)].is_output
    # One edge per input of each node, labelled with the shape of the value it moves.
    edges = {(nodes[e.source].label, nodes[e.target].label): e.label for e in explorer.picture.edges}
    assert edges[("y", "y + b")] == f"0: float32 {y.test_value.shape}" and edges[("b", "y + b")] == "1: float32 ()"
    assert len(edges) == 7
    svg = explorer.svg()
    assert svg.count('class="symnb-node') == 8 and svg.count('class="symnb-edge"') == 7
    assert f'data-id="{explorer.id_of(y)}"' in svg and ">y + b</text>" in svg


def test_graph_explorer_view_gets_the_model_once_and_answers_details(graph):
    x, b, y, z = graph
    explorer = GraphExplorer(z)
    view = explorer.widget
    sent = []
    view.send = lambda content, buffers=None: sent.append(content)
    # The whole graph goes once, as data: the model i28-model's view_model makes.
    model = decode_view_model(view.model_data)
    assert {n["id"] for n in model["nodes"]} >= {explorer.id_of(x), explorer.id_of(y), explorer.id_of(z)}
    assert view.view_state == {"open": explorer.opened, "selected": "", "overlay": ""}
    # The browser asks for a node's heavy details (a click on its card's button).
    explorer._on_message(view, {"details": explorer.id_of(x)}, None)
    (answer,) = sent
    assert answer["details_for"] == explorer.id_of(x)
    assert "<b>x</b>" in answer["html"] and "float32 (3,) [1., 2., 3.] mean=2" in answer["html"]
    explorer._on_message(view, {"details": explorer.id_of(y)}, None)
    assert ">mul<" in sent[-1]["html"] and "y = T.exp(T.log(x)) * 2" in sent[-1]["html"]
    assert explorer.selected == ""  # asking for details selects nothing in Python
    # The browser's debounced state is what the saved notebook keeps; the Python API's
    # changes go to the view as one command each.
    explorer._on_message(view, {"state": {"open": [], "selected": explorer.id_of(y), "overlay": "max_abs"}}, None)
    assert explorer.view_state() == {"open": [], "selected": explorer.id_of(y), "overlay": "max_abs"}
    assert explorer.selected == explorer.id_of(y)
    explorer.select(explorer.id_of(x))
    assert sent[-1] == {"command": {"open": [], "close": [], "selected": explorer.id_of(x)}}


def test_graph_explorer_marks_a_node_shown_twice(graph):
    x = graph[0]
    y = x * 2
    z = y + y
    labels = [label.strip(NBSP) for label in GraphExplorer(z).labels()]
    assert labels == ["Elemwise{add,no_inplace} 'z'", "Elemwise{mul,no_inplace} 'y'", "x",
                      "TensorConstant{2}", "Elemwise{mul,no_inplace} 'y'  (shown above)"]


def test_test_value_editor_recomputes_outputs_from_edited_inputs(graph):
    x, b, y, z = graph
    editor = TestValueEditor([y, z])
    assert editor.inputs == [x]  # b is shared: it keeps its own value
    assert editor.input_text(x) == "[1.0, 2.0, 3.0]"
    assert editor.output_lines() == ["y: float32 (3,) [2., 4., 6.]", "z: float32 () 13.5"]
    editor.set_text(x, "[1, 1]")
    assert editor.error is None
    assert editor.output_lines() == ["y: float32 (2,) [2., 2.]", "z: float32 () 5.0"]
    assert x.test_value.tolist() == [1.0, 1.0]
    assert y.test_value.tolist() == [2.0, 4.0, 6.0]  # built earlier: keeps its value
    assert (x * 3).test_value.tolist() == [3.0, 3.0]  # built now: from the edited value
    editor.set_text(0, "np.arange(3) + 0.5")
    assert editor.output_lines()[1] == "z: float32 () 10.5"


def test_test_value_editor_reports_bad_text_and_bad_shapes(graph):
    x, b, y, z = graph
    editor = TestValueEditor(z)
    editor.set_text(x, "[[1, 2]]")
    assert editor.error == ("test value for 'x' does not fit TensorType(float32, shape=(?,)): "
                            "expected 1 dimension(s) (?,), got 2 with shape (1, 2)")
    assert x.test_value.tolist() == [1.0, 2.0, 3.0]  # unchanged
    editor.set_text(x, "[1, ")
    assert editor.error.startswith("x: cannot read '[1, ': SyntaxError")
    w = T.vector("w", test_value=np.ones(3, "float32"))
    s = x + w
    both = TestValueEditor(s)
    both.set_text(w, "[1, 2]")
    assert both.error.startswith("the outputs cannot be computed: ")
    assert both.output_lines() == ["s: (not computed)"]
    both.set_text(x, "[5, 6]")
    assert both.error is None and both.output_lines() == ["s: float32 (2,) [6., 8.]"]


def test_test_value_editor_view(graph):
    x, b, y, z = graph
    editor = TestValueEditor(z)
    field, mark, result, note, _marker = editor.widget.children
    assert field.description == "x" and field.value == "[1.0, 2.0, 3.0]"
    assert type(field).__name__ == "Textarea" and mark.value == ""  # not edited yet
    assert "float32 () 13.5" in result.value and 'data-state="fresh"' in result.value
    field.value = "[3, 3, 3]"
    assert "float32 () 19.5" in result.value
    assert "edited here, not in the code" in mark.value
    assert "x.tag.test_value = np.array([3.0, 3.0, 3.0], dtype=&#x27;float32&#x27;)" in mark.value
    field.value = "[2, 2, 2, "
    # The error in red; the outputs kept from the last values, marked stale until recomputed.
    assert 'style="color:#d00000;white-space:pre-wrap">error: x: cannot read' in result.value
    assert 'data-state="stale"' in result.value and "float32 () 19.5" in result.value
    assert editor.text().splitlines()[3] == "-> (stale: not recomputed from the inputs above)"
    field.value = "[1, 1, 1]"
    assert 'data-state="fresh"' in result.value and "float32 () 7.5" in result.value
    assert "error" not in result.value
    assert "stored .test_value keep the values computed when they were built" in note.value


def test_an_edited_value_is_marked_with_the_code_that_re_creates_it():
    """The code shown for an edit, run in the cell, gives back the edited value exactly:
    dtype, shape, every element (float32's shortest digits, NaN, infinities, a 3-D and
    an empty value included)."""
    from symnb.widgets.editor import value_code

    m = T.matrix("m", test_value=np.ones((2, 3), "float32"))
    editor = TestValueEditor((m * 2).sum())
    assert editor.edited() == [] and editor.edited_html(m) == ""
    editor.set_text(m, "[[1.1, np.nan, 3],\n [np.inf, -0.1, 1e-30]]")  # typed on two lines
    assert editor.error is None
    code = editor.code(m)
    assert code == ("m.tag.test_value = np.array([[1.1, np.nan, 3.0],\n"
                    "                             [np.inf, -0.1, 1e-30]], dtype='float32')")
    assert "edited here, not in the code" in editor.edited_html(m) and html.escape(code) in editor.edited_html(m)
    assert editor.text().splitlines()[2:4] == ["  (edited here, not in the code; to keep it, in the cell:)",
                                               "  m.tag.test_value = np.array([[1.1, np.nan, 3.0],"]
    edited = m.test_value.copy()
    m.tag.test_value = np.zeros((5, 5), "float32")
    exec(code, {"np": np, "m": m})
    assert m.test_value.dtype == edited.dtype and np.array_equal(m.test_value, edited, equal_nan=True)
    editor.set_text(m, "[[1, 1, 1], [1, 1, 1]]")  # back to the code's value: no mark
    assert editor.edited() == [] and "edited here" not in editor.text()

    rng = np.random.default_rng(0)
    values = [rng.standard_normal((2, 3, 4)).astype("float32") * np.float32(1e-20),
              rng.standard_normal(7) * 1e200, np.zeros((0, 3), "float32"), np.array(-3, "int8"),
              rng.integers(0, 2, 5).astype(bool), (rng.standard_normal(3) + 1j).astype("complex64"),
              rng.standard_normal(4).astype("float16")]
    for value in values:
        v = T.tensor(str(value.dtype), shape=(None,) * value.ndim, name="v", test_value=value)
        code = value_code(v)
        v.tag.test_value = np.ones(value.shape, value.dtype)
        exec(code, {"np": np, "v": v})
        assert v.test_value.dtype == value.dtype and v.test_value.shape == value.shape, code
        assert np.array_equal(v.test_value, value), code


def test_test_value_editor_missing_input_value():
    v = T.vector("v")
    q = v * 2
    editor = TestValueEditor(q)
    assert editor.error == "no test value yet for: v"
    editor.set_text(v, "[1, 2]")
    assert editor.output_lines() == ["q: float32 (2,) [2., 4.]"]


def test_profile_view_rows_and_table(graph):
    x, b, y, z = graph
    with pytest.raises(ValueError, match="profile=True"):
        ProfileView(sn.function([x], z))
    f = sn.function([x], z, profile=True)
    assert ProfileView(f).text() == "no profile yet: call the function once"
    f(np.ones(4, "float32"))
    view = ProfileView(f)
    assert sorted(r.index for r in view.rows if r.index >= 0) == [0, 1]
    # Shares of the real call: the nodes, the fused operations and the time outside the
    # program make 100%.
    assert sum(r.percent for r in view.rows) == pytest.approx(100.0)
    by_index = {r.index: r for r in view.rows if r.index >= 0}
    assert by_index[1].op == "sum" and by_index[0].op == "fused"  # the views' words
    assert by_index[1].node == "z" and by_index[0].node == "fused: ge\u00b7abs\u00b7switch\u00b7mul\u00b7add"
    assert by_index[1].line.endswith(": z = (y + b).sum()")
    buttons, table, _marker, order = view.widget.children
    refresh, trace = buttons.children
    assert table.value.index("By line") < table.value.index("By node")  # the line view first
    assert "z = (y + b).sum()" in table.value.split("By node")[0] and "width:" in table.value
    order.value = "op"  # fused sorts before sum
    assert table.value.index(">fused<") < table.value.index(">sum<")
    assert "table-layout:fixed;width:100%" in table.value  # as wide as the output: cells wrap
    assert 'style="text-align:left' in table.value  # JupyterLab right-aligns cells otherwise
    assert "z = (y + b).sum()" in table.value and ">fused: ge\u00b7abs\u00b7switch\u00b7mul\u00b7add" in table.value
    refresh.click()
    assert ">sum<" in table.value
    # One call in time, in the view: the button traces it; the table shows its picture,
    # one bar per XLA operation the trace recorded (f.profile.timeline()'s own).
    assert "symnb-timeline" not in table.value and "press <b>timeline</b>" in table.value
    trace.click()
    operations = view.traced.operations()
    assert not view.traced.reason and operations
    assert table.value.count('data-kind="xla"') == len(operations) and "Timeline of" in table.value
    assert view.snapshot_body().count('data-kind="xla"') == len(operations)  # saved with the notebook


def test_rewrite_stepper_steps_through_the_history(graph):
    x, b, y, z = graph
    stepper = RewriteStepper(sn.function([x], z))
    assert stepper.title() == "Rewrite 1 of 2: local_exp_log"
    step = stepper.step()
    assert step.before.splitlines() == ["T.exp(T.log(x))  exp", "  T.log(x)  log", "    x"]
    # exp(log(x)) keeps NaN where x < 0: x where x >= 0 (abs makes -0.0 into +0.0). The
    # nodes the rewrite made are labelled by the user's code they compute (no rewrite name:
    # that is an internal name, shown only with exception_verbosity='high').
    assert step.after.splitlines() == [
        "T.exp(T.log(x))  switch", "  T.exp(T.log(x))  ge", "    x", "    constant 0.0",
        "  T.exp(T.log(x))  abs", "    x", "  constant nan"]
    assert step.line.endswith(": y = T.exp(T.log(x)) * 2")
    assert stepper.previous() == 0 and stepper.next() == 1 and stepper.next() == 1
    assert stepper.step().name == "fusion"
    # The fused node reads x and b, which stay: the text is cut there on both sides.
    assert stepper.step().after.splitlines() == ["fused: ge\u00b7abs\u00b7switch\u00b7mul\u00b7add",
                                                 "  x", "  b"]


def test_rewrite_stepper_view_buttons(graph):
    x, b, y, z = graph
    stepper = RewriteStepper(sn.function([x], z))
    (previous, following), page = stepper.widget.children[0].children, stepper.widget.children[1]
    assert '<span class="symnb-added" style="background:#ccf5d3">+ T.exp(T.log(x))  switch' in page.value
    assert '<span class="symnb-removed" style="background:#ffd7d5">- T.exp(T.log(x))  exp' in page.value
    region, overview = page.value.split("the whole graph before this rewrite")
    assert region.count('<g class="symnb-node symnb-apply') == 5  # exp, log; ge, abs, switch
    assert overview.count('<g class="symnb-node symnb-apply') == 5  # exp, log, *2, +b, sum
    assert previous.disabled and not following.disabled
    assert "Rewrite 1 of 2: local_exp_log" in page.value
    following.click()
    assert "Rewrite 2 of 2: fusion" in page.value and following.disabled and not previous.disabled
    assert "replaces the node built at <code>" in page.value and "(y + b).sum()</code>" in page.value


def test_rewrite_stepper_without_rewrites(graph):
    x = graph[0]
    stepper = RewriteStepper(sn.function([x], x * 2, mode=sn.compile.Mode(optimizer=None)))
    assert stepper.text() == "No rewrites were applied (optimizer=None)."
    with pytest.raises(IndexError, match="no rewrites were applied"):
        stepper.step()
    previous, following = stepper.widget.children[0].children
    assert previous.disabled and following.disabled


def test_widgets_display_live_view_then_snapshot_in_a_kernel(graph, monkeypatch):
    explorer = GraphExplorer(graph[3])
    bundle = explorer._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.widget.model_id
    assert bundle["text/plain"] == explorer.text()
    # The saved picture is an <img> (viewers that sanitize outputs drop inline SVG).
    assert bundle["text/html"].count('<img class="symnb-graph" src="data:image/svg+xml;charset=utf-8,%3Csvg') == 1
    shown, ids = [], []
    monkeypatch.setattr("IPython.display.display", lambda data, raw=False, display_id=None: (
        shown.append(data), ids.append(display_id)))
    monkeypatch.setattr("symnb.widgets._view.in_kernel", lambda: True)
    explorer.display()
    live, snapshot, state = shown
    # The snapshot (the model and the saved viewer, sent once) and the tiny state output
    # that follows the view's state.
    assert ids == [None, explorer.snapshot_key, explorer.snapshot_key + "-state"]
    assert state["text/html"].startswith('<div class="symnb-view-state"') and len(state["text/html"]) < 300
    assert live == {"application/vnd.jupyter.widget-view+json": {
        "version_major": 2, "version_minor": 0, "model_id": explorer.widget.model_id}, "text/plain": ""}
    key = explorer.widget.snapshot_key
    assert snapshot["text/html"].startswith(f'<div class="symnb-snapshot" data-symnb-key="{key}">')
    assert urllib.parse.quote(explorer.svg(), safe=" =:/,;()._-{}!*+@$[]'") in snapshot["text/html"]
    assert snapshot["text/plain"].startswith("Sum{axis=(0,)} 'z'\n  Elemwise{add,no_inplace} 'y + b'")


def test_widgets_print_their_text_outside_a_kernel(graph, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda data, raw=False: shown.append(data))
    stepper = RewriteStepper(sn.function([graph[0]], graph[3]))
    stepper.display()
    assert shown == [{"text/plain": stepper.text()}]
    assert stepper._widget is None  # no widget is built for a terminal


def _fills(svg):
    """data-id -> the fill of the node's box, for the timed nodes of an SVG."""
    found = {}
    for group in svg.split("<g ")[1:]:
        if "symnb-timed" in group.split(">", 1)[0]:
            node_id = group.split('data-id="', 1)[1].split('"', 1)[0]
            found[node_id] = group.split('fill="', 1)[1].split('"', 1)[0]
    return found


def _darkness(fill):
    return -sum(int(fill[i:i + 2], 16) for i in (1, 3, 5))


def _unit_fills(svg):
    """The fill of each box of the parts of the call that are no node (fused operations,
    the time outside the program), in order."""
    return [group.split('fill="', 1)[1].split('"', 1)[0]
            for group in svg.split('<g class="symnb-time-unit"')[1:]]


def test_graph_explorer_of_a_profiled_function_shades_nodes_by_their_time():
    a = T.matrix("a", shape=(None, 256))
    b = T.matrix("b", shape=(256, 256))
    f = sn.function([a, b], T.tanh(T.dot(a, b)).sum(), profile=True)
    rng = np.random.default_rng(0)
    f(rng.normal(size=(256, 256)).astype("float32"), rng.normal(size=(256, 256)).astype("float32"))
    explorer = GraphExplorer(f)  # measures f.profile.node_times() once
    times = explorer.times
    report = f.profile.report()
    assert set(times) == set(f.nodes)
    svg = explorer.svg()
    fills, units = _fills(svg), _unit_fills(svg)
    members = {id(node) for unit in times.fused for node in unit.members}
    # Timed boxes: the nodes with a time of their own (or in no fused operation).
    assert set(fills) == {explorer.id_of(n) for n in f.nodes if times[n] > 0 or id(n) not in members}
    # One box per fused operation and one for the time outside the program, on the same
    # scale: the costliest of all these parts is the scale's hot end.
    assert len(units) == len(report.fused) + 1 + (report.unattributed > 0)
    parts = [(times[n], fills[explorer.id_of(n)]) for n in f.nodes if explorer.id_of(n) in fills]
    parts += list(zip([u.seconds for u in explorer.picture.time_units], units))
    costliest = max(parts)
    assert costliest[1] == "#f46d43"
    assert all(_darkness(fill) <= _darkness(costliest[1]) for _, fill in parts)
    # The saved snapshot (an <img> of the SVG) keeps the shading.
    snapshot = urllib.parse.unquote(explorer.snapshot_body())
    assert _fills(snapshot[snapshot.index("<svg"):]) == fills
    # Shares of the real call, as f.profile.summary() counts them; a fused operation's
    # member has none of its own.
    for node in f.nodes:
        details = explorer.select(explorer.id_of(node))
        assert "<th" in details and ">time<" in details
        if explorer.id_of(node) in fills:
            share = 100 * times[node] / report.call_seconds
            assert f"{seconds_text(times[node])} per call ({share:.1f}% of the call)" in details
        else:
            assert "no time of its own: its work is in the fused XLA operation F" in details


def test_graph_explorer_colours_by_given_times_and_profile_view_opens_its_graph(graph):
    x, b, y, z = graph
    f = sn.function([x], z, profile=True)
    assert GraphExplorer(f).times == {}  # not called yet: nothing to colour by
    first, second = f.nodes
    explorer = GraphExplorer(f, times={first: 3e-3, second: 1e-3})
    fills = _fills(explorer.svg())
    # White (255, 245, 240) to red (244, 109, 67) by time over the costliest node's.
    assert fills == {explorer.id_of(first): "#f46d43", explorer.id_of(second): "#fbc8b6"}
    assert "1 ms per call (25.0% of the nodes&#x27; time)" in explorer.select(explorer.id_of(second))
    assert 'data-seconds="0.001"' in explorer.svg()
    f(np.ones(4, "float32"))
    view = ProfileView(f)
    coloured = view.graph()
    assert coloured.times == {f.nodes[r.index]: r.seconds for r in view.rows if r.index >= 0}
    timed = {n for n, s in coloured.times.items() if s > 0 or not any(n in u.members for u in coloured.times.fused)}
    assert set(_fills(coloured.svg())) == {coloured.id_of(n) for n in timed}
    assert len(_unit_fills(coloured.svg())) == len(coloured.times.fused) + 1 + (coloured.times.unnamed > 0)


def test_a_deep_graphs_saved_text_stays_small():
    # The whole indented tree of a 260-step chain is 33,000+ characters (quadratic in the
    # depth): a notebook grew by megabytes per view. The saved text keeps 200 lines.
    x = T.vector("x", test_value=np.ones(2, "float32"))
    h = x
    for _ in range(260):
        h = h * 1.5
    explorer = GraphExplorer(h)
    whole = explorer.text().split("\n")
    saved = explorer.snapshot_bundle()["text/plain"].split("\n")
    assert len(whole) > 260 and len(explorer.text()) > 30_000
    assert saved[:200] == [line if len(line) <= 160 else line[:159] + "\u2026" for line in whole[:200]]
    assert saved[200] == f"... {len(whole) - 200} more lines (explorer.text() has them all)" and len(saved) == 201


def test_the_saved_overview_counts_the_whole_graph():
    # The overview's note counted the server picture's boxes (17 for a 270-node training
    # step whose groups start closed); it names the graph's operations, as toposort has them.
    def block(h):
        return T.tanh(h * 1.5)

    x = T.vector("x", test_value=np.ones(2, "float32"))
    h = x
    for _ in range(60):
        h = block(h)  # 60 calls: the view folds them into one closed box
    explorer = GraphExplorer(h)
    saved = explorer.snapshot_bundle()["text/html"]
    assert len(toposort([h])) == 120 and "120 operations; open the notebook trusted" in saved
