"""Theano 1.0 names symnb once refused (issue 38): each runs as Theano's documentation
writes it and gives Theano's result, checked against NumPy."""

import os
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import assert_same, check_paths


def test_stacklists_stacks_nested_lists_as_in_theanos_docstring():
    a, b, c, d = T.scalars("abcd")
    grid = T.stacklists([[a, b], [c, d]])
    f = sn.function([a, b, c, d], grid)
    assert_same(f(1, 2, 3, 4), np.array([[1, 2], [3, 4]], dtype=sn.config.floatX), "scalars")
    ma, mb, mc, md = T.matrices("abcd")
    blocks = sn.function([ma, mb, mc, md], T.stacklists([[ma, mb], [mc, md]]))
    x = np.arange(16, dtype="float32").reshape(4, 4)
    assert_same(blocks(x, x + 1, x + 2, x + 3), np.array([[x, x + 1], [x + 2, x + 3]]), "matrices")
    assert T.stacklists(a) is a  # not a list: returned as it is


def test_mgrid_and_ogrid_give_theanos_int8_grids():
    rows, cols = T.mgrid[0:5, 0:3]
    expected = np.mgrid[0:5, 0:3].astype("int8")  # Theano: T.constant bounds are int8
    assert_same(rows.eval(), expected[0], "mgrid rows")
    assert_same(cols.eval(), expected[1], "mgrid cols")
    open_rows, open_cols = T.ogrid[0:5, 0:3]
    assert_same(open_rows.eval(), np.ogrid[0:5, 0:3][0].astype("int8"), "ogrid rows")
    assert_same(open_cols.eval(), np.ogrid[0:5, 0:3][1].astype("int8"), "ogrid cols")
    assert open_rows.broadcastable == (False, True) and open_cols.broadcastable == (True, False)


def test_mgrid_with_a_symbolic_stop_and_float_steps():
    n = T.lscalar("n", test_value=np.int64(4))
    (grid,) = T.mgrid[1:n]
    assert_same(grid.test_value, np.arange(1, 4, dtype="int64"), "test value")
    assert_same(sn.function([n], grid)(6), np.arange(1, 6, dtype="int64"), "compiled")
    (steps,) = T.ogrid[0:1:0.25]
    assert_same(steps.eval(), np.arange(0, 1, 0.25, dtype=sn.config.floatX), "float steps")
    with pytest.raises(NotImplementedError, match="complex"):
        T.mgrid[0:1:5j]


def test_sigmoid_binary_crossentropy_values_and_gradient():
    rng = np.random.default_rng(0)
    logits = np.concatenate([rng.normal(0, 30, 20), [0.0, -700.0, 700.0]])
    targets = np.concatenate([rng.uniform(0, 1, 20), [0.3, 1.0, 0.0]])

    def reference(z, t):  # Theano's own formula, in float64
        return np.logaddexp(0, -np.abs(z)) + z * ((z > 0) - t)

    check_paths(T.nnet.sigmoid_binary_crossentropy, [logits, targets], reference, rtol=1e-12)
    z, t = T.dvector("z"), T.dvector("t")
    loss = T.nnet.sigmoid_binary_crossentropy(z, t).sum()
    grads = sn.function([z, t], sn.grad(loss, [z, t]))(logits, targets)
    # Theano's gradient override: sigmoid(z) - t and -z (finite for every logit, 0 included)
    np.testing.assert_allclose(grads[0], 1 / (1 + np.exp(-logits)) - targets, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(grads[1], -logits, rtol=1e-12)
    assert T.nnet.nnet.sigmoid_binary_crossentropy is T.nnet.sigmoid_binary_crossentropy


def test_flatten_outdim_is_theanos_deprecated_ndim():
    value = np.arange(24, dtype="float32").reshape(2, 3, 4)
    x = T.tensor3("x", test_value=value)
    with pytest.warns(UserWarning, match="flatten outdim parameter is deprecated, use ndim instead."):
        flat = T.flatten(x, outdim=2)
    assert_same(flat.test_value, value.reshape(2, 12), "outdim=2")
    assert_same(T.flatten(x).eval({x: value}), value.reshape(-1), "default ndim")
    with pytest.raises(ValueError, match="You should only specify ndim"):
        T.flatten(x, ndim=2, outdim=2)


def test_scan_accepts_theanos_mode_profile_and_allow_gc_in_its_order():
    x = T.dvector("x")
    # Theano 1.0's positional order: ..., n_steps, truncate_gradient, go_backwards, mode, name
    out, _ = sn.scan(lambda v, acc: acc + v, [x], [T.constant(0.0, dtype="float64")], None,
                     None, -1, True, None, "backwards_sum", profile=True, allow_gc=False)
    value = np.array([1.0, 2.0, 4.0])
    assert_same(sn.function([x], out)(value), np.cumsum(value[::-1]), "scan")


def test_theano_dot_is_tensor_dot():
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(12.0).reshape(3, 4)
    x, y = T.dmatrix("x"), T.dmatrix("y")
    f = sn.function([x, y], [sn.dot(x, y), sn.dot(a, y), sn.dot(x, b)])
    for result in f(a, b):
        assert_same(result, a @ b, "theano.dot")
    with pytest.raises(NotImplementedError, match="numpy.dot"):
        sn.dot(a, b)


def test_import_symnb_binds_scan_module():
    code = "import symnb; print(symnb.scan_module.scan is symnb.scan)"
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(sn.__file__).parents[1])}  # this checkout
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env)
    assert out.stdout.strip() == "True"


def test_param_is_theanos_deprecated_in():
    x, y = T.dscalars("x", "y")
    with pytest.warns(UserWarning, match=r"The Param class is deprecated. Replace Param\(default=N\) "
                                         r"by theano.In\(value=N\)"):
        param = sn.Param(y, default=10.0, name="why")
    f = sn.function([x, param], x + y)
    assert (float(f(1.0)), float(f(1.0, 2.0)), float(f(1.0, why=3.0))) == (11.0, 3.0, 4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        required = sn.compile.Param(y)  # default None: the argument is required
    with pytest.raises(TypeError, match="missing"):
        sn.function([x, required], x + y)(1.0)


def test_typed_constructors_are_theanos_tensor_types():
    assert T.dmatrix == T.TensorType("float64", (False, False))
    assert hash(T.dmatrix) == hash(T.TensorType("float64", (False, False)))
    assert T.fcol == T.TensorType("float32", (False, True)) and T.irow.broadcastable == (True, False)
    assert isinstance(T.lscalar, T.TensorType) and T.btensor4.ndim == 4 and T.ivector.dtype == "int32"
    x = T.dmatrix("x")  # TensorType.__call__ makes a variable, as in Theano
    assert x.type == T.dmatrix and x.name == "x"
    value = np.arange(6.0).reshape(2, 3)
    assert_same(sn.function([x], x * 2)(value), value * 2, "T.dmatrix('x')")
    # symnb's keywords still work on the types: a test value, lengths the type leaves open
    y = T.fmatrix("y", test_value=np.ones((2, 3), "float32"), shape=(None, 3))
    assert y.type == T.TensorType("float32", (None, 3)) and y.test_value.shape == (2, 3)
    with pytest.raises(ValueError, match="cannot have the shape"):
        T.fcol("c", shape=(4, 2))


def test_untyped_constructors_stay_functions_with_a_dtype():
    assert T.matrix("m", dtype="int8").type == T.bmatrix
    assert T.col("c", dtype="float64").type == T.dcol
    assert T.scalar().type == T.TensorType(sn.config.floatX, ())
    a, b = T.dmatrices("a", "b")
    assert a.type == b.type == T.dmatrix and (a.name, b.name) == ("a", "b")
    assert [v.type for v in T.frows(2)] == [T.frow, T.frow]
