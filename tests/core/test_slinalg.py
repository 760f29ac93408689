"""T.slinalg (Theano's theano.tensor.slinalg): test values (NumPy perform, no SciPy) and
compiled results against SciPy, dtypes included; gradients against finite differences;
matrices that cannot be factored raise on both paths, at the user's line."""

import numpy as np
import pytest
import scipy.linalg

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode, Mode
from symnb.core.graph.errors import TestValueError
from symnb.gradient import verify_grad
from symnb.tensor import slinalg
from tests.reference import check_paths, symbolic_like

FLOATS = ["float32", "float64"]
RTOL = {"float32": 2e-4, "float64": 1e-10}
# DebugMode without its NaN/Inf check (Theano's check_isfinite): these tests feed NaN on
# purpose, to see what each op makes of it.
MODES = [None, Mode(optimizer=None), DebugMode(check_isfinite=False)]
MODE_IDS = ["jit", "jit-unoptimized", "DebugMode"]


def spd(rng, n, dtype="float64"):
    a = rng.normal(size=(n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def with_garbage(value, rng, lower=True):
    """``value`` with random numbers in the triangle a lower (upper) op does not read."""
    garbage = rng.normal(size=value.shape).astype(value.dtype)
    return np.tril(value) + np.triu(garbage, 1) if lower else np.triu(value) + np.tril(garbage, -1)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_reads_one_triangle_as_scipy(dtype, lower, rng):
    value = with_garbage(spd(rng, 5, dtype), rng, lower)
    check_paths(slinalg.Cholesky(lower=lower), [value],
                lambda x: scipy.linalg.cholesky(x, lower=lower).astype(dtype), rtol=RTOL[dtype])


def test_cholesky_of_integers_is_float64(rng):
    value = np.array([[4, 2], [2, 3]], "int64")
    check_paths(slinalg.cholesky, [value], lambda x: scipy.linalg.cholesky(x, lower=True))


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_cholesky_not_positive_definite_raises(mode):
    x = T.dmatrix("x")
    factor = slinalg.cholesky(x)  # the factor
    f = sn.function([x], factor, mode=mode)
    np.testing.assert_allclose(f(np.eye(2) * 4), np.eye(2) * 2)
    with pytest.raises(np.linalg.LinAlgError) as info:
        f(-np.eye(2))
    assert isinstance(info.value, sn.errors.LinAlgError)
    assert "'x' is not positive definite" in str(info.value) and "# the factor" in str(info.value)
    nan = np.full((2, 2), np.nan)  # NaN in, NaN out, as NumPy: no error
    np.testing.assert_array_equal(np.isnan(f(nan)), np.isnan(np.linalg.cholesky(nan)))
    with pytest.raises(TestValueError, match="'m' is not positive definite"):
        slinalg.cholesky(T.dmatrix("m", test_value=-np.eye(2)))


def test_cholesky_failure_inside_a_loop_raises():
    xs = T.dtensor3("xs")
    factors, _ = sn.scan(lambda x: slinalg.cholesky(x), sequences=[xs])
    f = sn.function([xs], factors)
    good = np.stack([np.eye(2), 4 * np.eye(2)])
    np.testing.assert_allclose(f(good), np.linalg.cholesky(good))
    with pytest.raises(sn.errors.LinAlgError, match="not positive definite"):
        f(np.stack([np.eye(2), -np.eye(2)]))


def test_cholesky_on_error_nan_gives_nans_and_nan_gradients():
    op = slinalg.Cholesky(on_error="nan")
    x = T.dmatrix("x", test_value=-np.eye(2))
    with pytest.warns(sn.errors.NonFiniteTestValueWarning, match="4 NaN of its 4 entries"):
        factor = op(x)
    assert np.isnan(factor.test_value).all()
    g = sn.grad(factor.sum(), x)
    f = sn.function([x], [factor, g])
    bad, bad_grad = f(-np.eye(2))
    assert np.isnan(bad).all() and np.isnan(bad_grad).all() and np.isnan(g.test_value).all()
    good, good_grad = f(4 * np.eye(2))
    np.testing.assert_allclose(good, 2 * np.eye(2))
    assert np.isfinite(good_grad).all()
    with pytest.raises(ValueError, match="on_error"):
        slinalg.Cholesky(on_error="ignore")


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("on_error", ["raise", "nan"])
def test_cholesky_gradient(lower, on_error, rng):
    value = spd(rng, 4)
    verify_grad(slinalg.Cholesky(lower=lower, on_error=on_error), [value], rng=rng)


def smith_cholesky_grad(chol, dz):
    """Theano 1.0's CholeskyGrad.perform for a lower factor (S. P. Smith, 1995)."""
    n = chol.shape[0]
    f = np.tril(dz).copy()
    for k in range(n - 1, -1, -1):
        for j in range(k + 1, n):
            for i in range(j, n):
                f[i, k] -= f[i, j] * chol[j, k]
                f[j, k] -= f[i, j] * chol[i, k]
        for j in range(k + 1, n):
            f[j, k] /= chol[k, k]
            f[k, k] -= chol[j, k] * f[j, k]
        f[k, k] /= 2 * chol[k, k]
    return f


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_grad_op_is_theanos(dtype, rng):
    x = spd(rng, 5, dtype)
    chol = np.linalg.cholesky(x)
    dz = rng.normal(size=(5, 5)).astype(dtype)
    def lower(x_, l_, g_):
        return smith_cholesky_grad(l_.astype("float64"), g_.astype("float64")).astype(dtype)

    def upper(x_, u_, g_):
        return lower(x_, u_.T, g_.T).T

    check_paths(slinalg.CholeskyGrad(lower=True), [x, chol, dz], lower, rtol=RTOL[dtype] * 10)
    check_paths(slinalg.CholeskyGrad(lower=False), [x, chol.T.copy(), dz.T.copy()], upper,
                rtol=RTOL[dtype] * 10)


STRUCTURES = {
    "general": lambda a, b: scipy.linalg.solve(a, b),
    "symmetric": lambda a, b: scipy.linalg.solve(a, b),
    "lower_triangular": lambda a, b: scipy.linalg.solve_triangular(a, b, lower=True),
    "upper_triangular": lambda a, b: scipy.linalg.solve_triangular(a, b, lower=False),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_solve(structure, dtype, rng):
    a = spd(rng, 4, dtype) + rng.normal(size=(4, 4)).astype(dtype)  # triangles: unread part differs
    op = slinalg.Solve(A_structure=structure, lower=structure == "lower_triangular")
    for b in (rng.normal(size=4).astype(dtype), rng.normal(size=(4, 3)).astype(dtype)):
        check_paths(op, [a, b], lambda a_, b_: STRUCTURES[structure](a_, b_).astype(dtype),
                    rtol=RTOL[dtype] * 10)


def test_solve_instances_and_mixed_dtypes(rng):
    a, b = spd(rng, 3, "float32"), rng.normal(size=3)
    check_paths(slinalg.solve, [a, b], np.linalg.solve)  # float32 with float64: float64
    check_paths(slinalg.solve_lower_triangular, [a, b],
                lambda a_, b_: scipy.linalg.solve_triangular(a_, b_, lower=True))
    check_paths(slinalg.solve_upper_triangular, [a, b],
                lambda a_, b_: scipy.linalg.solve_triangular(a_, b_, lower=False))
    check_paths(slinalg.solve_symmetric, [a, b], np.linalg.solve)
    check_paths(slinalg.solve, [np.array([[2, 1], [1, 3]]), np.array([1, 2])], np.linalg.solve)


@pytest.mark.parametrize("a_dtype", ["uint8", "int64", "float16", "float32"])
@pytest.mark.parametrize("b_dtype", ["int8", "float16", "float32", "float64"])
def test_solve_dtypes_are_scipys(a_dtype, b_dtype, rng):
    # Theano's Solve took its output dtype from scipy.linalg.solve: float16 in float32
    a = (spd(rng, 3, "float64") * 4).astype(a_dtype) + np.eye(3, dtype=a_dtype)
    b = (rng.normal(size=(3, 2)) * 4).astype(b_dtype)
    expected = scipy.linalg.solve(a, b)
    x = slinalg.solve(symbolic_like(a, "a"), symbolic_like(b, "b"))
    assert x.dtype == expected.dtype
    check_paths(slinalg.solve, [a, b], scipy.linalg.solve, rtol=1e-3 if expected.dtype == "float32" else 1e-10)


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_solve_gradient(structure, rng):
    a = spd(rng, 3) + rng.normal(size=(3, 3))
    op = slinalg.Solve(A_structure=structure)
    verify_grad(op, [a, rng.normal(size=3)], rng=rng)
    verify_grad(op, [a, rng.normal(size=(3, 2))], rng=rng)


def test_solve_shape_and_singular_errors(rng):
    A = T.dmatrix("A", shape=(3, 3))
    with pytest.raises(ValueError, match="'rhs' needs 3 rows") as info:
        slinalg.solve(A, T.dvector("rhs", shape=(4,)))  # the solve
    assert "# the solve" in str(info.value)
    A, b = T.dmatrix("A"), T.dvector("b")
    x = slinalg.solve_lower_triangular(A, b)  # the triangular solve
    f = sn.function([A, b], x)
    with pytest.raises(ValueError, match="'A' has shape \\(3, 3\\) and 'b' has shape \\(2,\\)"):
        f(np.eye(3), np.ones(2))
    singular = np.tril(np.ones((3, 3)))
    singular[1, 1] = 0  # a zero on the diagonal
    with pytest.raises(sn.errors.LinAlgError, match="the lower triangle of 'A' is singular") as info:
        f(singular, np.ones(3))
    assert "# the triangular solve" in str(info.value)
    unread_nan = np.eye(3)
    unread_nan[np.triu_indices(3, 1)] = np.nan
    np.testing.assert_allclose(f(unread_nan, np.ones(3)), np.ones(3))  # the unread triangle: unread
    with pytest.raises(TestValueError, match="'S' is singular"):
        slinalg.solve(T.dmatrix("S", test_value=np.zeros((2, 2))), T.dvector("r", test_value=np.ones(2)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("lower", [True, False])
def test_eigvalsh(dtype, lower, rng):
    a = with_garbage(spd(rng, 4, dtype) - 4 * np.eye(4, dtype=dtype), rng, lower)
    b = with_garbage(spd(rng, 4, dtype), rng, lower)
    for no_b in (None, T.NoneConst):  # Theano's tests spell "no b" NoneConst
        check_paths(lambda a_: slinalg.eigvalsh(a_, no_b, lower), [a],
                    lambda a_: scipy.linalg.eigvalsh(a_, lower=lower).astype(dtype), rtol=RTOL[dtype] * 10)
    check_paths(lambda a_, b_: slinalg.eigvalsh(a_, b_, lower), [a, b],
                lambda a_, b_: scipy.linalg.eigvalsh(a_, b_, lower=lower).astype(dtype),
                rtol=RTOL[dtype] * 10)


@pytest.mark.parametrize("lower", [True, False])
def test_eigvalsh_gradient(lower, rng):
    a, b = spd(rng, 3) - 3 * np.eye(3), spd(rng, 3)
    verify_grad(lambda a_, b_: slinalg.eigvalsh(a_, b_, lower), [a, b], rng=rng)
    verify_grad(lambda a_: slinalg.eigvalsh(a_, None, lower), [a], rng=rng)


def test_eigvalsh_sizes_must_agree():
    with pytest.raises(ValueError, match="'b' has shape \\(3, 3\\); they must have the same size"):
        slinalg.eigvalsh(T.dmatrix("a", shape=(2, 2)), T.dmatrix("b", shape=(3, 3)))
    a, b = T.dmatrix("a"), T.dmatrix("b")
    f = sn.function([a, b], slinalg.eigvalsh(a, b))
    with pytest.raises(ValueError, match="'a' has shape \\(2, 2\\) and 'b' has shape \\(3, 3\\)"):
        f(np.eye(2), np.eye(3))
    with pytest.raises(TestValueError, match="'b' has shape \\(2, 3\\); it must be a square"):
        slinalg.eigvalsh(T.dmatrix("a", test_value=np.eye(2)), T.dmatrix("b", test_value=np.ones((2, 3))))


def test_eigvalsh_b_not_positive_definite():
    a, b = T.dmatrix("a"), T.dmatrix("b")
    w = slinalg.eigvalsh(a, b)  # the spectrum
    f = sn.function([a, b], w)
    with pytest.raises(sn.errors.LinAlgError, match="'b' is not positive definite") as info:
        f(np.eye(2), -np.eye(2))
    assert "# the spectrum" in str(info.value)


@pytest.mark.parametrize("dtype", FLOATS)
def test_expm(dtype, rng):
    for scale in (0.1, 1.0, 20.0):  # 20: scaling and squaring
        a = (rng.normal(size=(4, 4)) * scale / 4).astype(dtype)
        check_paths(slinalg.expm, [a], lambda a_: scipy.linalg.expm(a_.astype("float64")).astype(dtype),
                    rtol=RTOL[dtype] * 100)
    check_paths(slinalg.expm, [np.zeros((3, 3), dtype)], lambda a_: np.eye(3, dtype=dtype))


def test_expm_gradient(rng):
    verify_grad(slinalg.expm, [rng.normal(size=(3, 3))], rng=rng)
    verify_grad(slinalg.expm, [np.ones((3, 3))], rng=rng)  # repeated eigenvalues


def test_expm_grad_op_against_theanos_eigen_formula(rng):
    a, g = rng.normal(size=(3, 3)), rng.normal(size=(3, 3))

    def theano_expm_grad(a_, g_):  # Theano 1.0's ExpmGrad.perform
        w, v = scipy.linalg.eig(a_, right=True)
        u = scipy.linalg.inv(v).T
        exp_w = np.exp(w)
        with np.errstate(invalid="ignore"):  # 0 / 0 on the diagonal, filled below
            x = np.subtract.outer(exp_w, exp_w) / np.subtract.outer(w, w)
        np.fill_diagonal(x, exp_w)
        return u.dot(v.T.dot(g_).dot(u) * x).dot(v.T).real

    check_paths(slinalg.ExpmGrad(), [a, g], theano_expm_grad, rtol=1e-9)


@pytest.mark.parametrize("dtype", FLOATS)
def test_kron(dtype, rng):
    for sa, sb in (((2, 3), (4, 5)), ((1, 2), (3, 1)), ((3, 2), (2, 2))):
        a, b = rng.normal(size=sa).astype(dtype), rng.normal(size=sb).astype(dtype)
        check_paths(slinalg.kron, [a, b], np.kron)  # SciPy's kron (removed in 1.15): NumPy's for matrices
    verify_grad(slinalg.kron, [rng.normal(size=(2, 3)), rng.normal(size=(2, 2))], rng=rng)
    with pytest.raises(TypeError, match="must sum to 3 or more"):
        slinalg.kron(T.vector("u"), T.vector("v"))


def test_kron_of_a_matrix_and_a_vector_follows_theano(rng):
    a, b = rng.normal(size=(2, 3)), rng.normal(size=4)
    # Theano's kron: outer product reshaped to (2, 3, 4), axes 0 and 1 swapped, flattened
    check_paths(slinalg.kron, [a, b],
                lambda a_, b_: np.outer(a_, b_).reshape(2, 3, 4).transpose(1, 0, 2).ravel())


def test_ops_without_gradient_refuse():
    x = T.dmatrix("x", test_value=np.eye(2))
    out = slinalg.CholeskyGrad()(x, x, x)
    with pytest.raises(NotImplementedError, match="CholeskyGrad.* has no gradient"):
        sn.grad(out.sum(), x)


def test_reachable_as_theano_spells_it():
    import symnb.tensor.slinalg as module

    assert T.slinalg is module
    assert slinalg.cholesky == slinalg.Cholesky(lower=True, on_error="raise")
    assert slinalg.solve_lower_triangular.A_structure == "lower_triangular"
    x = symbolic_like(np.eye(2), "x")
    assert slinalg.cholesky(x).owner.op.display_name().startswith("Cholesky")
