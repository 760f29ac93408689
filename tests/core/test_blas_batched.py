"""T.batched_tensordot (Theano's; Keras's K.batch_dot) and T.batched_dot of more than 3
dimensions, against a loop of np.tensordot / np.dot over the batch, on both paths."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from tests.reference import check_paths

RNG = np.random.default_rng(32)


def _per_example(axes):
    """The reference: np.tensordot of each example, Theano's integer axes spelled out
    (the last n axes of x with axes 1..n of y), the batch axis left out of ``axes``."""
    def reference(x, y):
        if isinstance(axes, int):
            ax, ay = list(range(x.ndim - axes, x.ndim)), list(range(1, axes + 1))
        else:
            ax, ay = ([a % v.ndim for a in np.atleast_1d(given)] for given, v in zip(axes, (x, y)))
        inner = ([a - 1 for a in ax], [a - 1 for a in ay])
        dtype = np.tensordot(x[:1], y[:1], 0).dtype  # np.dot's dtype for these operands
        out_shape = np.tensordot(np.zeros(x.shape[1:]), np.zeros(y.shape[1:]), inner).shape
        examples = [np.tensordot(x[b], y[b], inner) for b in range(len(x))]
        return np.stack(examples).astype(dtype) if examples else np.zeros((0, *out_shape), dtype)
    return reference


CASES = [
    # x shape, y shape, axes
    ((4, 3), (4, 3), 1),
    ((4, 3), (4, 3), [1, 1]),                     # Keras: batch_dot(x, y, axes=1)
    ((4, 2, 3), (4, 3, 5), 1),                    # batched matrix product
    ((4, 2, 3), (4, 5, 3), [2, 2]),
    ((4, 2, 3), (4, 3), [[2], [1]]),
    ((4, 2, 3, 5), (4, 5, 3, 6), [[2, 3], [2, 1]]),
    ((4, 2, 3, 5), (4, 3, 5), 2),
    ((4, 2, 3), (4, 3, 2), [(-1, 1), (1, -1)]),   # negative axes, two pairs
    ((4, 3), (4, 2), 0),                          # nothing summed: batched outer product
    ((0, 2, 3), (0, 3, 4), 1),                    # an empty batch
]


@pytest.mark.parametrize("x_shape,y_shape,axes", CASES)
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float32"), ("int32", "float32")])
def test_against_a_loop_of_tensordot(x_shape, y_shape, axes, dtypes):
    x = (RNG.normal(size=x_shape) * 3).astype(dtypes[0])
    y = (RNG.normal(size=y_shape) * 3).astype(dtypes[1])
    check_paths(lambda a, b: T.batched_tensordot(a, b, axes), [x, y], _per_example(axes))


def test_integers_and_the_static_shape():
    x = RNG.integers(-4, 5, size=(3, 2, 4)).astype("int32")
    y = RNG.integers(-4, 5, size=(3, 4, 5)).astype("int64")
    check_paths(lambda a, b: T.batched_tensordot(a, b, 1), [x, y], _per_example(1))
    a = T.tensor("float32", shape=(None, 2, 4), name="a")
    b = T.tensor("float32", shape=(3, 4, 5), name="b")
    assert T.batched_tensordot(a, b, [[2], [1]]).type.shape == (3, 2, 5)


@pytest.mark.parametrize("x_shape,y_shape,axes", [c for c in CASES if c[0][0]])
def test_gradient(x_shape, y_shape, axes):
    verify_grad(lambda a, b: T.batched_tensordot(a, b, axes),
                [RNG.normal(size=x_shape), RNG.normal(size=y_shape)], rng=np.random.default_rng(1))


@pytest.mark.parametrize("x_shape,y_shape", [((3, 2, 4, 5), (3, 2, 5, 6)), ((3, 2, 4, 5), (3, 5)),
                                             ((3, 4), (3, 2, 4, 5)), ((3, 2, 4, 5), (3, 5, 2))])
def test_batched_dot_of_more_dimensions_is_a_dot_per_example(x_shape, y_shape):
    x, y = RNG.normal(size=x_shape), RNG.normal(size=y_shape)
    check_paths(T.batched_dot, [x, y], lambda a, b: np.stack([np.dot(a[i], b[i]) for i in range(3)]))


def test_mismatched_batches_are_refused_with_both_shapes():
    a, b = T.dtensor3("a"), T.dtensor3("b")
    # compiled: the operands by name, as when built
    with pytest.raises(ValueError, match=r"batched_tensordot: a has shape \(4, 2, 3\) and "
                                         r"b has shape \(5, 3, 2\): their batch axes "
                                         r"\(axis 0\) have lengths 4 and 5"):
        f = sn.function([a, b], T.batched_tensordot(a, b, 1))
        f(np.zeros((4, 2, 3)), np.zeros((5, 3, 2)))
    fixed = T.tensor("float64", shape=(4, None, None), name="fixed")
    with pytest.raises(ValueError, match="their batch axes .* lengths 4 and 5"):
        T.batched_tensordot(fixed, T.tensor("float64", shape=(5, None, None)), 1)
    with pytest.raises(ValueError, match="batched_tensordot: c has shape .* inner dimensions 3 and 2 differ"):
        T.batched_tensordot(T.dtensor3("c", test_value=np.zeros((4, 2, 3))),
                            T.dtensor3("d", test_value=np.zeros((4, 2, 2))), 1)


def test_axes_that_theano_refused():
    a, b = T.dtensor3("a"), T.dmatrix("b")
    with pytest.raises(ValueError, match=r"axes \[0\] of 'a' include its batch axis 0"):
        T.batched_tensordot(a, b, [[0], [1]])
    with pytest.raises(ValueError, match="axes=2 sums over 2 axes of 'b' .* it has 1"):
        T.batched_tensordot(a, b, 2)
    with pytest.raises(ValueError, match="pair 2 axes of 'a' with 1 of 'b'"):
        T.batched_tensordot(a, b, [[1, 2], [1]])
    with pytest.raises(np.exceptions.AxisError, match="batched_tensordot: axis 3 is out of bounds"):
        T.batched_tensordot(a, b, [[3], [1]])
    with pytest.raises(TypeError, match="'s' is a scalar; each operand needs a batch axis"):
        T.batched_tensordot(T.dscalar("s"), b, 0)
