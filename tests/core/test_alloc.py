"""Array creation (zeros, ones, full, *_like, fill, alloc, arange, eye, identity_like):
NumPy perform path and XLA path against NumPy, default dtypes, static shapes, errors."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import assert_same, check_paths
from tests.reference import scaled_normal as _value

DTYPES = ["float32", "float64", "int32"]


def check_constant(out, expected):
    """A graph without inputs: its test value and its compiled result equal ``expected``."""
    assert_same(out.test_value, expected, "perform (test value)")
    assert_same(sn.function([], out)(), expected, "XLA")


# -- zeros, ones, full ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [3, (2, 3), (), (0, 4), (1, 1)])
def test_zeros_ones_full_default_to_floatx(shape):
    check_constant(T.zeros(shape), np.zeros(shape, "float32"))
    check_constant(T.ones(shape), np.ones(shape, "float32"))
    check_constant(T.full(shape, 2.5), np.full(shape, 2.5, "float32"))
    with sn.config.change_flags(floatX="float64"):
        check_constant(T.ones(shape), np.ones(shape, "float64"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_creation_dtypes(dtype):
    check_constant(T.zeros((2, 3), dtype), np.zeros((2, 3), dtype))
    check_constant(T.ones((2, 3), dtype=dtype), np.ones((2, 3), dtype))
    check_constant(T.full((4,), 7, dtype), np.full((4,), 7, dtype))
    check_constant(T.full((2, 3), np.arange(3, dtype=dtype)), np.full((2, 3), np.arange(3, dtype=dtype)))


def test_full_fill_dtypes():
    check_constant(T.full((2,), 3), np.full((2,), 3, "int64"))
    check_constant(T.full((2,), True), np.full((2,), True))
    check_constant(T.full((2,), 1.5, "int32"), np.full((2,), 1.5, "int32"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_creation_with_symbolic_lengths(dtype, rng):
    x = _value(rng, (3, 4), dtype)
    check_paths(lambda x: T.zeros(x.shape, dtype), [x], lambda x: np.zeros(x.shape, dtype))
    check_paths(lambda x: T.ones((x.shape[1], 2)), [x], lambda x: np.ones((4, 2), "float32"))
    check_paths(lambda x: T.full((x.shape[0] * 2,), x[0, 0]), [x], lambda x: np.full((6,), x[0, 0]))
    check_paths(lambda x: x * T.ones((3, 4), dtype), [x], lambda x: x * np.ones((3, 4), dtype))
    n = T.lscalar("n")
    assert T.zeros((n, 3)).type.shape == (None, 3)
    assert T.zeros((n, 3)).owner.op.display_name() == "Alloc"


def test_alloc_theano_spelling(rng):
    v = _value(rng, (3,), "float64")
    check_paths(lambda v: T.alloc(v, 2, 3), [v], lambda v: np.broadcast_to(v, (2, 3)).copy())
    check_paths(lambda v: T.alloc(v, v.shape[0] - 1, 1, 3), [v],
                lambda v: np.broadcast_to(v, (2, 1, 3)).copy())
    check_paths(lambda v: T.alloc(v[0], 0, 2), [v], lambda v: np.zeros((0, 2)))
    n, m = T.lscalar("n", test_value=np.int64(2)), T.lscalar("m", test_value=np.int64(3))
    assert T.alloc(T.vector("w", shape=(3,)), n, m).type.shape == (None, 3)


def test_alloc_errors():
    with pytest.raises(ValueError, match=r"'v' of shape \(4,\) cannot be broadcast to shape \(2, 3\)"):
        T.full((2, 3), T.vector("v", shape=(4,)))
    with pytest.raises(ValueError, match="negative dimensions"):
        T.zeros((2, -1))
    with pytest.raises(TypeError, match="ints or integer scalars"):
        T.zeros((2.0, 3))
    v = T.vector("v", test_value=np.ones(4, "float32"))
    with pytest.raises(sn.TestValueError, match=r"'v' of shape \(4,\) cannot be broadcast to shape \(2, 3\)"):
        T.alloc(v, 2, 3)
    v = T.vector("v")
    f = sn.function([v], T.alloc(v, 2, 3))
    with pytest.raises(sn.GraphRuntimeError, match=r"(?s)'v' of shape \(4,\) cannot be broadcast.*#0 v "):
        f(np.ones(4, "float32"))
    lengths = T.lvector("lengths")  # of no fixed size: the zeros are made on the host
    g = sn.function([lengths], T.zeros((lengths[0],)) + 1)
    for n in (0, 3):
        np.testing.assert_array_equal(g(np.array([n, 7])), np.ones(n, "float32"))


def test_lengths_from_input_values_specialize_the_program():
    n = T.lscalar("n")
    g = sn.function([n], T.zeros((n, 2)) + T.arange(n).dimshuffle(0, "x"))
    np.testing.assert_array_equal(g(3), np.zeros((3, 2)) + np.arange(3)[:, None])
    np.testing.assert_array_equal(g(5), np.zeros((5, 2)) + np.arange(5)[:, None])
    traces = g._program.traces
    np.testing.assert_array_equal(g(3), np.zeros((3, 2)) + np.arange(3)[:, None])
    assert g._program.traces == traces  # the value 3 was compiled before: cached
    x = T.vector("x")
    k = T.lscalar("k")
    h = sn.function([x, k], x.reshape((k, -1)))
    np.testing.assert_array_equal(h(np.arange(6, dtype="float32"), 2), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(h(np.arange(6, dtype="float32"), 3), np.arange(6).reshape(3, 2))


def test_large_creations_run_on_the_device():
    check_constant(T.zeros((40, 50)), np.zeros((40, 50), "float32"))
    check_constant(T.full((3000,), 2, "int8"), np.full((3000,), 2, "int8"))


# -- *_like and fill -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0, 2)])
def test_like_functions(shape, dtype, rng):
    x = _value(rng, shape, dtype)
    check_paths(T.zeros_like, [x], np.zeros_like)
    check_paths(T.ones_like, [x], np.ones_like)
    check_paths(lambda x: T.full_like(x, 3), [x], lambda x: np.full_like(x, 3))
    check_paths(lambda x: T.zeros_like(x, "int8"), [x], lambda x: np.zeros_like(x, "int8"))
    check_paths(lambda x: T.full_like(x, 1.75, dtype="float64"), [x], lambda x: np.full_like(x, 1.75, "float64"))
    assert T.zeros_like(T.matrix("m", shape=(2, None))).type.shape == (2, None)


def test_fill(rng):
    x32, i32 = _value(rng, (2, 3), "float32"), _value(rng, (2, 3), "int32")
    # Theano's second: the value's dtype, a Python number's Theano's constant dtype.
    check_paths(lambda x: T.fill(x, 2), [x32], lambda x: np.full(x.shape, 2, "int8"))
    check_paths(lambda x: T.fill(x, 1.5), [i32], lambda x: np.full(x.shape, 1.5, "float32"))
    v = _value(rng, (3,), "float64")
    check_paths(T.fill, [x32, v], lambda x, v: np.broadcast_to(v, x.shape).copy())
    assert T.fill(T.matrix("m", dtype="int8"), 3).dtype == "int8"


def test_fill_broadcasts_both_inputs(rng):
    # Theano's fill is the elementwise second: a longer value, or a model of length 1,
    # broadcasts as in any elementwise op (NumPy's broadcast_to of both shapes)
    def reference(x, v):
        return np.broadcast_to(v, np.broadcast_shapes(x.shape, v.shape)).copy()

    for model, value in [((3,), (2, 3)), ((1, 3), (4, 1)), ((2, 1), (3,)), ((5, 3), (1, 1)), ((), (2,))]:
        x, v = _value(rng, model, "float32"), _value(rng, value, "int32")
        check_paths(T.fill, [x, v], reference)
        check_paths(T.second, [x, v], reference)
    x = T.matrix("x", shape=(1, 3))
    assert T.fill(x, T.matrix("v", shape=(4, 1))).type.shape == (4, 3)


def test_seed_ones_plus_shared():
    b = T.ones((3, 2))
    c = sn.shared(np.ones((3, 2)))
    y = T.matrix("y", test_value=np.full((3, 2), 2.0, "float32"))
    assert b.dtype == "float32" and b.type.shape == (3, 2)
    np.testing.assert_array_equal((y * b + c).tag.test_value, np.full((3, 2), 3.0))


# -- arange ---------------------------------------------------------------------------------------

ARANGES = [(5,), (2, 10, 3), (10, 2, -2), (5, 2), (0,), (-3, 3)]


@pytest.mark.parametrize("args", ARANGES)
def test_arange_integers(args):
    out = T.arange(*args)
    assert out.type.shape == (len(np.arange(*args)),)
    check_constant(out, np.arange(*args))
    check_constant(T.arange(*args, dtype="int32"), np.arange(*args, dtype="int32"))
    check_constant(T.arange(*args, dtype="float64"), np.arange(*args, dtype="float64"))


def test_arange_floats():
    check_constant(T.arange(0.5, 3), np.arange(0.5, 3, dtype="float32"))  # Python floats: floatX
    check_constant(T.arange(0, 1, 0.1, dtype="float64"), np.arange(0, 1, 0.1))
    check_constant(T.arange(1, 0, -0.25), np.arange(1, 0, -0.25, dtype="float32"))
    with sn.config.change_flags(floatX="float64"):
        check_constant(T.arange(0, 1, 0.1), np.arange(0, 1, 0.1))


def test_arange_symbolic_bounds(rng):
    x = _value(rng, (4, 7), "float32")
    check_paths(lambda x: T.arange(x.shape[1]), [x], lambda x: np.arange(7))
    check_paths(lambda x: T.arange(1, x.shape[0] * 2, 2), [x], lambda x: np.arange(1, 8, 2))
    s = T.scalar("s", dtype="float64", test_value=np.float64(2.5))
    assert_same(T.arange(s).test_value, np.arange(2.5), "perform (test value)")
    assert T.arange(T.iscalar("n")).dtype == "int64"
    assert T.arange(T.scalar("f", dtype="float32")).dtype == "float32"
    assert T.arange(T.iscalar("n")).type.shape == (None,)


def test_arange_large_results():
    check_constant(T.arange(3000), np.arange(3000))
    out = T.arange(0, 300, 0.1, dtype="float64")
    assert_same(sn.function([], out)(), np.arange(0, 300, 0.1), "XLA", rtol=1e-9)


def test_arange_errors():
    with pytest.raises(ValueError, match="step must not be zero"):
        T.arange(0, 5, 0)
    step = T.lscalar("step", test_value=np.int64(0))
    with pytest.raises(sn.TestValueError, match="step must not be zero"):
        T.arange(0, 5, step)
    n = T.lscalar("n")
    f = sn.function([n], T.arange(n))  # specialized on n's value (see below)
    np.testing.assert_array_equal(f(3), np.arange(3))
    step.tag.test_value = np.int64(1)
    with pytest.raises(sn.GraphRuntimeError, match="step must not be zero"):
        sn.function([step], T.arange(0, 5, step))(0)


def test_small_creations_stay_static_under_jit(rng):
    """A reshape target built from arange/ones is static in the compiled program."""
    x = _value(rng, (6,), "float32")
    check_paths(lambda x: T.reshape(x, T.arange(2, 4)), [x], lambda x: x.reshape(2, 3))
    check_paths(lambda x: T.reshape(x, T.ones((2,), "int64") * 3), [np.ones(9, "float32")],
                lambda x: x.reshape(3, 3))


# -- eye, identity_like ----------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(3,), (3, 4, 1), (4, 3, -2), (0,), (2, 5, 7), (40, 50, 3)])
def test_eye(args):
    check_constant(T.eye(*args), np.eye(*args, dtype="float32"))
    check_constant(T.eye(*args, dtype="int64"), np.eye(*args, dtype="int64"))
    assert T.eye(*args).type.shape == np.eye(*args).shape


def test_eye_symbolic_and_identity_like(rng):
    x = _value(rng, (3, 5), "float64")
    check_paths(lambda x: T.eye(x.shape[0]), [x], lambda x: np.eye(3, dtype="float32"))
    check_paths(lambda x: T.eye(x.shape[0], x.shape[1], k=1), [x], lambda x: np.eye(3, 5, 1, dtype="float32"))
    for dtype in DTYPES + ["int64"]:
        m = _value(rng, (3, 4), dtype)
        check_paths(T.identity_like, [m], lambda m: np.eye(3, 4, dtype=m.dtype))
    assert T.identity_like(T.matrix("m", shape=(2, 2))).type.shape == (2, 2)
    with pytest.raises(TypeError, match="must be a matrix"):
        T.identity_like(T.vector("v"))
    with pytest.raises(TypeError, match="N must be an int"):
        T.eye(2.5)


@pytest.mark.parametrize("k", [-2, 0, 1, 5])
def test_eye_and_tri_of_a_symbolic_k(k):
    # Theano's Eye(dtype)(N, M, k) and Tri: k may be a value of the program
    for fn, ref in [(T.eye, np.eye), (T.tri, np.tri)]:
        check_paths(lambda k: fn(3, 4, k, dtype="int8"), [np.int32(k)], lambda k: ref(3, 4, k, dtype="int8"))
        check_paths(lambda k: fn(40, 50, k), [np.int64(k)], lambda k: ref(40, 50, k, dtype="float32"))
    assert T.eye(2, 3, T.iscalar("k")).owner.op == T.Eye("float32")


def test_infer_shape(rng):
    x = T.matrix("x", test_value=_value(rng, (2, 5), "float32"))
    n = T.lscalar("n", test_value=np.int64(4))
    for out in [T.zeros((n, x.shape[1])), T.zeros_like(x), T.arange(1, n * 3, 2), T.eye(n, x.shape[1]),
                T.arange(T.scalar("f", dtype="float64", test_value=np.float64(2.5)))]:
        node = out.owner
        shapes = [tuple(T.shape(v)[i] for i in range(v.ndim)) for v in node.inputs]
        (inferred,) = node.op.infer_shape(node, shapes)
        assert tuple(int(T.as_tensor_variable(s).test_value) for s in inferred) == out.test_value.shape


def test_theano_alloc_signature(rng):
    # Theano's Alloc()(value, *lengths): the lengths as separate ints or int scalars
    v = _value(rng, (1, 3), "float32")
    n = T.lscalar("n")
    out = T.Alloc()(T.constant(v), n, 2, 3)
    assert out.type.shape == (None, 2, 3)
    np.testing.assert_array_equal(sn.function([n], out)(4), np.broadcast_to(v, (4, 2, 3)))
    assert T.Alloc()(v, 5, 3).type.shape == (5, 3)
    assert T.Alloc()(v, [5, 3]).type.shape == (5, 3)  # one shape vector, symnb's spelling


def test_ones_of_a_scalars_shape_needs_no_input():
    # x.shape of a scalar holds no length: ones(x.shape) reads nothing of x (Theano's
    # alloc of no lengths), so a function without x as input computes it
    x = T.scalar("x")
    ones, zeros = sn.function([], [T.ones(x.shape), T.zeros(x.shape)])()
    assert (ones, zeros) == (1, 0) and ones.shape == () and ones.dtype == "float32"
