"""T.nlinalg (Theano's theano.tensor.nlinalg): test values (NumPy perform) and compiled
results against numpy.linalg, dtypes included; gradients against finite differences;
errors at the user's line."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import BuildError, TestValueError
from symnb.gradient import verify_grad
from symnb.tensor import nlinalg
from tests.reference import check_paths, symbolic_like

FLOATS = ["float32", "float64"]
RTOL = {"float32": 2e-4, "float64": 1e-10}


def well_conditioned(rng, n, dtype):
    """A random square matrix far from singular."""
    return (rng.normal(size=(n, n)) + n * np.eye(n)).astype(dtype)


def spd(rng, n, dtype):
    """A random symmetric positive definite matrix with distinct eigenvalues."""
    a = rng.normal(size=(n, n))
    return (a @ a.T + np.diag(np.arange(1, n + 1))).astype(dtype)


def signs_fixed(v):
    """Eigen/singular vectors (columns) with their largest entry made positive: each is
    defined up to its sign, which LAPACK builds may choose differently."""
    v = np.asarray(v)
    pick = np.argmax(np.abs(v), axis=0)
    return v * np.sign(v[pick, np.arange(v.shape[1])])


@pytest.mark.parametrize("dtype", FLOATS)
def test_inverse_det_pinv(dtype, rng):
    a = well_conditioned(rng, 4, dtype)
    rect = rng.normal(size=(5, 3)).astype(dtype)
    check_paths(nlinalg.matrix_inverse, [a], np.linalg.inv, rtol=RTOL[dtype])
    check_paths(nlinalg.det, [a], lambda x: np.asarray(np.linalg.det(x)), rtol=RTOL[dtype])
    check_paths(nlinalg.pinv, [rect], np.linalg.pinv, rtol=RTOL[dtype])
    check_paths(nlinalg.pinv, [rect.T], np.linalg.pinv, rtol=RTOL[dtype])


def test_integer_inputs_give_float64_as_numpy():
    a = np.array([[2, 1], [1, 3]], "int32")
    check_paths(nlinalg.matrix_inverse, [a], np.linalg.inv)
    check_paths(nlinalg.det, [a], lambda x: np.asarray(np.linalg.det(x)))
    check_paths(lambda x: nlinalg.eigh(x)[0], [a], lambda x: np.linalg.eigh(x)[0])


def test_float16_and_complex_are_refused_at_the_users_line():
    x = T.matrix("x", dtype="float16")
    with pytest.raises(TypeError) as info:
        nlinalg.matrix_inverse(x)  # the float16 inverse
    assert "float16" in str(info.value) and "# the float16 inverse" in str(info.value)
    with pytest.raises(TypeError, match="complex64"):
        nlinalg.det(T.matrix("z", dtype="complex64"))


@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh_both_triangles(dtype, rng):
    a = spd(rng, 5, dtype)
    a_lower = np.tril(a) + np.triu(rng.normal(size=(5, 5)), 1).astype(dtype)  # upper: unread
    for uplo, value in (("L", a_lower), ("U", a_lower.T.copy())):
        w = check_paths(lambda x: nlinalg.eigh(x, uplo)[0], [value],
                        lambda x: np.linalg.eigh(x, uplo)[0], rtol=RTOL[dtype])
        x = symbolic_like(value, "x")
        v = nlinalg.eigh(x, uplo)[1]
        compiled = sn.function([x], v)(value)
        expected = np.linalg.eigh(value, uplo)[1]
        assert v.test_value.dtype == compiled.dtype == np.dtype(dtype)
        for got in (v.test_value, compiled):
            np.testing.assert_allclose(signs_fixed(got), signs_fixed(expected), atol=RTOL[dtype] * 10)
        assert np.all(np.diff(w) > 0)


def test_eig_real_spectrum_and_complex_refused(rng):
    a = np.diag([1.0, 2.0, 5.0]) + np.triu(rng.normal(size=(3, 3)), 1)  # eigenvalues 1, 2, 5
    check_paths(lambda x: nlinalg.eig(x)[0], [a], lambda x: np.linalg.eig(x)[0].real)
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i
    x = T.dmatrix("x", test_value=np.eye(2))
    w, v = nlinalg.eig(x)  # the spectrum
    with pytest.raises(np.linalg.LinAlgError, match="complex eigenvalues") as info:
        sn.function([x], w)(rotation)
    assert isinstance(info.value, sn.errors.LinAlgError) and "# the spectrum" in str(info.value)
    with pytest.raises(TestValueError, match="complex eigenvalues"):
        nlinalg.eig(T.dmatrix("r", test_value=rotation))


@pytest.mark.parametrize("dtype", FLOATS)
def test_qr_modes(dtype, rng):
    for shape in ((5, 3), (3, 5), (4, 4)):
        value = rng.normal(size=shape).astype(dtype)
        x = symbolic_like(value, "x")
        for mode in ("reduced", "complete"):
            q, r = nlinalg.qr(x, mode)
            nq, nr = np.linalg.qr(value, mode)
            compiled = sn.function([x], [q, r])(value)
            for got in ((q.test_value, r.test_value), compiled):
                assert got[0].dtype == got[1].dtype == np.dtype(dtype)
                assert got[0].shape == nq.shape and got[1].shape == nr.shape
                np.testing.assert_allclose(got[0] @ got[1], value, atol=RTOL[dtype] * 10)
                np.testing.assert_allclose(np.abs(got[1]), np.abs(nr), atol=RTOL[dtype] * 10)
        check_paths(lambda v: nlinalg.qr(v, "r"), [value],
                    lambda v: np.linalg.qr(v, "r"), rtol=RTOL[dtype])
        # 'raw': LAPACK's Householder reflectors and scales, NumPy's on the host
        h, tau = nlinalg.qr(x, "raw")
        nh, ntau = np.linalg.qr(value, "raw")
        assert h.owner.op == nlinalg.QRFull("raw")
        for got in ((h.test_value, tau.test_value), sn.function([x], [h, tau])(value)):
            assert got[0].shape == nh.shape == shape[::-1] and got[1].shape == ntau.shape
            assert got[0].dtype == got[1].dtype == np.dtype(dtype)
            np.testing.assert_allclose(got[0], nh, rtol=RTOL[dtype], atol=RTOL[dtype])
            np.testing.assert_allclose(got[1], ntau, rtol=RTOL[dtype], atol=RTOL[dtype])
    with pytest.raises(ValueError, match="'economic'"):
        nlinalg.qr(T.dmatrix("m"), "economic")


@pytest.mark.parametrize("dtype", FLOATS)
def test_svd(dtype, rng):
    value = rng.normal(size=(5, 3)).astype(dtype)
    check_paths(lambda x: nlinalg.svd(x, compute_uv=False), [value],
                lambda x: np.linalg.svd(x, compute_uv=False), rtol=RTOL[dtype])
    x = symbolic_like(value, "x")
    for full in (True, False):
        u, s, vt = nlinalg.svd(x, full_matrices=full)
        nu, ns, nvt = np.linalg.svd(value, full_matrices=full)
        compiled = sn.function([x], [u, s, vt])(value)
        for got in ((u.test_value, s.test_value, vt.test_value), compiled):
            assert [g.shape for g in got] == [nu.shape, ns.shape, nvt.shape]
            np.testing.assert_allclose(got[1], ns, rtol=RTOL[dtype] * 10)
            k = len(ns)
            np.testing.assert_allclose((got[0][:, :k] * got[1]) @ got[2][:k], value, atol=RTOL[dtype] * 10)


def test_functions_built_from_other_ops(rng):
    a = well_conditioned(rng, 3, "float64")
    b = rng.normal(size=(3, 3))
    vec = rng.normal(size=4)
    check_paths(lambda x, y: nlinalg.matrix_dot(x, y, x), [a, b], lambda x, y: x @ y @ x)
    for n in (0, 1, 2, 3, 5, -1, -2):
        check_paths(lambda x: nlinalg.matrix_power(x, n), [a],
                    lambda x: np.linalg.matrix_power(x, n), rtol=1e-9)
    check_paths(nlinalg.trace, [b], lambda x: np.asarray(np.trace(x)))
    check_paths(nlinalg.trace, [rng.normal(size=(2, 4))], lambda x: np.asarray(np.trace(x)))
    check_paths(nlinalg.extract_diag, [rng.normal(size=(3, 4, 2))], np.diagonal)
    check_paths(nlinalg.alloc_diag, [vec], np.diag)
    check_paths(nlinalg.diag, [b], np.diag)
    check_paths(nlinalg.diag, [vec], np.diag)


@pytest.mark.parametrize("ord", [None, "inf", "-inf", np.inf, 0, 1, 3, 0.5])
def test_vector_norms(ord, rng):
    v = rng.normal(size=6)
    v[2] = 0.0
    numpy_ord = {"inf": np.inf, "-inf": -np.inf}.get(ord, ord)
    expected = (lambda x: np.asarray(np.count_nonzero(x))) if ord == 0 else \
        (lambda x: np.asarray(np.linalg.norm(x, numpy_ord)))
    # A float64 program: floatX=float64, so that the exponent 1 / ord (a Python float, as
    # in Theano's norm) is a float64 constant.
    with sn.config.change_flags(floatX="float64"):
        check_paths(lambda x: nlinalg.norm(x, ord), [v], expected, rtol=1e-12)


@pytest.mark.parametrize("ord", [None, "fro", "inf", "-inf", 1, -1])
def test_matrix_norms(ord, rng):
    m = rng.normal(size=(3, 4))
    numpy_ord = {"inf": np.inf, "-inf": -np.inf}.get(ord, ord)
    check_paths(lambda x: nlinalg.norm(x, ord), [m], lambda x: np.asarray(np.linalg.norm(x, numpy_ord)),
                rtol=1e-12)
    with pytest.raises(ValueError, match="order 2 is not supported"):
        nlinalg.norm(T.dmatrix("m"), 2)


def test_tensorinv_and_tensorsolve(rng):
    a = well_conditioned(rng, 6, "float64").reshape(2, 3, 6)
    check_paths(lambda x: nlinalg.tensorinv(x, 2), [a], lambda x: np.linalg.tensorinv(x, 2), rtol=1e-9)
    check_paths(lambda x: nlinalg.tensorinv(x, 1), [a.reshape(6, 2, 3)],
                lambda x: np.linalg.tensorinv(x, 1), rtol=1e-9)
    square = well_conditioned(rng, 6, "float64").reshape(2, 3, 6)
    b = rng.normal(size=(2, 3))
    check_paths(nlinalg.tensorsolve, [square, b], np.linalg.tensorsolve, rtol=1e-9)
    moved = np.moveaxis(square, 2, 0).copy()  # (6, 2, 3): axes=(0,) moves its axis 0 to the end
    check_paths(lambda x, y: nlinalg.tensorsolve(x, y, axes=(0,)), [moved, b],
                lambda x, y: np.linalg.tensorsolve(x, y, axes=(0,)), rtol=1e-9)


def test_shape_errors_name_the_variable_at_the_users_line():
    rect = T.matrix("rect", shape=(2, 3))
    with pytest.raises(BuildError) as info:
        nlinalg.matrix_inverse(rect)  # the inverse
    text = str(info.value)
    assert "'rect' has shape (2, 3); it must be a square matrix" in text and "# the inverse" in text
    with pytest.raises(TypeError, match="'cube' .* has 3 dimension"):
        nlinalg.det(T.tensor3("cube"))
    bad = T.dmatrix("bad", test_value=np.ones((2, 3)))
    with pytest.raises(TestValueError, match="'bad' has shape \\(2, 3\\); it must be a square"):
        nlinalg.det(bad)
    x = T.dmatrix("x")
    f = sn.function([x], nlinalg.det(x))
    with pytest.raises(ValueError, match="'x' has shape \\(2, 3\\); it must be a square"):
        f(np.ones((2, 3)))


def test_singular_inverse_raises_on_both_paths():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(TestValueError, match="'s' is singular"):
        nlinalg.matrix_inverse(T.dmatrix("s", test_value=singular))
    x = T.dmatrix("x")
    f = sn.function([x], nlinalg.matrix_inverse(x))  # the inverse
    with pytest.raises(sn.errors.LinAlgError, match="'x' is singular") as info:
        f(np.zeros((2, 2)))
    assert "# the inverse" in str(info.value)
    nan = np.full((2, 2), np.nan)  # NaN in, NaN out, as NumPy: no error
    assert np.isnan(f(nan)).all() and np.isnan(np.linalg.inv(nan)).all()


@pytest.mark.parametrize("dtype", FLOATS)
def test_gradients(dtype, rng):
    tol = dict(abs_tol=5e-2, rel_tol=5e-2) if dtype == "float32" else {}
    a = well_conditioned(rng, 3, dtype)
    rect = rng.normal(size=(4, 3)).astype(dtype)
    verify_grad(nlinalg.matrix_inverse, [a], rng=rng, **tol)
    verify_grad(nlinalg.det, [a], rng=rng, **tol)
    verify_grad(nlinalg.pinv, [rect], rng=rng, **tol)
    verify_grad(lambda x: nlinalg.matrix_power(x, 3), [a], rng=rng, **tol)
    verify_grad(lambda x: nlinalg.matrix_power(x, -2), [a], rng=rng, **tol)
    verify_grad(nlinalg.trace, [rect], rng=rng, **tol)
    verify_grad(lambda x: nlinalg.norm(x, None), [rect], rng=rng, **tol)
    verify_grad(lambda x: nlinalg.tensorinv(x.reshape((3, 1, 3)), 1), [a], rng=rng, **tol)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gradient(uplo, rng):
    a = spd(rng, 4, "float64")
    verify_grad(lambda x: nlinalg.eigh(x, uplo)[0], [a], rng=rng)
    # the eigenvectors' signs, as LAPACK picks them, are stable under small perturbations
    verify_grad(lambda x: nlinalg.eigh(x, uplo)[1], [a], rng=rng)
    verify_grad(lambda x: nlinalg.eigh(x, uplo)[0] * nlinalg.eigh(x, uplo)[1].sum(), [a], rng=rng)


def test_ops_without_gradient_refuse_at_the_users_line():
    x = T.dmatrix("x", test_value=np.eye(3))
    for output in (nlinalg.svd(x)[1], nlinalg.qr(x)[0], nlinalg.eig(x)[0]):
        with pytest.raises(NotImplementedError, match="has no gradient") as info:
            sn.grad(output.sum(), x)  # the gradient
        assert "# the gradient" in str(info.value)


def test_reachable_as_theano_spells_it():
    import symnb.tensor.nlinalg as module

    assert T.nlinalg is module
    assert isinstance(T.nlinalg.matrix_inverse, T.nlinalg.MatrixInverse)
    # Theano's nlinalg.diag: T.diag without its k, building nlinalg's own ops
    assert isinstance(T.nlinalg.diag(T.vector()).owner.op, T.nlinalg.AllocDiag)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lstsq(dtype, rng):
    tall = rng.normal(size=(6, 3)).astype(dtype)
    for b in (rng.normal(size=6).astype(dtype), rng.normal(size=(6, 2)).astype(dtype)):
        a_var, b_var = symbolic_like(tall, "a"), symbolic_like(b, "b")
        outputs = nlinalg.lstsq()(a_var, b_var, -1.0)
        x, residuals, rank, s = np.linalg.lstsq(tall, b, rcond=-1)
        compiled = sn.function([a_var, b_var], outputs)(tall, b)
        for got in ([o.test_value for o in outputs], compiled):
            assert [g.dtype for g in got] == [np.dtype(dtype)] * 2 + [np.dtype("int64"), np.dtype(dtype)]
            for actual, expected in zip(got, (x, residuals, rank, s)):
                np.testing.assert_allclose(actual, expected, rtol=RTOL[dtype] * 10, atol=RTOL[dtype] * 10)
    # rank-deficient and wide: NumPy gives no residuals; symnb gives them (see the op)
    deficient = np.hstack([tall, tall[:, :1]]).astype("float64")
    b = rng.normal(size=6)
    a_var, b_var = symbolic_like(deficient, "a"), symbolic_like(b, "b")
    outputs = nlinalg.lstsq()(a_var, b_var)
    x, _, rank, s = np.linalg.lstsq(deficient, b)
    compiled = sn.function([a_var, b_var], outputs)(deficient, b)
    for got in ([o.test_value for o in outputs], compiled):
        np.testing.assert_allclose(got[0], x, atol=1e-10)
        np.testing.assert_allclose(got[1], [np.sum((b - deficient @ x) ** 2)], atol=1e-10)
        assert got[2] == rank == 3
        np.testing.assert_allclose(got[3], s, atol=1e-10)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_test_values_are_the_compiled_eigenvectors_signs_included(uplo):
    # An eigenvector's sign is LAPACK's choice; the test value and the program use the
    # same LAPACK, so they agree to the bit (NumPy's own build differs in about one
    # float32 case in five). Eigh is an Eig, as in Theano.
    rng = np.random.default_rng(5)
    x = T.fmatrix("x")
    w, v = nlinalg.eigh(x, uplo)
    assert isinstance(w.owner.op, nlinalg.Eig)
    f = sn.function([x], [w, v])
    for n in rng.integers(1, 8, size=60):
        value = rng.normal(size=(n, n)).astype("float32")
        performed = w.owner.op.perform(w.owner, [value])
        compiled = f(value)
        for got, expected in zip(compiled, performed):
            np.testing.assert_array_equal(got, expected)
        symmetric = np.tril(value) + np.tril(value, -1).T if uplo == "L" else np.triu(value) + np.triu(value, 1).T
        np.testing.assert_allclose(np.linalg.eigvalsh(symmetric), compiled[0], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(symmetric @ compiled[1], compiled[1] * compiled[0], atol=1e-4)


@pytest.mark.parametrize("rcond", [1, 2.5, 0, -1, 0.5, 0.1])
def test_lstsq_reads_rcond_as_lapack_does(rcond):
    # gelsd (NumPy's lstsq) takes a cutoff at or below 0 or at or above 1 as its epsilon:
    # rcond=1 keeps both singular values here (5.4 and 0.93), 0.5 drops the smaller one
    a, b = np.array([[2.0, 1.0], [3.0, 4.0]]), np.array([[17.0, 20.0], [43.0, 50.0]])
    a_var, b_var, r_var = T.dmatrix("a"), T.dmatrix("b"), T.dscalar("rcond")
    outputs = nlinalg.lstsq()(a_var, b_var, r_var)
    x, _, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    compiled = sn.function([a_var, b_var, r_var], outputs)(a, b, float(rcond))
    performed = outputs[0].owner.op.perform(outputs[0].owner, [a, b, np.float64(rcond)])
    for got in (compiled, performed):
        np.testing.assert_allclose(got[0], x, rtol=1e-12, atol=1e-12)
        assert int(got[2]) == rank
        np.testing.assert_allclose(got[3], s, rtol=1e-12)


def test_infer_shape_of_every_linalg_op_matches_perform(rng):
    from symnb.tensor import slinalg

    tall, wide = rng.normal(size=(5, 3)), rng.normal(size=(3, 5))
    square = well_conditioned(rng, 4, "float64")
    x, w = symbolic_like(tall, "x"), symbolic_like(wide, "w")
    a, b = symbolic_like(square, "a"), symbolic_like(rng.normal(size=(4, 2)), "b")
    outputs = [nlinalg.matrix_inverse(a), nlinalg.pinv(x), nlinalg.det(a), *nlinalg.eig(T.dot(a, a.T)),
               *nlinalg.eigh(a), *nlinalg.qr(x), *nlinalg.qr(w, "complete"), nlinalg.qr(w, "r"),
               *nlinalg.svd(x), *nlinalg.svd(w, False), nlinalg.svd(x, compute_uv=False),
               *nlinalg.lstsq()(x, x[:, 0]), *nlinalg.lstsq()(x, x),
               slinalg.cholesky(T.dot(a, a.T)), slinalg.solve(a, b), slinalg.solve(a, b[:, 0]),
               slinalg.eigvalsh(a, None), slinalg.expm(a)]
    for node in {id(o.owner): o.owner for o in outputs}.values():
        shapes = node.op.infer_shape(node, [v.test_value.shape for v in node.inputs])
        assert [tuple(int(n) for n in s) for s in shapes] == [o.test_value.shape for o in node.outputs], \
            node.op
