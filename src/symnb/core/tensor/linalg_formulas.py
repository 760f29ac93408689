"""Formulas of the linear-algebra ops written once for NumPy and for ``jax.numpy``.

Each function takes the array module ``xp`` (``numpy`` in ``perform``, ``jax.numpy`` in the
lowering rules) and, where the two modules differ, the triangular solve to use: NumPy has
none (``numpy.linalg.solve`` on the triangle, whose zeros keep it exact), JAX has
``jax.scipy.linalg.solve_triangular``. The test value and the compiled program then
compute the same formula. The matrix exponential, whose algorithm needs a loop count
known from the values, has its NumPy reference here (``expm``); the rule uses
``jax.scipy.linalg.expm``, the same scaling and squaring of a Padé approximant.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["from_triangle", "fold_triangle", "eigh_grad", "cholesky_grad", "generalized_eigh",
           "generalized_eigvalsh_grad", "numpy_solve_triangular", "expm", "expm_frechet"]

#: ``solve_triangular(a, b, lower)``: ``a^-1 b`` for a triangular ``a``.
SolveTriangular = Callable[[Any, Any, bool], Any]


def numpy_solve_triangular(a: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """``a^-1 b`` reading only ``a``'s lower (or upper) triangle, as SciPy's
    ``solve_triangular`` (a zero on the diagonal raises ``LinAlgError``)."""
    return np.linalg.solve(np.tril(a) if lower else np.triu(a), b)


def from_triangle(xp: Any, a: Any, lower: bool) -> Any:
    """The symmetric matrix whose lower (or upper) triangle is ``a``'s: what LAPACK's
    symmetric routines read."""
    if lower:
        return xp.tril(a) + xp.swapaxes(xp.tril(a, -1), -1, -2)
    return xp.triu(a) + xp.swapaxes(xp.triu(a, 1), -1, -2)


def fold_triangle(xp: Any, g: Any, lower: bool) -> Any:
    """The gradient with respect to a matrix of which only one triangle is read: the
    other triangle's entries stand for the same values (a symmetric matrix), so their
    gradient is added to the triangle read, and they get none themselves."""
    if lower:
        return xp.tril(g) + xp.swapaxes(xp.triu(g, 1), -1, -2)
    return xp.triu(g) + xp.swapaxes(xp.tril(g, -1), -1, -2)


def eigh_grad(xp: Any, w: Any, v: Any, gw: Any, gv: Any, lower: bool) -> Any:
    """The gradient of ``eigh(x)`` (eigenvalues ``w``, eigenvectors ``v``) given those of
    its outputs, ``gw`` and ``gv`` (Theano's ``EighGrad``): perturbation theory,
    ``dw_n/dx_ij = v_in v_jn`` and ``dv_kn/dx_ij = sum_{m != n} v_km v_jn / (w_n - w_m)``."""
    n = w.shape[0]
    gaps = w[None, :] - w[:, None]                  # gaps[m, n] = w_n - w_m
    off = ~xp.eye(n, dtype=bool)
    inverse_gaps = xp.where(off, 1 / xp.where(off, gaps, 1), 0)
    projections = v.T @ gv                          # [m, n] = v[:, m] . gv[:, n]
    g = (v * gw) @ v.T + v @ (inverse_gaps * projections).T @ v.T
    return fold_triangle(xp, g, lower)


def cholesky_grad(xp: Any, chol: Any, g: Any, lower: bool, solve: SolveTriangular) -> Any:
    """The gradient of ``cholesky(x)`` (the factor ``chol``) given its gradient ``g``:
    I. Murray, "Differentiation of the Cholesky decomposition" (arXiv:1602.07527), as
    Theano's ``Cholesky.L_op`` writes it; a triangle of ``x`` (the one read)."""
    if not lower:
        chol, g = chol.T, g.T
    phi = xp.tril(chol.T @ g)
    phi = phi - xp.diag(xp.diagonal(phi)) / 2
    # chol^-T phi chol^-1, by two solves with the upper-triangular chol^T
    s = solve(chol.T, solve(chol.T, phi.T, False).T, False)
    grad = s + s.T - xp.diag(xp.diagonal(s))  # symmetric: its lower triangle is its upper's
    return xp.tril(grad) if lower else xp.triu(grad)


def generalized_eigh(xp: Any, a: Any, b: Any, lower: bool, solve: SolveTriangular) -> tuple[Any, Any]:
    """Eigenvalues (ascending) and eigenvectors of ``a v = w b v`` for symmetric ``a`` and
    symmetric positive definite ``b``, each read from one triangle (SciPy's ``eigh(a, b)``):
    with ``b = L L^T``, the eigenvectors ``u`` of ``L^-1 a L^-T`` give ``v = L^-T u``,
    normalized so that ``v^T b v = I``."""
    a, b = from_triangle(xp, a, lower), from_triangle(xp, b, lower)
    chol = xp.linalg.cholesky(b)
    left = solve(chol, a, True)                      # L^-1 a
    reduced = solve(chol, left.T, True)              # L^-1 a L^-T (a symmetric)
    w, u = xp.linalg.eigh((reduced + reduced.T) / 2)
    return w, solve(chol.T, u, False)


def generalized_eigvalsh_grad(xp: Any, a: Any, b: Any, gw: Any, lower: bool,
                              solve: SolveTriangular) -> tuple[Any, Any]:
    """The gradients of ``eigvalsh(a, b)`` with respect to ``a`` and ``b`` given ``gw``
    (Theano's ``EigvalshGrad``): ``v diag(gw) v^T`` and ``-v diag(gw w) v^T``."""
    w, v = generalized_eigh(xp, a, b, lower, solve)
    ga = (v * gw) @ v.T
    gb = -(v * (gw * w)) @ v.T
    return fold_triangle(xp, ga, lower), fold_triangle(xp, gb, lower)


# -- the matrix exponential in NumPy ---------------------------------------------------

#: Padé (13, 13) coefficients and the 1-norm bound below which it is accurate without
#: scaling (Higham 2005, "The scaling and squaring method for the matrix exponential
#: revisited"), as SciPy and JAX use them.
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def expm(a: np.ndarray) -> np.ndarray:
    """``exp(a)`` for a square matrix: Padé (13, 13) with scaling and squaring."""
    work = a.astype(np.float64)
    norm = np.linalg.norm(work, 1)
    if not np.isfinite(norm):
        return np.full(a.shape, np.nan)
    squarings = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > 0 else 0
    work = work / 2.0 ** squarings
    b = _PADE13
    ident = np.eye(a.shape[0])
    a2 = work @ work
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = work @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
                + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    result = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        result = result @ result
    return result


def expm_frechet(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The Fréchet derivative of ``expm`` at ``a`` in the direction ``e``: the upper right
    block of ``expm([[a, e], [0, a]])`` (Higham, "Functions of Matrices", 3.2). The
    gradient of ``sum(g * expm(a))`` is ``expm_frechet(a.T, g)``."""
    n = a.shape[0]
    block = np.zeros((2 * n, 2 * n))
    block[:n, :n] = block[n:, n:] = a
    block[:n, n:] = e
    return expm(block)[:n, n:]
