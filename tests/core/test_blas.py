"""dot, matmul, tensordot, outer: NumPy perform path and XLA path against NumPy."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import TestValueError
from tests.reference import check_paths, small_values

DTYPES = ["float32", "float64", "int32"]


def _values(rng, shape, dtype):
    return small_values(rng, shape, dtype, bound=4)


DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3), (3, 4)), ((2, 5, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((2, 5, 3), (4, 3, 2)),
              ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((1, 1), (1, 1)), ((0,), (0,))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot(dtype, rng):
    for sx, sy in DOT_SHAPES:
        x, y = _values(rng, sx, dtype), _values(rng, sy, dtype)
        check_paths(T.dot, [x, y], np.dot)
    check_paths(lambda a, b: a.dot(b), [x, y], np.dot)


def test_dot_mixed_dtypes_follow_numpy(rng):
    for dx, dy in [("int32", "float32"), ("int8", "uint8"), ("float32", "float64"),
                   ("bool", "bool"), ("bool", "int16"), ("int64", "float16")]:
        x, y = _values(rng, (3, 4), dx), _values(rng, (4, 2), dy)
        rtol = 1e-2 if "float16" in (dx, dy) else None
        for fn, ref in [(T.dot, np.dot), (T.matmul, np.matmul), (lambda a, b: T.tensordot(a, b, 1),
                                                                 lambda a, b: np.tensordot(a, b, 1))]:
            check_paths(fn, [x, y], ref, rtol=rtol)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
                 ((1, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)),
                 ((0, 2, 3), (3, 4)), ((2, 0), (0, 4)), ((1, 1), (1, 1))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_with_batch_broadcasting(dtype, rng):
    for sx, sy in MATMUL_SHAPES:
        x, y = _values(rng, sx, dtype), _values(rng, sy, dtype)
        check_paths(T.matmul, [x, y], np.matmul)
    check_paths(lambda a, b: a @ b, [x, y], np.matmul)
    check_paths(lambda a, b: b.__rmatmul__(a), [x, y], np.matmul)


TENSORDOT_AXES = [((3, 4), (4, 5), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4, 5), 0),
                  ((2, 3, 4), (4, 2), ([0, 2], [1, 0])), ((2, 3, 4), (3, 5), (1, 0)),
                  ((2, 3, 4), (4, 3, 2), ([-1, 1, 0], [0, -2, 2])), ((3,), (3,), 1), ((), (), 0),
                  ((2, 3), (3, 2), ((0,), (1,))), ((0, 3), (3, 0), 1)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensordot(dtype, rng):
    for sx, sy, axes in TENSORDOT_AXES:
        x, y = _values(rng, sx, dtype), _values(rng, sy, dtype)
        check_paths(lambda a, b: T.tensordot(a, b, axes), [x, y], lambda a, b: np.tensordot(a, b, axes))
    x, y = _values(rng, (2, 3, 4), dtype), _values(rng, (3, 4, 5), dtype)
    check_paths(T.tensordot, [x, y], np.tensordot)  # default axes=2


@pytest.mark.parametrize("dtype", DTYPES)
def test_outer(dtype, rng):
    for sx, sy in [((3,), (4,)), ((2, 3), (4,)), ((), (3,)), ((0,), (3,)), ((1,), (1,))]:
        x, y = _values(rng, sx, dtype), _values(rng, sy, dtype)
        check_paths(T.outer, [x, y], np.outer)


def test_float32_matches_numpy_closely(rng):
    x = rng.normal(size=(64, 300)).astype("float32")
    w = rng.normal(size=(300, 70)).astype("float32")
    out = check_paths(T.dot, [x, w], np.dot)
    expected = np.dot(x.astype("float64"), w.astype("float64"))
    assert np.abs(out - expected).max() / np.abs(expected).max() < 1e-5


def test_static_shapes():
    x = T.matrix("x", shape=(None, 3))
    w = T.matrix("w", shape=(3, 4))
    assert T.dot(x, w).type.shape == (None, 4)
    assert (x @ w).type.shape == (None, 4)
    assert T.dot(T.vector("v", shape=(3,)), w).type.shape == (4,)
    assert T.dot(T.tensor("float32", shape=(2, None, 3)), T.tensor("float32", shape=(5, 3, 4))
                 ).type.shape == (2, None, 5, 4)
    assert T.matmul(T.tensor("float32", shape=(None, 1, 2, 3)), T.tensor("float32", shape=(5, 3, 4))
                    ).type.shape == (None, 5, 2, 4)
    assert T.matmul(T.tensor("float32", shape=(1, 2, 3)), T.tensor("float32", shape=(None, 3, 4))
                    ).type.shape == (None, 2, 4)
    assert T.matmul(T.vector("v", shape=(3,)), T.tensor3("t", shape=(7, 3, 4))).type.shape == (7, 4)
    assert T.tensordot(T.tensor3("a", shape=(2, 3, 4)), T.matrix("b", shape=(4, None)),
                       ([2], [0])).type.shape == (2, 3, None)
    assert T.outer(T.matrix("a", shape=(2, 3)), T.vector("b", shape=(5,))).type.shape == (6, 5)
    assert T.dot(T.scalar("s"), w).type.shape == (3, 4)


def test_infer_shape():
    x = T.matrix("x")
    t = T.tensor3("t")
    for out, shapes, expected in [
            (T.dot(x, t), [(2, 3), (5, 3, 4)], (2, 5, 4)),
            (T.matmul(t, x), [(1, 2, 3), (3, 4)], (1, 2, 4)),
            (T.matmul(x, t), [(2, 3), (5, 3, 4)], (5, 2, 4)),
            (T.tensordot(t, x, [[0], [1]]), [(3, 4, 5), (6, 3)], (4, 5, 6))]:
        assert out.owner.op.infer_shape(out.owner, shapes) == [expected]


def test_inner_dimension_errors_at_build_time():
    x = T.matrix("x", shape=(None, 3))
    w = T.matrix("w", shape=(4, 5))
    # The layout of the same mistake found by test values: "ValueError in <op>: ..."
    with pytest.raises(sn.TestValueError, match=r"^ValueError in dot: x has shape \(\?, 3\) and w has shape \(4, 5\): "
                                         r"inner dimensions 3 and 4 differ"):
        T.dot(x, w)
    with pytest.raises(ValueError, match=r"matmul: x has shape \(\?, 3\) and w has shape \(4, 5\): "
                                         r"inner dimensions 3 and 4 differ"):
        x @ w
    with pytest.raises(ValueError, match=r"tensordot: x .* w .*: inner dimensions 3 and 5 differ "
                                         r"\(axis 1 of x, axis 1 of w\)"):
        T.tensordot(x, w, [[1], [1]])
    with pytest.raises(ValueError, match="batch axes of a .* and b .* do not broadcast"):
        T.matmul(T.tensor3("a", shape=(2, 3, 4)), T.tensor3("b", shape=(3, 4, 5)))
    with pytest.raises(ValueError, match="matmul: s is 0-d"):
        T.matmul(T.scalar("s"), x)


def test_bad_tensordot_axes():
    a, b = T.matrix("a"), T.matrix("b")
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        T.tensordot(a, b, 3)
    with pytest.raises(ValueError, match="pair 2 axes of a with 1 of b"):
        T.tensordot(a, b, ([0, 1], [0]))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for b"):
        T.tensordot(a, b, ([0], [2]))
    with pytest.raises(TypeError, match="axes must be an int or a pair"):
        T.tensordot(a, b, "x")


def test_inner_dimension_errors_at_test_value_time():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    w = T.matrix("w", test_value=np.ones((4, 5), "float32"))
    with pytest.raises(TestValueError, match=r"dot: x has shape \(2, 3\) and w has shape \(4, 5\)"):
        T.dot(x, w)


def test_inner_dimension_errors_when_compiled():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    w = T.matrix("w", test_value=np.ones((3, 5), "float32"))
    for name, fn in [("dot", T.dot), ("matmul", T.matmul), ("tensordot", lambda a, b: T.tensordot(a, b, 1))]:
        f = sn.function([x, w], fn(x, w))
        # The run-time headline names the inputs as the build-time one does.
        message = (rf"{name}[^\n]*: x has shape \(2, 3\) and w has shape \(4, 5\): "
                   rf"inner dimensions 3 and 4 differ \(axis 1 of x, axis 0 of w\)(.|\n)*#0 x .*\n.*#1 w ")
        with pytest.raises(sn.GraphRuntimeError, match=message):
            f(np.ones((2, 3), "float32"), np.ones((4, 5), "float32"))


def test_display_names():
    x, y = T.matrix("x"), T.matrix("y")
    assert T.dot(x, y).owner.op.display_name() == "dot"
    assert T.tensordot(x, y, 1).owner.op.display_name() == "Tensordot{((1,), (0,))}"
    assert T.matmul(x, y).owner.op.display_name() == "Matmul"


@pytest.mark.parametrize("build", [T.dot, lambda a, b: a @ b, lambda a, b: T.tensordot(a, b, 1)])
def test_zero_times_inf_is_nan_on_both_paths(build):
    # IEEE: 0 * inf is NaN. BLAS may skip a zero operand's terms (NumPy's np.dot gave 0
    # here), XLA does not: the test value computes every term when an operand is not
    # finite (found by the differential fuzz: test value 0, compiled NaN).
    a = np.zeros((1, 1), "float32")
    b = np.array([[2.0, -np.inf, 8.0]])
    expected = np.array([[0.0 * 2.0, 0.0 * -np.inf, 0.0 * 8.0]])
    with np.errstate(invalid="ignore"):
        check_paths(build, [a, b], lambda x, y: expected)


def test_zero_times_inf_is_nan_with_vectors():
    v, w = np.array([0.0, 1.0]), np.array([np.inf, 1.0])
    m = np.array([[np.inf, 1.0], [1.0, 1.0]])
    with np.errstate(invalid="ignore"):
        check_paths(lambda a, b: a @ b, [v, w], lambda a, b: np.asarray(0.0 * np.inf + 1.0))
        check_paths(lambda a, b: a @ b, [v, m], lambda a, b: np.array([0.0 * np.inf + 1.0, 1.0]))
        check_paths(lambda a, b: a @ b, [m, v], lambda a, b: np.array([0.0 * np.inf + 1.0, 1.0]))
