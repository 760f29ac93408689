"""Optimizer levels, modes, f.maker.fgraph, errors after rewriting, and the compile cache."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import FAST_COMPILE, FAST_RUN, Mode, get_mode
from symnb.lower_xla.cache import program_cache
from tests.rewriting_helpers import op_names

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")

LEVELS = ["fast_run", "fast_compile", None]


def test_modes_and_their_names():
    assert get_mode("FAST_RUN") is FAST_RUN and get_mode("fast_compile") is FAST_COMPILE
    assert Mode().optimizer == "fast_run" and Mode().linker is None
    assert Mode(optimizer="None").optimizer is None
    with sn.config.change_flags(optimizer="fast_compile"):
        assert get_mode(None).effective_optimizer == "fast_compile"
    with pytest.raises(ValueError, match="unknown mode 'FAST'"):
        get_mode("FAST")
    with pytest.raises(ValueError, match="unknown optimizer 'o2'"):
        Mode(optimizer="o2")
    with pytest.raises(TypeError, match="mode must be"):
        get_mode(3)


def test_the_level_comes_from_the_mode_or_the_config():
    x = T.vector("x")
    y = T.exp(x) * 1.0
    assert sn.function([x], y).maker.optimizer == "fast_run"
    with sn.config.change_flags(optimizer=None):
        f = sn.function([x], y)
        assert f.maker.optimizer is None and op_names(f.maker.fgraph) == ["Exp", "Mul"]
    f = sn.function([x], y, mode="FAST_COMPILE")
    assert f.maker.optimizer == "fast_compile" and op_names(f.maker.fgraph) == ["Exp", "Mul"]
    f = sn.function([x], y, mode=Mode(optimizer="fast_run"))
    assert op_names(f.maker.fgraph) == ["Exp"] and f.maker.rewrite_seconds >= 0
    np.testing.assert_allclose(f(np.ones(2, "float32")), np.e, rtol=1e-6)


def test_x_over_x_has_no_division_after_fast_run():
    x = T.vector("x")
    f = sn.function([x], x / x)
    assert "TrueDiv" not in op_names(f.maker.fgraph)
    np.testing.assert_array_equal(f(np.array([2.0, 5.0], "float32")), [1.0, 1.0])
    assert "TrueDiv" in op_names(sn.function([x], x / x, mode="FAST_COMPILE").maker.fgraph)


def _seed_function(mode):
    x = T.vector()
    y = T.vector()
    z = x + x
    z = z + y
    return sn.function([x, y], z, mode=mode)


@pytest.mark.parametrize("level", LEVELS)
def test_the_seed_shape_mismatch_names_the_users_line_in_every_level(level):
    f = _seed_function(Mode(optimizer=level))
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(np.array([1, 2], dtype="float32"), np.array([3, 4, 5], dtype="float32"))
    message = str(info.value)
    assert "z = z + y" in message and "(2,)" in message and "(3,)" in message
    assert "Input dimension mis-match" in message
    assert ("fused this operation with others" in message) == (level == "fast_run")
    assert "Composite{" not in message  # the fused chain's generated name: 'high' only
    assert "internal" not in message and "jax" not in message.lower()


@pytest.mark.parametrize("level", LEVELS)
def test_the_seed_under_the_config_flag(level):
    with sn.config.change_flags(optimizer=level):
        f = _seed_function(None)
    with pytest.raises(sn.GraphRuntimeError, match=r"(?s)z = z \+ y.*z  float32 \(2,\).*y  float32 \(3,\)"):
        f(np.array([1, 2], dtype="float32"), np.array([3, 4, 5], dtype="float32"))


@pytest.mark.parametrize("level", ["fast_run", "fast_compile"])
def test_high_verbosity_adds_the_storage_map_footprint(level):
    f = _seed_function(Mode(optimizer=level))
    with sn.config.change_flags(exception_verbosity="high"):
        with pytest.raises(sn.GraphRuntimeError) as info:
            f(np.array([1, 2], dtype="float32"), np.array([3, 4, 5], dtype="float32"))
    message = str(info.value)
    assert "Storage map footprint:" in message
    assert " - y, Input, Shape: (3,), ElemSize: 4 Byte(s), TotalSize: 12 Byte(s)" in message
    if level == "fast_compile":  # x + x ran before the failing node
        assert " - z = Elemwise{add,no_inplace}, Shape: (2,), ElemSize: 4 Byte(s)" in message


def test_updates_and_shared_variables_survive_rewriting():
    w = sn.shared(np.ones(3, "float32"), name="w")
    x = T.vector("x")
    step = sn.function([x], (w * 1.0 * x).sum(), updates=[(w, (w + 0.0) * 2 + x / x)])
    assert step(np.full(3, 2, "float32")) == 6
    np.testing.assert_array_equal(w.get_value(), [3, 3, 3])
    keep = sn.function([], w.sum(), updates=[(w, w * 1)])
    assert keep() == 9 and keep() == 9


@pytest.mark.slow
def test_a_deep_chain_compiles_in_every_level():
    x = T.vector("x")
    y = x
    for i in range(10_000):
        y = y * 1.0001 if i % 2 else T.sin(y)
    value = np.linspace(0, 1, 4).astype("float32")
    expected = None
    for level in LEVELS:
        result = sn.function([x], y, mode=Mode(optimizer=level))(value)
        expected = result if expected is None else expected
        np.testing.assert_allclose(result, expected, rtol=1e-5)


# -- the compile cache ----------------------------------------------------------------------

def _build(const=2.0):
    x = T.vector("x")
    return [x], T.exp(x) * const + 1


def test_compiling_the_same_graph_twice_reuses_the_program():
    value = np.ones(3, "float32")
    f = sn.function(*_build())
    f(value)
    hits, traces = program_cache.hits, program_cache.traces
    g = sn.function(*_build())
    np.testing.assert_array_equal(g(value), f(value))
    assert program_cache.hits == hits + 1 and program_cache.traces == traces
    assert g._program.jitted is f._program.jitted


@pytest.mark.parametrize("change", ["constant", "dtype", "mode"])
def test_a_different_graph_or_mode_is_a_cache_miss(change):
    f = sn.function(*_build())
    if change == "constant":
        g = sn.function(*_build(3.0))
    elif change == "dtype":
        x = T.dvector("x")
        g = sn.function([x], T.exp(x) * 2.0 + 1)
    else:
        g = sn.function(*_build(), mode=Mode(optimizer="fast_compile"))
    assert g._program.jitted is not f._program.jitted


def test_a_cached_program_reports_errors_at_the_new_functions_lines():
    a1, b1 = T.vector("a"), T.vector("b")
    first = a1 * b1  # line of the first graph
    a2, b2 = T.vector("a"), T.vector("b")
    second = a2 * b2  # line of the second graph
    f1 = sn.function([a1, b1], first, mode="FAST_COMPILE")
    f2 = sn.function([a2, b2], second, mode="FAST_COMPILE")
    assert f1._program.jitted is f2._program.jitted
    for f, line in [(f1, "first = a1 * b1"), (f2, "second = a2 * b2")]:
        with pytest.raises(sn.GraphRuntimeError, match=line.replace("*", r"\*")):
            f(np.ones(2, "float32"), np.ones(3, "float32"))


def test_a_cached_fused_program_reports_errors_at_the_new_functions_lines():
    x1, y1 = T.vector(), T.vector()
    z1 = T.exp(x1) + y1  # the first function's line
    x2, y2 = T.vector(), T.vector()
    z2 = T.exp(x2) + y2  # the second function's line
    f1, f2 = sn.function([x1, y1], z1), sn.function([x2, y2], z2)
    assert f1._program.jitted is f2._program.jitted
    with pytest.raises(sn.GraphRuntimeError, match="the second function's line"):
        f2(np.ones(2, "float32"), np.ones(3, "float32"))
