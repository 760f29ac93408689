"""Theano's ``theano.tensor.slinalg``: the linear algebra Theano took from SciPy.

Ops: ``Cholesky`` (and ``CholeskyGrad``), ``Solve`` (general, symmetric, lower and upper
triangular), ``Eigvalsh`` (and ``EigvalshGrad``), ``Expm`` (and ``ExpmGrad``); ``kron``
is built from other ops. The NumPy references need no SciPy (a runtime dependency symnb
does not have): ``numpy.linalg`` where it suffices, and the formulas of
``linalg_formulas`` (a triangular solve on the triangle, the generalized symmetric
eigenproblem through a Cholesky factor, the matrix exponential by Padé approximation).
Dtypes follow ``numpy.linalg`` (``linalg_base``); gradients are Theano's formulas.

A matrix these ops cannot factor (``cholesky`` of a matrix that is not positive
definite with ``on_error='raise'``, a singular ``solve``, ``eigvalsh`` with a ``b`` that
is not positive definite) raises ``numpy.linalg.LinAlgError`` on test values and
``symnb.errors.LinAlgError`` in a compiled function, as Theano's ops raised SciPy's.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.none_type import is_none_constant
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType, describe_shape
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.blas import dot, outer
from symnb.core.tensor.join import concatenate
from symnb.core.tensor.linalg_base import (
    LinAlgOp, check_square, linalg_dtype, matrix_operand, no_gradient, raise_problem,
    square_problem,
)
from symnb.core.tensor.linalg_formulas import (
    cholesky_grad, expm as numpy_expm, expm_frechet, generalized_eigh, generalized_eigvalsh_grad,
    numpy_solve_triangular,
)
from symnb.core.tensor.math_extra import diag, tril, triu
from symnb.core.tensor.reduction import any as _any
from symnb.core.tensor.shape import dimshuffle, flatten, reshape, shape, shape_i, transpose

__all__ = ["Cholesky", "cholesky", "CholeskyGrad", "Solve", "solve", "solve_lower_triangular",
           "solve_upper_triangular", "solve_symmetric", "MATRIX_STRUCTURES", "Eigvalsh",
           "eigvalsh", "EigvalshGrad", "Expm", "expm", "ExpmGrad", "kron"]

MATRIX_STRUCTURES = ("general", "symmetric", "lower_triangular", "upper_triangular", "hermitian",
                     "banded", "diagonal", "toeplitz")


class Cholesky(LinAlgOp):
    """The Cholesky factor of a symmetric positive definite matrix, read from its lower
    (``lower=True``, the factor ``L`` with ``L L^T = x``) or upper triangle (``U`` with
    ``U^T U = x``), as SciPy's ``cholesky`` (Theano's ``Cholesky``).

    ``on_error='raise'``: a matrix that is not positive definite raises
    ``LinAlgError`` (on test values and in compiled functions); ``'nan'``: the result is
    a matrix of NaNs (Theano's), and so is its gradient.
    """

    __props__ = ("lower", "destructive", "on_error")

    def __init__(self, lower: bool = True, on_error: str = "raise") -> None:
        if on_error not in ("raise", "nan"):
            raise build_error(f"Cholesky: on_error must be 'raise' or 'nan', got {on_error!r}")
        self.lower = bool(lower)
        self.destructive = False
        self.on_error = on_error

    def make_node(self, x: Any) -> Apply:
        x = matrix_operand("cholesky", x, self, square=True)
        return Apply(self, [x], [TensorType(linalg_dtype("cholesky", x, op=self), x.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        (x,) = inputs
        check_square("cholesky", node, 0, x)
        dtype = node.outputs[0].type.dtype
        try:
            factor = np.linalg.cholesky(x.astype(dtype), upper=not self.lower)
        except np.linalg.LinAlgError:
            if self.on_error == "raise":
                raise np.linalg.LinAlgError(self.failure(node)) from None
            factor = np.full(x.shape, np.nan)
        return [np.asarray(factor, dtype=dtype)]

    def checks_at_run_time(self, node: Apply) -> bool:
        return self.on_error == "raise"

    def failure(self, node: Apply) -> str:
        return (f"cholesky: {label(node.inputs[0])!r} is not positive definite "
                f"(Cholesky(on_error='nan') gives NaNs instead)")

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        # I. Murray, "Differentiation of the Cholesky decomposition", arXiv:1602.07527,
        # as Theano writes it (on the triangle the op reads).
        (chol,), (g,) = outputs, output_grads
        if self.on_error == "nan":  # a failed factor: ones, so that the solves below run
            ok = m.invert(_any(m.isnan(chol)))
            chol, g = m.switch(ok, chol, 1), m.switch(ok, g, 1)
        if not self.lower:
            chol, g = transpose(chol), transpose(g)
        product = tril(dot(transpose(chol), g))
        phi = m.sub(product, diag(m.true_div(diag(product), 2)))
        s = solve_upper_triangular(transpose(chol),
                                   transpose(solve_upper_triangular(transpose(chol), transpose(phi))))
        grad = m.sub((tril if self.lower else triu)(m.add(s, transpose(s))), diag(diag(s)))
        if self.on_error == "nan":
            grad = m.switch(ok, grad, np.nan)
        return [grad]


cholesky = Cholesky()


class CholeskyGrad(Op):
    """The gradient of ``cholesky(x)`` (the factor ``l``) given the factor's gradient
    ``dz`` (Theano's ``CholeskyGrad``): the formula of ``Cholesky``'s own gradient,
    computed as one op."""

    __props__ = ("lower", "destructive")

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)
        self.destructive = False

    def make_node(self, x: Any, l: Any, dz: Any) -> Apply:
        x, l, dz = (matrix_operand("CholeskyGrad", v, self) for v in (x, l, dz))
        dtype = str(np.result_type(l.dtype, dz.dtype))
        return Apply(self, [x, l, dz], [TensorType(dtype, x.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        _, chol, g = inputs
        grad = cholesky_grad(np, chol, g, self.lower, numpy_solve_triangular)
        return [np.asarray(grad, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


class Solve(LinAlgOp):
    """``x`` such that ``A x = b`` (Theano's ``Solve``): SciPy's ``solve``, or its
    ``solve_triangular`` when ``A_structure`` is ``'lower_triangular'`` or
    ``'upper_triangular'`` (then only that triangle of ``A`` is read). Other
    structures ('symmetric', ...) are solved as general matrices, as in Theano.
    ``b`` is a vector or a matrix (several right-hand sides)."""

    __props__ = ("A_structure", "lower", "overwrite_A", "overwrite_b")

    def __init__(self, A_structure: str = "general", lower: bool = False,
                 overwrite_A: bool = False, overwrite_b: bool = False) -> None:
        if A_structure not in MATRIX_STRUCTURES:
            raise build_error(f"Solve: A_structure must be one of {MATRIX_STRUCTURES}, got "
                              f"{A_structure!r}")
        self.A_structure = A_structure
        self.lower = bool(lower)
        self.overwrite_A = bool(overwrite_A)
        self.overwrite_b = bool(overwrite_b)

    @property
    def triangle(self) -> str | None:
        """'lower' or 'upper' for a triangular solve (None: a general one)."""
        return {"lower_triangular": "lower", "upper_triangular": "upper"}.get(self.A_structure)

    def make_node(self, A: Any, b: Any) -> Apply:
        A = matrix_operand("solve", A, self, square=True)
        b = matrix_operand("solve", b, self, ndims=(1, 2))
        raise_problem(self.shape_problem([repr(label(A)), repr(label(b))], A.type.shape, b.type.shape),
                      lambda message: build_error(message, ValueError, op=self, inputs=[A, b]))
        rows = next((n for n in (*A.type.shape, b.type.shape[0]) if n is not None), None)
        dtype = linalg_dtype("solve", A, b, op=self, like_scipy_solve=True)
        return Apply(self, [A, b], [TensorType(dtype, (rows,) + tuple(b.type.shape[1:]))])

    def shape_problem(self, names: Sequence[str], a_shape: Sequence, b_shape: Sequence) -> str | None:
        """The message when ``A`` is not square or ``b``'s rows do not match it."""
        problem = square_problem("solve", names[0], a_shape)
        if problem is not None:
            return problem
        if a_shape[0] is not None and b_shape[0] is not None and a_shape[0] != b_shape[0]:
            return (f"solve: {names[0]} has shape {describe_shape(a_shape)} and {names[1]} has "
                    f"shape {describe_shape(b_shape)}: {names[1]} needs {a_shape[0]} rows")
        return None

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        A, b = inputs
        raise_problem(self.shape_problem([repr(label(v)) for v in node.inputs], A.shape, b.shape))
        dtype = node.outputs[0].type.dtype
        A, b = A.astype(dtype), b.astype(dtype)
        try:
            if self.triangle is None:
                x = np.linalg.solve(A, b)
            else:
                x = numpy_solve_triangular(A, b, self.triangle == "lower")
        except np.linalg.LinAlgError:
            raise np.linalg.LinAlgError(self.failure(node)) from None
        return [np.asarray(x, dtype=dtype)]

    def failure(self, node: Apply) -> str:
        which = f"the {self.triangle} triangle of " if self.triangle else ""
        return f"solve: {which}{label(node.inputs[0])!r} is singular (the solution is not finite)"

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        a_shape, b_shape = input_shapes
        return [(a_shape[1],) + tuple(b_shape[1:])]

    def L_op(self, inputs, outputs, output_grads):
        # M. B. Giles, "An extended collection of matrix derivative results for forward
        # and reverse mode automatic differentiation": b_bar = A^-T c_bar, A_bar = -b_bar c^T.
        (A, b), (c,), (c_bar,) = inputs, outputs, output_grads
        transposed = {"lower_triangular": "upper_triangular",
                      "upper_triangular": "lower_triangular"}.get(self.A_structure, self.A_structure)
        b_bar = Solve(A_structure=transposed, lower=not self.lower)(transpose(A), c_bar)
        A_bar = m.neg(outer(b_bar, c) if c.ndim == 1 else dot(b_bar, transpose(c)))
        if self.triangle is not None:
            A_bar = (tril if self.triangle == "lower" else triu)(A_bar)
        return [A_bar, b_bar]


solve = Solve()
solve_lower_triangular = Solve(A_structure="lower_triangular", lower=True)
solve_upper_triangular = Solve(A_structure="upper_triangular", lower=False)
solve_symmetric = Solve(A_structure="symmetric")


class Eigvalsh(LinAlgOp):
    """SciPy's ``eigvalsh(a, b)``: the eigenvalues (ascending) of ``a v = w b v`` for a
    symmetric ``a`` and a symmetric positive definite ``b`` (``b`` None: ``a v = w v``),
    each read from its lower (``lower=True``) or upper triangle (Theano's ``Eigvalsh``)."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    def make_node(self, a: Any, b: Any = None) -> Apply:
        a = matrix_operand("eigvalsh", a, self, square=True)
        b = None if is_none_constant(b) else b  # Theano's spelling of "no b": T.NoneConst
        inputs = [a] if b is None else [a, matrix_operand("eigvalsh", b, self, square=True)]
        problem = self.shape_problem([repr(label(v)) for v in inputs], [v.type.shape for v in inputs])
        raise_problem(problem, lambda message: build_error(message, ValueError, op=self, inputs=inputs))
        dtype = linalg_dtype("eigvalsh", *inputs, op=self)
        n = next((s for v in inputs for s in v.type.shape if s is not None), None)
        return Apply(self, inputs, [TensorType(dtype, (n,))])

    def shape_problem(self, names: Sequence[str], shapes: Sequence[Sequence]) -> str | None:
        """The message when ``a`` (or ``b``) is not square, or their sizes differ."""
        for name, shape in zip(names, shapes):
            problem = square_problem("eigvalsh", name, shape)
            if problem is not None:
                return problem
        sizes = [shape[0] for shape in shapes if shape[0] is not None]
        if len(set(sizes)) > 1:
            return (f"eigvalsh: {names[0]} has shape {describe_shape(shapes[0])} and {names[1]} "
                    f"has shape {describe_shape(shapes[1])}; they must have the same size")
        return None

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        names = [repr(label(v)) for v in node.inputs]
        raise_problem(self.shape_problem(names, [v.shape for v in inputs]))
        dtype = node.outputs[0].type.dtype
        arrays = [v.astype(dtype) for v in inputs]
        if len(arrays) == 1:
            return [np.asarray(np.linalg.eigvalsh(arrays[0], "L" if self.lower else "U"), dtype=dtype)]
        try:
            w, _ = generalized_eigh(np, arrays[0], arrays[1], self.lower, numpy_solve_triangular)
        except np.linalg.LinAlgError:
            raise np.linalg.LinAlgError(self.failure(node)) from None
        return [np.asarray(w, dtype=dtype)]

    def checks_at_run_time(self, node: Apply) -> bool:
        return len(node.inputs) == 2  # b must be positive definite

    def failure(self, node: Apply) -> str:
        return f"eigvalsh: {label(node.inputs[1])!r} is not positive definite"

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(input_shapes[0][0],)]

    def L_op(self, inputs, outputs, output_grads):
        grads = EigvalshGrad(self.lower)(*inputs, output_grads[0])
        return grads if len(inputs) == 2 else [grads]


def eigvalsh(a: Any, b: Any, lower: bool = True) -> Variable:
    """The eigenvalues of ``a v = w b v`` (``b`` None: of ``a``), ascending (Theano's
    signature: ``b`` is required, ``None`` allowed)."""
    return Eigvalsh(lower)(a, b)


class EigvalshGrad(Op):
    """The gradients of ``eigvalsh(a, b)`` with respect to ``a`` (and ``b``) given that
    of the eigenvalues (Theano's ``EigvalshGrad``)."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    def make_node(self, a: Any, *rest: Any) -> Apply:
        operands = [matrix_operand("EigvalshGrad", v, self) for v in (a, *rest[:-1])]
        gw = matrix_operand("EigvalshGrad", rest[-1], self, ndims=(1,))
        dtype = str(np.result_type(*(v.dtype for v in (*operands, gw)), np.float32))
        return Apply(self, [*operands, gw], [TensorType(dtype, v.type.shape) for v in operands])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        dtype = node.outputs[0].type.dtype
        *matrices, gw = (v.astype(dtype) for v in inputs)
        if len(matrices) == 1:
            matrices.append(np.eye(len(gw), dtype=dtype))
        grads = generalized_eigvalsh_grad(np, *matrices, gw, self.lower, numpy_solve_triangular)
        return [np.asarray(g, dtype=dtype) for g in grads[:len(node.outputs)]]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return list(input_shapes[:-1])

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


class Expm(Op):
    """The matrix exponential of a square matrix (SciPy's ``expm``; Theano's ``Expm``)."""

    def make_node(self, A: Any) -> Apply:
        A = matrix_operand("expm", A, self, square=True)
        return Apply(self, [A], [TensorType(linalg_dtype("expm", A, op=self), A.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        check_square("expm", node, 0, inputs[0])
        return [np.asarray(numpy_expm(inputs[0]), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [ExpmGrad()(inputs[0], output_grads[0])]


expm = Expm()


class ExpmGrad(Op):
    """The gradient of ``expm(A)`` given that of its result ``g``: the Fréchet
    derivative of ``expm`` at ``A^T`` in the direction ``g`` (Theano's ``ExpmGrad``, which
    computed it from an eigendecomposition)."""

    def make_node(self, A: Any, g: Any) -> Apply:
        A = matrix_operand("ExpmGrad", A, self, square=True)
        g = matrix_operand("ExpmGrad", g, self)
        dtype = linalg_dtype("ExpmGrad", A, g, op=self)
        return Apply(self, [A, g], [TensorType(dtype, A.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        A, g = inputs
        return [np.asarray(expm_frechet(A.T, g), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return no_gradient(self)


def kron(a: Any, b: Any) -> Variable:
    """The Kronecker product, as SciPy's ``kron`` (Theano's ``kron``): of matrices,
    ``(M*P, N*Q)``; ``a.ndim + b.ndim`` must be 3 or more. Unlike ``numpy.kron`` when the
    operands' dimensions differ, the result has ``a.ndim + b.ndim - 2`` dimensions."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim + b.ndim <= 2:
        raise build_error(f"kron: the dimensions of {label(a)!r} and {label(b)!r} must sum to 3 "
                          f"or more; they have {a.ndim} and {b.ndim}", TypeError, inputs=[a, b])
    product = reshape(outer(a, b), concatenate([shape(a), shape(b)]), a.ndim + b.ndim)
    if product.ndim == 3:
        return flatten(dimshuffle(product, [1, 0, 2]))
    swapped = dimshuffle(product, [0, 2, 1, *range(3, product.ndim)])
    lengths = [shape_i(product, i) for i in range(product.ndim)]
    return reshape(swapped, [m.mul(lengths[0], lengths[2]), m.mul(lengths[1], lengths[3]),
                             *lengths[4:]])
