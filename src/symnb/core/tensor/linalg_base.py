"""What the linear-algebra ops (``nlinalg``, ``slinalg``) share: their dtype rule, the
checks of their operands' shapes, and how an op says that a matrix cannot be factored.

Dtypes are NumPy's (``numpy.linalg``): float32 in, float32 out; float64 in, float64 out;
integers and bools give float64 (Theano's ops kept an integer input's dtype and truncated
the result, a silently wrong number); float16 is refused, as NumPy refuses it, and so are
complex matrices (Theano's ops were real). ``Solve`` takes SciPy's rule, as Theano's did:
float16 is solved in float32.

A matrix an op cannot factor or invert (a Cholesky factor of a matrix that is not
positive definite, the inverse of a singular matrix) makes NumPy raise
``numpy.linalg.LinAlgError``, and XLA return NaN or Inf. An op that may meet one says so
(:meth:`LinAlgOp.checks_at_run_time`, :meth:`LinAlgOp.failure`): its ``perform`` raises
``numpy.linalg.LinAlgError`` with that message, and the compiled program checks its
result (``symnb.lower_xla.rules.linalg``) and raises :class:`LinAlgError` with the same
message, at the node's line.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import GraphRuntimeError, build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import describe_shape
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["LinAlgError", "LinAlgOp", "linalg_dtype", "matrix_operand", "square_problem",
           "raise_problem", "check_square", "no_gradient"]


class LinAlgError(GraphRuntimeError, np.linalg.LinAlgError):
    """A compiled linear-algebra op met a matrix it cannot factor or invert (a Cholesky
    factor of a matrix that is not positive definite, a singular matrix): NumPy raises
    ``numpy.linalg.LinAlgError`` there, XLA alone would return NaN or Inf."""


class LinAlgOp(Op):
    """Base class of the ops whose input may be a matrix they cannot factor or invert."""

    def checks_at_run_time(self, node: Apply) -> bool:
        """True when a matrix ``node`` cannot handle raises (the compiled program then
        checks the node's result)."""
        return True

    def failure(self, node: Apply) -> str:
        """What went wrong when the op's matrix cannot be handled (the error's message)."""
        raise NotImplementedError


@lru_cache(maxsize=None)
def _probed_dtype(dtypes: tuple[str, ...]) -> str | None:
    """The dtype ``numpy.linalg.solve`` gives for operands of these dtypes (None: refused;
    complex ones too: the formulas here transpose without conjugating)."""
    if any(np.dtype(d).kind == "c" for d in dtypes):
        return None
    try:
        operands = [np.eye(1, dtype=d) for d in dtypes]
        if len(operands) == 1:
            return str(np.linalg.inv(operands[0]).dtype)
        return str(np.linalg.solve(operands[0], operands[1]).dtype)
    except TypeError:
        return None


@lru_cache(maxsize=None)
def _scipy_solve_dtype(dtypes: tuple[str, str]) -> str | None:
    """The dtype ``scipy.linalg.solve`` gives for operands of these dtypes (float16 is
    solved in float32 there), which Theano's ``Solve`` probed for its output."""
    import scipy.linalg  # only solve's dtype needs SciPy

    if any(np.dtype(d).kind == "c" for d in dtypes):
        return None
    return str(scipy.linalg.solve(np.eye(1, dtype=dtypes[0]), np.eye(1, dtype=dtypes[1])).dtype)


def linalg_dtype(fn_name: str, *operands: Variable, op: Op | None = None, like_scipy_solve: bool = False) -> str:
    """The result dtype of ``numpy.linalg`` for these operands (see the module docstring);
    a build error at the user's line for a dtype NumPy's linear algebra refuses.
    ``like_scipy_solve``: ``scipy.linalg.solve``'s instead (two operands; float16 gives
    float32), Theano's rule for ``Solve``."""
    dtypes = tuple(v.dtype for v in operands)
    dtype = _scipy_solve_dtype(dtypes) if like_scipy_solve else _probed_dtype(dtypes)
    if dtype is None:
        names = ", ".join(f"{label(v)!r} ({v.dtype})" for v in operands)
        raise build_error(f"{fn_name}: takes real matrices of float32, float64 or integers "
                          f"(NumPy's linear algebra has no float16), not {names}; cast to "
                          f"float32 or float64", TypeError, op=op, inputs=list(operands))
    return dtype


def matrix_operand(fn_name: str, x: object, op: Op | None = None, square: bool = False,
                   ndims: Sequence[int] = (2,)) -> Variable:
    """``x`` as a tensor variable, which must have one of ``ndims`` dimensions and, when
    ``square``, a square static shape where its lengths are known."""
    x = as_tensor_variable(x)
    if x.ndim not in ndims:
        wanted = " or ".join({1: "a vector", 2: "a matrix"}[n] for n in ndims)
        raise build_error(f"{fn_name}: {label(x)!r} ({x.type.short()}) has {x.ndim} "
                          f"dimension(s); it must be {wanted}", TypeError, op=op, inputs=[x])
    if square:
        problem = square_problem(fn_name, repr(label(x)), x.type.shape)
        if problem is not None:
            raise build_error(problem, ValueError, op=op, inputs=[x])
    return x


def square_problem(fn_name: str, name: str, shape: Sequence[int | None]) -> str | None:
    """The message when a matrix of this shape is not square (None when it is, or may be)."""
    rows, cols = shape
    if rows is not None and cols is not None and rows != cols:
        return f"{fn_name}: {name} has shape {describe_shape(shape)}; it must be a square matrix"
    return None


def check_square(fn_name: str, node: Apply, position: int, value: np.ndarray) -> None:
    """Raise ``ValueError`` naming the node's input at ``position`` when its ``value`` (a
    matrix) is not square."""
    raise_problem(square_problem(fn_name, repr(label(node.inputs[position])), value.shape))


def no_gradient(op: Op, instead: str = "") -> list:
    """Refuse a gradient Theano did not define either (``sn.grad`` then fails at the
    user's line): zeros would be a silently wrong number."""
    raise build_error(f"{op.display_name()} has no gradient (nor had it in Theano){instead}",
                      NotImplementedError)


def raise_problem(problem: str | None, fail: Callable[[str], Exception] = ValueError) -> None:
    """Raise ``fail(problem)`` when a check found one (a message, or None)."""
    if problem is not None:
        raise fail(problem)
