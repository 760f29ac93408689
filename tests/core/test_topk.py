"""Theano's ``T.topk``, ``T.argtopk`` and ``T.topk_and_argtopk`` (``theano.tensor.sort``):
both paths against a reference written with Python's ``sorted`` (largest first, ties by
position), and the gradient against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import verify_grad
from symnb.tensor.sort import TopKOp
from tests.reference import check_paths


def reference_order(row: np.ndarray, k: int) -> list[int]:
    """The positions of the k largest (k < 0: smallest) of a 1-d row, ties by position,
    NaN never before a number."""
    def key(i):
        value = row[i]
        nan = bool(np.isnan(value)) if row.dtype.kind == "f" else False
        return (nan, -value if k > 0 and not nan else (value if not nan else 0), i)

    as_python = [row[i].item() if row.dtype.kind == "f" else int(row[i]) for i in range(len(row))]
    row = np.asarray(as_python, dtype=object) if row.dtype.kind != "f" else row
    return sorted(range(len(row)), key=key)[:abs(k)]


def reference(x: np.ndarray, k: int, axis: int) -> tuple[np.ndarray, np.ndarray]:
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    order = np.array([reference_order(row, k) for row in flat], dtype="int64")
    order = order.reshape(moved.shape[:-1] + (abs(k),))
    values = np.take_along_axis(moved, order, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8", "int64"])
@pytest.mark.parametrize("k, axis", [(2, -1), (-2, -1), (1, 0), (-3, 1), (4, 1)])
def test_values_and_indices_both_paths(dtype, k, axis):
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 4, size=(3, 4)).astype(dtype)  # many ties
    if dtype == "int8":
        x[0, 0] = -128  # ~x, not -x: no overflow
    if dtype.startswith("float"):
        x[1, 2] = np.nan
    values, indices = reference(x, k, axis)
    check_paths(lambda v: T.topk(v, k, axis=axis), [x], lambda v: values)
    check_paths(lambda v: T.argtopk(v, k, axis=axis), [x], lambda v: indices)
    check_paths(lambda v: T.topk_and_argtopk(v, k, axis=axis, idx_dtype="int32")[1], [x],
                lambda v: indices.astype("int32"))


def test_axis_none_flattens_and_k_may_be_symbolic():
    x, k = T.dmatrix("x"), T.lscalar("k")
    value = np.array([[0.5, 3.0], [2.0, -1.0]])
    f = sn.function([x, k], [T.topk(x, k, axis=None), T.argtopk(x, k, axis=None)])
    for kk in (1, 3, -2):
        values, indices = reference(value.ravel(), kk, 0)
        got = f(value, kk)
        np.testing.assert_array_equal(got[0], values)
        np.testing.assert_array_equal(got[1], indices)
    assert T.topk(x, k).type.shape == (None, None) and T.topk(x, 1).ndim == 2


def test_gradient_reaches_the_values_taken():
    rng = np.random.default_rng(0)
    x = rng.permutation(12).reshape(3, 4).astype("float64")  # distinct: the picks are smooth
    verify_grad(lambda v: T.topk(v, 2, axis=1) * [[1.0, 2.0]], [x], rng=np.random.RandomState(0))
    verify_grad(lambda v: T.topk_and_argtopk(v, -2, axis=0)[0] ** 2, [x], rng=np.random.RandomState(0))


def test_theano_signature_and_refusals():
    x = T.dmatrix("x")
    op = TopKOp(axis=1, sorted=False, idx_dtype="int16", return_values=False)
    assert op(x, 2).dtype == "int16"
    with pytest.raises(ValueError, match="Neither return_values nor return_indices"):
        TopKOp(return_values=False, return_indices=False)
    with pytest.raises(TypeError, match="idx_dtype"):
        TopKOp(idx_dtype="float32")
    with pytest.raises(ValueError, match="k must not be 0"):
        T.topk(x, 0)
    with pytest.raises(ValueError, match="more than the 3 values"):
        T.topk(T.dmatrix("y", shape=(2, 3)), 4)
    f = sn.function([x], T.topk(x, T.constant(3, dtype="int8") * 1))
    with pytest.raises(ValueError, match="more than the 2 values"):
        f(np.ones((2, 2)))


def test_importing_the_sort_module_leaves_t_sort_the_function():
    import importlib

    module = importlib.import_module("symnb.tensor.sort")
    assert callable(T.sort) and T.sort is module.sort and T.topk is module.topk
