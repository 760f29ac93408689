"""conv2d / conv3d / signal.conv.conv2d: NumPy perform path and XLA path against SciPy.

The reference pads the image as each border mode says, dilates the kernel by inserting
zeros, and calls ``scipy.signal.convolve`` (``filter_flip=True``) or ``correlate``
(False) channel by channel, then takes every ``subsample``-th output.
"""

import time

import numpy as np
import pytest
import scipy.signal

import symnb as sn
import symnb.tensor as T
from symnb.tensor.nnet import conv2d, conv3d
from symnb.tensor.signal import conv as signal_conv
from tests.reference import assert_same, symbolic_like


def _pads(border_mode, spans):
    if border_mode == "valid":
        return [(0, 0)] * len(spans)
    if border_mode == "full":
        return [(s - 1, s - 1) for s in spans]
    if border_mode == "half":
        return [(s // 2, s // 2) for s in spans]
    if isinstance(border_mode, int):
        return [(border_mode, border_mode)] * len(spans)
    return [(b, b) if isinstance(b, int) else tuple(b) for b in border_mode]


def scipy_conv(x, w, border_mode="valid", subsample=None, filter_flip=True, dilation=None, groups=1):
    nd = x.ndim - 2
    subsample = subsample or (1,) * nd
    dilation = dilation or (1,) * nd
    dilated = np.zeros(w.shape[:2] + tuple((k - 1) * d + 1 for k, d in zip(w.shape[2:], dilation)))
    dilated[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in dilation)] = w
    x = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + _pads(border_mode, dilated.shape[2:]))
    op = scipy.signal.convolve if filter_flip else scipy.signal.correlate
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    out = np.array([[sum(op(x[n, (o // og) * cg + c], dilated[o, c], mode="valid") for c in range(cg))
                     for o in range(w.shape[0])] for n in range(x.shape[0])])
    return out[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in subsample)]


def check_outputs(inputs, values, outputs, references, rtol=None):
    """Each output's test value and compiled value (one program for all) against its reference."""
    compiled = sn.function(inputs, outputs)(*values)
    for out, xla, (what, expected) in zip(outputs, compiled, references):
        assert_same(out.test_value, expected, f"{what}: perform (test value)", rtol)
        assert_same(xla, expected, f"{what}: XLA", rtol)


BORDER_MODES = ["valid", "full", "half", 1, (2, 1), ((1, 2), (0, 3))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("filter_flip", [True, False])
def test_conv2d_matches_scipy(dtype, filter_flip, rng):
    x = rng.normal(size=(2, 4, 9, 8)).astype(dtype)
    filters = {1: rng.normal(size=(6, 4, 3, 2)).astype(dtype), 2: rng.normal(size=(6, 2, 3, 2)).astype(dtype)}
    xv = symbolic_like(x, "x")
    wv = {g: symbolic_like(w, f"w{g}") for g, w in filters.items()}
    outputs, references = [], []
    for border_mode in BORDER_MODES:
        for subsample in [(1, 1), (2, 3)]:
            for dilation in [(1, 1), (2, 1)]:
                for groups in [1, 2]:
                    params = dict(border_mode=border_mode, subsample=subsample, filter_flip=filter_flip,
                                  filter_dilation=dilation, num_groups=groups)
                    outputs.append(conv2d(xv, wv[groups], **params))
                    expected = scipy_conv(x, filters[groups], border_mode, subsample, filter_flip, dilation,
                                          groups)
                    references.append((str(params), expected.astype(dtype)))
    check_outputs([xv, wv[1], wv[2]], [x, filters[1], filters[2]], outputs, references)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv3d_matches_scipy(dtype, rng):
    x = rng.normal(size=(2, 2, 5, 6, 4)).astype(dtype)
    w = rng.normal(size=(4, 1, 2, 3, 2)).astype(dtype)
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    outputs, references = [], []
    for border_mode, subsample, dilation, groups, flip in [
            ("valid", (1, 1, 1), (1, 1, 1), 2, True), ("full", (2, 1, 2), (1, 1, 1), 2, False),
            ("half", (1, 1, 1), (2, 1, 1), 2, True), ((1, 0, 2), (1, 2, 1), (1, 2, 1), 2, True)]:
        outputs.append(conv3d(xv, wv, border_mode=border_mode, subsample=subsample, filter_flip=flip,
                              filter_dilation=dilation, num_groups=groups))
        expected = scipy_conv(x, w, border_mode, subsample, flip, dilation, groups)
        references.append((border_mode, expected.astype(dtype)))
    check_outputs([xv, wv], [x, w], outputs, references)


def test_dtypes_follow_numpy(rng):
    x = rng.integers(-3, 4, size=(1, 2, 5, 5)).astype("int32")
    w = rng.integers(-3, 4, size=(3, 2, 2, 2)).astype("int32")
    wf = rng.normal(size=(3, 2, 2, 2))
    xv, wv, wfv = symbolic_like(x, "x"), symbolic_like(w, "w"), symbolic_like(wf, "wf")
    check_outputs([xv, wv, wfv], [x, w, wf], [conv2d(xv, wv, border_mode="full"), conv2d(xv, wfv)],
                  [("int32", scipy_conv(x, w, "full").round().astype("int32")),
                   ("int32 by float64", scipy_conv(x, wf))])
    with pytest.raises(TypeError, match="numeric"):
        conv2d(T.tensor4("b", dtype="bool"), T.tensor4("c", dtype="bool"))


def test_static_shapes():
    x = T.tensor4("x", shape=(8, 3, 28, 27))
    w = T.tensor4("w", shape=(5, 3, 5, 4))
    assert conv2d(x, w).type.shape == (8, 5, 24, 24)
    assert conv2d(x, w, border_mode="full", subsample=(2, 2)).type.shape == (8, 5, 16, 15)
    # an even filter width: 'half' gives one more column
    assert conv2d(x, w, border_mode="half", filter_dilation=(2, 1)).type.shape == (8, 5, 28, 28)
    assert conv2d(x, w, border_mode=(1, (0, 2))).type.shape == (8, 5, 26, 26)
    unknown = T.tensor4("u", shape=(None, 3, None, 28))
    assert conv2d(unknown, w).type.shape == (None, 5, None, 25)
    hinted = conv2d(T.tensor4("h"), T.tensor4("k"), input_shape=(None, 3, 10, 10), filter_shape=(4, 3, 3, 3))
    assert hinted.type.shape == (None, 4, 8, 8)


def test_infer_shape(rng):
    x = symbolic_like(rng.normal(size=(2, 4, 9, 8)), "x")
    w = symbolic_like(rng.normal(size=(6, 2, 3, 2)), "w")
    y = conv2d(x, w, border_mode="half", subsample=(2, 3), filter_dilation=(2, 1), num_groups=2)
    cases = [y, *sn.grad((y ** 2).sum(), [x, w])]
    for out in cases:
        node = out.owner
        shapes = [tuple(T.shape(v)[i] for i in range(v.ndim)) for v in node.inputs]
        (inferred,) = node.op.infer_shape(node, shapes)
        assert tuple(int(T.as_tensor_variable(s).test_value) for s in inferred) == out.test_value.shape


def test_shape_hint_is_checked(rng):
    x = T.tensor4("x", test_value=rng.normal(size=(2, 3, 6, 6)).astype("float32"))
    w = T.tensor4("w", test_value=rng.normal(size=(4, 3, 3, 3)).astype("float32"))
    with pytest.raises(sn.TestValueError, match=r"input_shape=\(\?, 3, 7, 7\) says axis 2 is 7"):
        conv2d(x, w, input_shape=(None, 3, 7, 7))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signal_conv2d_stacks(dtype, rng):
    image, images = rng.normal(size=(7, 6)).astype(dtype), rng.normal(size=(3, 7, 6)).astype(dtype)
    kernel, kernels = rng.normal(size=(3, 2)).astype(dtype), rng.normal(size=(2, 3, 2)).astype(dtype)
    variables = [symbolic_like(v, n) for v, n in [(image, "i"), (images, "I"), (kernel, "k"), (kernels, "K")]]
    i, I, k, K = variables
    outputs, references = [], []
    for mode in ["valid", "full"]:
        def conv(a, b, mode=mode):
            return scipy.signal.convolve(a.astype(np.float64), b, mode=mode).astype(dtype)

        outputs += [signal_conv.conv2d(i, k, border_mode=mode), signal_conv.conv2d(I, k, border_mode=mode),
                    signal_conv.conv2d(i, K, border_mode=mode),
                    signal_conv.conv2d(I, K, border_mode=mode, subsample=(2, 1))]
        references += [("2d by 2d", conv(image, kernel)),
                       ("3d by 2d", np.stack([conv(a, kernel) for a in images])),
                       ("2d by 3d", np.stack([conv(image, b) for b in kernels])),
                       ("3d by 3d", np.stack([[conv(a, b)[::2] for b in kernels] for a in images]))]
    check_outputs(variables, [image, images, kernel, kernels], outputs, references)


def test_build_time_errors_name_both_shapes_and_the_axis():
    x = T.tensor4("x", shape=(2, 3, 8, 8))
    with pytest.raises(ValueError) as info:
        conv2d(x, T.tensor4("w", shape=(4, 2, 3, 3)))  # the line the message shows
    message = str(info.value)
    assert "'x' has shape (2, 3, 8, 8)" in message and "'w' have shape (4, 2, 3, 3)" in message
    assert "3 channels (axis 1)" in message and "take 2 (their axis 1)" in message
    assert "test_conv.py" in message and "conv2d(x, T.tensor4(\"w\"" in message
    smaller = (r"smaller than the filters on axis 3: 8 positions \+ padding \(0, 0\) \(border_mode='valid'\) "
               r"= 8, fewer than the 9 the filters span \(5 taps dilated by 2\)")
    with pytest.raises(ValueError, match=smaller):
        conv2d(x, T.tensor4("w", shape=(4, 3, 3, 5)), filter_dilation=(1, 2))
    with pytest.raises(ValueError, match="num_groups=2 does not divide the 3 channels"):
        conv2d(x, T.tensor4("w", shape=(4, 1, 3, 3)), num_groups=2)
    with pytest.raises(ValueError, match="take 1 x num_groups=3 = 3"):
        conv2d(T.tensor4("y", shape=(2, 6, 8, 8)), T.tensor4("w", shape=(3, 1, 3, 3)), num_groups=3)
    with pytest.raises(TypeError, match="must be a 4-d tensor"):
        conv2d(T.matrix("m"), T.tensor4("w"))
    with pytest.raises(ValueError, match="border_mode"):
        conv2d(x, T.tensor4("w"), border_mode="same")
    with pytest.raises(ValueError, match="subsample must be 2 int"):
        conv2d(x, T.tensor4("w"), subsample=(0, 1))


def test_test_value_and_call_errors_point_at_the_line(rng):
    x = T.tensor4("x", test_value=rng.normal(size=(1, 3, 4, 4)).astype("float32"))
    w = T.tensor4("w", test_value=rng.normal(size=(2, 3, 5, 5)).astype("float32"))
    with pytest.raises(sn.TestValueError) as info:
        conv2d(x, w)  # the image is smaller than the filters
    message = str(info.value)
    assert "smaller than the filters on axis 2" in message and "'x' has shape (1, 3, 4, 4)" in message
    assert "conv2d(x, w)  # the image is smaller" in message
    with sn.config.change_flags(compute_test_value="off"):
        y = conv2d(T.tensor4("a"), T.tensor4("b"))
        f = sn.function(y.owner.inputs, y)
    with pytest.raises(ValueError, match=r"input has 3 channels \(axis 1\) but the filters take 2"):
        f(np.zeros((1, 3, 6, 6), "float32"), np.zeros((2, 2, 3, 3), "float32"))


def test_test_value_of_a_large_batch_takes_seconds_not_minutes(rng):
    """64x3x32x32 images by 32 5x5 filters: the issue's bound (0.5 s) is measured by
    bench/bench_lenet.py; a test under load asserts its order of magnitude only (a
    convolution looped in Python over images and positions would take minutes)."""
    x = T.tensor4("x", test_value=rng.normal(size=(64, 3, 32, 32)).astype("float32"))
    w = T.tensor4("w", test_value=rng.normal(size=(32, 3, 5, 5)).astype("float32"))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        y = conv2d(x, w)
        best = min(best, time.perf_counter() - start)
    assert y.test_value.shape == (64, 32, 28, 28)
    assert best < 5, f"building the test value took {best:.3f} s"
