"""``TensorType``: a dtype and a static shape, interned, and its messages."""

import pickle

import numpy as np
import pytest

from symnb.core.graph.type import (
    DTYPES, TensorType, canonical_dtype, describe_shape, is_bool, is_float, is_integer,
)


def test_types_are_interned_and_compared_by_dtype_and_shape():
    a = TensorType("float32", (None, 3))
    assert a is TensorType("float32", (None, 3))  # the same spelling: the same object
    assert a == TensorType(np.float32, [None, 3]) == TensorType(np.dtype("float32"), (None, 3))
    assert hash(a) == hash(TensorType(np.float32, [None, 3])) == hash(("float32", (None, 3)))
    assert a != TensorType("float32", (2, 3)) and a != TensorType("float64", (None, 3))
    assert pickle.loads(pickle.dumps(a)) is a
    with pytest.raises(AttributeError, match="immutable"):
        a.dtype = "int8"


def test_shape_properties():
    t = TensorType("int8", (1, None, 4))
    assert (t.ndim, t.broadcastable, t.fully_known) == (3, (True, False, False), False)
    assert TensorType("int8", (2, 4)).fully_known and TensorType("bool").kind_name == "scalar"
    assert TensorType("int8", (2, 4, 1, 1, 5)).kind_name == "tensor5"
    assert t.clone(dtype="float64") == TensorType("float64", (1, None, 4))
    assert t.clone(shape=(3,)) == TensorType("int8", (3,))


def test_describe_shape_and_short():
    assert describe_shape(()) == "()"
    assert describe_shape((5,)) == "(5,)"
    assert describe_shape((None, 3)) == "(?, 3)"
    assert TensorType("float32", (None, 3)).short() == "float32 (?, 3)"
    assert repr(TensorType("float32", (2,))) == "TensorType(float32, shape=(2,))"


def test_dtypes():
    assert canonical_dtype(float) == "float64" and canonical_dtype("f4") == "float32"
    with pytest.raises(TypeError, match="unsupported dtype 'datetime64\\[s\\]'"):
        TensorType("datetime64[s]")
    floats = ["float16", "float32", "float64", "complex64", "complex128"]
    assert [d for d in DTYPES if is_float(d)] == floats
    assert [d for d in DTYPES if is_integer(d)] == ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                                    "uint32", "uint64"]
    assert [d for d in DTYPES if is_bool(d)] == ["bool"]


def test_bad_static_lengths_are_refused():
    with pytest.raises(ValueError, match="lengths >= 0"):
        TensorType("float32", (-1,))
    with pytest.raises(ValueError, match="lengths >= 0"):
        TensorType("float32", (2.5,))


def test_accepts_shape_and_mismatch():
    t = TensorType("float32", (None, 3))
    assert t.accepts_shape((7, 3)) and not t.accepts_shape((7, 4)) and not t.accepts_shape((3,))
    assert t.mismatch(np.zeros((2, 3), "float32")) is None
    assert t.mismatch(np.zeros((2, 3), "float64")) == "expected dtype float32, got float64"
    assert t.mismatch(np.zeros(3, "float32")) == "expected 2 dimension(s) (?, 3), got 1 with shape (3,)"
    assert t.mismatch(np.zeros((2, 4), "float32")) == "expected shape (?, 3), got (2, 4)"
