"""pool_2d / pool_3d / max_pool_2d: NumPy perform path and XLA path against a NumPy
reference that loops over the windows, following Theano's definition: window ``j``
covers ``[j * stride, min(j * stride + ws, n + 2 * pad))`` of the padded input, clipped
to the unpadded input except for 'average_inc_pad'."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.tensor.signal.downsample import max_pool_2d
from symnb.tensor.signal.pool import max_pool_2d_same_size, pool_2d, pool_3d
from tests.core.test_conv import check_outputs
from tests.reference import symbolic_like

MODES = ["max", "sum", "average_inc_pad", "average_exc_pad"]


def _count(n, ws, stride, pad, ignore_border):
    padded = n + 2 * pad
    if ignore_border:
        return max((padded - ws) // stride + 1, 0)
    if stride >= ws:
        return (padded - 1) // stride + 1
    return max(0, (padded - 1 - ws) // stride + 1) + 1


def _regions(shape, ws, stride, pad, ignore_border, mode):
    """Per output position, the slices of the padded input its window reads."""
    per_axis = []
    for n, w, s, p in zip(shape, ws, stride, pad):
        slices = []
        for j in range(_count(n, w, s, p, ignore_border)):
            start, end = j * s, min(j * s + w, n + 2 * p)
            if mode != "average_inc_pad":
                start, end = max(start, p), min(end, n + p)
            slices.append(slice(start, end))
        per_axis.append(slices)
    return per_axis


def numpy_pool(x, ws, ignore_border=True, stride=None, pad=None, mode="max"):
    nd = len(ws)
    stride, pad = stride or ws, pad or (0,) * nd
    padded = np.pad(x, [(0, 0)] * (x.ndim - nd) + [(p, p) for p in pad])
    regions = _regions(x.shape[-nd:], ws, stride, pad, ignore_border, mode)
    out = np.zeros(x.shape[:-nd] + tuple(len(r) for r in regions), x.dtype)
    reduce = {"max": np.max, "sum": np.sum}.get(mode, np.mean)
    for index in np.ndindex(*out.shape[-nd:]):
        window = padded[(Ellipsis,) + tuple(r[i] for r, i in zip(regions, index))]
        out[(Ellipsis,) + index] = reduce(window, axis=tuple(range(-nd, 0)))
    return out


def numpy_pool_grad(x, g, ws, ignore_border=True, stride=None, pad=None, mode="max"):
    """The gradient of sum(pool(x) * g): to each window's first maximum, or spread over it."""
    nd = len(ws)
    stride, pad = stride or ws, pad or (0,) * nd
    padded = np.pad(x, [(0, 0)] * (x.ndim - nd) + [(p, p) for p in pad], constant_values=-np.inf)
    grad = np.zeros(padded.shape)
    regions = _regions(x.shape[-nd:], ws, stride, pad, ignore_border, mode)
    for lead in np.ndindex(*x.shape[:-nd]):
        for index in np.ndindex(*g.shape[-nd:]):
            window = tuple(r[i] for r, i in zip(regions, index))
            value = g[lead + index]
            if mode == "max":
                taps = np.unravel_index(np.argmax(padded[lead + window]), padded[lead + window].shape)
                grad[lead + tuple(w.start + t for w, t in zip(window, taps))] += value
            else:
                size = np.prod([w.stop - w.start for w in window])
                grad[lead + window] += value if mode == "sum" else value / size
    crop = tuple(slice(p, p + n) for p, n in zip(pad, x.shape[-nd:]))
    return grad[(Ellipsis,) + crop].astype(x.dtype)


def _configs(modes=MODES, strides=(None, (1, 1), (2, 3))):
    for ws in [(2, 2), (3, 2)]:
        for stride in strides:
            for ignore_border, pad in [(True, (0, 0)), (False, (0, 0)), (True, (1, 1))]:
                for mode in modes:
                    yield dict(ws=ws, stride=stride, ignore_border=ignore_border, pad=pad, mode=mode)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_pool_2d_matches_numpy(dtype, rng):
    x = (rng.normal(size=(2, 3, 7, 8)) * 10).astype(dtype)
    xv = symbolic_like(x, "x")
    configs = list(_configs(MODES if dtype != "int32" else ["max", "sum"]))
    references = [(str(c), numpy_pool(x, **c)) for c in configs]
    check_outputs([xv], [x], [pool_2d(xv, **c) for c in configs], references)


def test_pool_2d_pools_the_last_two_axes(rng):
    x = rng.normal(size=(3, 5, 4)).astype("float32")
    x5 = rng.normal(size=(2, 1, 2, 5, 4)).astype("float32")
    xv, x5v = symbolic_like(x, "x"), symbolic_like(x5, "x5")
    configs = [dict(ws=(2, 3), mode=mode, ignore_border=mode != "sum") for mode in MODES]
    outputs = [pool_2d(v, **c) for c in configs for v in (xv, x5v)]
    references = [(str(c), numpy_pool(value, **c)) for c in configs for value in (x, x5)]
    check_outputs([xv, x5v], [x, x5], outputs, references)


def test_pool_3d_matches_numpy(rng):
    x = rng.normal(size=(2, 5, 4, 6))
    xv = symbolic_like(x, "x")
    configs = [dict(ws=(2, 2, 3), mode="max", ignore_border=True),
               dict(ws=(2, 3, 2), stride=(1, 2, 3), ignore_border=False, mode="sum"),
               dict(ws=(3, 2, 2), pad=(1, 1, 0), mode="average_exc_pad", ignore_border=True),
               dict(ws=(3, 2, 2), pad=(2, 0, 1), stride=(1, 1, 1), mode="average_inc_pad",
                    ignore_border=True)]
    references = [(str(c), numpy_pool(x, **c)) for c in configs]
    check_outputs([xv], [x], [pool_3d(xv, **c) for c in configs], references)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pool_gradients_match_numpy(dtype, rng):
    x = rng.normal(size=(2, 2, 7, 6)).astype(dtype)
    xv = symbolic_like(x, "x")
    outputs, references = [], []
    for params in _configs(strides=(None, (2, 3))):  # with ws=(3, 2): overlaps, and gaps
        pooled = pool_2d(xv, **params)
        g = rng.normal(size=pooled.test_value.shape).astype(dtype)
        outputs.append(sn.grad((pooled * g).sum(), xv))
        references.append((str(params), numpy_pool_grad(x, g, **params)))
    check_outputs([xv], [x], outputs, references)


def test_max_pool_gradient_goes_to_the_first_of_tied_maxima():
    x = T.matrix("x", test_value=np.array([[1.0, 3, 3, 0], [3, 3, 2, 3], [5, 5, 5, 5]]))
    grad = sn.grad(pool_2d(x, (2, 2), ignore_border=False).sum(), x)
    expected = np.array([[0.0, 1, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0]])
    np.testing.assert_array_equal(grad.test_value, expected)
    np.testing.assert_array_equal(sn.function([x], grad)(x.test_value), expected)


@pytest.mark.parametrize("params", [dict(ws=(2, 2), ignore_border=True),
                                    dict(ws=(3, 2), stride=(1, 2), ignore_border=False),
                                    dict(ws=(3, 3), stride=(2, 1), pad=(1, 2), mode="average_exc_pad",
                                         ignore_border=True),
                                    dict(ws=(2, 3), pad=(1, 1), mode="average_inc_pad", ignore_border=True),
                                    dict(ws=(2, 2), stride=(1, 1), ignore_border=False, mode="sum")], ids=str)
def test_finite_differences(params, rng):
    x = rng.permutation(60).reshape(3, 4, 5) / 10.0  # no ties, gaps much larger than eps
    verify = sn.gradient.verify_grad
    verify(lambda v: pool_2d(v, **params), [x], rng=rng)
    # second derivatives: the gradient ops' own gradients
    verify(lambda v: sn.grad((pool_2d(v, **params) ** 2).sum(), v), [x], rng=rng)


def test_static_shapes_and_infer_shape(rng):
    x = T.tensor4("x", shape=(2, 3, 7, 8))
    assert pool_2d(x, (2, 3), ignore_border=True).type.shape == (2, 3, 3, 2)
    assert pool_2d(x, (2, 3), ignore_border=False).type.shape == (2, 3, 4, 3)
    assert pool_2d(x, (3, 3), stride=(1, 2), pad=(1, 2), ignore_border=True).type.shape == (2, 3, 7, 5)
    assert pool_2d(x, (9, 9), ignore_border=True).type.shape == (2, 3, 0, 0)
    assert pool_2d(T.tensor4("u"), (2, 2), ignore_border=True).type.shape == (None,) * 4
    v = symbolic_like(rng.normal(size=(2, 3, 7, 8)), "v")
    for pooled in [pool_2d(v, (3, 2), stride=(1, 3), ignore_border=False),
                   pool_2d(v, (3, 3), pad=(1, 2), mode="average_inc_pad", ignore_border=True),
                   pool_2d(v, (9, 2), ignore_border=True)]:
        for out in [pooled, sn.grad(pooled.sum(), v)]:
            node = out.owner
            shapes = [tuple(T.shape(i)[k] for k in range(i.ndim)) for i in node.inputs]
            (inferred,) = node.op.infer_shape(node, shapes)
            assert tuple(int(T.as_tensor_variable(s).test_value) for s in inferred) == out.test_value.shape


def test_ignore_border_left_out_warns_and_is_false_as_in_theano(rng):
    """Theano 1.0: a 13x13 image pooled by 2x2 windows gives 7x7 (partial windows kept)."""
    x = rng.normal(size=(1, 2, 13, 13))
    xv = symbolic_like(x, "x")
    with pytest.warns(UserWarning, match=r"pool_2d\(\) will have the parameter ignore_border default "
                                         r"value changed to True \(currently False\)") as record:
        pooled = pool_2d(xv, (2, 2))
    assert record[0].filename == __file__  # the user's line
    assert pooled.test_value.shape == (1, 2, 7, 7)
    expected = numpy_pool(x, (2, 2), ignore_border=False)
    np.testing.assert_array_equal(pooled.test_value, expected)
    np.testing.assert_array_equal(sn.function([xv], pooled)(x), expected)
    x3 = rng.normal(size=(1, 5, 5, 5))
    x3v = symbolic_like(x3, "x3")
    with pytest.warns(UserWarning, match=r"pool_3d\(\) will have .* pad == \(0, 0, 0\)"):
        pooled3 = pool_3d(x3v, (2, 2, 2))
    np.testing.assert_array_equal(pooled3.test_value, numpy_pool(x3, (2, 2, 2), ignore_border=False))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # given: no warning
        assert pool_2d(xv, (2, 2), ignore_border=True).test_value.shape == (1, 2, 6, 6)


def test_old_spellings(rng):
    x = rng.normal(size=(1, 2, 5, 5)).astype("float32")
    xv = symbolic_like(x, "x")
    old = max_pool_2d(xv, (2, 2))  # Theano 0.7: ignore_border=False by default
    assert old.test_value.shape == (1, 2, 3, 3)
    np.testing.assert_array_equal(old.test_value, numpy_pool(x, (2, 2), ignore_border=False))
    with pytest.warns(DeprecationWarning) as record:
        renamed = pool_2d(xv, ds=(2, 2), st=(1, 1), ignore_border=True)
    assert ["'ds'" in str(w.message) for w in record] == [True, False]
    assert all(w.filename == __file__ for w in record)
    np.testing.assert_array_equal(renamed.test_value, numpy_pool(x, (2, 2), stride=(1, 1)))
    same = max_pool_2d_same_size(xv, (2, 2))
    expected = np.where(np.kron(numpy_pool(x, (2, 2)), np.ones((2, 2))) == x[..., :4, :4], x[..., :4, :4], 0)
    np.testing.assert_array_equal(same.test_value[..., :4, :4], expected)
    assert np.all(same.test_value[..., 4, :] == 0)


def test_errors_point_at_the_line():
    x = T.tensor4("x")
    with pytest.raises(NotImplementedError, match="padding works only with ignore_border=True") as info:
        pool_2d(x, (2, 2), pad=(1, 1), ignore_border=False)  # this line
    assert "pool_2d(x, (2, 2), pad=(1, 1), ignore_border=False)  # this line" in str(info.value)
    with pytest.raises(NotImplementedError, match="smaller than the window"):
        pool_2d(x, (2, 2), pad=(2, 0), ignore_border=True)
    with pytest.raises(ValueError, match="mode must be one of"):
        pool_2d(x, (2, 2), mode="mean", ignore_border=True)
    with pytest.raises(TypeError, match="'average_exc_pad' does not take int32"):
        pool_2d(T.tensor4("i", dtype="int32"), (2, 2), mode="average_exc_pad", ignore_border=True)
    with pytest.raises(TypeError, match="at least 2 dimensions"):
        pool_2d(T.vector("v"), (2, 2), ignore_border=True)
    with pytest.raises(ValueError, match="ws must be 2 int"):
        pool_2d(x, (2, 0), ignore_border=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # A window in a vector variable builds, as in Theano (its values come when the
        # graph runs: tests/theano_compat/test_lasagne_idioms.py); a wrong length does not.
        assert pool_2d(x, T.ivector("ws"), ignore_border=True).ndim == 4
        with pytest.raises(TypeError, match="has 3 entries but ndim=2"):
            pool_2d(x, T.ivector("ws", shape=(3,)), ignore_border=True)
