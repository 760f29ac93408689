"""Theano's correlation ops (``gpuarray.blas.GpuCorrMM``, ``GpuCorr3dMM``, their
gradient ops, and the old ``sandbox.cuda.blas`` names): correlations, not convolutions,
against SciPy on both paths; gradients against finite differences."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gpuarray import basic_ops, blas
from symnb.sandbox.cuda import blas as cuda_blas
from tests.core.test_conv import check_outputs, scipy_conv
from tests.reference import symbolic_like


@pytest.mark.parametrize("module", [blas, cuda_blas], ids=["gpuarray", "sandbox.cuda"])
def test_corrmm_is_a_correlation(module, rng):
    x = rng.normal(size=(2, 4, 7, 6)).astype("float32")
    w = rng.normal(size=(6, 2, 3, 2)).astype("float32")
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    outputs, references = [], []
    for border_mode, subsample, groups in (("valid", (1, 1), 1), ("half", (2, 1), 2), ("full", (1, 1), 1),
                                           (1, (1, 1), 2), (((1, 2), (0, 1)), (2, 2), 1)):
        filters = wv if groups == 2 else T.concatenate([wv, wv], axis=1)
        weights = w if groups == 2 else np.concatenate([w, w], axis=1)
        op = module.GpuCorrMM(border_mode=border_mode, subsample=subsample, num_groups=groups)
        outputs.append(op(basic_ops.gpu_contiguous(xv), filters))
        references.append((f"{border_mode} {subsample} {groups}",
                           scipy_conv(x, weights, border_mode, subsample, False, None, groups).astype("float32")))
    check_outputs([xv, wv], [x, w], outputs, references)


def test_corr3dmm_is_a_correlation(rng):
    x = rng.normal(size=(1, 2, 5, 4, 6)).astype("float32")
    w = rng.normal(size=(3, 2, 2, 3, 2)).astype("float32")
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    out = blas.GpuCorr3dMM(border_mode="half", filter_dilation=(1, 1, 2))(xv, wv)
    check_outputs([xv, wv], [x, w], [out],
                  [("corr3d", scipy_conv(x, w, "half", None, False, (1, 1, 2)).astype("float32"))])


def test_corrmm_gradient_ops_without_shape_match_autodiff(rng):
    x = rng.normal(size=(2, 3, 6, 5))
    w = rng.normal(size=(4, 3, 3, 2))
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    outputs, references = [], []
    for border_mode in ("valid", "full", "half", (1, 2)):
        forward = blas.GpuCorrMM(border_mode=border_mode)(xv, wv)
        top = forward * 2.0
        cost = (forward * top).sum()  # d cost / d forward = top (held fixed below)
        gx, gw = sn.grad(cost, [xv, wv], consider_constant=[top])
        outputs.append(blas.GpuCorrMM_gradInputs(border_mode=border_mode)(wv, top))
        references.append((f"gradInputs {border_mode}", gx))
        if border_mode != "half":  # Theano needs the shape there
            outputs.append(blas.GpuCorrMM_gradWeights(border_mode=border_mode)(xv, top))
            references.append((f"gradWeights {border_mode}", gw))
    expected = sn.function([xv, wv], [r for _, r in references])(x, w)
    check_outputs([xv, wv], [x, w], outputs,
                  [(what, value) for (what, _), value in zip(references, expected)])


def test_corrmm_gradients_match_finite_differences(rng):
    x = rng.normal(size=(1, 2, 5, 4))
    w = rng.normal(size=(2, 2, 2, 3))
    op = blas.GpuCorrMM(border_mode=(1, 0), subsample=(2, 1))
    sn.gradient.verify_grad(lambda a, b: op(a, b), [x, w], rng=np.random.default_rng(0))


def test_corrmm_refuses_what_theano_refused():
    with pytest.raises(ValueError, match="GpuCorrMM: subsample must have 2 elements"):
        blas.GpuCorrMM(subsample=(1, 1, 1))
    with pytest.raises(ValueError, match="GpuCorrMM: border_mode"):
        blas.GpuCorrMM(border_mode="same")
    with pytest.raises(ValueError, match="shape must be given if subsample"):
        blas.GpuCorrMM_gradWeights(border_mode="half")(T.tensor4("x"), T.tensor4("g"))
    with pytest.raises(TypeError, match="must be a 4-d tensor"):
        blas.GpuCorrMM()(T.tensor3("x"), T.tensor4("w"))


def test_corrmm_gradient_ops_take_a_shape_vector_and_strides(rng):
    # Theano's own gradients pass bottom.shape[-2:] (a symbolic vector)
    x = rng.normal(size=(1, 2, 7, 6))
    w = rng.normal(size=(3, 2, 3, 2))
    xv, wv = symbolic_like(x, "x"), symbolic_like(w, "w")
    op = dict(border_mode="half", subsample=(2, 2))
    top = blas.GpuCorrMM(**op)(xv, wv)
    gx, gw = sn.grad((top * top).sum(), [xv, wv])
    outputs = [blas.GpuCorrMM_gradInputs(**op)(wv, 2 * top, xv.shape[-2:]),
               blas.GpuCorrMM_gradWeights(**op)(xv, 2 * top, wv.shape[-2:])]
    expected = sn.function([xv, wv], [gx, gw])(x, w)
    check_outputs([xv, wv], [x, w], outputs, [("gradInputs", expected[0]), ("gradWeights", expected[1])])
