"""``Unique.infer_shape``: the outputs' lengths, computed from the input as ``np.unique``
counts distinct values (NaNs once for ``axis=None``; distinct slices along an axis),
against NumPy's results."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor.extra_ops import Unique


def _inferred(value: np.ndarray, axis) -> list[tuple[int, ...]]:
    x = T.tensor(str(value.dtype), shape=(None,) * value.ndim, name="x", test_value=value)
    op = Unique(return_index=True, return_inverse=True, return_counts=True, axis=axis)
    node = op(x)[0].owner
    shapes = op.infer_shape(node, [tuple(x.shape[i] for i in range(x.ndim))])
    length = sn.function([x], [d for s in shapes for d in s], on_unused_input="ignore")(value)
    lengths = iter(int(np.asarray(n)) for n in length)
    return [tuple(next(lengths) for _ in s) for s in shapes]


@pytest.mark.parametrize("value, axis", [
    (np.array([3.0, 1.0, np.nan, 1.0, np.nan, 2.0]), None),
    (np.array([[5, 1], [1, 5]], "int8"), None),
    (np.array([True, False, True]), None),
    (np.zeros((0,), "float32"), None),
    (np.array([[1, 2], [1, 2], [3, 4]], "int32"), 0),
    (np.array([[1, 2, 1], [3, 4, 3]], "int32"), 1),
    (np.arange(24, dtype="float64").reshape(2, 3, 4) % 3, 2),
])
def test_inferred_lengths_are_numpys(value, axis):
    expected = [np.asarray(a).reshape(-1).shape if i else np.asarray(a).shape
                for i, a in enumerate(np.unique(value, return_index=True, return_inverse=True,
                                                return_counts=True, axis=axis))]
    assert _inferred(value, axis) == expected
