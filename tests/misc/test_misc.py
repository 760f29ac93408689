"""``symnb.misc``: Theano's ``may_share_memory`` and ``_asarray``, checked against NumPy."""

import numpy as np
import pytest
import scipy.sparse

import symnb
from symnb.misc.may_share_memory import may_share_memory
from symnb.misc.safe_asarray import _asarray


def test_may_share_memory_of_arrays_and_sparse_matrices():
    a = np.arange(10.0)
    assert may_share_memory(a, a[2:5]) is True
    assert may_share_memory(a, a.copy()) is False
    m = scipy.sparse.csr_matrix(np.eye(3))
    assert may_share_memory(m, m.data) and not may_share_memory(m, a)
    with pytest.raises(TypeError, match="support only ndarray"):
        may_share_memory(a, [1.0])
    assert may_share_memory(a, 1.0, raise_other_type=False) is False


def test_asarray_gives_the_dtype_asked_for():
    assert symnb._asarray is _asarray
    result = _asarray([1, 2], dtype="float32")
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, np.array([1, 2], dtype=np.float32))
    with symnb.config.change_flags(floatX="float64"):
        assert _asarray(3, "floatX").dtype == np.float64
