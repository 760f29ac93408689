"""Shape ops (shape, shape_i, reshape, dimshuffle, transpose, flatten, squeeze, expand_dims):
NumPy perform path and XLA path against NumPy, static shapes, and error messages."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import check_paths
from tests.reference import scaled_normal as _value

DTYPES = ["float32", "float64", "int32"]


# -- shape, shape_i ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (1, 1, 4)])
def test_shape(shape, rng):
    x = _value(rng, shape, "float32")
    check_paths(T.shape, [x], lambda x: np.array(x.shape, dtype=np.int64))
    check_paths(lambda x: x.shape, [x], lambda x: np.array(x.shape, dtype=np.int64))
    assert T.shape(T.tensor("float32", shape=(None,) * len(shape))).type.shape == (len(shape),)
    for axis in range(-len(shape), len(shape)):
        check_paths(lambda x: T.shape_i(x, axis), [x], lambda x: np.array(x.shape[axis], np.int64))


def test_shape_indexing_and_static_lengths(rng):
    x = _value(rng, (4, 5), "float64")
    check_paths(lambda x: x.shape[-1] * x.shape[0], [x], lambda x: np.array(20, np.int64))
    known = T.matrix("k", shape=(3, None))
    assert isinstance(T.shape_i(known, 0), sn.Constant) and T.shape_i(known, 0).data == 3
    assert T.shape_i(known, 1).owner.op.display_name() == "Shape_i{1}"
    with pytest.raises(IndexError, match="out of bounds"):
        T.shape_i(known, 2)


# -- reshape -----------------------------------------------------------------------------------

RESHAPES = [((2, 3), (3, 2)), ((2, 3), (-1,)), ((2, 3), (1, -1, 2)), ((6,), (2, 3)),
            ((0, 3), (3, 0)), ((0, 3), (-1,)), ((1,), ()), ((), (1, 1)), ((4, 1), (2, 2))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("in_shape,target", RESHAPES)
def test_reshape(in_shape, target, dtype, rng):
    x = _value(rng, in_shape, dtype)
    check_paths(lambda x: T.reshape(x, target), [x], lambda x: x.reshape(target))
    check_paths(lambda x: x.reshape(target), [x], lambda x: x.reshape(target))


def test_reshape_method_spellings_and_symbolic_entries(rng):
    x = _value(rng, (2, 3, 4), "float32")
    check_paths(lambda x: x.reshape(6, 4), [x], lambda x: x.reshape(6, 4))
    check_paths(lambda x: x.reshape([x.shape[0], -1]), [x], lambda x: x.reshape(2, -1))
    check_paths(lambda x: x.reshape((x.shape[2], x.shape[0] * x.shape[1])), [x],
                lambda x: x.reshape(4, 6))
    y = _value(rng, (4, 6), "float64")
    check_paths(lambda x, y: T.reshape(x, T.shape(y)), [x, y], lambda x, y: x.reshape(4, 6))
    check_paths(lambda x, y: T.reshape(x, y.shape, ndim=2), [x, y], lambda x, y: x.reshape(4, 6))
    # Theano's keyword spelling of the method: x.reshape(shape=..., ndim=...)
    check_paths(lambda x: x.reshape(shape=(2, 12), ndim=2), [x], lambda x: x.reshape(2, 12))
    with pytest.raises(TypeError, match="newshape"):
        T.matrix("m").reshape(newshape=(2, 2))
    with pytest.raises(TypeError, match="twice"):
        T.matrix("m").reshape(4, shape=(2, 2))


def test_reshape_static_shapes():
    x = T.matrix("x", shape=(2, 3))
    assert x.reshape(3, -1).type.shape == (3, 2)
    assert x.reshape(-1).type.shape == (6,)
    n = T.lscalar("n", test_value=np.int64(2))
    assert T.reshape(x, (n, 3)).type.shape == (2, 3)  # the only length that fits
    assert T.reshape(T.matrix("u"), (n, 3)).type.shape == (None, 3)
    assert T.reshape(T.matrix("u"), (5, -1)).type.shape == (5, None)
    assert T.reshape(x, T.shape(T.matrix("z", shape=(6, 1)))).type.shape == (6, 1)
    assert T.reshape(x, (3, 2)).owner.op.display_name() == "Reshape{2}"


def test_reshape_errors_at_build_time():
    x = T.matrix("x", shape=(2, 3))
    with pytest.raises(ValueError, match=r"'x' of shape \(2, 3\) \(size 6\) into shape \(4, 2\)"):
        x.reshape(4, 2)
    with pytest.raises(ValueError, match="at most one -1"):
        x.reshape(-1, -1)
    with pytest.raises(ValueError, match=r"into shape \(4, -1\)"):
        x.reshape(4, -1)
    with pytest.raises(TypeError, match="ints or integer scalars"):
        x.reshape(2.0, 3)
    with pytest.raises(TypeError, match="pass ndim"):
        T.reshape(x, T.lvector("s"))
    with pytest.raises(TypeError, match="ndim=3"):
        T.reshape(x, (6,), ndim=3)


def test_reshape_errors_on_values(rng):
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    with pytest.raises(sn.TestValueError, match=r"'x' of shape \(2, 3\) \(size 6\) into shape \(5, 2\)"):
        x.reshape((5, 2))
    x = T.matrix("x")
    bad = x.reshape((5, -1))
    f = sn.function([x], bad)
    with pytest.raises(sn.GraphRuntimeError,
                       match=r"(?s)'x' of shape \(2, 3\) \(size 6\) into shape \(5, -1\).*#0 x "):
        f(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(f(np.ones((5, 2), "float32")), np.ones((5, 2), "float32"))


def test_reshape_with_value_dependent_shape(rng):
    x = T.vector("x", test_value=np.arange(6, dtype="float32"))
    n = T.lscalar("n", test_value=np.int64(2))
    y = T.reshape(x, (n, -1))
    np.testing.assert_array_equal(y.test_value, np.arange(6, dtype="float32").reshape(2, 3))
    f = sn.function([x, n], y)  # the program specializes on n's value
    np.testing.assert_array_equal(f(np.arange(6, dtype="float32"), 2), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(f(np.arange(6, dtype="float32"), 6), np.arange(6).reshape(6, 1))
    sizes = T.lvector("sizes")
    # No fixed size: the reshape runs on the host, between two programs.
    h = sn.function([x, sizes], T.reshape(x, (sizes[0], -1)) * 2)
    np.testing.assert_array_equal(h(np.arange(6, dtype="float32"), np.array([3, 0])),
                                  np.arange(6).reshape(3, 2) * 2)
    fixed = T.lvector("fixed", shape=(1,))  # of a fixed, small size: a program per value
    g = sn.function([x, fixed], T.reshape(x, (fixed[0], -1)))
    np.testing.assert_array_equal(g(np.arange(6, dtype="float32"), np.array([3])),
                                  np.arange(6).reshape(3, 2))


# -- dimshuffle and transpose --------------------------------------------------------------------

def _dimshuffle_reference(x, pattern):
    kept = [p for p in pattern if p != "x"]
    dropped = tuple(i for i in range(x.ndim) if i not in kept)
    y = np.transpose(np.squeeze(x, axis=dropped) if dropped else x,
                     np.argsort(np.argsort(kept)) if kept else ())
    for axis, p in enumerate(pattern):
        if p == "x":
            y = np.expand_dims(y, axis)
    return y


DIMSHUFFLES = [((2, 3), ("x", 0, 1)), ((2, 3), (1, 0)), ((2, 3), (1, "x", 0)), ((1, 3), (1,)),
               ((2, 1, 3), (2, 0)), ((), ("x", "x")), ((0, 4), (1, "x", 0)), ((1,), ()),
               ((2, 3, 4), (2, 0, 1))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,pattern", DIMSHUFFLES)
def test_dimshuffle(shape, pattern, dtype, rng):
    x = _value(rng, shape, dtype)
    expected = _dimshuffle_reference(x, pattern)
    assert expected.shape == tuple(1 if p == "x" else shape[p] for p in pattern)
    check_paths(lambda x: x.dimshuffle(pattern), [x], lambda x: _dimshuffle_reference(x, pattern))
    check_paths(lambda x: x.dimshuffle(*pattern), [x], lambda x: _dimshuffle_reference(x, pattern))


def test_dimshuffle_static_shape_and_name():
    x = T.matrix("x", shape=(1, 3))
    y = x.dimshuffle("x", 1)
    assert y.type.shape == (1, 3)
    assert y.owner.op.display_name() == "DimShuffle{x,1}"
    assert T.vector("v").dimshuffle("x", 0).type.shape == (1, None)


def test_dimshuffle_errors():
    x = T.matrix("x", shape=(2, 3))
    with pytest.raises(ValueError, match=r"drops axis 0 of 'x' \(shape \(2, 3\)\), but its length is 2"):
        x.dimshuffle(1)
    with pytest.raises(ValueError, match="not an axis of a 2-d input"):
        x.dimshuffle(0, 2)
    with pytest.raises(ValueError, match="repeats an axis"):
        x.dimshuffle(0, 0, 1)
    with pytest.raises(TypeError, match="axis indices or 'x'"):
        x.dimshuffle(0, "y")
    u = T.matrix("u", test_value=np.ones((2, 3), "float32"))
    with pytest.raises(sn.TestValueError, match="drops axis 0 of 'u'.*length is 2, not 1"):
        u.dimshuffle(1)
    u = T.matrix("u")
    f = sn.function([u], u.dimshuffle(1))
    with pytest.raises(sn.GraphRuntimeError, match="(?s)drops axis 0 of 'u'.*length is 2, not 1.*#0 u "):
        f(np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(f(np.ones((1, 3), "float32")), np.ones(3, "float32"))


def test_compiled_errors_name_the_called_graph():
    """Equal graphs share one compiled program: the error still names this graph's input."""
    a, b = T.matrix("a"), T.matrix("b")
    sn.function([a], a.dimshuffle(1))
    f = sn.function([b], b.dimshuffle(1))  # the second graph's line
    with pytest.raises(sn.GraphRuntimeError) as info:
        f(np.ones((2, 3), "float32"))
    assert "#0 b " in str(info.value) and "# the second graph's line" in str(info.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose(dtype, rng):
    x = _value(rng, (2, 3, 4), dtype)
    check_paths(T.transpose, [x], np.transpose)
    check_paths(lambda x: x.T, [x], lambda x: x.T)
    check_paths(lambda x: T.transpose(x, (1, -1, 0)), [x], lambda x: np.transpose(x, (1, 2, 0)))
    check_paths(lambda x: x.transpose(2, 0, 1), [x], lambda x: x.transpose(2, 0, 1))
    check_paths(lambda x: x.transpose([2, 0, 1]), [x], lambda x: x.transpose(2, 0, 1))
    v = _value(rng, (5,), dtype)
    check_paths(lambda v: v.T, [v], lambda v: v.T)
    check_paths(lambda s: s.T, [np.array(3, dtype)], lambda s: s.T)
    with pytest.raises(ValueError, match="not a permutation"):
        T.transpose(T.tensor3("t"), (0, 0, 1))
    assert T.matrix("m", shape=(2, 5)).T.type.shape == (5, 2)


# -- flatten, squeeze, expand_dims ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 4), (0, 3, 4), (1, 1, 1), (2, 0, 5)])
def test_flatten(shape, dtype, rng):
    x = _value(rng, shape, dtype)
    for ndim in (1, 2, 3):
        check_paths(lambda x: T.flatten(x, ndim), [x],
                    lambda x: x.reshape(x.shape[:ndim - 1] + (int(np.prod(x.shape[ndim - 1:])),)))
    check_paths(lambda x: x.flatten(), [x], lambda x: x.flatten())


def test_flatten_scalar_static_shapes_and_errors(rng):
    check_paths(T.flatten, [np.array(2.5)], lambda x: x.flatten())
    assert T.flatten(T.tensor3("t", shape=(2, 3, 4)), 2).type.shape == (2, 12)
    assert T.flatten(T.tensor3("t", shape=(2, None, 4)), 2).type.shape == (2, None)
    for bad in (0, 4):
        with pytest.raises(ValueError, match="ndim must be in 1..3"):
            T.flatten(T.tensor3("t"), bad)


@pytest.mark.parametrize("dtype", DTYPES)
def test_squeeze(dtype, rng):
    x = _value(rng, (1, 3, 1), dtype)
    for axis in (0, -1, (0, 2)):
        check_paths(lambda x: T.squeeze(x, axis), [x], lambda x: np.squeeze(x, axis))
    # axis=None drops only the axes *statically* known to be 1
    t = T.tensor3("t", shape=(1, None, 1), test_value=np.ones((1, 1, 1), dtype))
    assert T.squeeze(t).type.shape == (None,)
    assert t.squeeze().test_value.shape == (1,)
    check_paths(lambda x: x.squeeze(), [x], lambda x: x)  # unknown static shape: nothing to drop


def test_squeeze_errors():
    with pytest.raises(ValueError, match=r"cannot squeeze axis 1 of 'k' \(shape \(1, 3\)\)"):
        T.squeeze(T.matrix("k", shape=(1, 3)), 1)
    m = T.matrix("m")
    f = sn.function([m], T.squeeze(m, 0))
    with pytest.raises(sn.GraphRuntimeError, match="(?s)drops axis 0 of 'm'.*length is 2, not 1.*#0 m "):
        f(np.ones((2, 3), "float32"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_expand_dims(dtype, rng):
    x = _value(rng, (2, 3), dtype)
    for axis in (0, 2, -1, (0, 3), (-1, 1)):
        check_paths(lambda x: T.expand_dims(x, axis), [x], lambda x: np.expand_dims(x, axis))
    check_paths(lambda s: T.expand_dims(s, 0), [np.array(1, dtype)], lambda s: np.expand_dims(s, 0))
    assert T.expand_dims(T.matrix("m", shape=(2, 3)), 1).type.shape == (2, 1, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        T.expand_dims(T.matrix("m"), 3)
    with pytest.raises(ValueError, match="repeated axis"):
        T.expand_dims(T.matrix("m"), (0, 0))


def _symbolic_shape(v):
    return tuple(T.shape(v)[i] for i in range(v.ndim))


def test_infer_shape_of_reshape_and_dimshuffle(rng):
    x = T.matrix("x", test_value=_value(rng, (2, 6), "float32"))
    n = T.lscalar("n", test_value=np.int64(-1))
    for y in [x.reshape((3, -1)), T.reshape(x, (x.shape[0] * 3, n)), x.dimshuffle(1, "x", 0),
              T.flatten(x), T.shape(x)]:
        (inferred,) = y.owner.op.infer_shape(y.owner, [_symbolic_shape(v) for v in y.owner.inputs])
        values = [int(T.as_tensor_variable(s).test_value) for s in inferred]
        assert tuple(values) == y.test_value.shape


def test_a_shape_read_from_infer_shape_keeps_the_sites_of_the_nodes_it_reads(rng):
    # ``y.shape`` becomes infer_shape's entries, which read the graph's own nodes (here the
    # exp, through its shape): those keep the user's lines, and the nodes built for the
    # shape take the line of the node they replace, not the line compiling the function.
    x = T.matrix("x", test_value=rng.normal(size=(4, 3)).astype("float32"))
    e = T.exp(x).dimshuffle(1, 0)  # the exp's line
    y = e[1:, ::2]
    n = y.shape[0] * y.shape[1]  # the shape's line
    total = y.sum()
    f = sn.function([x], [n, total])
    np.testing.assert_allclose(f(x.test_value)[0], 2 * 2)
    lines = {type(node.op).__name__: node.site.line for node in f.maker.fgraph.apply_nodes}
    assert any(line == "e = T.exp(x).dimshuffle(1, 0)  # the exp's line" for line in lines.values())
    assert not [(op, line) for op, line in lines.items() if "sn.function" in (line or "")], lines


def test_dimshuffle_with_theanos_signature():
    """Theano's DimShuffle(input_broadcastable, new_order): the input's rank from the
    pattern, and dropping an axis that is not broadcastable refused when the op is made."""
    from symnb.tensor.elemwise import DimShuffle

    x = T.TensorType("float64", (False, True, False))("x")
    out = DimShuffle([False, True, False], (2, "x", 0))(x)
    value = np.arange(6.0).reshape(2, 1, 3)
    np.testing.assert_array_equal(sn.function([x], out)(value), value.transpose(2, 1, 0))
    with pytest.raises(ValueError, match="not broadcastable"):
        DimShuffle([False, False, False], (2, 0))


def test_fill_method_broadcasts_the_value():
    x = T.dmatrix("x")
    got = sn.function([x], x.fill(T.constant(2.5)))(np.zeros((2, 3)))
    np.testing.assert_array_equal(got, np.full((2, 3), 2.5))
