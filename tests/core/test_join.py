"""stack, concatenate and Split: NumPy perform path and XLA path against NumPy, dtype
promotion, static shapes, and error messages naming the inputs."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor.join import split
from tests.reference import check_paths
from tests.reference import scaled_normal as _value

DTYPES = ["float32", "float64", "int32"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate(dtype, rng):
    a, b, c = _value(rng, (2, 3), dtype), _value(rng, (4, 3), dtype), _value(rng, (0, 3), dtype)
    for axis in (0, -2):
        check_paths(lambda a, b, c: T.concatenate([a, b, c], axis), [a, b, c],
                    lambda a, b, c: np.concatenate([a, b, c], axis))
    d = _value(rng, (2, 5), dtype)
    for axis in (1, -1):
        check_paths(lambda a, d: T.concatenate([a, d], axis=axis), [a, d],
                    lambda a, d: np.concatenate([a, d], axis=axis))
    check_paths(lambda a: T.concatenate([a]), [a], lambda a: np.concatenate([a]))
    v = _value(rng, (1,), dtype)
    check_paths(lambda v: T.concatenate([v, v, v]), [v], lambda v: np.concatenate([v, v, v]))


def test_concatenate_promotes_like_numpy(rng):
    for da, db in [("int32", "float32"), ("int8", "uint8"), ("float32", "float64"), ("bool", "int16")]:
        a, b = _value(rng, (2,), da), _value(rng, (3,), db)
        check_paths(lambda a, b: T.concatenate([a, b]), [a, b], lambda a, b: np.concatenate([a, b]))


def test_concatenate_static_shapes():
    a, b = T.matrix("a", shape=(2, 3)), T.matrix("b", shape=(4, 3))
    assert T.concatenate([a, b]).type.shape == (6, 3)
    assert T.concatenate([T.matrix("p", shape=(None, 3)), T.matrix("q", shape=(2, None))]).type.shape == (None, 3)
    assert T.concatenate([a, b]).owner.op.display_name() == "Join{0}"


def test_concatenate_errors():
    a, b = T.matrix("a", shape=(2, 3)), T.matrix("b", shape=(2, 4))
    with pytest.raises(ValueError, match=r"'a' has shape \(2, 3\) and 'b' has shape \(2, 4\) "
                                         r"\(they differ on axis 1\)"):
        T.concatenate([a, b])
    # Theano's TypeErrors (NumPy raises ValueError)
    with pytest.raises(TypeError, match="same number of dimensions.*'a' is float32 \\(2, 3\\) and 'v'"):
        T.concatenate([a, T.vector("v")])
    with pytest.raises(TypeError, match="zero-dimensional.*'s' is a scalar"):
        T.concatenate([T.scalar("s"), T.scalar("t")])
    with pytest.raises(ValueError, match="at least one"):
        T.concatenate([])
    with pytest.raises(IndexError, match="axis 2 is out of bounds"):
        T.concatenate([a, a], axis=2)
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    y = T.matrix("y", test_value=np.ones((2, 4), "float32"))
    with pytest.raises(sn.TestValueError, match=r"'x' has shape \(2, 3\) and 'y' has shape \(2, 4\)"):
        T.concatenate([x, y])
    x, y = T.matrix("x"), T.matrix("y")
    f = sn.function([x, y], T.concatenate([x, y]))
    with pytest.raises(sn.GraphRuntimeError,
                       match=r"(?s)'x' has shape \(2, 3\) and 'y' has shape \(2, 4\).*#0 x .*#1 y "):
        f(np.ones((2, 3), "float32"), np.ones((2, 4), "float32"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_stack(dtype, rng):
    a, b = _value(rng, (2, 3), dtype), _value(rng, (2, 3), dtype)
    for axis in (0, 1, 2, -1, -3):
        check_paths(lambda a, b: T.stack([a, b], axis), [a, b], lambda a, b: np.stack([a, b], axis))
    s, t = np.array(1.5).astype(dtype), np.array(-2).astype(dtype)
    check_paths(lambda s, t: T.stack([s, t, s]), [s, t], lambda s, t: np.stack([s, t, s]))
    e = _value(rng, (0, 2), dtype)
    check_paths(lambda e: T.stack([e, e], axis=1), [e], lambda e: np.stack([e, e], axis=1))


def test_stack_python_numbers_take_theanos_constant_dtype(rng):
    # Theano: each number a constant of its dtype (ints int8), then upcast.
    s = np.array(0.25, "float32")
    check_paths(lambda s: T.stack([s, 1.0, 2]), [s], lambda s: np.stack([s, np.float32(1), np.float32(2)]))
    i = np.array(3, "int8")
    check_paths(lambda i: T.stack([i, 1]), [i], lambda i: np.stack([i, np.int8(1)]))
    assert T.stack([1, 2, 3]).dtype == "int8"
    assert T.stack([1, 300]).dtype == "int16"
    assert T.stack([T.scalar("f", dtype="float32"), T.scalar("d", dtype="float64")]).dtype == "float64"


def test_stack_of_scalars_is_theanos_make_vector():
    # Theano's stack of scalars along axis 0 is MakeVector(upcast dtype): its tests and
    # rewrites look for that node; shapes given as such a vector stay static.
    a, b = T.iscalar("a"), T.lscalar("b")
    s = T.stack([10, a, b, np.int8(3)])
    assert isinstance(s.owner.op, T.opt.MakeVector) and s.dtype == "int64" and s.type.shape == (4,)
    np.testing.assert_array_equal(sn.function([a, b], s)(1, 2), np.array([10, 1, 2, 3], "int64"))
    f32 = T.scalar("f", dtype="float32")
    check_paths(lambda v: T.stack([v, 2.0, v]), [np.array(0.5, "float32")],
                lambda v: np.stack([v, np.float32(2), v]))
    assert isinstance(T.stack([f32, f32], axis=-1).owner.op, T.opt.MakeVector)
    x = T.matrix("x")
    assert x.reshape(T.stack([3, 4])).type.shape == (3, 4)


def test_stack_static_shapes_and_errors():
    a, b = T.matrix("a", shape=(2, None)), T.matrix("b", shape=(None, 3))
    assert T.stack([a, b], axis=1).type.shape == (2, 2, 3)
    assert T.stack([a, b]).owner.op.display_name() == "Stack{0}"
    with pytest.raises(ValueError, match=r"same shape, but 'p' has shape \(2, 3\) and 'q' has shape \(2, 4\)"):
        T.stack([T.matrix("p", shape=(2, 3)), T.matrix("q", shape=(2, 4))])
    with pytest.raises(ValueError, match="at least one"):
        T.stack([])
    with pytest.raises(IndexError, match="out of bounds"):
        T.stack([a, a], axis=3)
    x, y = T.vector("x"), T.vector("y")
    f = sn.function([x, y], T.stack([x, y]))
    with pytest.raises(sn.GraphRuntimeError, match=r"'x' has shape \(2,\) and 'y' has shape \(3,\)"):
        f(np.ones(2, "float32"), np.ones(3, "float32"))


def test_list_of_variables_becomes_a_stack(rng):
    x = np.array(2.0, "float32")
    check_paths(lambda x: T.as_tensor_variable([x, x * 3]), [x], lambda x: np.stack([x, x * 3]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_split(dtype, rng):
    x = _value(rng, (3, 7), dtype)
    for sizes, axis in [([2, 0, 5], 1), ([3], 0), ([1, 2], -2)]:
        offsets = np.cumsum(sizes)[:-1]
        for k in range(len(sizes)):
            check_paths(lambda x: split(x, sizes, axis)[k], [x],
                        lambda x: np.split(x, offsets, axis=axis)[k])
    n = T.lscalar("n", test_value=np.int64(4))
    pieces = split(T.matrix("m", shape=(2, 7)), [n, 3], 1)
    assert [p.type.shape for p in pieces] == [(2, None), (2, 3)]


def test_split_errors():
    x = T.matrix("x", test_value=np.ones((2, 5), "float32"))
    with pytest.raises(sn.TestValueError, match=r"cannot split 'x' of shape \(2, 5\) along axis 1 "
                                                r"into pieces of lengths \[2, 2\]"):
        split(x, [2, 2], 1)
    x = T.matrix("x")
    f = sn.function([x], split(x, [1, 1], 0))
    with pytest.raises(sn.GraphRuntimeError, match=r"pieces of lengths \[1, 1\].*add up to 3"):
        f(np.ones((3, 2), "float32"))


def test_infer_shape(rng):
    x = T.matrix("x", test_value=_value(rng, (2, 3), "float64"))
    y = T.matrix("y", test_value=_value(rng, (4, 3), "float64"))
    outputs = [T.concatenate([x, y]), T.concatenate([x, x], axis=1), T.stack([x, x * 2], axis=1),
               *split(y, [1, T.shape_i(y, 0) - 1], 0)]
    for out in outputs:
        node = out.owner
        shapes = [tuple(T.shape(v)[i] for i in range(v.ndim)) for v in node.inputs]
        inferred = node.op.infer_shape(node, shapes)[node.outputs.index(out)]
        assert tuple(int(T.as_tensor_variable(s).test_value) for s in inferred) == out.test_value.shape


def test_theano_split_signature(rng):
    # Theano's Split(n)(x, axis, splits): splits a list or a vector, axis an int or constant
    m = rng.normal(size=(4, 6))
    x = T.dmatrix("x")
    for splits, axis in [([4, 0], 0), ([1, 2, 3], 1), ([3, 3], -1)]:
        pieces = T.Split(len(splits))(x, axis, splits)
        expected = np.split(m, np.cumsum(splits)[:-1], axis=axis)
        for got, want in zip(sn.function([x], pieces)(m), expected):
            np.testing.assert_array_equal(got, want)
    sizes = T.lvector("sizes")
    f = sn.function([x, sizes], T.Split(2)(x, T.constant(0), sizes))
    np.testing.assert_array_equal(f(m, [1, 3])[1], m[1:])
    with pytest.raises(ValueError, match="must be >= 0"):  # Theano's ValueError, when run
        sn.function([x], T.Split(2)(x, 0, [5, -1]))(m)
    with pytest.raises(NotImplementedError, match="symbolic"):
        T.Split(2)(x, T.lscalar("axis"), [2, 2])
