"""symnb.sparse against SciPy and NumPy: test values (SciPy), compiled results (SciPy
of Theano's format), and the gradients against finite differences and Theano's
structured rules."""

import numpy as np
import pytest
import scipy.sparse as sp

import symnb as sn
import symnb.tensor as T
from symnb import sparse as S
from symnb.core.absent import NotInSymnbError


def _matrix(format, shape=(4, 3), seed=0, dtype="float64"):
    m = sp.random(*shape, density=0.5, format=format, random_state=seed, dtype=dtype)
    m.data += 0.5  # no entry near zero (and none stored as zero)
    return m


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_structured_dot_values_test_value_and_gradient(format):
    X, Y = _matrix(format), np.arange(6.0).reshape(3, 2)
    x = S.matrix(format, "x", dtype="float64")
    y = T.dmatrix("y")
    z = S.structured_dot(x, y)
    f = sn.function([x, y], [z, sn.grad(z.sum(), x), sn.grad((z ** 2).sum(), y)])
    value, gx, gy = f(X, Y)
    np.testing.assert_allclose(value, X @ Y)
    # Theano's structured gradient: (g @ y.T) at x's stored entries only, x's format.
    assert sp.issparse(gx) and gx.format == format
    np.testing.assert_allclose(gx.toarray(), (np.ones((4, 2)) @ Y.T) * (X.toarray() != 0))
    np.testing.assert_allclose(gy, X.T @ (2 * (X @ Y)))
    # the same from the test values (SciPy's, where the node is built)
    xs, ys = sn.shared(X, name="xs"), sn.shared(Y, name="ys")
    np.testing.assert_allclose(S.structured_dot(xs, ys).tag.test_value, X @ Y)


@pytest.mark.parametrize("format", ["csr", "csc"])
def test_conversions_and_shared_round_trip(format):
    X = _matrix(format, seed=1)
    xs = sn.shared(X, name="xs")
    assert isinstance(xs.type, S.SparseType) and xs.type.format == format
    dense = S.dense_from_sparse(xs)
    np.testing.assert_array_equal(dense.tag.test_value, X.toarray())
    back = S.csr_from_dense(dense) if format == "csc" else S.csc_from_dense(dense)
    f = sn.function([], [dense, back, xs.T, -xs])
    d, b, t, n = f()
    np.testing.assert_array_equal(d, X.toarray())
    assert b.format == ("csr" if format == "csc" else "csc")
    np.testing.assert_array_equal(b.toarray(), X.toarray())
    assert t.format == ("csc" if format == "csr" else "csr")
    np.testing.assert_array_equal(t.toarray(), X.toarray().T)
    np.testing.assert_array_equal(n.toarray(), -X.toarray())
    got = xs.get_value()
    assert got.format == format and (got != X).nnz == 0


def test_add_sub_mul_dense_and_sparse_values():
    A, B = _matrix("csr", seed=2), _matrix("csr", seed=3)
    D = np.linspace(-1, 1, 12).reshape(4, 3)
    a, b = S.csr_matrix("a", "float64"), S.csr_matrix("b", "float64")
    d = T.dmatrix("d")
    outs = [a + b, a + d, d + a, a - b, a * b, a * d, a * 3.0, a - d]
    f = sn.function([a, b, d], outs)
    res = f(A, B, D)
    want = [A + B, A.toarray() + D, A.toarray() + D, A - B, A.multiply(B), A.multiply(D),
            A * 3.0, A.toarray() - D]
    for got, expected in zip(res, want):
        got = got.toarray() if sp.issparse(got) else got
        expected = expected.toarray() if sp.issparse(expected) else np.asarray(expected)
        np.testing.assert_allclose(got, expected)
    assert sp.issparse(res[0]) and not sp.issparse(res[1]) and sp.issparse(res[5])


def test_mul_by_a_dense_matrix_keeps_the_pattern_where_the_dense_one_is_infinite():
    A = _matrix("csr", seed=4)
    D = np.full((4, 3), np.inf)
    a, d = S.csr_matrix("a", "float64"), T.dmatrix("d")
    got = sn.function([a, d], S.dense_from_sparse(a * d))(A, D)
    want = A.multiply(D).toarray()  # SciPy: inf at stored entries, absent elsewhere
    want[A.toarray() == 0] = 0
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("sparse_grad", [False, True])
def test_sp_sum_value_and_gradients(axis, sparse_grad):
    X = _matrix("csc", seed=5)
    x = S.csc_matrix("x", "float64")
    s = S.sp_sum(x, axis=axis, sparse_grad=sparse_grad)
    cost = (s ** 2).sum()
    f = sn.function([x], [s, sn.grad(cost, x)])
    value, g = f(X)
    np.testing.assert_allclose(value, np.asarray(X.sum(axis)).ravel() if axis is not None else X.sum())
    dense_g = 2 * np.broadcast_to(np.expand_dims(value, axis) if axis is not None else value, (4, 3))
    if sparse_grad:
        dense_g = dense_g * (X.toarray() != 0)
    assert g.format == "csc"
    np.testing.assert_allclose(g.toarray(), dense_g)


def test_dot_and_true_dot_with_gradients_against_finite_differences():
    X = _matrix("csr", (3, 4), seed=6)
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(4, 2))
    x, y = S.csr_matrix("x", "float64"), T.dmatrix("y")
    f = sn.function([x, y], [S.dot(x, y), S.true_dot(x, y), S.dot(y.T, S.transpose(x))])
    d, t, dt = f(X, Y)
    np.testing.assert_allclose(d, X @ Y)
    assert t.format == "csr"
    np.testing.assert_allclose(t.toarray(), X @ Y)
    np.testing.assert_allclose(dt, (X @ Y).T)
    # regular gradients: through the dense matrix, against finite differences
    S.verify_grad_sparse(lambda a, b: S.dot(a, b), [X, Y], rng=np.random.RandomState(1))
    S.verify_grad_sparse(lambda a, b: S.true_dot(a, b), [X, Y], rng=np.random.RandomState(2))
    # structured gradients: through the stored entries only
    S.verify_grad_sparse(S.structured_dot, [X, Y], structured=True, rng=np.random.RandomState(3))
    S.verify_grad_sparse(S.mul, [X, rng.uniform(0.5, 1.5, size=(3, 4))], structured=True,
                         rng=np.random.RandomState(4))


def test_csm_builds_from_its_parts_and_its_gradient_reaches_data():
    X = _matrix("csr", seed=7)
    data = T.dvector("data")
    built = S.CSR(data, X.indices, X.indptr, X.shape)
    cost = (S.dense_from_sparse(built) ** 2).sum()
    f = sn.function([data], [built, sn.grad(cost, data)])
    m, g = f(X.data)
    assert m.format == "csr"
    np.testing.assert_array_equal(m.toarray(), X.toarray())
    np.testing.assert_allclose(g, 2 * X.data)
    # csm_properties: the parts, from the test values
    xs = sn.shared(X)
    parts = S.csm_properties(xs)
    for var, want in zip(parts, (X.data, X.indices, X.indptr, X.shape)):
        np.testing.assert_array_equal(var.tag.test_value, want)
    with pytest.raises(Exception, match="number of stored entries"):
        sn.function([], parts[0])()


def test_compiled_calls_check_their_sparse_inputs():
    x = S.csr_matrix("x", "float64")
    f = sn.function([x], S.dense_from_sparse(x))
    # Theano's filter converts another format (test_indexing.py); a vector is refused
    with pytest.raises(TypeError, match="csr"):
        f(np.ones(2))
    # A stored zero is a zero where only values are read (as SciPy's toarray) ...
    stored_zero = sp.csr_matrix((np.array([0.0, 1.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    np.testing.assert_array_equal(f(stored_zero), [[0.0, 1.0]])
    k = sn.function([], S.structured_dot(S.as_sparse_variable(stored_zero), np.ones((2, 1))))
    np.testing.assert_array_equal(k(), [[1.0]])
    # ... and refused where the program reads which entries are stored (Theano's
    # structured gradient has an entry there; a dense matrix cannot have it)
    g = sn.function([x], sn.grad(S.sp_sum(x, sparse_grad=True), x))
    with pytest.raises(ValueError, match="explicit zeros"):
        g(stored_zero)
    with pytest.raises(ValueError, match="explicit zeros"):
        sn.function([], S.sp_ones_like(S.as_sparse_variable(stored_zero)))()


def test_types_and_names():
    assert S.SparseType("csr", "float64") == S.csr_dmatrix
    assert S.SparseType("csr", "float64") != T.dmatrix and T.dmatrix != S.csr_dmatrix
    v = S.csr_dmatrix("v")
    assert isinstance(v, S.SparseVariable) and v.format == "csr" and v.dtype == "float64"
    assert isinstance(S.as_sparse_variable(_matrix("csc")), S.SparseConstant)
    with pytest.raises(TypeError):
        S.as_sparse_variable(T.dmatrix())
    with pytest.raises(NotInSymnbError, match="basic sparse API"):
        S.Usmm


@pytest.mark.parametrize("stack, scipy_stack", [(S.hstack, sp.hstack), (S.vstack, sp.vstack)])
def test_hstack_vstack_values_and_gradient(stack, scipy_stack):
    A, B = _matrix("csr", (3, 3), seed=8), _matrix("csc", (3, 3), seed=9)
    a, b = S.csr_matrix("a", "float64"), S.csc_matrix("b", "float64")
    out = stack([a, b], format="csr")
    weights = T.dmatrix("w")
    cost = (S.dense_from_sparse(out) * weights).sum()
    W = np.arange(18.0).reshape(scipy_stack([A, B]).shape)
    value, ga, gb = sn.function([a, b, weights], [out, *sn.grad(cost, [a, b])])(A, B, W)
    assert value.format == "csr"
    np.testing.assert_array_equal(value.toarray(), scipy_stack([A, B]).toarray())
    # dense_from_sparse's structured gradient keeps the stack's stored entries; the
    # stack's own (regular) gradient splits it, sparse of the output's format
    half = W[:, :3] if stack is S.hstack else W[:3]
    other = W[:, 3:] if stack is S.hstack else W[3:]
    assert ga.format == "csr" and gb.format == "csr"
    np.testing.assert_array_equal(ga.toarray(), half * (A.toarray() != 0))
    np.testing.assert_array_equal(gb.toarray(), other * (B.toarray() != 0))
    # the regular gradient through every entry: against finite differences
    S.verify_grad_sparse(lambda p, q: stack([p, q], format="csr"), [A, B],
                         rng=np.random.RandomState(7))


@pytest.mark.parametrize("name, reference", [("sin", np.sin), ("sqrt", np.sqrt),
                                             ("structured_exp", np.exp), ("log1p", np.log1p)])
def test_structured_elementwise_functions_and_their_gradients(name, reference):
    X = _matrix("csc", seed=10)
    x = S.csc_matrix("x", "float64")
    fn = getattr(S, name)
    assert fn.__name__ == name
    y = fn(x)
    value = sn.function([x], y)(X)
    assert value.format == "csc"
    want = np.where(X.toarray() != 0, reference(X.toarray()), 0)
    np.testing.assert_allclose(value.toarray(), want)
    np.testing.assert_allclose(y.owner.op.perform(y.owner, [X])[0].toarray(), want)
    S.verify_grad_sparse(fn, [X], structured=True, rng=np.random.RandomState(5))
    S.verify_grad_sparse(lambda v: S.structured_pow(v, 3), [X], structured=True,
                         rng=np.random.RandomState(6))


def test_ifelse_refuses_sparse_branches_as_theano_refused_mixed_types():
    from symnb.ifelse import ifelse

    dense, csc, csr = T.dmatrix("d"), S.csc_matrix("c", "float64"), S.csr_matrix("r", "float64")
    cond = T.iscalar("cond")
    for a, b in [(dense, csc), (csc, dense), (csc, csr)]:
        with pytest.raises(TypeError, match="dense"):
            ifelse(cond, a, b)


def test_keras_backend_cases_a_constant_storing_a_zero():
    # Keras 2.2.4's test_sparse_dot and test_sparse_concat, as its Theano backend writes
    # them: the matrix stores a zero (its first entry), which only a product reads.
    x_d = np.array([0, 7, 2, 3], dtype=np.float32)
    x_r, x_c = np.array([0, 2, 2, 3]), np.array([4, 3, 2, 3])
    x_sparse = sp.csr_matrix((x_d, (x_r, x_c)), shape=(4, 5))
    assert x_sparse.nnz == 4  # the zero is stored
    W = np.random.default_rng(1).random((5, 4))
    product = S.structured_dot(S.as_sparse_variable(x_sparse), sn.shared(W)).eval()
    np.testing.assert_allclose(product, x_sparse.toarray() @ W, rtol=1e-6)
    for stack, axis in ((S.basic.vstack, 0), (S.basic.hstack, 1)):
        joined = stack([S.as_sparse_variable(x_sparse), S.as_sparse_variable(x_sparse)], format="csr")
        assert isinstance(joined.type, S.SparseType)
        dense = S.dense_from_sparse(joined).eval()
        np.testing.assert_array_equal(dense, np.concatenate([x_sparse.toarray()] * 2, axis=axis))
