"""``x[..., None, ...]`` as Theano 1.0 read it (issue 38).

Theano's ``__getitem__`` (tensor/var.py) turned a basic index holding None into
``x.dimshuffle(pattern)[rest]``, the pattern naming only the axes the index names: the
axes after them were dropped, which DimShuffle allows for broadcastable (length-1) axes
only. So on a column, ``m[:, None]`` is (n, 1) where NumPy gives (n, 1, 1); with every
axis named, or an Ellipsis, the result is NumPy's. The expected shapes below are
Theano's, the values NumPy's of the same reading.
"""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import assert_same


def _both(var, out, value):
    return out.test_value, sn.function([var], out)(value)


@pytest.mark.parametrize("build, reference", [
    (lambda m: m[:, None], lambda v: v[:, :1]),          # Theano: m.dimshuffle(0, 'x')
    (lambda m: m[0, None], lambda v: v[0, :1]),          # dimshuffle(0, 'x')[0, :]
    (lambda m: m[1:, None], lambda v: v[1:, :1]),
    (lambda m: m[None, :], lambda v: v[None, :, 0]),     # dimshuffle('x', 0)
    (lambda m: m[:, None, 0], lambda v: v[:, None, 0]),  # every axis named: NumPy's reading
    (lambda m: m[..., None], lambda v: v[..., None]),    # Ellipsis expanded: NumPy's reading
], ids=["m[:, None]", "m[0, None]", "m[1:, None]", "m[None, :]", "m[:, None, 0]", "m[..., None]"])
def test_newaxis_on_a_column_reads_as_theano(build, reference):
    value = np.arange(4, dtype="float32").reshape(4, 1)
    m = T.col("m", test_value=value)
    for result in _both(m, build(m), value):
        assert_same(result, reference(value), "test value and compiled")


def test_a_dimshuffled_state_keeps_its_rank():
    """The attention decoder's case: a (batch, 1) state indexed with [:, None] stays
    (batch, 1), as in Theano; NumPy's (batch, 1, 1) grew an axis at every step."""
    value = np.array([0.5, -1.0, 2.0])
    h = T.dvector("h", test_value=value)
    state = h.dimshuffle(0, "x")
    expanded = state[:, None]
    assert expanded.broadcastable == (False, True)
    for result in _both(h, expanded, value):
        assert_same(result, value[:, None], "dimshuffled column")


def test_axes_of_other_lengths_keep_numpys_reading():
    """Theano raised ("You cannot drop a non-broadcastable dimension"); symnb gives
    NumPy's result."""
    value = np.arange(6, dtype="float64").reshape(3, 2)
    x = T.dmatrix("x", test_value=value)
    assert_same(x[:, None].test_value, value[:, None], "matrix")
    assert_same(sn.function([x], x[None])(value), value[None], "matrix, compiled")
    col = T.dcol("c", test_value=value[:, :1])
    assert_same(col[None].test_value, value[None, :, :1], "column, first axis not of length 1")
