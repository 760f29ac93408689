"""softmax and log_softmax: NumPy perform path and XLA path against a NumPy reference."""

import numpy as np
import pytest

import symnb.tensor as T
from tests.reference import check_paths


def _float_dtype(x):
    return np.exp(np.zeros(0, x.dtype)).dtype


def _softmax(x, axis=-1):
    if x.size == 0:
        return x.astype(_float_dtype(x))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(_float_dtype(x))


def _log_softmax(x, axis=-1):
    if x.size == 0:
        return x.astype(_float_dtype(x))
    x64 = x.astype(np.float64)
    shifted = x64 - x64.max(axis=axis, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))).astype(_float_dtype(x))


FUNCTIONS = [("softmax", T.softmax, _softmax), ("log_softmax", T.log_softmax, _log_softmax)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8"])
@pytest.mark.parametrize("name,fn,ref", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_axes(name, fn, ref, dtype, rng):
    x = (rng.normal(size=(2, 3, 4)) * 3).astype(dtype)
    rtol = 1e-2 if _float_dtype(x) == np.float16 else None
    check_paths(fn, [x], ref, rtol=rtol)
    for axis in [0, 1, -1, -3, (0, 2), None]:
        check_paths(lambda v: fn(v, axis=axis), [x], lambda v: ref(v, axis=axis), rtol=rtol)


@pytest.mark.parametrize("name,fn,ref", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_edge_shapes(name, fn, ref):
    for shape, axis in [((0, 3), -1), ((3, 0), -1), ((0, 3), 0), ((1, 1), -1), ((1,), 0), ((4, 1), 1)]:
        x = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
        check_paths(lambda v: fn(v, axis=axis), [x], lambda v: ref(v, axis=axis))


@pytest.mark.parametrize("name,fn,ref", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_numerically_stable(name, fn, ref):
    for dtype in ["float32", "float64"]:
        x = np.array([[1000.0, 0.0, -1000.0], [-1e4, -1e4 + 1, -1e4 + 2], [88.0, 89.0, 90.0]], dtype)
        out = check_paths(fn, [x], ref)
        assert np.isfinite(out).all()


def test_log_softmax_has_no_log_zero():
    x = np.array([[0.0, -200.0]], "float32")  # softmax underflows to 0 at -200 in float32
    out = check_paths(T.log_softmax, [x], _log_softmax)
    assert out[0, 1] == pytest.approx(-200.0)


def test_dtypes_and_static_shapes():
    assert T.softmax(T.imatrix("i")).dtype == "float64"
    assert T.softmax(T.bmatrix("b")).dtype == "float16"
    assert T.log_softmax(T.dvector("d")).dtype == "float64"
    assert T.softmax(T.fmatrix("f", shape=(None, 10))).type.shape == (None, 10)
    assert T.softmax(T.matrix("m"), axis=-1).owner.op == T.softmax(T.matrix("n"), axis=1).owner.op
    out = T.log_softmax(T.matrix("m"))
    assert out.owner.op.infer_shape(out.owner, [(5, 7)]) == [(5, 7)]


def test_bad_axis():
    with pytest.raises(np.exceptions.AxisError, match="softmax: axis 2 is out of bounds for 'x'"):
        T.softmax(T.matrix("x"), axis=2)
    with pytest.raises(np.exceptions.AxisError, match="log_softmax: axis -1 is out of bounds"):
        T.log_softmax(T.scalar("s"))
