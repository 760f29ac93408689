"""Theano's abstract_conv helpers (core/tensor/conv_theano_functions.py): the gradient shapes
against hand-computed lengths, the shape checks at run time, and the composed convolutions
against NumPy loops (or, for the transpose, the adjoint identity)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.tensor.nnet import abstract_conv as ac

RNG = np.random.default_rng(3)


def _correlate_1d(x, w, pad_left, dilation=1):
    """out[b, o, t] = sum_c,k x_padded[b, c, t + k * dilation] * w[o, c, k]."""
    batch, chans, length = x.shape
    out_c, _, taps = w.shape
    padded = np.concatenate([np.zeros((batch, chans, pad_left)), x], axis=2)
    out = np.zeros((batch, out_c, length))
    for t in range(length):
        for k in range(taps):
            out[:, :, t] += np.einsum("bc,oc->bo", padded[:, :, t + k * dilation], w[:, :, k])
    return out


def test_the_convolutions_always_run():
    assert ac.imported_scipy_signal is True  # Theano's flag: symnb's run on XLA, without SciPy


def test_gradient_shapes():
    assert ac.get_conv_gradweights_shape((2, 3, 8, 9), (2, 5, 6, 5), "valid", (1, 1)) == (5, 3, 3, 5)
    assert ac.get_conv_gradweights_shape((2, 3, 8, 9), (2, 5, 10, 11), "full", (1, 1)) == (5, 3, 3, 3)
    assert ac.get_conv_gradweights_shape((2, 3, 8, 9), (2, 5, 8, 9), (1, 2), (1, 1)) == (5, 3, 3, 5)
    assert ac.get_conv_gradweights_shape((2, 3, 8, 9), (2, 5, 4, 5), "valid", (2, 2)) == (5, 3, None, None)
    assert ac.get_conv_gradinputs_shape((5, 3, 3, 5), (2, 5, 6, 5), "valid", (1, 1)) == (2, 3, 8, 9)
    assert ac.get_conv_gradinputs_shape((5, 3, 3, 3), (2, 5, 8, 9), "half", (1, 1)) == (2, 3, 8, 9)
    assert ac.get_conv_gradinputs_shape((5, 3, 3, 3), (2, 5, 10, 11), "full", (1, 1)) == (2, 3, 8, 9)
    assert ac.get_conv_gradinputs_shape((5, 3, 3, 3), (2, 5, 4, 5), "valid", (2, 2)) == (2, 3, None, None)
    assert ac.check_conv_gradinputs_shape((2, 3, 8, 9), (5, 3, 3, 5), (2, 5, 6, 5), "valid", (1, 1))
    assert not ac.check_conv_gradinputs_shape((2, 3, 8, 9), (5, 3, 3, 5), (2, 5, 7, 5), "valid", (1, 1))
    assert ac.check_conv_gradinputs_shape((2, 3, None, 9), (5, 3, 3, 5), (2, 5, 7, 5), "valid", (1, 1))
    with pytest.raises(ValueError, match="border_mode must be >= 0"):
        ac.get_conv_gradinputs_shape((5, 3, 3, 3), (2, 5, 8, 9), -1, (1, 1))


def test_assert_conv_shape():
    shape = tuple(T.iscalar() for _ in range(4))
    f = sn.function(shape, list(ac.assert_conv_shape(shape)))
    assert [int(v) for v in f(1, 2, 3, 4)] == [1, 2, 3, 4]
    assert [int(v) for v in f(0, 0, 1, 1)] == [0, 0, 1, 1]
    for bad in [(3, 3, 3, 0), (3, 3, -1, 3), (3, -1, 3, 3)]:
        with pytest.raises(AssertionError):
            f(*bad)
    with pytest.raises(ValueError, match="dim\\[2\\]: 0 <= 0"):
        ac.assert_conv_shape((1, 2, 0, 3))


def test_assert_shape_follows_the_flag():
    x, s1 = T.tensor4(), T.iscalar()
    assert ac.assert_shape(x, [None, s1, None, None]) is x  # off by default, as in Theano
    with sn.change_flags(**{"conv.assert_shape": True}):
        f = sn.function([x, s1], ac.assert_shape(x, [None, s1, None, None]))
    v = np.zeros((3, 5, 7, 11), dtype=x.dtype)
    np.testing.assert_array_equal(f(v, 5), v)
    with pytest.raises(AssertionError):
        f(v, 4)


def _correlate_valid(image, kernel):
    """NumPy's 'valid' true convolution (kernel flipped), (batch, out, rows, cols)."""
    k = kernel[:, :, ::-1, ::-1]
    rows, cols = image.shape[2] - k.shape[2] + 1, image.shape[3] - k.shape[3] + 1
    out = np.zeros((image.shape[0], k.shape[0], rows, cols))
    for r in range(rows):
        for c in range(cols):
            patch = image[:, None, :, r:r + k.shape[2], c:c + k.shape[3]]
            out[:, :, r, c] = (patch * k[None]).sum(axis=(2, 3, 4))
    return out


def test_the_convolutions_assert_the_shapes_given_with_the_flag():
    # Theano's conv.assert_shape: each convolution checks its operands against the shapes
    # the user gave (an Assert: AssertionError) before it runs
    i, f, g = T.tensor4(), T.tensor4(), T.tensor4()
    with sn.change_flags(**{"conv.assert_shape": True}):
        forward = sn.function([i, f], ac.conv2d(i, f, input_shape=(3, 5, 7, 11), filter_shape=(7, 5, 3, 3)))
        wrt_inputs = sn.function([g, f], ac.conv2d_grad_wrt_inputs(
            g, f, input_shape=(None, None, 7, 11), filter_shape=(7, 5, 3, 3)))
        wrt_weights = sn.function([i, g], ac.conv2d_grad_wrt_weights(
            i, g, filter_shape=(None, None, 3, 3), input_shape=(3, 5, 7, 11)))
    rng = np.random.default_rng(0)
    image, kernel = rng.normal(size=(3, 5, 7, 11)), rng.normal(size=(7, 5, 3, 3))
    np.testing.assert_allclose(forward(image.astype(i.dtype), kernel.astype(f.dtype)),
                               _correlate_valid(image, kernel), rtol=1e-4, atol=1e-4)
    zeros = lambda *shape: np.zeros(shape, dtype=i.dtype)  # noqa: E731
    for call in (lambda: forward(zeros(3, 5, 9, 11), zeros(7, 5, 3, 3)),
                 lambda: forward(zeros(3, 5, 7, 11), zeros(7, 5, 2, 2)),
                 lambda: wrt_inputs(zeros(3, 6, 5, 9), zeros(7, 6, 3, 3)),
                 lambda: wrt_weights(zeros(3, 6, 7, 11), zeros(3, 7, 5, 9))):
        with pytest.raises(AssertionError, match="shape mismatch"):
            call()
    # without the flag, a contradicted shape is the convolution's own ValueError
    unchecked = sn.function([i, f], ac.conv2d(i, f, input_shape=(3, 5, 7, 11), filter_shape=(7, 5, 3, 3)))
    with pytest.raises(ValueError, match="says axis 2 is 7"):
        unchecked(zeros(3, 5, 9, 11), zeros(7, 5, 3, 3))


@pytest.mark.parametrize("dilation", [1, 2])
def test_causal_conv1d_against_numpy(dilation):
    x_v, w_v = RNG.normal(size=(2, 3, 9)), RNG.normal(size=(4, 3, 3))
    x, w = T.dtensor3(), T.dtensor3()
    out = ac.causal_conv1d(x, w, filter_shape=(4, 3, 3), filter_dilation=dilation, filter_flip=False)
    want = _correlate_1d(x_v, w_v, pad_left=dilation * 2, dilation=dilation)
    np.testing.assert_allclose(sn.function([x, w], out)(x_v, w_v), want, rtol=1e-10, atol=1e-12)
    # flipped filters (a true convolution, the default) are the correlation by reversed taps
    flipped = ac.causal_conv1d(x, w, filter_shape=(4, 3, 3), filter_dilation=dilation)
    np.testing.assert_allclose(sn.function([x, w], flipped)(x_v, w_v[:, :, ::-1].copy()), want,
                               rtol=1e-10, atol=1e-12)


def test_separable_conv2d_against_numpy():
    x_v = RNG.normal(size=(2, 3, 5, 6))
    depth_v, point_v = RNG.normal(size=(6, 1, 2, 2)), RNG.normal(size=(4, 6, 1, 1))
    x, depth, point = T.dtensor4(), T.dtensor4(), T.dtensor4()
    out = ac.separable_conv2d(x, depth, point, num_channels=3, filter_flip=False)
    got = sn.function([x, depth, point], out)(x_v, depth_v, point_v)
    # depthwise: output channel j reads input channel j // 2 (2 filters per channel)
    mid = np.zeros((2, 6, 4, 5))
    for j in range(6):
        for r in range(4):
            for c in range(5):
                mid[:, j, r, c] = (x_v[:, j // 2, r:r + 2, c:c + 2] * depth_v[j, 0]).sum((1, 2))
    want = np.einsum("bjrc,oj->borc", mid, point_v[:, :, 0, 0])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    x_v, w_v = RNG.normal(size=(2, 3, 7, 8)), RNG.normal(size=(4, 3, 3, 2))
    y_v = RNG.normal(size=(2, 4, 3, 4))  # conv2d's output shape with stride 2
    x, w, y = T.dtensor4(), T.dtensor4(), T.dtensor4()
    forward = sn.function([x, w], T.nnet.conv2d(x, w, subsample=(2, 2)))(x_v, w_v)
    assert forward.shape == y_v.shape
    back = sn.function([y, w], T.nnet.conv2d_transpose(y, w, output_shape=(2, 3, 7, 8),
                                                       input_dilation=(2, 2)))(y_v, w_v)
    assert back.shape == x_v.shape
    np.testing.assert_allclose(np.sum(forward * y_v), np.sum(x_v * back), rtol=1e-10)


def test_theanos_ops_take_shape_hints_of_ints_or_constants_only():
    from symnb.tensor.nnet.abstract_conv import (
        AbstractConv2d, AbstractConv2d_gradInputs, AbstractConv2d_gradWeights)

    constants = [T.constant(n, dtype="int64") for n in (3, 5, 7, 11)]
    symbolic = (T.lvector(), T.ones(4, dtype="int64"), T.ftensor4().shape,
                T.zeros((3, 5, 7, 11)).shape, T.constant([3, 5, 7, 11]))
    for op in (AbstractConv2d, AbstractConv2d_gradInputs, AbstractConv2d_gradWeights):
        for shape in symbolic:  # Theano's ValueError: a vector, even a constant one
            for keyword in ("imshp", "kshp"):
                with pytest.raises(ValueError, match=keyword):
                    op(**{keyword: shape})
    assert AbstractConv2d(imshp=constants).imshp == (3, 5, 7, 11)
    assert AbstractConv2d(kshp=tuple(constants)).kshp == (3, 5, 7, 11)
    # a constant's value is a hint like an int: checked against the static lengths
    image = T.tensor4(shape=(3, 5, 9, 11))
    with pytest.raises(ValueError, match="says axis 2 is 7"):
        AbstractConv2d(imshp=constants)(image, T.tensor4())
    rng = np.random.default_rng(1)
    x, k = rng.normal(size=(3, 5, 7, 11)), rng.normal(size=(2, 5, 3, 3))
    out = sn.function([], AbstractConv2d(imshp=constants)(T.constant(x), T.constant(k)))()
    np.testing.assert_allclose(out, _correlate_valid(x, k), rtol=1e-10)
