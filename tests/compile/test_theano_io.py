"""sn.In / sn.Out, Function.copy, pickling, Theano's mode and linker spellings,
MonitorMode, symnb.gof, config flags, and the absent-name table."""

import pickle
import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.config import ConfigError


def test_in_defaults_names_and_state():
    x, y = T.dscalar("x"), T.dscalar("y")
    f = sn.function([x, sn.In(y, value=10.0, name="why")], x + y)
    assert (f(1.0), f(1.0, 2.0), f(1.0, why=3.0)) == (11.0, 3.0, 4.0)
    s, inc = T.dscalar("s"), T.dscalar("inc")
    acc = sn.function([inc, sn.In(s, value=0.0, update=s + inc)], s * 2)
    assert [float(acc(v)) for v in (1.0, 2.0, 3.0)] == [0.0, 2.0, 6.0]  # s: 0, 1, 3
    assert float(acc(1.0, 10.0)) == 20.0 and float(acc[s]) == 11.0  # passed: Theano's io page
    with pytest.raises(ValueError, match="initial value"):  # refused when the function is made
        sn.function([sn.In(s, update=s + 1)], s)


def test_in_strict_and_allow_downcast_and_out():
    x = T.fvector("x")
    f = sn.function([sn.In(x, allow_downcast=True)], sn.Out(x * 2, borrow=True))
    np.testing.assert_array_equal(f(np.array([0.1, 0.2])), np.float32([0.1, 0.2]) * 2)
    g = sn.function([x], x * 2)
    with pytest.raises(TypeError):
        g(np.array([0.1, 0.2]))  # float64 into float32: refused without allow_downcast
    h = sn.function([sn.In(x, strict=True)], x * 2)
    with pytest.raises(TypeError, match="strict"):
        h(np.array([1, 2], dtype="int8"))


def test_copy_with_swap_and_delete_updates():
    x = T.dscalar("x")
    w = sn.shared(np.float64(1.0), name="w")
    f = sn.function([x], x * w, updates={w: w + 1})
    assert f(2.0) == 2.0 and w.get_value() == 2.0
    w2 = sn.shared(np.float64(100.0), name="w2")
    g = f.copy(swap={w: w2})  # a copy returns a list of its outputs, as Theano's
    assert g(2.0) == [200.0] and (w.get_value(), w2.get_value()) == (2.0, 101.0)
    h = f.copy(delete_updates=True)
    assert h(2.0) == [4.0] and w.get_value() == 2.0
    with pytest.raises(TypeError, match="swap"):
        f.copy(swap={w: sn.shared(np.zeros(2), name="vec")})


def test_copy_swap_refuses_anything_but_shared_to_shared_naming_it():
    x = T.dscalar("x")
    w = sn.shared(np.float64(1.0), name="w")
    f = sn.function([x], x * w)
    expects = "swap maps shared variables to shared variables; "
    with pytest.raises(TypeError, match=re.escape(expects + "the key 'x' (float64 ()) is not")):
        f.copy(swap={x: 3})
    with pytest.raises(TypeError, match=re.escape(expects + "the value int 3 is not")):
        f.copy(swap={w: 3})
    with pytest.raises(TypeError, match=re.escape("swap must be a dict of shared variables to "
                                                  "shared variables, got list [(w, w)]")):
        f.copy(swap=[(w, w)])
    w2 = sn.shared(np.float64(5.0), name="w2")
    assert f.copy(swap={w: w2})(2.0) == [10.0]  # a dict of shared variables is taken


def test_copy_delete_updates_keeps_an_input_that_fed_only_the_updates():
    # Theano's tutorial: the step size feeds only the accumulator's update.
    state = sn.shared(np.float64(0.0), name="state")
    inc = T.dscalar("inc")
    accumulator = sn.function([inc], state, updates=[(state, state + inc)])
    accumulator(3.0)
    frozen = accumulator.copy(delete_updates=True)
    assert frozen(10.0) == [3.0] and state.get_value() == 3.0  # inc is accepted, unused
    assert accumulator(2.0) == 3.0 and state.get_value() == 5.0
    with pytest.raises(sn.compile.UnusedInputError):  # not silently: sn.function raises
        sn.function([inc], state)


def test_pickle_graph_shared_and_function():
    x = T.dvector("x", test_value=np.ones(2))
    y = T.tanh(x) * 2
    restored = pickle.loads(pickle.dumps(y))
    np.testing.assert_allclose(sn.function(restored.owner.inputs[0].owner.inputs, restored)(
        np.array([0.5, -1.0])), 2 * np.tanh([0.5, -1.0]))
    assert restored.site.describe() == y.site.describe()  # the user's line survives
    w = sn.shared(np.arange(3.0), name="w")
    w.default_update = w * 2
    f = sn.function([x], T.sum(x) + T.sum(w))
    f(np.ones(2))
    f2 = pickle.loads(pickle.dumps(f))
    (w2,) = f2.updated_shared
    np.testing.assert_array_equal(w2.get_value(), [0.0, 2.0, 4.0])  # restored value
    assert f2(np.ones(2)) == 2.0 + 6.0 and w.get_value().tolist() == [0.0, 2.0, 4.0]
    np.testing.assert_array_equal(w2.get_value(), [0.0, 4.0, 8.0])


def test_mode_spellings():
    x = T.dvector("x")
    for mode in ("FAST_RUN", "FAST_COMPILE", "Mode", sn.Mode(linker="cvm"),
                 sn.Mode("py", optimizer="fast_compile"), sn.Mode(linker="c|py")):
        np.testing.assert_allclose(sn.function([x], x * 2, mode=mode)([1.0, 2.0]), [2.0, 4.0])
    with pytest.raises(ValueError, match="linker"):
        sn.Mode(linker="jit")
    assert type(sn.compile.get_mode("DebugMode")).__name__ == "DebugMode"
    from symnb.compile.nanguardmode import NanGuardMode

    assert isinstance(sn.compile.get_mode("NanGuardMode"), NanGuardMode)
    f = sn.function([x], T.log(x), mode="NanGuardMode")
    with pytest.raises(AssertionError, match="NaN"):
        f(np.array([-1.0]))
    with sn.config.change_flags(mode="FAST_COMPILE"):
        assert sn.compile.get_mode(None).optimizer == "fast_compile"


def test_monitor_mode_and_gof_wrap_linker():
    x = T.dscalar("x")
    seen = []

    def post(i, node, fn):
        seen.append(([cell[0] for cell in fn.inputs], [cell[0] for cell in fn.outputs]))

    f = sn.function([x], 5 * x, mode=sn.compile.MonitorMode(post_func=post))
    assert f(3.0) == 15.0
    assert any(np.allclose(outputs[0], 15.0) for _, outputs in seen)
    calls = []

    def callback(i, node, fn):
        calls.append(i)
        fn()

    mode = sn.Mode(sn.gof.WrapLinkerMany([sn.gof.OpWiseCLinker()], [callback]), optimizer="fast_run")
    g = sn.function([x], T.exp(x) + 1, mode=mode)
    np.testing.assert_allclose(g(0.0), 2.0)
    assert calls


def test_gof_linkers_take_theanos_options_and_no_others():
    sn.gof.OpWiseCLinker(fallback_on_perform=False, allow_gc=True, nice_errors=False)
    sn.gof.PerformLinker(allow_gc=False)
    with pytest.raises(TypeError, match=r"OpWiseCLinker\(\) got an unexpected keyword argument "
                                        r"'allow_gcc' \(did you mean 'allow_gc'\?\); it accepts: "
                                        r"fallback_on_perform, allow_gc, nice_errors, schedule"):
        sn.gof.OpWiseCLinker(allow_gcc=True)
    with pytest.raises(TypeError, match="'nice_errors'"):  # the C linker's option, not Python's
        sn.gof.PerformLinker(nice_errors=True)
    # A schedule orders the nodes the wrappers see: refused, not ignored.
    with pytest.raises(NotImplementedError, match="schedule"):
        sn.gof.OpWiseCLinker(schedule=lambda fgraph: list(fgraph.apply_nodes))


def test_config_flags_theano_programs_set():
    with sn.config.change_flags(print_test_value=True):
        v = T.dvector("v", test_value=np.array([1.0, 2.0]))
        assert "array([1., 2.])" in repr(v)
    with sn.config.change_flags(**{"warn.sum_sum_bug": False, "profile_memory": True}):
        assert sn.config.warn.sum_sum_bug is False
    with sn.config.change_flags(device="CUDA0"):  # Theano's spellings, the index kept
        assert sn.config.device == "cuda0"
    with sn.config.change_flags(device="gpu1"):
        assert sn.config.device == "gpu1"
    with pytest.raises(ConfigError):
        sn.config.warn.not_a_flag = True
    with pytest.raises(ConfigError):
        sn.config.warn_float64 = "raise"  # the check is not implemented: refused, not ignored


def test_absent_theano_names_say_so():
    from symnb.core.absent import NotInSymnbError

    with pytest.raises(NotInSymnbError, match="FFTs"):
        T.fft
    with pytest.raises(NotInSymnbError, match="warp-ctc"):
        T.nnet.ctc
    with pytest.raises(NotInSymnbError, match="pickle"):
        sn.function_dump
    assert not hasattr(T, "no_such_name")
    with pytest.raises(AttributeError) as info:
        T.no_such_name
    assert not isinstance(info.value, NotInSymnbError)


def test_module_paths():
    from symnb.ifelse import ifelse

    c = T.dscalar("c")
    f = sn.function([c], [ifelse(c > 0, c, -c), sn.ifelse(c > 0, 1.0, 2.0)])
    assert [float(v) for v in f(-3.0)] == [3.0, 2.0]
    assert sn.scalar.upcast("int32", "float32") == "float64"
    assert sn.scalar.upcast("int8", "int16") == "int16"
    assert T.opt.Assert is T.Assert
    assert sn.pp(T.dscalar("a") + 1)


def test_pydotprint_theano_keywords(tmp_path):
    x = T.dvector("x")
    y = T.exp(x)
    y.name = "why"
    simple = sn.printing.pydotprint(y, format="dot", return_image=True, var_with_name_simple=True,
                                    high_contrast=False, scan_graphs=True)
    full = sn.printing.pydotprint(y, format="dot", return_image=True)
    node_simple = next(line for line in simple.splitlines() if '"why' in line or "why" in line)
    assert "float64" not in node_simple.split("label=")[1].split(",")[0]
    assert any("why" in line and "float64" in line for line in full.splitlines())
    path = sn.printing.pydotprint_variables(y, outfile=str(tmp_path / "g"), format="dot")
    assert open(path).read() == full
    with pytest.raises(NotImplementedError, match="depth"):
        sn.printing.pydotprint_variables(y, depth=2)
