"""T.nnet.conv.conv2d, Theano's deprecated ConvOp interface: values against SciPy on
both paths, its hints, its keywords and its refusals."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.core.test_conv import check_outputs, scipy_conv
from tests.reference import symbolic_like


def old_conv2d(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return T.nnet.conv.conv2d(*args, **kwargs)


@pytest.mark.parametrize("border_mode", ["valid", "full"])
@pytest.mark.parametrize("subsample", [(1, 1), (2, 3)])
def test_matches_scipy(border_mode, subsample, rng):
    x = rng.normal(size=(2, 3, 7, 8)).astype("float32")
    w = rng.normal(size=(4, 3, 3, 2)).astype("float32")
    variables = [symbolic_like(x, "x"), symbolic_like(w, "w")]
    out = old_conv2d(*variables, image_shape=(2, 3, 7, 8), filter_shape=(4, 3, 3, 2),
                     border_mode=border_mode, subsample=subsample, unroll_batch=2, unroll_kern=4,
                     openmp=False, verbose=1, version=-1)
    expected = scipy_conv(x, w, border_mode, subsample).astype("float32")
    check_outputs(variables, [x, w], [out], [("conv.conv2d", expected)])
    assert out.type.shape == expected.shape  # the hints fix the static shape


def test_warns_as_theano_at_the_users_line():
    x, w = T.tensor4("x"), T.tensor4("w")
    with pytest.warns(DeprecationWarning, match="conv.conv2d is deprecated.*use symnb.tensor.nnet.conv2d") as got:
        T.nnet.conv.conv2d(x, w)
    assert got[0].filename == __file__


def test_refusals():
    x, w = T.tensor4("x"), T.tensor4("w")
    with pytest.raises(ValueError, match="border_mode must be 'valid' or 'full'.*'half'"):
        old_conv2d(x, w, border_mode="half")
    with pytest.raises(NotImplementedError, match="same dtype.*float32 and 'w64' float64"):
        old_conv2d(x, T.dtensor4("w64"))
    with pytest.raises(TypeError, match="the input 'm' must be a 4-d tensor"):
        old_conv2d(T.matrix("m"), w)
    with pytest.raises(NotImplementedError, match="imshp_logical"):
        old_conv2d(x, w, imshp_logical=(3, 7, 8))
    with pytest.raises(ValueError, match="filter_shape"):
        old_conv2d(x, w, image_shape=(2, 3, 7, 8), filter_shape=(4, 3, 3))
    # Theano's ConvOp asserted the channels when built: an AssertionError, as there
    with pytest.raises(AssertionError, match="has 3 channels .* takes 2"):
        old_conv2d(x, w, image_shape=(2, 3, 7, 8), filter_shape=(4, 2, 3, 3))
    # ConvOp read the shapes as numbers: a symbolic length is not one
    with pytest.raises(sn.tensor.basic.NotScalarConstantError):
        old_conv2d(x, w, image_shape=(2, 3, 7, T.iscalar("n")), filter_shape=(4, 3, 3, 3))


def test_theano_module_names():
    x, w = T.tensor4("x"), T.tensor4("w")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = old_conv2d(x, w, image_shape=(T.as_tensor_variable(2), 3, 7, 8))
    assert isinstance(out.owner.op, T.nnet.conv.ConvOp)  # the class Theano's graphs held
    assert T.nnet.conv.imported_scipy_signal is True  # symnb's convolutions always run


def test_gradient(rng):
    x = rng.normal(size=(1, 2, 4, 4))
    w = rng.normal(size=(3, 2, 2, 2))
    sn.gradient.verify_grad(lambda a, b: old_conv2d(a, b, border_mode="full"), [x, w],
                            rng=np.random.RandomState(0))
