"""Theano's cuDNN convolution and pooling (``gpuarray.dnn.dnn_conv``, ``dnn_conv3d``,
``dnn_pool``, and the old ``sandbox.cuda.dnn`` names) against SciPy and explicit NumPy
loops, on both paths (test values and XLA); gradients against finite differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gpuarray import dnn
from symnb.sandbox.cuda import dnn as cuda_dnn
from tests.core.test_conv import check_outputs, scipy_conv
from tests.reference import symbolic_like


@pytest.mark.parametrize("module", [dnn, cuda_dnn], ids=["gpuarray", "sandbox.cuda"])
def test_dnn_conv_modes_match_scipy(module, rng):
    x = rng.normal(size=(2, 4, 7, 6)).astype("float32")
    w = rng.normal(size=(6, 4, 3, 2)).astype("float32")
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    outputs, references = [], []
    for conv_mode, flip in (("conv", True), ("cross", False)):
        for border_mode, subsample in (("valid", (1, 1)), ("full", (1, 1)), ("half", (2, 1)), ((2, 1), (1, 2))):
            outputs.append(module.dnn_conv(xv, wv, border_mode=border_mode, subsample=subsample,
                                           conv_mode=conv_mode))
            references.append((f"{conv_mode} {border_mode} {subsample}",
                               scipy_conv(x, w, border_mode, subsample, flip).astype("float32")))
    check_outputs([xv, wv], [x, w], outputs, references)


def test_dnn_conv_default_is_a_true_convolution_and_groups_dilation(rng):
    x = rng.normal(size=(1, 4, 8, 7))
    w = rng.normal(size=(4, 2, 2, 3))
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    out = dnn.dnn_conv(xv, wv, dilation=(2, 1), num_groups=2, algo="time_once", direction_hint="bprop weights")
    check_outputs([xv, wv], [x, w], [out], [("conv", scipy_conv(x, w, "valid", None, True, (2, 1), 2))])


def test_dnn_conv3d_matches_scipy(rng):
    x = rng.normal(size=(1, 2, 5, 4, 6)).astype("float32")
    w = rng.normal(size=(3, 2, 2, 3, 2)).astype("float32")
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    outputs = [dnn.dnn_conv3d(xv, wv, border_mode=1, subsample=(1, 2, 1), conv_mode="cross"),
               cuda_dnn.dnn_conv3d(xv, wv, border_mode="half")]
    references = [("cross", scipy_conv(x, w, 1, (1, 2, 1), False).astype("float32")),
                  ("conv", scipy_conv(x, w, "half", None, True).astype("float32"))]
    check_outputs([xv, wv], [x, w], outputs, references)


def test_dnn_conv_precision_computes_in_the_dtype_asked_and_keeps_the_inputs_dtype(rng):
    x = rng.normal(size=(1, 1, 5, 5))
    w = rng.normal(size=(1, 1, 3, 3))
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    low = dnn.dnn_conv(xv, wv, precision="float32")
    expected = scipy_conv(x.astype("float32").astype(np.float64), w.astype("float32").astype(np.float64))
    assert low.dtype == "float64"
    # computed from float32 operands: within float32 rounding, not float64's
    check_outputs([xv, wv], [x, w], [low], [("float32 products", expected)], rtol=1e-5)
    half = symbolic_like(x.astype("float16"), "h")
    assert dnn.dnn_conv(half, wv.astype("float16")).dtype == "float16"


def test_dnn_conv_gradients_match_finite_differences(rng):
    x = rng.normal(size=(1, 2, 5, 4))
    w = rng.normal(size=(3, 2, 3, 2))
    sn.gradient.verify_grad(lambda a, b: dnn.dnn_conv(a, b, border_mode="half", subsample=(2, 1),
                                                      conv_mode="cross"), [x, w], rng=np.random.default_rng(0))


def test_dnn_conv_refuses_what_theano_refused():
    x, w = T.tensor4("x"), T.tensor4("w")
    with pytest.raises(TypeError, match="only works on real numbers"):
        dnn.dnn_conv(T.itensor4("i"), T.itensor4("k"))
    with pytest.raises(ValueError, match="conv_mode must be 'conv'.*got 'corr'"):
        dnn.dnn_conv(x, w, conv_mode="corr")
    with pytest.raises(ValueError, match="precision must be one of"):
        dnn.dnn_conv(x, w, precision="float8")
    with pytest.raises(ValueError, match="can't use both algo and workmem"):
        dnn.dnn_conv(x, w, algo="none", workmem="small")
    with pytest.raises(ValueError, match="dnn_conv: border_mode"):
        dnn.dnn_conv(x, w, border_mode="same")


def numpy_pool(x, ws, stride, pad, mode):
    """Pooling by an explicit loop over windows of the padded input (cuDNN's definition)."""
    n = len(ws)
    fill = -np.inf if mode == "max" else 0
    padded = np.pad(x.astype(np.float64), [(0, 0)] * (x.ndim - n) + [(p, p) for p in pad], constant_values=fill)
    inside = np.pad(np.ones(x.shape[-n:]), [(p, p) for p in pad])
    counts = [(padded.shape[x.ndim - n + i] - ws[i]) // stride[i] + 1 for i in range(n)]
    out = np.zeros(x.shape[:-n] + tuple(counts))
    for index in np.ndindex(*counts):
        window = tuple(slice(i * s, i * s + w) for i, s, w in zip(index, stride, ws))
        values = padded[(Ellipsis,) + window]
        axes = tuple(range(x.ndim - n, x.ndim))
        if mode == "max":
            out[(Ellipsis,) + index] = values.max(axis=axes)
        elif mode == "sum":
            out[(Ellipsis,) + index] = values.sum(axis=axes)
        elif mode == "average_inc_pad":
            out[(Ellipsis,) + index] = values.sum(axis=axes) / np.prod(ws)
        else:
            out[(Ellipsis,) + index] = values.sum(axis=axes) / inside[window].sum()
    return out.astype(x.dtype)


@pytest.mark.parametrize("module", [dnn, cuda_dnn], ids=["gpuarray", "sandbox.cuda"])
def test_dnn_pool_modes_match_a_loop(module, rng):
    x = rng.normal(size=(2, 3, 7, 6)).astype("float32")
    xv = symbolic_like(x, "x")
    outputs, references = [], []
    for mode in ("max", "average_inc_pad", "average_exc_pad", "sum"):
        for ws, stride, pad in (((2, 2), None, None), ((3, 2), (2, 1), (1, 1)), ((3, 3), (1, 2), (2, 0))):
            outputs.append(module.dnn_pool(xv, ws, stride, mode, pad))
            references.append((f"{mode} {ws} {stride} {pad}",
                               numpy_pool(x, ws, stride or (1, 1), pad or (0, 0), mode)))
    check_outputs([xv], [x], outputs, references)


def test_dnn_pool_3d_and_old_mode_names(rng):
    x = rng.normal(size=(1, 2, 5, 4, 5)).astype("float32")
    xv = symbolic_like(x, "x")
    outputs = [dnn.dnn_pool(xv, (2, 3, 2), (1, 1, 2), "average", (1, 1, 0)),
               dnn.dnn_pool(xv, (2, 2, 2), mode="max_deterministic")]
    references = [("average", numpy_pool(x, (2, 3, 2), (1, 1, 2), (1, 1, 0), "average_inc_pad")),
                  ("max_deterministic", numpy_pool(x, (2, 2, 2), (1, 1, 1), (0, 0, 0), "max"))]
    check_outputs([xv], [x], outputs, references)


def test_dnn_pool_windows_computed_in_the_graph(rng):
    # Lasagne's SpatialPyramidPoolingDNNLayer: window and stride from the input's shape
    x = rng.normal(size=(2, 3, 7, 5)).astype("float32")
    xv = symbolic_like(x, "x")
    ws = tuple((xv.shape[i] + 1) // 2 for i in (2, 3))
    stride = tuple(xv.shape[i] // 2 for i in (2, 3))
    out = dnn.dnn_pool(xv, ws, stride, "max", (0, 0))
    check_outputs([xv], [x], [out], [("pyramid", numpy_pool(x, (4, 3), (3, 2), (0, 0), "max"))])


def test_dnn_pool_gradient_matches_finite_differences(rng):
    x = rng.permutation(60).reshape(1, 3, 4, 5).astype("float64")  # distinct: max has one argmax
    for mode in ("max", "average_exc_pad"):
        sn.gradient.verify_grad(lambda a: dnn.dnn_pool(a, (2, 3), (1, 2), mode, (1, 1)), [x],
                                rng=np.random.default_rng(0))


def test_dnn_pool_refuses_bad_arguments():
    with pytest.raises(ValueError, match="mode must be one of .*got 'median'"):
        dnn.dnn_pool(T.tensor4("x"), (2, 2), mode="median")
    with pytest.raises(ValueError, match="pools 2 axes of a 4-d image or 3 axes of a 5-d one"):
        dnn.dnn_pool(T.tensor3("x"), (2, 2))


def test_probes_say_the_functions_run_here():
    from symnb import gpuarray
    assert gpuarray.pygpu_activated is True
    assert dnn.dnn_present() is True and dnn.dnn_available(None) is True and cuda_dnn.dnn_available()
    assert "every device" in dnn.dnn_present.msg
    assert dnn.version() == cuda_dnn.version() >= 7000
