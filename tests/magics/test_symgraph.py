"""%load_ext symnb: the %%symgraph cell magic and the HTML reprs, in an in-process shell."""

import re
import subprocess
from html.parser import HTMLParser
import urllib.parse
import sys
from unittest import mock

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

CELL_X = "x = T.vector('x', test_value=np.array([1, 2, 3], 'float32'))"


@pytest.fixture
def shell():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "symnb")
    shell.run_cell("import numpy as np\nimport symnb as sn\nimport symnb.tensor as T", store_history=True)
    yield shell
    shell.run_line_magic("unload_ext", "symnb")
    InteractiveShell.clear_instance()


def cell(shell):
    """How symnb names the next cell: ``Cell In[n]``, n its execution count."""
    return f"Cell In[{shell.execution_count}]"


def run(shell, cell):
    """Run ``cell``; return (result, the MIME bundles %%symgraph displayed)."""
    shown = []
    with mock.patch("symnb.magics.symgraph.display", side_effect=lambda data, raw=False: shown.append(data)):
        result = shell.run_cell(cell, store_history=True)
    return result, shown


def row(*cells):
    """A row of symnb's left-aligned tables."""
    style = "text-align:left;vertical-align:top;padding:1px 10px 1px 0;border:none"
    styles = [style + ";white-space:nowrap"] + [style] * (len(cells) - 1)  # the header on one line
    tags = ["th"] + ["td"] * (len(cells) - 1)
    return "<tr>" + "".join(f'<{t} style="{s}">{c}</{t}>' for t, s, c in zip(tags, styles, cells)) + "</tr>"


class _Lines(HTMLParser):
    """The folded list of a report: its ``<details>`` lines, nested as on the page."""

    def __init__(self):
        super().__init__()
        self.stack = [{"name": None, "summary": "", "children": [], "body": ""}]
        self.in_summary = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "details" and (attrs.get("class") or "").startswith("symnb-"):
            line = {"kind": attrs["class"][6:], "name": attrs.get("data-name"), "summary": "",
                    "children": [], "body": ""}
            self.stack[-1]["children"].append(line)
            self.stack.append(line)
        elif tag == "summary":
            self.in_summary = True
        elif tag == "img":
            self.stack[-1]["body"] += "<img>"
        elif tag == "details":
            self.stack.append({"name": None, "summary": "", "children": [], "body": ""})

    def handle_endtag(self, tag):
        if tag == "summary":
            self.in_summary = False
        elif tag == "details" and len(self.stack) > 1:
            self.stack.pop()

    def handle_data(self, data):
        self.stack[-1]["summary" if self.in_summary else "body"] += data


def folded_lines(page):
    """The report's top-level lines: [{kind, name, summary, children, body}]."""
    parser = _Lines()
    parser.feed(page)
    return [line for line in parser.stack[0]["children"] if line["kind"] in ("var", "group", "more")]


def summary_words(line):
    return line["summary"].split()


def test_import_symnb_imports_neither_ipython_nor_ipywidgets():
    code = ("import sys, symnb, symnb.widgets, symnb.tensor as T; y = T.vector('x') * 2; "
            "print('IPython' in sys.modules, 'ipywidgets' in sys.modules, 'jax' in sys.modules, "
            "'anywidget' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False False False"


def test_symgraph_shows_one_line_per_variable_and_one_picture(shell):
    shell.run_cell("unchanged = T.scalar('u')", store_history=True)
    name = cell(shell)
    result, (bundle,) = run(shell, f"%%symgraph\n{CELL_X}\ny = x * 2\nn = 3")
    assert result.success
    page, text = bundle["text/html"], bundle["text/plain"]
    assert page.count('<img class="symnb-graph"') == 1
    x, y = folded_lines(page)  # not unchanged (not reassigned), not n (not symbolic)
    assert (x["name"], y["name"]) == ("x", "y")
    # One line: name, dtype, shape, the value's summary (its dtype and shape not twice).
    assert summary_words(y) == "y float32 (3,) [2., 4., 6.] mean=4 std=1.633 min=2 max=6 NaN=0 inf=0".split()
    assert summary_words(x)[:4] == ["x", "float32", "(3,)", "[1.,"]
    # One click away: the op, the cell's own line (line 1 is %%symgraph), the heatmap.
    assert "computed bymul" in y["body"] and f"{name}:3: y = x * 2" in y["body"]
    assert f"{name}:2: x = T.vector" in x["body"] and y["body"].count("<img>") == 1
    assert text.splitlines()[1].split() == (f"y float32 (3,) [2., 4., 6.] mean=4 std=1.633 min=2 max=6 NaN=0 "
                                            f"inf=0 [{name}:3: y = x * 2]").split()
    assert "Elemwise{mul,no_inplace} [id A] '' -> float32 (3,) [2., 4., 6.]" in text


MLP_CELL = """%%symgraph
rng = np.random.default_rng(0)
x = T.matrix("x", test_value=rng.random((8, 16), dtype="float32"))
y = T.ivector("y", test_value=rng.integers(0, 4, 8).astype("int32"))
Ws = [sn.shared((rng.standard_normal((16, 16)) / 4).astype("float32"), name=f"W{i}") for i in range(12)]
bs = [sn.shared(np.zeros(16, "float32"), name=f"b{i}") for i in range(12)]
h = x
for W, b in zip(Ws, bs):
    h = T.nnet.relu(T.dot(h, W) + b)
loss = T.nnet.categorical_crossentropy(T.nnet.softmax(h), y).mean()
params = Ws + bs
grads = sn.grad(loss, params)
updates = [(p, p - np.float32(0.1) * g) for p, g in zip(params, grads)]"""


def test_symgraph_folds_a_models_cell_to_a_line_per_name(shell):
    """The issue's MLP cell: 51 rows with a heatmap each became 11 lines, the lists one
    line each that opens onto their elements; the loop's last W and b say which element
    they are."""
    result, (bundle,) = run(shell, MLP_CELL)
    assert result.success
    page, text = bundle["text/html"], bundle["text/plain"]
    lines = folded_lines(page)
    assert [line["name"] for line in lines] == [
        "x", "y", "Ws[0..11]", "bs[0..11]", "h", "W", "b", "loss", "params[0..23]", "grads[0..23]",
        "updates[0..23][0..1]"]
    by_name = {line["name"]: line for line in lines}
    grads = by_name["grads[0..23]"]
    assert grads["kind"] == "group"
    assert [c["name"] for c in grads["children"]] == [f"grads[{i}]" for i in range(24)]
    assert summary_words(grads) == "grads[0..23] 24 variables: float32 (16, 16) x12, float32 (16,) x12".split()
    ns = shell.user_ns
    # Each gradient's line: its own value's shape (not the static type's (?, ?)), and the
    # heatmap one click further.
    for i, child in enumerate(grads["children"]):
        shape = ", ".join(map(str, ns["grads"][i].test_value.shape))
        assert " ".join(summary_words(child)).startswith(f"grads[{i}] float32 ({shape}{',' * (shape.count(',') == 0)})")
        assert child["body"].count("<img>") == 1
    assert summary_words(by_name["W"])[1:] == "float32 (16, 16) the same variable as Ws[11]".split()
    assert by_name["W"]["body"].count("<img>") == 0  # shown once, under Ws[11]
    assert "(all listed above under other names)" in by_name["params[0..23]"]["summary"]
    # What shows before a click: the 11 summaries, no heatmap (every <details> closed).
    heatmaps = [c["body"].count("<img>") for line in lines for c in line["children"] or [line]]
    # x, y, Ws, bs, h, grads, the updates' new values; not the scalar loss, not a variable
    # listed before (W, b, params, the updates' shared variables).
    assert sum(heatmaps) == 1 + 1 + 12 + 12 + 1 + 24 + 24
    assert "<details open" not in page and page.count("<details") == len(lines) + sum(len(c["children"]) for c in lines)
    assert page.count('<img class="symnb-graph"') == 1
    assert text.splitlines()[2].split() == "Ws[0..11] 12 variables: float32 (16, 16) x12".split()
    assert len(text.splitlines()) <= 11 + 61  # the lines, then the debugprint cut at 60 lines
    assert "more lines (sn.printing.debugprint(var) of each prints them all)" in text


def test_symgraph_show_selects_and_reassignment_counts(shell):
    run(shell, f"%%symgraph\n{CELL_X}")
    result, (bundle,) = run(shell, "%%symgraph --show y\ny = x + 1\nz = y * y")
    assert result.success
    page = bundle["text/html"]
    assert [line["name"] for line in folded_lines(page)] == ["y"]
    assert "float32 (3,) [2., 3., 4.]" in page


@pytest.mark.parametrize("line, message", [
    ("--show nothere", "no variable named 'nothere'"),
    ("--show n", "'n' is of type int, not a symbolic variable"),
    ("--show ,", "needs at least one name"),
])
def test_symgraph_show_errors_name_the_variable(shell, line, message):
    result, shown = run(shell, f"%%symgraph {line}\nn = 1")
    assert not result.success and shown == []
    assert message in str(result.error_in_exec)
    assert type(result.error_in_exec).__name__ == "UsageError"


def test_symgraph_errors_in_the_cell_propagate_and_name_the_cell_line(shell, capsys):
    name = cell(shell)
    result, shown = run(shell, f"%%symgraph\n{CELL_X}\nw = T.vector('w', test_value=np.ones(2, 'float32'))\n"
                               "bad = x + w")
    assert shown == []
    assert type(result.error_in_exec).__name__ == "TestValueError"
    assert f"{name}, line 4, in <module>" in str(result.error_in_exec)
    shown_traceback = capsys.readouterr().out
    assert "line 4" in shown_traceback and "bad = x + w" in shown_traceback
    # No frame of the magic or of symnb above the user's line.
    assert "symgraph.py" not in shown_traceback and "run_cell_magic" not in shown_traceback
    assert "test_value.py" not in shown_traceback
    # The cell's lines as typed: the magic's line, not the calls it was turned into.
    assert "_symnb_symgraph" not in shown_traceback and "begin(" not in shown_traceback
    assert ".end()" not in shown_traceback


def test_symgraph_through_run_cell_magic_runs_the_cell_itself(shell):
    shown = []
    with mock.patch("symnb.magics.symgraph.display", side_effect=lambda data, raw=False: shown.append(data)):
        shell.run_cell_magic("symgraph", "", f"{CELL_X}\ny = x * 3")
    _x, y = folded_lines(shown[0]["text/html"])
    assert summary_words(y)[:5] == ["y", "float32", "(3,)", "[3.,", "6.,"]


def test_symgraph_optimized_compiles_over_root_inputs(shell):
    shell.run_cell("b = sn.shared(np.float32(0.5), name='b')", store_history=True)
    result, (bundle,) = run(shell, f"%%symgraph --optimized\n{CELL_X}\ny = T.exp(T.log(x)) * 2 + b")
    assert result.success
    page, text = bundle["text/html"], bundle["text/plain"]
    # x is the only input: b is shared; exp(log(x)) was rewritten into its NaN-keeping
    # form (x where x >= 0, NaN elsewhere), then fused.
    assert "Optimized graph (optimizer=&#x27;fast_run&#x27;, inputs: x, 2 rewrite(s))" in page
    # The picture names the fused node by the ops it fuses, not Theano's Composite{...}.
    assert "fused: ge\u00b7abs\u00b7switch\u00b7mul\u00b7add" in urllib.parse.unquote(page)
    assert page.count('class="symnb-graph"') == 1
    assert "Composite{((switch(GE(i0, 0.0), abs(i0), nan) * 2) + i1)} [id" in text
    # Nodes made by rewrites have no test value, and displaying computes none.
    assert "''   0 -> no test value\n |x [id B] -> float32 (3,) [1., 2., 3.]" in text
    assert " |b [id C] -> float32 () 0.5" in text


def test_symgraph_profile_times_real_calls_and_shows_a_compact_view(shell):
    name = cell(shell)
    result, (bundle,) = run(shell, f"%%symgraph --profile\n{CELL_X}\ns = (x * x).sum()")
    assert result.success
    page = bundle["text/html"]
    calls = int(re.search(r"Profile of (\d+) calls on the test values of x", page).group(1))
    assert 3 <= calls <= 20
    overview, tables = page.split('<details class="symnb-profile-tables">', 1)
    # The call that compiled is counted apart, and the overview says so.
    assert f"Profile of s: {calls + 1} calls: {calls} timed, 1 compiled the program" in overview
    assert "1 compile(s)" in overview
    per_call = float(re.search(r"\), ([0-9.]+) (?:s|ms|\u00b5s|ns) per call", overview).group(1))
    assert per_call > 0  # real calls, timed
    assert f"{name}:3: s = (x * x).sum()" in overview  # the costliest lines, by the cell's lines
    assert "By node" in tables and "Function profile: s" in tables  # one click away
    assert "Optimized graph" not in page


def test_symgraph_profile_needs_input_test_values(shell):
    result, _ = run(shell, "%%symgraph --profile\nv = T.vector('v')\nq = v * 2")
    assert "no test value for: v" in str(result.error_in_exec)


def test_symgraph_with_only_inputs_has_nothing_to_compile(shell):
    result, (bundle,) = run(shell, f"%%symgraph --optimized\n{CELL_X}")
    assert "Nothing to compile: the variables shown are all inputs." in bundle["text/html"]
    assert "symnb-graph" not in bundle["text/html"]


def test_symgraph_in_a_kernel_shows_a_live_explorer_and_its_snapshot(shell, monkeypatch):
    monkeypatch.setattr("symnb.magics.symgraph.in_kernel", lambda: True)
    monkeypatch.setattr("symnb.widgets._view.in_kernel", lambda: True)
    shown = []
    monkeypatch.setattr("IPython.display.display",
                        lambda data, raw=False, display_id=None: shown.append(data))
    result = shell.run_cell(f"%%symgraph\n{CELL_X}\ny = x * 2", store_history=True)
    assert result.success
    live, snapshot, state = shown  # the live view, its snapshot, the view's state output
    assert "application/vnd.jupyter.widget-view+json" in live and "symnb-view-state" in state["text/html"]
    assert snapshot["text/html"].startswith('<div class="symnb-snapshot"')
    assert snapshot["text/html"].count('<img class="symnb-graph"') == 1 \
        and [line["name"] for line in folded_lines(snapshot["text/html"])] == ["x", "y"]


def test_symgraph_transformer_keeps_line_numbers():
    from symnb.magics.symgraph import transform_symgraph_cell

    lines = ["%%symgraph --show y\n", "x = 1\n", "y = x"]
    out = transform_symgraph_cell(lines)
    assert out[1:3] == ["x = 1\n", "y = x\n"] and len(out) == 4
    assert out[0] == "_symnb_symgraph.begin('--show y')  # %%symgraph\n"
    assert out[3] == "_symnb_symgraph.end()\n"
    assert transform_symgraph_cell(["%%symgraphs\n", "x"]) == ["%%symgraphs\n", "x"]
    assert transform_symgraph_cell(["x = 1\n"]) == ["x = 1\n"]


def test_html_repr_of_variable(shell):
    name = cell(shell)
    shell.run_cell(f"{CELL_X}\nz = (x + 1).sum()", store_history=True)
    data, _ = shell.display_formatter.format(shell.user_ns["z"])
    page = data["text/html"]
    assert row("name", "z") in page and row("computed by", "sum") in page
    assert row("test value", "<span>float32 () 9.0 mean=9 std=0 min=9 max=9 NaN=0 inf=0</span>") in page
    assert f"{name}:2: z = (x + 1).sum()" in page
    assert page.count('<img class="symnb-graph"') == 1 and "%3Ez%3C/text%3E" in page  # the picture
    assert "|Elemwise{add,no_inplace} [id B] &#x27;&#x27; -&gt; float32 (3,) [2., 3., 4.]" in page


def test_html_repr_of_pending_value_computes_nothing(shell):
    shell.run_cell("v = T.vector('v')\nq = v * 2", store_history=True)
    page = shell.display_formatter.format(shell.user_ns["q"])[0]["text/html"]
    assert "pending (computed when .test_value is read)" in page
    assert shell.user_ns["q"]._test_value is None


def test_html_repr_of_compiled_function(shell):
    shell.run_cell(f"{CELL_X}\nf = sn.function([x], x * 2 + 1, name='affine')", store_history=True)
    page = shell.display_formatter.format(shell.user_ns["f"])[0]["text/html"]
    assert row("function", "affine") in page and row("inputs", "x: float32 (?,)") in page
    assert row("nodes", "1 after 1 rewrite(s)") in page and '<img class="symnb-graph"' in page
    assert "Composite{((i0 * 2) + 1)} [id A]" in page


def test_unload_removes_the_magic_and_reprs(shell):
    shell.run_line_magic("unload_ext", "symnb")
    shell.run_cell(CELL_X, store_history=True)
    assert "text/html" not in shell.display_formatter.format(shell.user_ns["x"])[0]
    assert "symgraph" not in shell.magics_manager.magics["cell"]
    assert "_symnb_symgraph" not in shell.user_ns
    shell.run_line_magic("load_ext", "symnb")  # the fixture unloads it again


def test_symgraph_shows_compiles_and_profiles_each_element_of_a_list(shell):
    """The gradients of T.grad(c, [W, b]) each get a row, an output of the compiled
    function and a place in the profile; their values are the hand-derived gradients."""
    from symnb.magics.cell_variables import assigned_variables, snapshot
    from symnb.magics.report import symgraph_report

    shell.run_cell("W = sn.shared(np.arange(6, dtype='float32').reshape(3, 2) / 4, name='W')\n"
                   "b = sn.shared(np.float32([0.5, -1]), name='b')", store_history=True)
    grad_cell = f"{CELL_X}\nc = ((T.dot(x, W) + b) ** 2).sum()\ngW = T.grad(c, [W, b])\ns = {{W, b}}"
    result, (bundle,) = run(shell, f"%%symgraph --profile\n{grad_cell}")
    assert result.success
    page = bundle["text/html"]
    (gW,) = [line for line in folded_lines(page) if line["name"].startswith("gW")]
    assert gW["name"] == "gW[0..1]" and [c["name"] for c in gW["children"]] == ["gW[0]", "gW[1]"]
    assert "Profile of c, gW[0], gW[1]: " in page
    assert "s: a set of 2 symbolic variable(s) is not shown" in page
    # The same report over the namespace: its compiled function against NumPy.
    before = snapshot(shell.user_ns)
    shell.run_cell(grad_cell, store_history=True)
    found = assigned_variables(shell.user_ns, before)
    report = symgraph_report(found.shown, optimized=True, notes=found.notes)
    x, W, b = (shell.user_ns[k].get_value() if k != "x" else shell.user_ns[k].test_value
               for k in ("x", "W", "b"))
    r = x @ W + b
    c, gW, gb = report.function(x)
    np.testing.assert_allclose(c, (r ** 2).sum(), rtol=1e-6)
    np.testing.assert_allclose(gW, np.outer(x, 2 * r), rtol=1e-6)
    np.testing.assert_allclose(gb, 2 * r, rtol=1e-6)
    for (name, var), value in zip(found.shown[1:], (c, gW, gb)):  # each row's test value too
        np.testing.assert_allclose(var.test_value, value, rtol=1e-6, err_msg=name)
