"""``symnb.tensor.slinalg`` (``T.slinalg``): Theano's ``theano.tensor.slinalg``, the linear
algebra Theano took from SciPy (computed here without SciPy)."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.slinalg import (
    MATRIX_STRUCTURES, Cholesky, CholeskyGrad, Eigvalsh, EigvalshGrad, Expm, ExpmGrad, Solve,
    cholesky, eigvalsh, expm, kron, solve, solve_lower_triangular, solve_symmetric,
    solve_upper_triangular,
)

__all__ = ["Cholesky", "cholesky", "CholeskyGrad", "Solve", "solve", "solve_lower_triangular",
           "solve_upper_triangular", "solve_symmetric", "MATRIX_STRUCTURES", "Eigvalsh",
           "eigvalsh", "EigvalshGrad", "Expm", "expm", "ExpmGrad", "kron"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
