"""T.nnet.abstract_conv.bilinear_upsampling and its kernels against a NumPy port of
Theano 1.0's formula and against values computed by hand.

Theano's formula (``theano/tensor/nnet/abstract_conv.py``): repeat the first and last
row and column, then spread each pixel through the kernel ``[1, 2, .., r, .., 2, 1] / r``
at stride ``r`` (a transposed convolution) and crop ``2r - (r - 1) // 2 - 1`` positions
from the start. The NumPy port below does exactly that with index arithmetic, one axis
at a time.
"""

from math import gcd

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.tensor.nnet import abstract_conv
from symnb.tensor.nnet.abstract_conv import (
    bilinear_kernel_1D, bilinear_kernel_2D, bilinear_upsampling, frac_bilinear_upsampling,
)
from tests.reference import assert_same, symbolic_like


def np_kernel_1d(r):
    half = np.arange(1, r + 1, dtype=np.float64)
    return np.concatenate([half, half[-2::-1]]) / r


def np_upsample_axis(x, r, axis):
    """Theano's integer-ratio upsampling of ``x`` along ``axis``."""
    x = np.moveaxis(x.astype(np.float64), axis, -1)
    n = x.shape[-1]
    padded = np.concatenate([x[..., :1], x, x[..., -1:]], axis=-1)
    kern = np_kernel_1d(r)[::-1]  # filter_flip: the transposed convolution uses it flipped
    crop = 2 * r - (r - 1) // 2 - 1
    spread = np.zeros(x.shape[:-1] + ((n + 2) * r + len(kern),))
    for o in range(n + 2):
        spread[..., o * r:o * r + len(kern)] += padded[..., o:o + 1] * kern
    return np.moveaxis(spread[..., crop:crop + n * r], -1, axis)


def np_bilinear_upsampling(x, r):
    return np_upsample_axis(np_upsample_axis(x, r, 2), r, 3).astype(np.result_type(x, np.float32))


def np_frac_bilinear_upsampling(x, frac):
    """Theano's fractional formula: the bilinear kernel padded with zeros, convolved
    (flipped, dilated by the numerators, strided by the denominators) by each edge-padded
    image."""
    (p0, q0), (p1, q1) = frac
    b, c, rows, cols = x.shape
    images = x.reshape(b * c, rows, cols).astype(np.float64)
    images = np.concatenate([images[:, :1], images, images[:, -1:]], axis=1)
    images = np.concatenate([images[:, :, :1], images, images[:, :, -1:]], axis=2)
    kern = np.outer(np_kernel_1d(p0), np_kernel_1d(p1))
    double = [(2 * n - 1) * p + 1 for n, p in ((rows, p0), (cols, p1))]
    pads = [(d // 2, d - d // 2) for d in double]
    pad_kern = np.pad(kern, pads)
    h, w = images.shape[1:]
    out_rows = (pad_kern.shape[0] - ((h - 1) * p0 + 1)) // q0 + 1
    out_cols = (pad_kern.shape[1] - ((w - 1) * p1 + 1)) // q1 + 1
    out = np.zeros((b * c, out_rows, out_cols))
    flipped = images[:, ::-1, ::-1]
    for y in range(out_rows):
        for z in range(out_cols):
            window = pad_kern[y * q0:y * q0 + (h - 1) * p0 + 1:p0, z * q1:z * q1 + (w - 1) * p1 + 1:p1]
            out[:, y, z] = (flipped * window).sum(axis=(1, 2))
    return out.reshape(b, c, out_rows, out_cols).astype(np.result_type(x, np.float32))


def check(build, value, expected, rtol=None):
    x = symbolic_like(value, "x")
    out = build(x)
    assert_same(out.test_value, expected, "perform (test value)", rtol)
    assert_same(sn.function([x], out)(value), expected, "XLA", rtol)
    return out


def test_two_by_two_by_hand():
    # Rows [1, 2] -> [1, 1.5, 2, 2] (ratio 2: the last one twice, as Theano's notes say),
    # then the same along the columns.
    x = np.array([[[[1, 2], [3, 4]]]], dtype="float32")
    expected = np.array([[1, 1.5, 2, 2], [2, 2.5, 3, 3], [3, 3.5, 4, 4], [3, 3.5, 4, 4]], "float32")
    for use_1d in (True, False):
        check(lambda v: bilinear_upsampling(v, ratio=2, use_1D_kernel=use_1d), x, expected[None, None])


def test_ratio_three_by_hand():
    # [a, b] -> [a, a, 2a/3 + b/3, a/3 + 2b/3, b, b]: an odd ratio is symmetric. The
    # kernel is floatX (float32) as in Theano: its thirds are rounded to float32.
    x = np.array([[[[3.0, 6.0]]]], dtype="float64")
    expected = np.array([3, 3, 4, 5, 6, 6], dtype="float64")
    out = check(lambda v: bilinear_upsampling(v, ratio=3), x, np.tile(expected, (3, 1))[None, None],
                rtol=1e-6)
    assert out.dtype == "float64"


def theano_test_two_by_two(two_by_two, ratio):
    """Theano's own test reference for a 2 x 2 image (``get_upsampled_twobytwo_mat`` in
    theano/tensor/nnet/tests/test_abstract_conv.py): interpolate between the two
    values, then repeat the edges ``(ratio - 1) // 2`` times (once more at the end for
    an even ratio)."""
    kern = np.arange(ratio + 1)
    up_1d = two_by_two[:, :, :, :1] * kern[::-1] + two_by_two[:, :, :, 1:] * kern
    up_2d = up_1d[:, :, :1, :] * kern[::-1][:, None] + up_1d[:, :, 1:, :] * kern[:, None]
    for _ in range((ratio - 1) // 2):
        up_2d = np.concatenate([up_2d[:, :, :1, :], up_2d, up_2d[:, :, -1:, :]], axis=2)
        up_2d = np.concatenate([up_2d[:, :, :, :1], up_2d, up_2d[:, :, :, -1:]], axis=3)
    if ratio % 2 == 0:
        up_2d = np.concatenate([up_2d, up_2d[:, :, -1:, :]], axis=2)
        up_2d = np.concatenate([up_2d, up_2d[:, :, :, -1:]], axis=3)
    return up_2d / float(ratio) ** 2


@pytest.mark.parametrize("ratio", range(2, 10))
def test_theanos_own_reference(ratio):
    x = np.array([[[[1, 2], [3, 4]]]], dtype="float32")
    expected = theano_test_two_by_two(x, ratio).astype("float32")
    np.testing.assert_allclose(np_bilinear_upsampling(x, ratio), expected, rtol=1e-6)
    for use_1d in (True, False):
        check(lambda v: bilinear_upsampling(v, ratio=ratio, batch_size=1, num_input_channels=1,
                                            use_1D_kernel=use_1d), x, expected, rtol=1e-6)


@pytest.mark.parametrize("ratio", [1, 2, 3, 4])
@pytest.mark.parametrize("use_1d", [True, False])
def test_matches_theano_formula(ratio, use_1d, rng):
    x = rng.normal(size=(2, 3, 5, 4)).astype("float32")
    check(lambda v: bilinear_upsampling(v, ratio=ratio, use_1D_kernel=use_1d), x,
          np_bilinear_upsampling(x, ratio))


def test_static_shape_and_hints(rng):
    x = T.tensor4("x", shape=(2, 3, None, 4))
    out = bilinear_upsampling(x, 2, batch_size=2, num_input_channels=3)
    assert out.type.shape == (2, 3, None, 8)
    value = rng.normal(size=(2, 3, 5, 4)).astype("float32")
    assert_same(sn.function([x], out)(value), np_bilinear_upsampling(value, 2), "XLA")


def test_gradient(rng):
    x = rng.normal(size=(1, 2, 3, 3))
    sn.gradient.verify_grad(lambda v: bilinear_upsampling(v, ratio=2), [x], rng=np.random.RandomState(0))


@pytest.mark.parametrize("frac", [(3, 2), (4, 2), ((3, 2), (5, 3)), ((2, 1), (1, 2))])
def test_fractional_matches_theano_formula(frac, rng):
    x = rng.normal(size=(2, 2, 4, 5)).astype("float32")
    pair = frac if isinstance(frac[0], tuple) else (frac, frac)
    reduced = tuple((p // gcd(p, q), q // gcd(p, q)) for p, q in pair)
    expected = np_frac_bilinear_upsampling(x, reduced)
    check(lambda v: bilinear_upsampling(v, frac_ratio=frac, use_1D_kernel=False), x, expected)
    check(lambda v: frac_bilinear_upsampling(v, frac), x, expected)


def test_fractional_by_hand():
    # 3/2 of the row [0, 6]: the 3x upsampled row [0, 0, 2, 4, 6, 6], every second one.
    x = np.array([[[[0.0, 6.0], [0.0, 6.0]]]], dtype="float64")
    out = bilinear_upsampling(symbolic_like(x, "x"), frac_ratio=(3, 2), use_1D_kernel=False)
    np.testing.assert_allclose(out.test_value[0, 0], [[0, 2, 6]] * 3, rtol=1e-6)


@pytest.mark.parametrize("p, q", [(3, 2), (5, 3), (1, 2), (4, 3)])
def test_fractional_formula_is_integer_upsampling_strided(p, q, rng):
    # The two NumPy ports cross-checked: Theano's fractional formula samples the image
    # upsampled by the numerator at the denominator's stride.
    x = rng.normal(size=(1, 2, 4, 5))
    np.testing.assert_allclose(np_frac_bilinear_upsampling(x, ((p, q), (p, q))),
                               np_bilinear_upsampling(x, p)[:, :, ::q, ::q], rtol=1e-12)


def test_kernels():
    np.testing.assert_allclose(bilinear_kernel_1D(3).eval(), [1 / 3, 2 / 3, 1, 2 / 3, 1 / 3], rtol=1e-6)
    np.testing.assert_allclose(bilinear_kernel_1D(2, normalize=False).eval(), [1, 2, 1])
    assert bilinear_kernel_1D(2).dtype == sn.config.floatX
    # (rows, cols) ratios: 3 rows, 5 columns; the outer product of the 1-d kernels.
    kern = bilinear_kernel_2D((2, 3)).eval()
    np.testing.assert_allclose(kern, np.outer([0.5, 1, 0.5], [1 / 3, 2 / 3, 1, 2 / 3, 1 / 3]), rtol=1e-6)
    assert abstract_conv.bilinear_kernel_2D is bilinear_kernel_2D
    # A symbolic ratio, as in Theano's test: one compiled function, a kernel per value.
    ratio = T.iscalar("ratio")
    kernel_of = sn.function([ratio], bilinear_kernel_1D(ratio, normalize=False))
    for r in (2, 5):
        np.testing.assert_allclose(kernel_of(r), np_kernel_1d(r) * r)


def test_bad_arguments():
    x = T.tensor4("x")
    with pytest.raises(ValueError, match="not both"):
        bilinear_upsampling(x, ratio=2, frac_ratio=(3, 2))
    with pytest.raises(ValueError, match="no ratio"):
        bilinear_upsampling(x)
    with pytest.raises(ValueError, match="ratio must be a positive int.*2.5"):
        bilinear_upsampling(x, ratio=2.5)
    with pytest.raises(ValueError, match="use_1D_kernel=False"):
        bilinear_upsampling(x, frac_ratio=(3, 2))
    with pytest.raises(TypeError, match="must be 4-d"):
        bilinear_upsampling(T.matrix("m"), ratio=2)
