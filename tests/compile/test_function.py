"""sn.function: input checking, shared variables and updates, dtypes, eval, givens."""

import subprocess
import sys

import jax
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.function import MissingInputError, UnusedInputError


def test_import_symnb_does_not_import_jax():
    code = "import sys, symnb, symnb.tensor; x = symnb.tensor.vector('x'); y = x * 2; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_outputs_keep_graph_dtypes_without_touching_global_jax_config():
    assert not jax.config.jax_enable_x64
    x = T.dvector("x")
    n = T.lvector("n")
    f = sn.function([x, n], [x * 2, n + 1, T.cast(x, "float32")])
    a, b, c = f(np.array([1.5, 2.5]), np.array([2**40, 3]))
    assert a.dtype == np.float64 and b.dtype == np.int64 and c.dtype == np.float32
    assert b[0] == 2**40 + 1
    assert not jax.config.jax_enable_x64


def test_single_output_and_list_output():
    x = T.vector("x")
    assert isinstance(sn.function([x], x + 1)(np.ones(2, "float32")), np.ndarray)
    outs = sn.function([x], [x + 1])(np.ones(2, "float32"))
    assert isinstance(outs, list) and len(outs) == 1


def test_wrong_inputs_are_named():
    x = T.matrix("x", shape=(None, 3))
    f = sn.function([x], x * 2)
    with pytest.raises(TypeError, match=r"input 'x' expects float32.*got float64 array.*allow_input_downcast"):
        f(np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"input 'x' expects 2 dimension"):
        f(np.ones(3, "float32"))
    with pytest.raises(ValueError, match=r"input 'x' has static shape \(\?, 3\), got float32 array of shape \(2, 4\)"):
        f(np.ones((2, 4), "float32"))
    with pytest.raises(TypeError, match="missing argument"):
        f()
    np.testing.assert_allclose(sn.function([x], x * 2, allow_input_downcast=True)(np.ones((2, 3))), 2)


def test_a_misspelled_input_keyword_names_the_input_meant():
    weights, bias = T.vector("weights"), T.vector("bias")
    f = sn.function([weights, bias], weights + bias)
    one = np.ones(2, "float32")
    np.testing.assert_array_equal(f(weights=one, bias=2 * one), 3 * one)
    with pytest.raises(TypeError, match=r"has no input named 'wieghts' \(did you mean 'weights'\?\); "
                                        r"inputs: \['weights', 'bias'\]"):
        f(wieghts=one, bias=one)
    with pytest.raises(TypeError, match=r"has no input named 'zz'; inputs: \['weights', None\]"):
        sn.function([weights, T.vector()], weights, on_unused_input="ignore")(zz=one)


def test_python_scalars_and_exact_integers_are_accepted():
    s = T.scalar("s")
    i = T.iscalar("i")
    f = sn.function([s, i], s * i)
    assert f(0.1, 3) == np.float32(0.1) * np.int32(3)  # a Python float for a floatX input
    with pytest.raises(TypeError, match="does not fit int32 exactly"):
        f(0.1, 2.5)
    with pytest.raises(TypeError, match="does not fit int32 exactly"):
        f(0.1, 2**40)
    v = T.vector("v")
    np.testing.assert_array_equal(sn.function([v], v)(np.arange(3)), [0, 1, 2])
    with pytest.raises(TypeError, match="could lose information"):
        sn.function([v], v)(np.array([2**25 + 1]))


def test_shared_updates_apply_only_when_the_call_succeeds():
    w = sn.shared(np.zeros(3, dtype="float32"), name="w")
    x = T.vector("x")
    step = sn.function([x], (w * x).sum(), updates=[(w, w + x)])
    step(np.ones(3, "float32"))
    step(np.ones(3, "float32"))
    np.testing.assert_array_equal(w.get_value(), [2, 2, 2])
    with pytest.raises(sn.GraphRuntimeError):
        step(np.ones(4, "float32"))
    np.testing.assert_array_equal(w.get_value(), [2, 2, 2])
    w.set_value(np.full(3, 5, "float32"))
    step(np.ones(3, "float32"))
    np.testing.assert_array_equal(w.get_value(), [6, 6, 6])


def test_update_type_must_match():
    w = sn.shared(np.zeros(3, dtype="float32"), name="w")
    with pytest.raises(TypeError, match="the update of shared variable 'w'"):
        sn.function([], [], updates=[(w, T.cast(w, "float64"))])


def test_missing_and_unused_inputs():
    x, y = T.vector("x"), T.vector("y")
    with pytest.raises(MissingInputError, match="(?s)'y'.*not among the function's inputs"):
        sn.function([x], x + y)
    with pytest.raises(UnusedInputError, match="'y' is not used"):
        sn.function([x, y], x * 2)


def test_eval_and_givens():
    x = T.vector("x")
    y = x * 3
    np.testing.assert_array_equal(y.eval({x: np.ones(2, "float32")}), [3, 3])
    z = T.vector("z")
    f = sn.function([z], y, givens={x: z + 1})
    np.testing.assert_array_equal(f(np.ones(2, "float32")), [6, 6])


def test_keyword_arguments():
    x, y = T.vector("x"), T.vector("y")
    f = sn.function([x, y], x - y)
    np.testing.assert_array_equal(f(y=np.ones(2, "float32"), x=np.full(2, 3, "float32")), [2, 2])


def test_an_input_by_position_and_by_keyword_is_a_type_error():
    x, o = T.matrix("x"), T.matrix("o")
    f = sn.function([x, o], x + o)
    one = np.ones((2, 2), "float32")
    with pytest.raises(TypeError, match=r"got multiple values for input 'x'"):
        f(one, one, x=one + 1)
    with pytest.raises(TypeError, match=r"got multiple values for input 'o'"):
        f(one, one, o=one)
    np.testing.assert_array_equal(f(one, o=one + 1), np.full((2, 2), 3, "float32"))


def _has_gpu():
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


@pytest.mark.skipif(_has_gpu(), reason="checks the message shown when there is no GPU")
def test_device_gpu_without_a_gpu_says_so():
    x = T.vector("x")
    with sn.config.change_flags(device="gpu"):
        with pytest.raises(RuntimeError, match="JAX finds no GPU"):
            sn.function([x], x * 2)


@pytest.mark.skipif(not _has_gpu(), reason="needs a GPU")
def test_device_gpu_runs_there():
    x = T.dvector("x")
    w = sn.shared(np.arange(3.0), name="w")
    with sn.config.change_flags(device="gpu"):
        f = sn.function([x], (x * w).sum(), updates=[(w, w + 1)])
        assert f(np.ones(3)) == 3.0
    assert f(np.ones(3)) == 6.0
    assert w.get_value().dtype == np.float64


def test_device_cpu_runs_on_the_cpu():
    x = T.vector("x")
    with sn.config.change_flags(device="cpu"):
        f = sn.function([x], x + 1)
    np.testing.assert_array_equal(f(np.zeros(2, "float32")), [1, 1])


def test_theanos_accept_inplace_and_rebuild_strict():
    """``accept_inplace`` has no effect (no in-place ops); ``rebuild_strict=True`` is
    Theano's default (a given of another type refused), ``False`` rebuilds the graph
    above a replacement of another type (Theano's test_pfunc Test_rebuild_strict)."""
    x = T.dvector("x")
    f = sn.function([x], x * 2, accept_inplace=True, rebuild_strict=True)
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])
    w = T.imatrix("w")
    v, y = T.ivector("v"), T.ivector("y")
    with pytest.raises(TypeError, match="'v' .* cannot be replaced by 'w'"):
        sn.function([w, y], v * y, givens=[(v, w)])
    g = sn.function([w, y], v * y, givens=[(v, w)], rebuild_strict=False)
    wv, yv = np.arange(15, dtype="int32").reshape(3, 5), np.arange(5, dtype="int32")
    out = g(wv, yv)
    assert out.ndim == 2 and out.dtype == np.int32
    np.testing.assert_array_equal(out, wv * yv)
