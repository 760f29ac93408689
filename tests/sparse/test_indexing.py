"""Sparse indexing (``x[i, j]``, ``x[a:b, c:d]``, ``x[[rows]]``, ``x[[rows], [cols]]``),
comparisons and the structure ops (``remove0``, ``diag``, ``square_diagonal``) against
SciPy: the test value (SciPy, where the node is built) and the compiled result (the
program holds the matrix dense) both equal SciPy's, and the gradients Theano defines
match finite differences."""

import numpy as np
import pytest
import scipy.sparse as sp

import symnb as sn
import symnb.tensor as T
from symnb import sparse as S


def _matrix(format, shape=(6, 5), seed=0, dtype="float64"):
    m = sp.random(*shape, density=0.5, format=format, random_state=seed, dtype=dtype)
    m.data += 0.5  # no stored zero
    return m


def _same(result, expected):
    """``result`` (a SciPy matrix or an array) equals SciPy's ``expected``, format too."""
    if sp.issparse(expected):
        assert sp.issparse(result) and result.format == expected.format
        assert result.shape == expected.shape
        np.testing.assert_array_equal(result.toarray(), expected.toarray())
    else:
        np.testing.assert_array_equal(np.asarray(result), np.asarray(expected).ravel()
                                      if np.ndim(result) == 1 else np.asarray(expected))


def _check(inputs, values, build, expected):
    """The test value and the compiled value of ``build(*inputs)`` are SciPy's
    ``expected`` (the test values set first: a node computes its own when built)."""
    for var, value in zip(inputs, values):
        var.tag.test_value = value
    output = build(*inputs)
    _same(output.tag.test_value, expected)
    _same(sn.function(inputs, output)(*values), expected)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_indexing_values_equal_scipys(format):
    X = _matrix(format)
    x = S.matrix(format, "x", dtype="float64")
    a, b, s = T.iscalar("a"), T.iscalar("b"), T.iscalar("s")
    with sn.config.change_flags(compute_test_value="raise"):
        _check([x, a, b], [X, 4, 2], lambda x, a, b: x[a, b], X[4, 2])
        _check([x, a], [X, -1], lambda x, a: x[a, 3], X[-1, 3])
        _check([x, a, b, s], [X, 1, 6, 2], lambda x, a, b, s: x[a:b:s, 1:4], X[1:6:2, 1:4])
        _check([x, a], [X, -2], lambda x, a: x[:a], X[:-2])
        _check([x], [X], lambda x: x[::-1, 1:], X[::-1, 1:])
        _check([x], [X], lambda x: x[[0, 3, 3, -1]], X[[0, 3, 3, -1]])
        _check([x], [X], lambda x: x[[0, 0, 5, 2], [1, 4, 0, -1]], X[[0, 0, 5, 2], [1, 4, 0, -1]])
    x, a, b = S.matrix(format, "x2", dtype="float64"), T.iscalar("a2"), T.iscalar("b2")
    out = x[a, b]
    assert isinstance(out.owner.op, S.GetItemScalar) and out.dtype == "float64" and out.ndim == 0
    assert isinstance(x[a:b].owner.op, S.GetItem2d) and x[a:b].format == format
    assert isinstance(x[[1, 2]].owner.op, S.GetItemList)
    assert isinstance(x[[1, 2], [0, 0]].owner.op, S.GetItem2Lists)


def test_symbolic_slice_bounds_specialize_and_shapes_follow():
    X = _matrix("csr", (9, 7), seed=1)
    x, a, b = S.csr_matrix("x", "float64"), T.iscalar("a"), T.iscalar("b")
    f = sn.function([x, a, b], [x[a:b], x[a:b].shape])
    for start, stop in [(1, 5), (0, 9), (3, -1), (7, 2)]:
        got, shape = f(X, start, stop)
        _same(got, X[start:stop])
        assert tuple(shape) == X[start:stop].shape


def test_an_index_out_of_range_is_numpys_index_error():
    X = _matrix("csr")
    x, i = S.csr_matrix("x", "float64"), T.iscalar("i")
    with pytest.raises(IndexError, match="out of bounds"):
        sn.function([x], x[[0, 6]])(X)
    with pytest.raises(IndexError, match="out of bounds"):
        sn.function([x], x[[0, 1], [0, 5]])(X)
    f = sn.function([x, i], x[i, 0])
    assert f(X, 5) == X[5, 0]
    with pytest.raises(IndexError, match="out of bounds"):
        f(X, 6)


def test_indexing_refusals_are_theanos():
    x, a, b = S.csr_matrix("x", "float64"), T.iscalar("a"), T.iscalar("b")
    with pytest.raises(NotImplementedError, match="no sparse vector"):
        x[a:b, 3]
    with pytest.raises(ValueError, match="Advanced indexing"):
        x[T.ivector("l"), a:b]
    with pytest.raises(ValueError, match="slice"):
        x[T.fscalar("f"):]
    with pytest.raises(NotImplementedError, match="no gradient"):
        sn.grad(x[a, b], x)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_gradients_of_row_and_entry_lists(format):
    X = _matrix(format, seed=2)
    rng = np.random.RandomState(3)
    S.verify_grad_sparse(lambda m: S.GetItemList()(m, index=np.asarray([0, 4, 1])), [X], rng=rng)
    S.verify_grad_sparse(lambda m: S.GetItem2Lists()(m, ind1=np.asarray([0, 2, -1]),
                                                     ind2=np.asarray([1, 3, 0])), [X], rng=rng)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_repeated_indices_gradient_is_theanos_last_write(format):
    # Theano's gradient ops write gz's rows (entries) in turn: a repeated index keeps
    # the last one (its loop of assignments), not their sum.
    X = _matrix(format, seed=4)
    x = S.matrix(format, "x", dtype="float64")
    w = np.arange(1.0, 31.0).reshape(6, 5)
    rows = [1, 3, 1]
    cost = T.sum(S.DenseFromSparse(structured=False)(x[rows]) * w[:3])
    g = sn.function([x], sn.grad(cost, x))(X)
    expected = np.zeros((6, 5))
    for a, r in enumerate(rows):
        expected[r] = w[a]
    np.testing.assert_array_equal(g.toarray(), expected)
    ind1, ind2 = [2, 0, 2], [4, 1, 4]
    g2 = sn.function([x], sn.grad(T.sum(x[ind1, ind2] * np.array([5.0, 6.0, 7.0])), x))(X)
    expected = np.zeros((6, 5))
    expected[2, 4], expected[0, 1] = 7.0, 6.0
    np.testing.assert_array_equal(g2.toarray(), expected)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_comparisons_values_equal_scipys(format):
    X, Y = _matrix(format, seed=5), _matrix(format, seed=6)
    D = np.random.default_rng(0).normal(size=(6, 5))
    x, y = S.matrix(format, "x", dtype="float64"), S.matrix(format, "y", dtype="float64")
    d = T.dmatrix("d")
    for op, compare in [(S.gt, np.greater), (S.lt, np.less), (S.ge, np.greater_equal),
                        (S.le, np.less_equal), (S.eq, np.equal), (S.neq, np.not_equal)]:
        ss, sd, ds = op(x, y), op(x, d), op(d, x)
        assert ss.format == format and ss.dtype == "uint8"
        assert not isinstance(sd, S.SparseVariable) and sd.dtype == ds.dtype == "uint8"
        got = sn.function([x, y, d], [ss, sd, ds])(X, Y, D)
        np.testing.assert_array_equal(got[0].toarray(), compare(X.toarray(), Y.toarray()))
        np.testing.assert_array_equal(got[1], compare(X.toarray(), D))
        np.testing.assert_array_equal(got[2], compare(D, X.toarray()))
    # the operators, and the test value
    x.tag.test_value, y.tag.test_value = X, Y
    with sn.config.change_flags(compute_test_value="raise"):
        np.testing.assert_array_equal((x > y).tag.test_value.toarray(), (X > Y).toarray())
        np.testing.assert_array_equal((x <= y).tag.test_value.toarray(), (X <= Y).toarray())


def test_remove0_diag_and_square_diagonal():
    with_zero = sp.csr_matrix((np.array([0.0, 2.0, 3.0]), np.array([0, 1, 2]), np.array([0, 2, 3, 3])),
                              shape=(3, 3))
    x = S.csr_matrix("x", "float64")
    r = sn.function([x], S.remove0(x))(with_zero)
    assert r.nnz == 2 and r.format == "csr"
    np.testing.assert_array_equal(r.toarray(), with_zero.toarray())
    X = _matrix("csc", (4, 4), seed=7)
    xc, v = S.csc_matrix("xc", "float64"), T.dvector("v")
    d, m = sn.function([xc, v], [S.diag(xc), S.square_diagonal(v)])(X, np.array([1.0, 0.0, 3.0]))
    np.testing.assert_array_equal(d, X.diagonal())
    assert m.format == "csc"
    np.testing.assert_array_equal(m.toarray(), np.diag([1.0, 0.0, 3.0]))
    rng = np.random.RandomState(8)
    S.verify_grad_sparse(S.diag, [X], rng=rng)
    S.verify_grad_sparse(S.square_diagonal, [np.array([1.0, 2.0, 3.0])], rng=rng)
    S.verify_grad_sparse(S.remove0, [X], rng=rng)
    with pytest.raises(ValueError, match="square"):
        sn.function([xc], S.diag(xc))(_matrix("csc", (4, 3)))


def test_a_matrix_of_the_other_format_or_dense_is_converted_as_theanos_filter():
    X = _matrix("csc", seed=9)
    x = S.csr_matrix("x", "float64")
    f = sn.function([x], S.dense_from_sparse(x))
    np.testing.assert_array_equal(f(X), X.toarray())
    np.testing.assert_array_equal(f(X.toarray()), X.toarray())
    with pytest.raises(TypeError, match="strict"):
        x.type.filter(X, strict=True)
    with pytest.raises(TypeError, match="dimensions"):
        f(np.ones(3))


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_scales_and_vector_products_equal_theanos_formulas(format):
    X = _matrix(format, seed=10)
    D = X.toarray()
    s_col, s_row = np.arange(1.0, 6.0), np.arange(1.0, 7.0)
    x, v, w = S.matrix(format, "x", dtype="float64"), T.dvector("v"), T.dvector("w")
    got = sn.function([x, v, w], [S.col_scale(x, v), S.row_scale(x, w), S.mul_s_v(x, v),
                                  S.structured_add_s_v(x, v), S.add_s_s_data(x, x),
                                  S.clean(x)])(X, s_col, s_row)
    expected = [D * s_col, D * s_row[:, None], D * s_col, D + (D != 0) * s_col, 2 * D, D]
    for result, value in zip(got, expected):
        assert sp.issparse(result) and result.format == format
        np.testing.assert_allclose(result.toarray(), value)
    rng = np.random.RandomState(11)
    S.verify_grad_sparse(S.col_scale, [X, s_col], structured=True, rng=rng)
    S.verify_grad_sparse(S.row_scale, [X, s_row], structured=True, rng=rng)
    S.verify_grad_sparse(S.mul_s_v, [X, s_col], structured=True, rng=rng)
    S.verify_grad_sparse(S.structured_add_s_v, [X, s_col], structured=True, rng=rng)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_sampling_dot_values_and_gradient(format):
    rng = np.random.default_rng(12)
    A, B = rng.normal(size=(6, 3)), rng.normal(size=(5, 3))
    P = _matrix(format, seed=13)
    a, b, p = T.dmatrix("a"), T.dmatrix("b"), S.matrix(format, "p", dtype="float64")
    result = sn.function([a, b, p], S.sampling_dot(a, b, p))(A, B, P)
    assert result.format == format
    np.testing.assert_allclose(result.toarray(), P.multiply(A @ B.T).toarray())
    S.verify_grad_sparse(lambda a_, b_: S.sampling_dot(a_, b_, P), [A, B],
                         rng=np.random.RandomState(14))
