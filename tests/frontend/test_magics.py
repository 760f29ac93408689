"""%load_ext symnb: the %%symgraph cell magic and the HTML reprs, in an in-process shell."""

import subprocess
import sys
from unittest import mock

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
    """Run ``cell``; return (result, the HTML strings %%symgraph displayed)."""
    shown = []
    with mock.patch("symnb.magics.symgraph.display", side_effect=shown.append):
        result = shell.run_cell(cell, store_history=True)
    return result, [obj.data for obj in shown]


def test_import_symnb_imports_neither_ipython_nor_ipywidgets():
    code = ("import sys, symnb, symnb.widgets, symnb.tensor as T; y = T.vector('x') * 2; "
            "print('IPython' in sys.modules, 'ipywidgets' in sys.modules, 'jax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False False"


def test_symgraph_shows_assigned_variables_with_test_values_and_lines(shell):
    shell.run_cell("unchanged = T.scalar('u')", store_history=True)
    name = cell(shell)
    result, (page,) = run(shell, f"%%symgraph\n{CELL_X}\ny = x * 2\nn = 3")
    assert result.success
    assert "<h4>x</h4>" in page and "<h4>y</h4>" in page
    assert "<h4>unchanged</h4>" not in page and "<h4>n</h4>" not in page  # not (re)assigned / not symbolic
    assert "Elemwise{mul,no_inplace} [id B] &#x27;&#x27; -&gt; float32 (3,) [2., 4., 6.]" in page
    assert f"{name}:2: y = x * 2" in page  # the cell's own line, as IPython numbers cells
    assert "<td>float32 (3,) [1., 2., 3.]</td>" in page


def test_symgraph_show_selects_and_reassignment_counts(shell):
    run(shell, f"%%symgraph\n{CELL_X}")
    result, (page,) = run(shell, "%%symgraph --show y\ny = x + 1\nz = y * y")
    assert result.success
    assert "<h4>y</h4>" in page and "<h4>z</h4>" not in page and "<h4>x</h4>" not in page
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


def test_symgraph_errors_in_the_cell_propagate(shell):
    result, shown = run(shell, f"%%symgraph\n{CELL_X}\nw = T.vector('w', test_value=np.ones(2, 'float32'))\n"
                               "bad = x + w")
    assert shown == []
    assert type(result.error_in_exec).__name__ == "TestValueError"
    assert "bad = x + w" in str(result.error_in_exec)


def test_symgraph_optimized_compiles_over_root_inputs(shell):
    shell.run_cell("b = sn.shared(np.float32(0.5), name='b')", store_history=True)
    result, (page,) = run(shell, f"%%symgraph --optimized\n{CELL_X}\ny = T.exp(T.log(x)) * 2 + b")
    assert result.success
    # x is the only input: b is shared; exp(log(x)) was rewritten into its NaN-keeping
    # form (x where x >= 0, NaN elsewhere), then fused.
    assert "Optimized graph (optimizer=&#x27;fast_run&#x27;, inputs: x, 2 rewrite(s))" in page
    assert "Composite{((switch(GE(i0, 0.0), abs(i0), nan) * 2.0) + i1)} [id" in page
    # Nodes made by rewrites have no test value, and displaying computes none.
    assert "&#x27;&#x27;   0 -&gt; no test value\n |x [id B] -&gt; float32 (3,) [1., 2., 3.]" in page
    assert " |b [id C] -&gt; float32 () 0.5" in page


def test_symgraph_profile_calls_once_and_shows_user_lines(shell):
    name = cell(shell)
    result, (page,) = run(shell, f"%%symgraph --profile\n{CELL_X}\ns = (x * x).sum()")
    assert result.success
    assert "Profile of one call on the test values of x" in page
    assert "Function profile: s" in page and "1 call(s)" in page
    assert f"{name}:2: s = (x * x).sum()" in page
    assert "Optimized graph" not in page


def test_symgraph_profile_needs_input_test_values(shell):
    result, _ = run(shell, "%%symgraph --profile\nv = T.vector('v')\nq = v * 2")
    assert "no test value for: v" in str(result.error_in_exec)


def test_symgraph_with_only_inputs_has_nothing_to_compile(shell):
    result, (page,) = run(shell, f"%%symgraph --optimized\n{CELL_X}")
    assert "Nothing to compile: the variables shown are all inputs." in page


def test_html_repr_of_variable(shell):
    name = cell(shell)
    shell.run_cell(f"{CELL_X}\nz = (x + 1).sum()", store_history=True)
    data, _ = shell.display_formatter.format(shell.user_ns["z"])
    page = data["text/html"]
    assert "<th style=\"padding-right:1em\">name</th><td>z</td>" in page
    assert "<td>Sum{axis=(0,)}</td>" in page
    assert "<td>float32 () 9.0</td>" in page
    assert f"{name}:2: z = (x + 1).sum()" in page
    assert "|Elemwise{add,no_inplace} [id B] &#x27;&#x27; -&gt; float32 (3,) [2., 3., 4.]" in page


def test_html_repr_of_pending_value_computes_nothing(shell):
    shell.run_cell("v = T.vector('v')\nq = v * 2", store_history=True)
    page = shell.display_formatter.format(shell.user_ns["q"])[0]["text/html"]
    assert "pending (computed when .test_value is read)" in page
    assert shell.user_ns["q"]._test_value is None


def test_html_repr_of_compiled_function(shell):
    shell.run_cell(f"{CELL_X}\nf = sn.function([x], x * 2 + 1, name='affine')", store_history=True)
    page = shell.display_formatter.format(shell.user_ns["f"])[0]["text/html"]
    assert "<td>affine</td>" in page and "<td>x: float32 (?,)</td>" in page
    assert "<td>1 after 1 rewrite(s)</td>" in page
    assert "Composite{((i0 * 2.0) + 1.0)} [id A]" in page


def test_unload_removes_the_magic_and_reprs(shell):
    shell.run_line_magic("unload_ext", "symnb")
    shell.run_cell(CELL_X, store_history=True)
    assert "text/html" not in shell.display_formatter.format(shell.user_ns["x"])[0]
    assert "symgraph" not in shell.magics_manager.magics["cell"]
    shell.run_line_magic("load_ext", "symnb")  # the fixture unloads it again
