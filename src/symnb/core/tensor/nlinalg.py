"""Theano's ``theano.tensor.nlinalg``: linear algebra on matrices, ``numpy.linalg``'s.

Ops: ``MatrixInverse``, ``MatrixPinv``, ``Det``, ``Eig``, ``Eigh`` (and its gradient
``EighGrad``), ``QRFull``/``QRIncomplete``, ``SVD``, ``lstsq``, and ``matrix_dot``, which
their gradients use; the module's functions built from other ops are in
``linalg_functions``. Dtypes follow ``numpy.linalg``
(``linalg_base``); gradients are Theano's formulas. Where Theano had no gradient (QR,
SVD, Eig, lstsq), ``sn.grad`` refuses and says so rather than letting zeros through.

Differences from Theano, each to avoid a silently wrong number: integer inputs give
float64 results (Theano truncated them to the input's integer dtype); ``eig`` keeps
Theano's real outputs but raises where an eigenvalue is complex (Theano dropped the
imaginary parts).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import identity_like, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import dot
from symnb.core.tensor.linalg_base import (
    LinAlgOp, check_square, linalg_dtype, matrix_operand, no_gradient,
)
from symnb.core.tensor.linalg_formulas import eigh_grad
from symnb.core.tensor.shape import transpose

__all__ = ["MatrixInverse", "matrix_inverse", "MatrixPinv", "pinv", "Det", "det", "Eig", "eig",
           "Eigh", "eigh", "EighGrad", "QRFull", "QRIncomplete", "qr", "SVD", "svd", "lstsq",
           "matrix_dot"]


def square_shape(shape: Sequence[int | None]) -> tuple[int | None, int | None]:
    """The static shape of a square matrix whose static shape is ``shape``: a length
    known on either axis is known on both."""
    n = shape[0] if shape[0] is not None else shape[1]
    return (n, n)


class MatrixInverse(LinAlgOp):
    """``numpy.linalg.inv`` of a square matrix (Theano's ``MatrixInverse``)."""

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("matrix_inverse", x, self, square=True)
        dtype = linalg_dtype("matrix_inverse", x, op=self)
        return Apply(self, [x], [TensorType(dtype, square_shape(x.type.shape))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        check_square("matrix_inverse", node, 0, x)
        try:
            result = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            raise np.linalg.LinAlgError(self.failure(node)) from None
        return [np.asarray(result, dtype=node.outputs[0].type.dtype)]

    def failure(self, node: Apply) -> str:
        return (f"matrix_inverse: {label(node.inputs[0])!r} is singular (its inverse is not "
                f"finite)")

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        # d(x^-1) = -x^-1 dx x^-1, so the gradient is -(x^-1)^T g (x^-1)^T.
        (inverse,) = outputs
        (g,) = output_grads
        return [m.neg(transpose(matrix_dot(inverse, transpose(g), inverse)))]


matrix_inverse = MatrixInverse()


class MatrixPinv(Op):
    """``numpy.linalg.pinv``: the Moore-Penrose pseudo-inverse of a matrix (Theano's
    ``MatrixPinv``); singular values below ``max(M, N) * eps`` times the largest are
    dropped, as in NumPy 2 and JAX."""

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("pinv", x, self)
        dtype = linalg_dtype("pinv", x, op=self)
        return Apply(self, [x], [TensorType(dtype, tuple(reversed(x.type.shape)))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        dtype = node.outputs[0].type.dtype
        return [np.asarray(np.linalg.pinv(x.astype(dtype), rtol=pinv_rtol(x.shape, dtype)),
                           dtype=dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [tuple(reversed(input_shapes[0]))]

    def L_op(self, inputs, outputs, output_grads):
        # Theano's formula (Wikipedia, "Moore-Penrose inverse", derivative).
        (x,), (z,), (gz,) = inputs, outputs, output_grads
        x_z, z_x = dot(x, z), dot(z, x)
        off_range = m.sub(identity_like(x_z), x_z)  # I - x x+
        off_rows = m.sub(identity_like(z_x), z_x)   # I - x+ x
        grad = m.add(m.add(m.neg(matrix_dot(z, transpose(gz), z)),
                           matrix_dot(z, transpose(z), gz, off_range)),
                     matrix_dot(off_rows, gz, transpose(z), z))
        return [transpose(grad)]


def pinv_rtol(shape: Sequence[int], dtype: str) -> float:
    """The relative cutoff of small singular values: ``max(M, N) * eps``."""
    return max(shape) * float(np.finfo(dtype).eps)


def lapack_epsilon(dtype: str) -> float:
    """LAPACK's relative machine precision (``dlamch('E')``: half NumPy's ``eps``), the
    cutoff ``gelsd`` uses for an ``rcond`` at or below 0 or at or above 1."""
    return float(np.finfo(dtype).eps) / 2


pinv = MatrixPinv()


class Det(Op):
    """``numpy.linalg.det`` of a square matrix, a scalar (Theano's ``Det``)."""

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("det", x, self, square=True)
        return Apply(self, [x], [TensorType(linalg_dtype("det", x, op=self), ())])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        check_square("det", node, 0, x)
        return [np.asarray(np.linalg.det(x), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [()]

    def L_op(self, inputs, outputs, output_grads):
        # d det(x) = det(x) tr(x^-1 dx): the gradient is g det(x) x^-T.
        (x,), (d,), (g,) = inputs, outputs, output_grads
        return [m.mul(m.mul(g, d), transpose(matrix_inverse(x)))]


det = Det()


class Eigensystem(Op):
    """Base class of ``Eig`` and ``Eigh``: a square matrix in, its eigenvalues ``w`` (a
    vector) and eigenvectors ``v`` (the columns of a matrix) out."""

    fn_name = ""

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand(self.fn_name, x, self, square=True)
        dtype = linalg_dtype(self.fn_name, x, op=self)
        n, _ = square_shape(x.type.shape)
        return Apply(self, [x], [TensorType(dtype, (n,)), TensorType(dtype, (n, n))])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        check_square(self.fn_name, node, 0, x)
        w, v = self.eigensystem(node, x)
        dtype = node.outputs[0].type.dtype
        return [np.asarray(w, dtype=dtype), np.asarray(v, dtype=dtype)]

    def eigensystem(self, node: Apply, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(w, v)`` of the matrix ``x``, in NumPy."""
        raise NotImplementedError

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        n = input_shapes[0][0]
        return [(n,), (n, n)]


class Eig(Eigensystem, LinAlgOp):
    """``numpy.linalg.eig``: eigenvalues and right eigenvectors of a square matrix, real
    as in Theano, whose outputs are of the input's real dtype. Where an eigenvalue is
    complex, it raises (Theano silently dropped the imaginary parts)."""

    fn_name = "eig"

    def eigensystem(self, node: Apply, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w, v = np.linalg.eig(x)
        if np.iscomplexobj(w) and np.any(w.imag != 0):
            raise np.linalg.LinAlgError(self.failure(node))
        return w.real, v.real

    def failure(self, node: Apply) -> str:
        return (f"eig: {label(node.inputs[0])!r} has complex eigenvalues; eig's outputs are "
                f"real (Theano's); use eigh for a symmetric matrix")

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self, "; eigh has one, for symmetric matrices")


eig = Eig()


class Eigh(Eig):
    """``numpy.linalg.eigh``: eigenvalues (ascending) and eigenvectors of a symmetric
    matrix, read from its lower (``UPLO='L'``) or upper triangle (Theano's ``Eigh``, a
    subclass of ``Eig`` there too: ``isinstance(op, Eig)`` holds for both)."""

    __props__ = ("UPLO",)
    fn_name = "eigh"

    def __init__(self, UPLO: str = "L") -> None:
        if UPLO not in ("L", "U"):
            raise build_error(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
        self.UPLO = UPLO

    def eigensystem(self, node: Apply, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # SciPy's LAPACK (syevd), the one the compiled program calls through jaxlib: the
        # same eigenvectors to the bit, signs included. NumPy's own LAPACK build picks the
        # other sign for about one float32 eigenvector in five.
        import scipy.linalg

        x = np.asarray(x, dtype=node.outputs[1].type.dtype)
        return scipy.linalg.eigh(x, lower=self.UPLO == "L", driver="evd", check_finite=False)

    def checks_at_run_time(self, node: Apply) -> bool:
        return False  # a symmetric eigensystem is real: nothing for the program to refuse

    def L_op(self, inputs, outputs, output_grads):
        (x,), (w, v) = inputs, outputs
        gw, gv = (zeros_like(out) if g is None else g for out, g in zip(outputs, output_grads))
        return [EighGrad(self.UPLO)(x, w, v, gw, gv)]


def eigh(a: Any, UPLO: str = "L") -> list[Variable]:
    """``[w, v]``: eigenvalues (ascending) and eigenvectors of the symmetric matrix ``a``,
    read from its lower (``UPLO='L'``) or upper triangle (``numpy.linalg.eigh``)."""
    return Eigh(UPLO)(a)


class EighGrad(Op):
    """The gradient of ``eigh(x)`` given those of its eigenvalues and eigenvectors
    (Theano's ``EighGrad``); nonzero on the triangle ``eigh`` reads only."""

    __props__ = ("UPLO",)

    def __init__(self, UPLO: str = "L") -> None:
        self.UPLO = UPLO

    def make_node(self, x: Any, w: Any, v: Any, gw: Any, gv: Any) -> Apply:
        x, w, v, gw, gv = (as_tensor_variable(a) for a in (x, w, v, gw, gv))
        for var, ndim in ((x, 2), (w, 1), (v, 2), (gw, 1), (gv, 2)):
            matrix_operand("EighGrad", var, self, ndims=(ndim,))
        dtype = str(np.result_type(*(a.dtype for a in (x, w, v, gw, gv))))
        return Apply(self, [x, w, v, gw, gv], [TensorType(dtype, x.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        _, w, v, gw, gv = inputs
        grad = eigh_grad(np, w, v, gw, gv, self.UPLO == "L")
        return [np.asarray(grad, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


class QRFull(Op):
    """``numpy.linalg.qr`` returning ``q`` and ``r`` (modes ``'reduced'`` and
    ``'complete'``), or ``h`` and ``tau`` (mode ``'raw'``: LAPACK's Householder form,
    ``(N, M)`` and ``(K,)``, which compiled programs compute with NumPy on the host: XLA
    has no public counterpart); Theano's ``QRFull``."""

    __props__ = ("mode",)

    def __init__(self, mode: str = "reduced") -> None:
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("qr", x, self)
        dtype = linalg_dtype("qr", x, op=self)
        q_shape, r_shape = _qr_shapes(self.mode, x.type.shape)
        return Apply(self, [x], [TensorType(dtype, q_shape), TensorType(dtype, r_shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = node.outputs[0].type.dtype
        q, r = np.linalg.qr(np.asarray(inputs[0], dtype), self.mode)
        return [np.asarray(v, dtype=out.type.dtype) for v, out in zip((q, r), node.outputs)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return list(_qr_shapes(self.mode, input_shapes[0]))

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


class QRIncomplete(Op):
    """``numpy.linalg.qr(x, 'r')``: the upper-triangular ``r`` alone (Theano's
    ``QRIncomplete``)."""

    __props__ = ("mode",)

    def __init__(self, mode: str = "r") -> None:
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("qr", x, self)
        dtype = linalg_dtype("qr", x, op=self)
        return Apply(self, [x], [TensorType(dtype, _qr_shapes("reduced", x.type.shape)[1])])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(np.linalg.qr(inputs[0], "r"), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [_qr_shapes("reduced", input_shapes[0])[1]]

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


def _shorter(a: Any, b: Any) -> Any:
    """The smaller of two lengths: ints (None where not known: static shapes) or
    symbolic scalars (shapes for ``infer_shape``)."""
    if a is None or b is None:
        return None
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return min(int(a), int(b))
    return m.minimum(a, b)


def _qr_shapes(mode: str, shape: Sequence[Any]) -> tuple[tuple, tuple]:
    rows, cols = shape
    if mode == "complete":
        return (rows, rows), (rows, cols)
    k = _shorter(rows, cols)
    if mode == "raw":  # h is a's transpose overwritten by the reflectors, tau their scales
        return (cols, rows), (k,)
    return (rows, k), (k, cols)


def qr(a: Any, mode: str = "reduced") -> Any:
    """``numpy.linalg.qr``: ``[q, r]`` for modes ``'reduced'`` (the default: ``(M, K)`` and
    ``(K, N)``, ``K = min(M, N)``) and ``'complete'`` (``(M, M)`` and ``(M, N)``), ``r``
    alone for ``'r'``, ``[h, tau]`` for ``'raw'`` (LAPACK's Householder form: ``(N, M)``
    and ``(K,)``, computed on the host)."""
    if mode == "r":
        return QRIncomplete("r")(a)
    if mode not in ("reduced", "complete", "raw"):
        raise build_error(f"qr: mode must be 'reduced', 'complete', 'r' or 'raw', got {mode!r}",
                          ValueError)
    return QRFull(mode)(a)


class SVD(Op):
    """``numpy.linalg.svd`` (Theano's ``SVD``): ``[u, s, vt]``, or ``s`` alone when
    ``compute_uv`` is False; ``u`` and ``vt`` square (``full_matrices``) or ``(M, K)`` and
    ``(K, N)``."""

    __props__ = ("full_matrices", "compute_uv")

    def __init__(self, full_matrices: bool = True, compute_uv: bool = True) -> None:
        self.full_matrices = bool(full_matrices)
        self.compute_uv = bool(compute_uv)

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("svd", x, self)
        dtype = linalg_dtype("svd", x, op=self)
        shapes = self._shapes(x.type.shape)
        return Apply(self, [x], [TensorType(dtype, shape) for shape in shapes])

    def _shapes(self, shape: Sequence[Any]) -> list[tuple]:
        rows, cols = shape
        k = _shorter(rows, cols)
        if not self.compute_uv:
            return [(k,)]
        if self.full_matrices:
            return [(rows, rows), (k,), (cols, cols)]
        return [(rows, k), (k,), (k, cols)]

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        result = np.linalg.svd(inputs[0], self.full_matrices, self.compute_uv)
        values = result if self.compute_uv else (result,)
        return [np.asarray(v, dtype=out.type.dtype) for v, out in zip(values, node.outputs)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return self._shapes(input_shapes[0])

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``numpy.linalg.svd``: ``[u, s, vt]`` (``s`` alone when ``compute_uv`` is False)."""
    return SVD(full_matrices, compute_uv)(a)


class lstsq(Op):  # noqa: N801  (Theano's name for the class: T.nlinalg.lstsq()(a, b, rcond))
    """``numpy.linalg.lstsq(a, b, rcond)``: ``[x, residuals, rank, s]``, the least-squares
    solution of ``a x = b`` (``b`` a vector or a matrix), the sums of squared residuals
    per column of ``b``, the effective rank of ``a`` and its singular values; singular
    values below ``rcond`` times the largest count as zero (``rcond`` omitted or None:
    ``max(M, N) * eps``, NumPy's default; at or below 0, or at or above 1: LAPACK's
    epsilon, as NumPy's ``gelsd`` reads it).

    The residuals are always computed (one per column of ``b``, one for a vector ``b``):
    NumPy returns an empty array where ``rank < N`` or ``M <= N``, a length that depends
    on the values, which no compiled program can have.
    """

    def make_node(self, a: Any, b: Any, rcond: Any = None) -> Apply:
        a = matrix_operand("lstsq", a, self)
        b = matrix_operand("lstsq", b, self, ndims=(1, 2))
        if a.type.shape[0] is not None and b.type.shape[0] is not None \
                and a.type.shape[0] != b.type.shape[0]:
            raise build_error(f"lstsq: {label(a)!r} ({a.type.short()}) and {label(b)!r} "
                              f"({b.type.short()}) need as many rows", ValueError, op=self, inputs=[a, b])
        dtype = linalg_dtype("lstsq", a, b, op=self)
        inputs = [a, b] if rcond is None else [a, b, as_tensor_variable(rcond)]
        rows, cols = a.type.shape
        columns = tuple(b.type.shape[1:])
        outputs = [TensorType(dtype, (cols,) + columns), TensorType(dtype, columns or (1,)),
                   TensorType("int64", ()), TensorType(dtype, (_shorter(rows, cols),))]
        return Apply(self, inputs, outputs)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = node.outputs[0].type.dtype
        a, b = inputs[0].astype(dtype), inputs[1].astype(dtype)
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"lstsq: {label(node.inputs[0])!r} has {a.shape[0]} rows and "
                             f"{label(node.inputs[1])!r} has {b.shape[0]}; they need as many")
        rcond = float(inputs[2]) if len(inputs) == 3 else pinv_rtol(a.shape, dtype)
        x, _, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
        residuals = np.atleast_1d(np.sum(np.square(b - a @ x), axis=0))
        values = (x, residuals, np.asarray(rank), s)
        return [np.asarray(v, dtype=out.type.dtype) for v, out in zip(values, node.outputs)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        (rows, cols), b_shape = input_shapes[0], input_shapes[1]
        columns = tuple(b_shape[1:])
        return [(cols,) + columns, columns or (1,), (), (_shorter(rows, cols),)]

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self, "; pinv(a) . b has one")


def matrix_dot(*args: Any) -> Variable:
    """``dot(dot(a0, a1), a2) ...``: the product of several matrices, in order."""
    result = as_tensor_variable(args[0])
    for arg in args[1:]:
        result = dot(result, arg)
    return result
