"""compile/specialize.py: which inputs a value-dependent length comes from, and the graphs
refused when the function is built because no call could provide such a value."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.specialize import check_static_values, value_sources
from symnb.core.graph.basic import toposort


def test_value_sources_follow_values_not_shapes():
    n = T.lscalar("n")
    x = T.vector("x")
    k = T.lvector("k", shape=(2,))
    assert value_sources([n * 2 + 1], [x, n, k]) == {1}
    assert value_sources([x.shape[0] + n], [x, n, k]) == {1}  # x's shape is static for XLA
    assert value_sources([k[0] + n], [x, n, k]) == {1, 2}
    assert value_sources([T.constant(3) + 1], [x, n, k]) == set()
    # An input of unknown size (or over the limit) could not be a static argument.
    assert value_sources([x.sum()], [x, n, k]) is None
    big = T.lvector("big", shape=(65,))
    assert value_sources([big[0]], [big]) is None
    assert value_sources([k[0]], [k]) == {0}


def test_lengths_from_argument_values_compile_one_program_per_value():
    n = T.lscalar("n")
    f = sn.function([n], T.arange(n) * 2)
    for length in (3, 5, 3):
        np.testing.assert_array_equal(f(length), np.arange(length) * 2)


def test_a_length_from_a_shared_variable_follows_its_value():
    size = sn.shared(np.int64(3), name="size")
    f = sn.function([], T.arange(size) * 2)
    for length in (3, 5, 3):
        size.set_value(length)
        np.testing.assert_array_equal(f(), np.arange(length) * 2)
    assert f._static == (0,)  # the shared variable, passed as a static argument


def test_value_sources_of_shared_variables_have_no_fixed_size():
    x = T.vector("x")
    size = sn.shared(np.int64(3), name="size")  # static shape () but set_value may change
    counts = sn.shared(np.array([1, 2]), name="counts")  # shape (None,): checked per call
    assert value_sources([size + 1, counts[0]], [x, size, counts], n_arguments=1) == {1, 2}
    assert value_sources([counts[0]], [x, counts]) is None  # as an argument: unknown size


def test_a_large_shared_value_is_refused_at_call_time_naming_it():
    lengths = sn.shared(np.ones(100, dtype="int64"), name="lengths")
    f = sn.function([], T.zeros((lengths.sum(),)))
    with pytest.raises(sn.DynamicShapeError, match=r"(?s)shared variable 'lengths', which has 100 elements"):
        f()
    np.testing.assert_array_equal(lengths.get_value(), np.ones(100))


def test_a_length_from_a_loop_step_specializes_and_runs_the_steps_one_by_one():
    # Theano allowed a length per step; the steps are traced one by one with their values.
    lengths = T.lvector("lengths", shape=(3,))
    out, _ = sn.scan(lambda n: T.arange(n).sum(), sequences=[lengths])
    f = sn.function([lengths], out)
    for values in ([2, 3, 4], [0, 5, 1]):
        np.testing.assert_array_equal(f(np.array(values)), [n * (n - 1) // 2 for n in values])
    assert f._static == (0,)


def test_a_length_from_a_loop_step_of_no_fixed_size_is_refused_when_built():
    free = T.lvector("free")
    out, _ = sn.scan(lambda n: T.arange(n).sum(), sequences=[free])
    with pytest.raises(sn.DynamicShapeError, match=r"(?s)a range bound.*'free', which Scan.*input 'free'.*fixed size"):
        sn.function([free], out)


def test_a_slice_bound_copied_into_an_ifelse_branch_specializes_on_what_it_comes_from():
    # ifelse copies the branch's value (x[k:].sum()) into the branch: its slice bound is
    # then an operand of the cond, known while tracing once the function specializes on
    # the argument or shared variable it comes from (fuzz: a cut value in a branch).
    from symnb.compile.mode import Mode
    from symnb.ifelse import ifelse

    x = T.vector("x", shape=(5,))
    c = T.iscalar("c")
    k = T.lscalar("k")
    start = sn.shared(np.int64(1), name="start")
    data = np.arange(5.0, dtype="float32")
    for bound, arguments in ((k, [c, x, k]), (start, [c, x])):
        f = sn.function(arguments, ifelse(c, x[bound:].sum(), x.max()), mode=Mode(optimizer=None))
        for value in (1, 3):
            if bound is start:
                start.set_value(np.int64(value))
                got = f(1, data), f(0, data)
            else:
                got = f(1, data, value), f(0, data, value)
            np.testing.assert_allclose(got, [data[value:].sum(), data.max()])
    free = T.lvector("free")
    with pytest.raises(sn.DynamicShapeError, match=r"(?s)a slice bound.*'free'.*fixed size"):
        sn.function([c, x, free], ifelse(c, x[free.sum():].sum(), x.max()), mode=Mode(optimizer=None))


def test_check_static_values_accepts_shapes_and_small_arguments():
    x = T.matrix("x")
    n = T.lscalar("n")
    y = T.zeros((x.shape[0], n))
    nodes = toposort([y])
    check_static_values(nodes, [x, n], n_arguments=2)  # nothing to refuse
    check_static_values(nodes, [x, n], n_arguments=1)  # n as a shared variable: specialized on
    with pytest.raises(sn.DynamicShapeError, match=r"input 'v'.*fixed size"):
        v = T.lvector("v")
        check_static_values(toposort([T.zeros((v[0],))]), [v], n_arguments=1)


def test_a_size_from_another_scans_output_shape_is_static_in_a_step():
    # A Gibbs step drawing with size=W[1].shape, W the output of another scan: the
    # step receives that shape unchanged (a non-sequence), computed from input shapes.
    from symnb.ifelse import ifelse
    from symnb.tensor.shared_randomstreams import RandomStreams

    srng = RandomStreams(seed=3)
    X = T.dmatrix("X")
    W, _ = sn.scan(lambda r, h: h + r, sequences=X, outputs_info=T.zeros_like(X[0]))
    rows = T.dmatrix("rows")  # probabilities 0 or 1: the draws are exactly them

    def step(p):
        return srng.binomial(size=W[1].shape, n=1, p=p) * 2

    def nested(p):  # the inner scan takes the outer element; its updates are dropped
        inner, _ = sn.scan(lambda q: srng.binomial(size=W[1].shape, n=1, p=q) * 2, sequences=p)
        return inner

    drawn, updates = sn.scan(step, sequences=rows)
    twice, nested_updates = sn.scan(nested, sequences=rows)
    data = np.ones((3, 4))
    p = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0]])
    f = sn.function([X, rows], [drawn, W], updates=updates)
    values, w = f(data, p)
    np.testing.assert_array_equal(values, p * 2)
    np.testing.assert_array_equal(w, np.cumsum(data, axis=0))
    g = sn.function([X, rows], twice, updates=nested_updates)
    np.testing.assert_array_equal(g(data, p), np.broadcast_to(p[:, :, None] * 2, (2, 4, 4)))
    with pytest.raises(ValueError):  # the drawn size is W's row length: 4, not 3
        f(np.ones((3, 3)), p)

    def branching(p):  # an ifelse in the step: the branch receives the shape too
        return ifelse(T.gt(p.sum(), 1), srng.binomial(size=W[1].shape, n=1, p=p),
                      T.zeros_like(p, dtype="int64"))

    chosen, branch_updates = sn.scan(branching, sequences=rows)
    h = sn.function([X, rows], chosen, updates=branch_updates)
    np.testing.assert_array_equal(h(data, p), [p[0], np.zeros(4)])


def _numpy_transposed_conv(top, kernel, stride, image_size):
    """The gradient of a true 2-d convolution with respect to its image (an image of
    ``image_size``): each top value spreads the flipped kernel over its window."""
    n, _, rows, cols = top.shape
    kh, kw = kernel.shape[2:]
    flipped = kernel[:, :, ::-1, ::-1]
    image = np.zeros((n, kernel.shape[1]) + tuple(image_size))
    for i in range(rows):
        for j in range(cols):
            window = np.einsum("no,ochw->nchw", top[:, :, i, j], flipped)
            image[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw] += window
    return image


def test_a_transposed_convolution_follows_a_shared_output_size():
    """Lasagne's TransposedConv2DLayer with a shared ``output_size``: each call's program
    is the one for the size's current value."""
    from symnb.tensor.nnet import abstract_conv

    rng = np.random.default_rng(0)
    kernel = rng.normal(size=(3, 2, 2, 3))
    top_value = rng.normal(size=(4, 3, 3, 4))
    top = T.tensor4("top", dtype="float64")
    top.tag.test_value = top_value
    stride = (2, 3)
    output_size = sn.shared(np.array([6, 12]), name="output_size")
    op = abstract_conv.AbstractConv2d_gradInputs(imshp=(None, 2, None, None), kshp=kernel.shape,
                                                 subsample=stride)
    f = sn.function([top], op(T.constant(kernel), top, output_size))
    for size in ((6, 12), (7, 14), (6, 12)):  # the minimal size, the largest one, back
        output_size.set_value(np.array(size))
        np.testing.assert_allclose(f(top_value), _numpy_transposed_conv(top_value, kernel, stride, size))
    assert len(f._static) == 1


def test_an_updated_shared_length_is_read_before_its_update():
    n = sn.shared(np.int64(2), name="n")
    f = sn.function([], T.arange(n) ** 2, updates=[(n, n + 1)])
    for length in (2, 3, 4):
        np.testing.assert_array_equal(f(), np.arange(length) ** 2)
    assert int(n.get_value()) == 5
