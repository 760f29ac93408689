"""Linear algebra (``nlinalg``, ``slinalg``) -> ``jax.numpy.linalg`` / ``jax.scipy.linalg``.

Each rule computes what the op's ``perform`` computes, in the op's dtypes: the formulas
the two share are in ``symnb.core.tensor.linalg_formulas``. Symmetric routines read the
triangle the op names (``symmetrize_input=False``), as LAPACK does for NumPy. Matrix
products run at full precision (``_rule``): on GPUs XLA's default rounds float32
operands (TF32), as ``rules/blas.py`` says, which JAX's own routines (``expm``) and the
shared formulas would inherit.

Where NumPy raises ``LinAlgError`` (a matrix that is not positive definite, a singular
one, complex eigenvalues for ``eig``) XLA returns NaN or Inf: the rule checks its result
with the compiled program's run-time checks (``symnb.lower_xla.checks``) and a failed
check raises ``symnb.errors.LinAlgError`` with the op's message at the node's line. A
result that is not finite because the inputs are not is no failure: NumPy gives NaN
there too.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

from symnb.core.graph.basic import Apply, Constant
from symnb.core.tensor import nlinalg, nlinalg_diag, slinalg
from symnb.core.tensor.linalg_base import LinAlgError, LinAlgOp, square_problem
from symnb.core.tensor.linalg_formulas import (
    cholesky_grad, eigh_grad, generalized_eigh, generalized_eigvalsh_grad,
)
from symnb.lower_xla.checks import CheckKind, may_check, register_check_kind, require
from symnb.lower_xla.convert import as_dtype
from symnb.lower_xla.jax_private import initialize_lapack
from symnb.lower_xla.registry import before_running, lower, register_host_decider
from symnb.lower_xla.rules.python_op import python_op
from symnb.lower_xla.rules.shape import refuse, with_input_names

register_check_kind("linalg", CheckKind(lambda node, facts: node.op.failure(node),
                                        plain=np.linalg.LinAlgError, error=LinAlgError))


def _rule(op_class: type) -> Callable:
    """``@lower.register(op_class)`` for a rule whose callable runs with float32 matrix
    products at full precision (see the module docstring); a program holding such nodes
    read back from disk loads LAPACK's kernels first (``registry.before_running``)."""
    before_running.register(op_class)(lambda op: initialize_lapack())

    def register(make: Callable) -> Callable:
        @lower.register(op_class)
        @functools.wraps(make)
        def rule(op: Any, node: Apply) -> Callable:
            compute = make(op, node)

            @functools.wraps(compute)
            def at_full_precision(*arrays: Any) -> Any:
                with jax.default_matmul_precision("highest"):
                    return compute(*arrays)

            return at_full_precision

        return rule

    return register


@may_check.register(LinAlgOp)
def _linalg_may_check(op: LinAlgOp, node: Apply, known: set[int]) -> bool:
    return op.checks_at_run_time(node) and any(
        not isinstance(v, Constant) and id(v) not in known for v in node.inputs)


def _finite(x):
    return jnp.all(jnp.isfinite(x))


def _require_finite(node: Apply, result, read) -> None:
    """The node's result must be finite wherever what it read (``read``: arrays) is."""
    inputs_finite = jnp.all(jnp.stack([_finite(r) for r in read]))
    require(_finite(result) | ~inputs_finite, node, "linalg")


def _solve_triangular(a, b, lower: bool):
    """``a^-1 b`` reading one triangle of ``a``: the other is masked, since XLA's solve
    lets a NaN there through (NumPy's and SciPy's never read it)."""
    return jsl.solve_triangular(jnp.tril(a) if lower else jnp.triu(a), b, lower=lower)


def _square_check(fn_name: str, x) -> None:
    with_input_names(lambda names: refuse(square_problem(fn_name, names[0], x.shape)), 1)


def _in(node: Apply, *arrays):
    """The arrays in the node's first output dtype (NumPy's promotion, not JAX's)."""
    dtype = node.outputs[0].type.dtype
    return [as_dtype(a, dtype) for a in arrays]


@_rule(nlinalg.MatrixInverse)
def _matrix_inverse(op, node):
    def inverse(x):
        _square_check("matrix_inverse", x)
        (x,) = _in(node, x)
        result = jnp.linalg.inv(x)
        _require_finite(node, result, [x])
        return result

    return inverse


@_rule(nlinalg.MatrixPinv)
def _pinv(op, node):
    def pinv(x):
        (x,) = _in(node, x)
        return jnp.linalg.pinv(x, rtol=nlinalg.pinv_rtol(x.shape, str(x.dtype)))

    return pinv


@_rule(nlinalg.Det)
def _det(op, node):
    def det(x):
        _square_check("det", x)
        return jnp.linalg.det(*_in(node, x))

    return det


@_rule(nlinalg.Eig)
def _eig(op, node):
    def eig(x):
        _square_check("eig", x)
        (x,) = _in(node, x)
        w, v = jnp.linalg.eig(x)
        require(jnp.all(w.imag == 0) | ~_finite(x), node, "linalg")
        return w.real.astype(x.dtype), v.real.astype(x.dtype)

    return eig


@_rule(nlinalg.Eigh)
def _eigh(op, node):
    def eigh(x):
        _square_check("eigh", x)
        (x,) = _in(node, x)
        w, v = jnp.linalg.eigh(x, UPLO=op.UPLO, symmetrize_input=False)
        return w, v

    return eigh


@_rule(nlinalg.EighGrad)
def _eigh_grad(op, node):
    def grad(x, w, v, gw, gv):
        return eigh_grad(jnp, *_in(node, w, v, gw, gv), op.UPLO == "L")

    return grad


@_rule(nlinalg.QRFull)
def _qr(op, node):
    if _qr_on_host(op):
        return python_op(op, node)
    return lambda x: tuple(jnp.linalg.qr(*_in(node, x), mode=op.mode))


def _qr_on_host(op: nlinalg.QRFull) -> bool:
    """Mode 'raw' (LAPACK's geqrf output) has no public JAX function: NumPy computes it."""
    return op.mode == "raw"


register_host_decider(nlinalg.QRFull, _qr_on_host)


@_rule(nlinalg.QRIncomplete)
def _qr_r(op, node):
    return lambda x: jnp.linalg.qr(*_in(node, x), mode="r")


@_rule(nlinalg.SVD)
def _svd(op, node):
    def svd(x):
        result = jnp.linalg.svd(*_in(node, x), full_matrices=op.full_matrices,
                                compute_uv=op.compute_uv)
        return tuple(result) if op.compute_uv else result

    return svd


@_rule(nlinalg.lstsq)
def _lstsq(op, node):
    def lstsq(a, b, rcond=None):
        a, b = _in(node, a, b)
        if rcond is None:
            rcond = nlinalg.pinv_rtol(a.shape, str(a.dtype))
        else:  # LAPACK's gelsd, which NumPy calls: a cutoff <= 0 or >= 1 means its epsilon
            rcond = jnp.asarray(rcond, a.dtype)
            rcond = jnp.where((rcond <= 0) | (rcond >= 1), nlinalg.lapack_epsilon(str(a.dtype)), rcond)
        x, residuals, rank, s = jnp.linalg.lstsq(a, b, rcond)  # residuals always: see the op
        return x, residuals, rank.astype("int64"), s

    return lstsq


@_rule(slinalg.Cholesky)
def _cholesky(op, node):
    def cholesky(x):
        _square_check("cholesky", x)
        (x,) = _in(node, x)
        # The lower factor of the triangle read: the upper factor of x is the transpose
        # of the lower factor of x^T.
        read = x if op.lower else x.T
        factor = jax.lax.linalg.cholesky(read, symmetrize_input=False)
        if op.on_error == "raise":
            _require_finite(node, factor, [jnp.tril(read)])
        else:  # XLA's factor of a matrix not positive definite is partly NaN: all NaN
            factor = jnp.where(_finite(factor) | ~_finite(jnp.tril(read)), factor, jnp.nan)
        return factor if op.lower else factor.T

    return cholesky


@_rule(slinalg.CholeskyGrad)
def _cholesky_grad(op, node):
    def grad(x, chol, g):
        return cholesky_grad(jnp, *_in(node, chol, g), op.lower, _solve_triangular)

    return grad


@_rule(slinalg.Solve)
def _solve(op, node):
    def solve(a, b):
        with_input_names(lambda names: refuse(op.shape_problem(names, a.shape, b.shape)), 2)
        a, b = _in(node, a, b)
        if op.triangle is None:
            x = jnp.linalg.solve(a, b)
            read = a
        else:
            lower = op.triangle == "lower"
            x = _solve_triangular(a, b, lower)
            read = jnp.tril(a) if lower else jnp.triu(a)
        _require_finite(node, x, [read, b])
        return x

    return solve


@_rule(slinalg.Eigvalsh)
def _eigvalsh(op, node):
    def eigvalsh(a, b=None):
        given = [a] if b is None else [a, b]
        with_input_names(lambda names: refuse(op.shape_problem(names, [v.shape for v in given])),
                         len(given))
        if b is None:
            (a,) = _in(node, a)
            return jnp.linalg.eigvalsh(a, UPLO="L" if op.lower else "U", symmetrize_input=False)
        a, b = _in(node, a, b)
        w, _ = generalized_eigh(jnp, a, b, op.lower, _solve_triangular)
        triangle = jnp.tril if op.lower else jnp.triu
        _require_finite(node, w, [triangle(a), triangle(b)])
        return w

    return eigvalsh


@_rule(slinalg.EigvalshGrad)
def _eigvalsh_grad(op, node):
    def grad(a, *rest):
        *matrices, gw = _in(node, a, *rest)
        if len(matrices) == 1:
            matrices.append(jnp.eye(gw.shape[0], dtype=gw.dtype))
        grads = generalized_eigvalsh_grad(jnp, *matrices, gw, op.lower, _solve_triangular)
        return grads if len(node.outputs) == 2 else grads[0]

    return grad


@_rule(slinalg.Expm)
def _expm(op, node):
    def expm(a):
        _square_check("expm", a)
        return jsl.expm(*_in(node, a))

    return expm


@_rule(slinalg.ExpmGrad)
def _expm_grad(op, node):
    def grad(a, g):
        a, g = _in(node, a, g)
        return jsl.expm_frechet(a.T, g, compute_expm=False)

    return grad


@lower.register(nlinalg_diag.AllocDiag)
def _alloc_diag(op, node):
    return jnp.diag


@lower.register(nlinalg_diag.ExtractDiag)
def _extract_diag(op, node):
    return lambda x: jnp.diagonal(x, axis1=0, axis2=1)


@_rule(nlinalg_diag.TensorInv)
def _tensorinv(op, node):
    def tensorinv(a):
        (a,) = _in(node, a)
        result = jnp.linalg.tensorinv(a, ind=op.ind)
        _require_finite(node, result, [a])
        return result

    return tensorinv
