"""The Theano names and idioms Lasagne uses (issue 21), each checked against NumPy.

Written as Lasagne writes them (``import symnb as theano``); each failed before issue 21.
Lasagne's own suite runs in ``test_lasagne_suite.py``.
"""

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T
from tests.reference import check_paths


# -- names where Theano had them ---------------------------------------------------------

def test_variable_classes_where_theano_had_them():
    x = T.matrix("x")
    param = theano.shared(np.ones((2, 2), "float32"))
    assert isinstance(x, T.Variable) and isinstance(x, T.TensorVariable)
    assert isinstance(param, theano.compile.SharedVariable) and isinstance(param, T.Variable)
    # Theano's hierarchy: a shared variable has a tensor's operators, but is not a
    # TensorVariable (Lasagne's recurrent layers tell a parameter from an expression so).
    assert not isinstance(param, T.TensorVariable)
    f = theano.function([x], x + param)
    np.testing.assert_array_equal(f(np.eye(2, dtype="float32")), np.eye(2) + 1)


def test_gof_graph_inputs_in_theano_order():
    """Lasagne's collect_shared_vars: ``graph.inputs(reversed(outputs))``, depth first."""
    x = T.matrix("x")
    W1, b1, W2 = (theano.shared(np.ones((2, 2), "float32"), name=n) for n in ("W1", "b1", "W2"))
    hidden = T.dot(x, W1) + b1
    out1, out2 = T.dot(hidden, W2), hidden.sum()
    found = [v for v in theano.gof.graph.inputs(reversed([out1, out2]))
             if isinstance(v, theano.compile.SharedVariable)]
    # Theano's stack search: out1 first (the list is reversed, the last popped first),
    # each node's inputs from the left, each variable once.
    assert [v.name for v in found] == ["W1", "b1", "W2"]
    assert theano.gof.graph.ancestors([hidden])[0] is hidden
    assert theano.gof.graph.is_same_graph(T.exp(x).sum(), T.exp(x).sum())
    assert not theano.gof.graph.is_same_graph(T.exp(x).sum(), T.exp(x).mean())


def test_equal_computations_from_scan_module():
    from symnb.scan_module.scan_utils import equal_computations

    a, b = T.vectors("a", "b")
    assert equal_computations([T.sqr(a) + 1], [T.sqr(a) + 1])
    assert not equal_computations([T.sqr(a) + 1], [T.sqr(a) + 2])
    assert equal_computations([T.sqr(a)], [T.sqr(b)], [a], [b])
    assert theano.scan_module.until is not None


@pytest.mark.parametrize("build, reference", [
    (lambda x: T.inv(x), lambda x: 1 / x),
    (lambda x: T.sqr(x), np.square),
    (lambda x: T.abs_(x), np.abs),
    (lambda x: T.extra_ops.cumsum(x), np.cumsum),
])
def test_elementwise_names(build, reference, rng):
    check_paths(build, [rng.uniform(0.5, 2.0, size=5).astype("float32")], reference)


def test_to_one_hot():
    check_paths(lambda y: T.extra_ops.to_one_hot(y, 4), [np.array([2, 0, 3], "int32")],
                lambda y: np.eye(4, dtype="float32")[y])


def test_grad_clip_clips_the_gradient_only():
    x = T.vector("x")
    clipped = theano.gradient.grad_clip(x, -1.0, 1.0)
    g = theano.grad((3 * clipped ** 2).sum(), x)
    f = theano.function([x], [clipped, g])
    value = np.array([0.1, 1.0, -2.0], "float32")
    out, grad = f(value)
    np.testing.assert_array_equal(out, value)
    np.testing.assert_allclose(grad, np.clip(6 * value, -1, 1))


def test_gpu_probes_say_the_cudnn_functions_run_here():
    # The cuDNN and GpuCorrMM names run on every device: the new backend's probes say so
    # (lasagne.layers.dnn and corrmm import); the old backend's stay off (cuda_convnet).
    from symnb import gpuarray
    from symnb.sandbox import cuda
    from symnb.sandbox.cuda import dnn

    assert gpuarray.pygpu_activated is True and gpuarray.dnn.dnn_present() is True
    assert "every device" in gpuarray.dnn.dnn_present.msg
    assert cuda.cuda_enabled is False and cuda.cuda_available is False
    assert dnn.dnn_available() is True


# -- idioms ------------------------------------------------------------------------------

def test_iterating_a_vector_of_known_length():
    x = T.tensor4("x")
    rows, cols = x.shape[2:]
    dims = [s for s in x.shape]
    f = theano.function([x], [rows * cols] + dims)
    value = np.zeros((2, 3, 4, 5), "float32")
    assert [int(v) for v in f(value)] == [20, 2, 3, 4, 5]
    with pytest.raises(TypeError, match="cannot be iterated"):
        list(T.vector("v"))  # length unknown: Theano refuses too


def test_tensor_type_broadcastable_keyword():
    ttype = T.TensorType("float32", broadcastable=(False, True), name="ColumnType")
    col = ttype(name="c")
    assert col.broadcastable == (False, True)
    f = theano.function([col], col + np.ones((1, 3), "float32"))
    np.testing.assert_array_equal(f(np.array([[1.0], [2.0]], "float32")), [[2.0] * 3, [3.0] * 3])


def test_list_of_slices_indexes_as_a_tuple(rng):
    value = rng.normal(size=(3, 4)).astype("float32")
    check_paths(lambda x: x[[slice(None), slice(1, 3)]], [value], lambda x: x[:, 1:3])


def test_variadic_stack(rng):
    a, b, c = (rng.normal(size=2).astype("float32") for _ in range(3))
    check_paths(lambda x, y, z: T.stack(x, y, z), [a, b, c], lambda x, y, z: np.stack([x, y, z]))
    check_paths(lambda x, y: T.stack([x, y], 1), [a, b], lambda x, y: np.stack([x, y], 1))


def test_tensordot_axes_as_an_array(rng):
    a = rng.normal(size=(2, 3, 4, 5)).astype("float32")
    b = rng.normal(size=(3, 6, 5)).astype("float32")
    axes = np.array([[1, 3], [0, 2]])
    check_paths(lambda x, y: T.tensordot(x, y, axes=axes), [a, b],
                lambda x, y: np.tensordot(x, y, axes=([1, 3], [0, 2])), rtol=1e-4)


def test_constant_dtype_follows_theano():
    assert T.constant(1).dtype == "int8" and T.constant(300).dtype == "int16"
    assert T.constant(2 ** 40).dtype == "int64" and T.constant(1.5).dtype == theano.config.floatX
    # Lasagne's rmsprop: accu_new = rho * accu + (one - rho) * grad ** 2 stays float32.
    with theano.config.change_flags(floatX="float32"):
        one = T.constant(1)
        accu = theano.shared(np.ones(3, "float32"))
        grad = T.fvector("grad")
        for rho in (0.9, np.float32(0.9)):
            new = rho * accu + (one - rho) * grad ** 2
            assert new.dtype == "float32"
        f = theano.function([grad], new)
        g = np.array([1.0, 2.0, 3.0], "float32")
        np.testing.assert_allclose(f(g), np.float32(0.9) + np.float32(0.1) * g ** 2, rtol=1e-6)


def test_function_input_computed_in_the_graph():
    """Theano cuts the graph at an input that is computed (Lasagne's out.eval({out: x}))."""
    x = T.vector("x")
    h = 2 * x
    out = h + 1
    f = theano.function([h], out)
    np.testing.assert_array_equal(f(np.array([1.0, 5.0], "float32")), [2.0, 6.0])
    np.testing.assert_array_equal(out.eval({out: np.array([7.0], "float32")}), [7.0])


# -- Lasagne's transposed and dilated convolutions ---------------------------------------

def _correlate_valid(image, kernel):
    """NumPy reference: a valid cross-correlation (filter_flip=False), NCHW by OIHW."""
    n, c, h, w = image.shape
    o, _, kh, kw = kernel.shape
    out = np.zeros((n, o, h - kh + 1, w - kw + 1), image.dtype)
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            out[:, :, i, j] = np.einsum("nchw,ochw->no", image[:, :, i:i + kh, j:j + kw], kernel)
    return out


def test_abstract_conv2d_grad_inputs_is_a_transposed_convolution(rng):
    """Lasagne's TransposedConv2DLayer: op(W, input, output_size)."""
    from symnb.tensor.nnet.abstract_conv import AbstractConv2d_gradInputs

    W = rng.normal(size=(3, 2, 3, 3)).astype("float64")  # (channels of input, out, 3, 3)
    top = rng.normal(size=(2, 3, 4, 4)).astype("float64")
    op = AbstractConv2d_gradInputs(imshp=(2, 2, 6, 6), kshp=W.shape, subsample=(1, 1),
                                   border_mode="valid", filter_flip=False)
    expected = np.zeros((2, 2, 6, 6))
    for i in range(4):  # scatter each output position back through the kernel
        for j in range(4):
            expected[:, :, i:i + 3, j:j + 3] += np.einsum("no,ochw->nchw", top[:, :, i, j], W)
    check_paths(lambda w, t: op(w, t, (6, 6)), [W, top], lambda w, t: expected)


def test_abstract_conv2d_grad_weights_is_a_dilated_convolution(rng):
    """Lasagne's DilatedConv2DLayer: op(input.transpose(1, 0, 2, 3), W, output_size)."""
    from symnb.tensor.nnet.abstract_conv import AbstractConv2d_gradWeights

    image = rng.normal(size=(1, 2, 7, 7)).astype("float64")
    W = rng.normal(size=(2, 3, 2, 2)).astype("float64")  # (in channels, out channels, 2, 2)
    op = AbstractConv2d_gradWeights(imshp=(2, 1, 7, 7), kshp=(3, 1, 5, 5), subsample=(2, 2),
                                     border_mode="valid", filter_flip=False)

    def dilated(x, w):
        dilated_kernel = np.zeros((3, 2, 3, 3))
        dilated_kernel[:, :, ::2, ::2] = w.transpose(1, 0, 2, 3)
        return _correlate_valid(x, dilated_kernel)

    check_paths(lambda x, w: op(x.transpose(1, 0, 2, 3), w, (5, 5)).transpose(1, 0, 2, 3),
                [image, W], dilated)


def test_abstract_conv_hint_must_agree():
    from symnb.tensor.nnet.abstract_conv import AbstractConv2d_gradInputs

    W = T.tensor4("W", shape=(3, 2, 3, 3))  # hints are checked against static lengths
    op = AbstractConv2d_gradInputs(kshp=(3, 5, 3, 3))
    with pytest.raises(ValueError, match="kshp"):
        op(W, T.tensor4(), (6, 6))


# -- pooling with a window computed from the input's shape --------------------------------

def _pool_reference(x, ws, st, reduce):
    rows = (x.shape[2] - ws[0]) // st[0] + 1
    cols = (x.shape[3] - ws[1]) // st[1] + 1
    out = np.empty(x.shape[:2] + (rows, cols), x.dtype)
    for i in range(rows):
        for j in range(cols):
            window = x[:, :, i * st[0]:i * st[0] + ws[0], j * st[1]:j * st[1] + ws[1]]
            out[:, :, i, j] = reduce(window, axis=(2, 3))
    return out


@pytest.mark.parametrize("mode, reduce", [("max", np.max), ("average_inc_pad", np.mean)])
def test_pool_2d_window_computed_from_the_shape(mode, reduce, rng):
    """Lasagne's SpatialPyramidPoolingLayer: ws = (size + n - 1) // n, stride = size // n."""
    from symnb.tensor.signal.pool import pool_2d

    def spp(x, n=2):
        size = tuple(x.shape[2:])
        ws = tuple((i + n - 1) // n for i in size)
        return pool_2d(x, ws=ws, stride=tuple(i // n for i in size), ignore_border=True, mode=mode)

    for shape, ws, st in (((2, 3, 5, 5), (3, 3), (2, 2)), ((1, 2, 8, 6), (4, 3), (4, 3))):
        value = rng.normal(size=shape).astype("float32")
        check_paths(spp, [value], lambda x: _pool_reference(x, ws, st, reduce))


def test_pool_2d_computed_window_gradient(rng):
    from symnb.tensor.signal.pool import pool_2d

    x = T.tensor4("x")
    size = tuple(x.shape[2:])
    pooled = pool_2d(x, ws=tuple(i // 2 for i in size), ignore_border=True, mode="max")
    f = theano.function([x], theano.grad(pooled.sum(), x))
    value = rng.normal(size=(1, 1, 4, 6)).astype("float32")
    expected = np.zeros_like(value)
    for i in range(2):  # windows of 2 x 3: the gradient goes to each window's maximum
        for j in range(2):
            window = value[0, 0, 2 * i:2 * i + 2, 3 * j:3 * j + 3]
            r, c = np.unravel_index(window.argmax(), window.shape)
            expected[0, 0, 2 * i + r, 3 * j + c] = 1
    np.testing.assert_array_equal(f(value), expected)


def test_transposed_convolution_with_a_shape_vector_of_unknown_length():
    """Lasagne passes output_size as a vector variable: its length comes from the op."""
    from symnb.tensor.nnet.abstract_conv import AbstractConv2d_gradInputs

    W = np.ones((3, 2, 2, 3), "float32")
    top = np.ones((1, 3, 2, 2), "float32")
    expected = np.zeros((1, 2, 4, 6), "float32")
    for i in range(2):  # each output position adds W summed over its 3 channels at stride (2, 3)
        for j in range(2):
            expected[0, :, 2 * i:2 * i + 2, 3 * j:3 * j + 3] += W.sum(axis=0)
    op = AbstractConv2d_gradInputs(subsample=(2, 3), filter_flip=False)
    w_var, top_var = T.tensor4("W", test_value=W), T.tensor4("top", test_value=top)
    unknown_length = T.lvector("size", test_value=np.array([4, 6]))
    out = op(w_var, top_var, unknown_length)
    assert out.ndim == 4  # was 2: the length of the shape vector was taken as its entries
    np.testing.assert_array_equal(out.test_value, expected)
    # Compiled, the lengths must be known when compiling: a vector of static length is
    # specialized on (an argument of unknown length, or a shared one, is refused).
    size = T.lvector("size", shape=(2,), test_value=np.array([4, 6]))
    f = theano.function([w_var, top_var, size], op(w_var, top_var, size))
    np.testing.assert_array_equal(f(W, top, np.array([4, 6])), expected)


def test_pool_2d_window_as_a_vector_variable(rng):
    """Lasagne probes pool_2d(T.tensor4(), ws=T.ivector(), stride=T.ivector()): it builds."""
    from symnb.tensor.signal.pool import pool_2d

    value = rng.normal(size=(1, 2, 4, 6)).astype("float32")
    x = T.tensor4("x", test_value=value)
    ws = T.ivector("ws", test_value=np.array([2, 3], "int32"))
    out = pool_2d(x, ws=ws, stride=ws, ignore_border=True, pad=None)
    np.testing.assert_array_equal(out.test_value, _pool_reference(value, (2, 3), (2, 3), np.max))
