"""Convolution gradients: finite differences (verify_grad, both paths), and the gradient
ops (``conv2d_grad_wrt_inputs``/``_weights``) against the transpose of the SciPy
convolution, built column by column from basis inputs."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor.nnet import abstract_conv, conv2d, conv3d
from tests.core.test_conv import check_outputs, scipy_conv
from tests.reference import symbolic_like

CASES = [
    dict(border_mode="valid"),
    dict(border_mode="full", subsample=(2, 1), filter_dilation=(1, 2)),
    dict(border_mode="half", num_groups=2, filter_flip=False),
    dict(border_mode=((1, 2), 0), subsample=(2, 3)),
]


@pytest.mark.parametrize("params", CASES, ids=str)
def test_conv2d_finite_differences(params, rng):
    groups = params.get("num_groups", 1)
    x = rng.normal(size=(1, 2, 5, 6))
    w = rng.normal(size=(2, 2 // groups, 3, 2))
    verify_grad(lambda a, b: conv2d(a, b, **params), [x, w], rng=rng)


def test_conv3d_finite_differences(rng):
    x, w = rng.normal(size=(1, 2, 4, 3, 4)), rng.normal(size=(2, 1, 2, 2, 3))
    verify_grad(lambda a, b: conv3d(a, b, border_mode="half", subsample=(2, 1, 1), num_groups=2), [x, w],
                rng=rng)


def test_second_derivatives(rng):
    """The gradient ops have gradients: d/dw of a gradient with respect to x, and the other way."""
    x, w = rng.normal(size=(1, 2, 5, 5)), rng.normal(size=(2, 2, 3, 3))
    params = dict(border_mode="full", subsample=(2, 1))

    def grad_wrt(which):
        def fn(a, b):
            return sn.grad((conv2d(a, b, **params) ** 2).sum(), [a, b][which])
        return fn

    verify_grad(grad_wrt(0), [x, w], rng=rng)
    verify_grad(grad_wrt(1), [x, w], rng=rng)


def _transpose_of(forward, in_shape, out_value):
    """``J.T @ out_value`` for a linear ``forward``, J built from basis inputs."""
    columns = []
    for i in range(int(np.prod(in_shape))):
        basis = np.zeros(int(np.prod(in_shape)))
        basis[i] = 1
        columns.append(forward(basis.reshape(in_shape)).ravel())
    return (np.array(columns) @ out_value.ravel()).reshape(in_shape)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_ops_are_the_transposes(dtype, rng):
    x = rng.normal(size=(1, 4, 6, 5)).astype(dtype)
    w = rng.normal(size=(4, 2, 3, 2)).astype(dtype)
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    outputs, references, tops = [], [], []
    for params in [dict(border_mode="valid", subsample=(2, 2)), dict(border_mode="half", num_groups=2),
                   dict(border_mode=(1, 2), filter_dilation=(2, 1), filter_flip=False, num_groups=2)]:
        groups = params.get("num_groups", 1)
        kernel = w if groups == 2 else rng.normal(size=(4, 4, 3, 2)).astype(dtype)
        ref = dict(border_mode=params["border_mode"], subsample=params.get("subsample"),
                   filter_flip=params.get("filter_flip", True), dilation=params.get("filter_dilation"),
                   groups=groups)
        top = rng.normal(size=scipy_conv(x, kernel, **ref).shape).astype(dtype)
        topv, kv = symbolic_like(top, f"top{len(tops)}"), symbolic_like(kernel, f"k{len(tops)}")
        tops += [(topv, top), (kv, kernel)]
        outputs.append(abstract_conv.conv2d_grad_wrt_inputs(topv, kv, x.shape, **params))
        by_input = _transpose_of(lambda v: scipy_conv(v, kernel, **ref), x.shape, top)
        references.append((f"inputs {params}", by_input.astype(dtype)))
        outputs.append(abstract_conv.conv2d_grad_wrt_weights(xv, topv, kernel.shape, **params))
        by_kernel = _transpose_of(lambda v: scipy_conv(x, v, **ref), kernel.shape, top)
        references.append((f"weights {params}", by_kernel.astype(dtype)))
    inputs = [xv] + [v for v, _ in tops]
    check_outputs(inputs, [x] + [value for _, value in tops], outputs, references,
                  rtol=1e-4 if dtype == "float32" else None)


def test_transposed_convolution_upsamples_to_the_given_shape(rng):
    """With a stride, several input shapes give the same output: input_shape picks one,
    and the rows no window reads get zero."""
    top = T.tensor4("top", test_value=rng.normal(size=(1, 2, 3, 3)))
    w = T.tensor4("w", test_value=rng.normal(size=(2, 1, 3, 3)))
    for rows in (7, 8):
        up = abstract_conv.conv2d_grad_wrt_inputs(top, w, (1, 1, rows, 7), subsample=(2, 2))
        assert up.type.shape == (None, None, rows, 7)
        assert up.test_value.shape == (1, 1, rows, 7)
    assert np.all(up.test_value[:, :, 7] == 0)
    with pytest.raises(ValueError, match=r"output gradient 'top' has shape \(1, 2, 3, 3\), but the input of "
                                         r"shape \(1, 1, 9, 7\) .* gives \(1, 2, 4, 3\) \(axis 2 differs\)"):
        abstract_conv.conv2d_grad_wrt_inputs(top, w, (1, 1, 9, 7), subsample=(2, 2))
    with pytest.raises(ValueError, match=r"input_shape\[1\] is 3"):
        abstract_conv.conv2d_grad_wrt_inputs(top, T.tensor4("k", shape=(2, 1, 3, 3)), (1, 3, 7, 7),
                                             subsample=(2, 2))


def test_get_conv_output_shape():
    shape = abstract_conv.get_conv_output_shape
    assert shape((2, 3, 28, 28), (5, 3, 5, 5), "valid", (1, 1)) == (2, 5, 24, 24)
    assert shape((2, 3, 28, None), (5, 3, 5, 5), "half", (2, 2), (2, 1)) == (2, 5, 14, None)
