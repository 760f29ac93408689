"""A test value that becomes NaN or Inf warns once, at the user's line, naming the node
and how many entries (counted here with NumPy); NumPy's RuntimeWarning is folded in
and never points at symnb's code."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType
from symnb.core.graph.test_value import NonFiniteTestValueWarning

P = np.array([0.0, 0.5, 0.5, 0.0], "float32")


def _caught(build):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return caught


def test_log_of_zero_warns_once_at_the_users_line():
    def build():
        p = T.vector("p", test_value=P)
        logged = T.log(p)  # the line that makes -inf
        return -(p * logged).sum()  # NaN from here on: no second warning

    caught = _caught(build)
    assert [w.category for w in caught] == [NonFiniteTestValueWarning]
    warning = caught[0]
    assert warning.filename == __file__
    assert "logged = T.log(p)" in open(__file__).read().splitlines()[warning.lineno - 1]
    with np.errstate(divide="ignore"):
        expected = int(np.isneginf(np.log(P)).sum())
    text = str(warning.message)
    assert f"{expected} -inf of its {P.size} entries" in text
    assert "'logged'" in text and "Elemwise{log" in text and "divide by zero" in text


def test_nan_counts_and_numpys_invalid_value():
    def build():
        x = T.vector("x", test_value=np.array([0.0, 1.0, 0.0], "float32"))
        return x / x  # 0/0

    caught = _caught(build)
    assert [w.category for w in caught] == [NonFiniteTestValueWarning]
    with np.errstate(invalid="ignore"):
        expected = int(np.isnan(np.array([0.0, 1.0, 0.0]) / np.array([0.0, 1.0, 0.0])).sum())
    assert f"{expected} NaN of its 3 entries" in str(caught[0].message)
    assert "invalid value" in str(caught[0].message)
    # At the user's line (this file), never at symnb's code: compared by path, not by a
    # folder's name (a clone is itself a folder named symnb).
    assert [w.filename for w in caught] == [__file__]


def test_the_flag_turns_it_off_and_numpy_stays_silent():
    with sn.config.change_flags(warn_nonfinite_test_values=False):
        caught = _caught(lambda: T.log(T.vector("p", test_value=P)))
    assert caught == []


def test_a_pending_value_warns_when_computed():
    p = T.vector("p")
    logged = T.log(p)
    p.tag.test_value = P
    with pytest.warns(NonFiniteTestValueWarning, match="-inf"):
        logged.test_value


def test_finite_values_do_not_warn():
    caught = _caught(lambda: T.exp(T.vector("x", test_value=np.ones(3, "float32"))))
    assert caught == []


def test_infinite_inputs_make_no_numpy_warning():
    """Values already infinite (the sum over them is NaN) warn nothing, from symnb or NumPy."""
    a = np.array([1.0, np.inf, -np.inf, np.nan], "float32")
    caught = _caught(lambda: T.isclose(T.vector("a", test_value=a), T.vector("b", test_value=a[::-1])))
    assert caught == []



class _InfWhereNegative(Op):
    """An op whose perform writes Inf itself (np.where): NumPy raises no flag for it."""

    def make_node(self, x):
        return Apply(self, [x], [TensorType("float32", x.type.shape)])

    def perform(self, node, inputs):
        return [np.where(inputs[0] < 0, np.float32(np.inf), inputs[0])]


def test_an_op_that_is_no_ufunc_is_checked_entry_by_entry():
    # Its outputs are checked (no flag to rely on); a ufunc's overflow by NumPy's flag.
    value = np.array([-1.0, 2.0, -3.0, 1e30], "float32")

    def build():
        x = T.vector("x", test_value=value)
        _InfWhereNegative()(x)
        x * np.float32(1e20)

    caught = _caught(build)
    assert [w.category for w in caught] == [NonFiniteTestValueWarning] * 2
    with np.errstate(over="ignore"):
        overflowed = int(np.isposinf(value * np.float32(1e20)).sum())
    assert f"{int((value < 0).sum())} +inf of its 4 entries" in str(caught[0].message)
    assert "NumPy:" not in str(caught[0].message)
    assert f"{overflowed} +inf of its 4 entries" in str(caught[1].message)
    assert "overflow" in str(caught[1].message)
    assert all(w.filename == __file__ for w in caught)


def test_numpys_errstate_silences_it_as_it_silences_numpy():
    """Under np.errstate(divide="ignore") NumPy says nothing of log(0), and nor does
    symnb; an error the state does not ignore still warns."""
    with np.errstate(divide="ignore"):
        numpy_said = _caught(lambda: np.log(P))
        caught = _caught(lambda: T.log(T.vector("p", test_value=P)))
    assert numpy_said == [] and caught == []
    with np.errstate(invalid="ignore"):  # log(0) is a divide error, not an invalid one
        numpy_said = _caught(lambda: np.log(P))
        caught = _caught(lambda: T.log(T.vector("p", test_value=P)))
    assert [w.category for w in numpy_said] == [RuntimeWarning]
    assert [w.category for w in caught] == [NonFiniteTestValueWarning]
    assert np.geterr()["divide"] == "warn"  # the user's state is left as it was


def test_a_warning_from_a_notebook_cell_is_located_at_the_cell():
    """As IPython names the cell in tracebacks (``Cell In[7]``), not the temporary file it
    compiled the cell into."""
    import linecache

    from symnb.core.graph import source

    filename = "/tmp/ipykernel_1/123456.py"
    cell = "p = T.vector('p', test_value=P)\nlogged = T.log(p)\n"
    linecache.cache[filename] = (len(cell), None, cell.splitlines(True), filename)
    namer = {filename: "Cell In[7]"}.get
    source.register_file_namer(namer)
    try:
        caught = _caught(lambda: exec(compile(cell, filename, "exec"), {"T": T, "P": P}))
    finally:
        source._FILE_NAMERS.remove(namer)
        linecache.cache.pop(filename, None)
    (warning,) = caught
    assert warning.category is NonFiniteTestValueWarning
    assert (warning.filename, warning.lineno) == ("Cell In[7]", 2)
    shown = warnings.formatwarning(warning.message, warning.category, warning.filename, warning.lineno)
    assert shown.startswith("Cell In[7]:2: NonFiniteTestValueWarning: ")
    assert shown.endswith("\n  logged = T.log(p)\n") and "ipykernel" not in shown
