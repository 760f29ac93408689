"""``symnb.tensor.nlinalg`` (``T.nlinalg``): Theano's ``theano.tensor.nlinalg``, linear
algebra after ``numpy.linalg``."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.linalg_functions import (
    alloc_diag, extract_diag, matrix_power, norm, tensorinv, tensorsolve, trace,
)
from symnb.core.tensor.nlinalg_diag import AllocDiag, ExtractDiag, TensorInv, diag
from symnb.core.tensor.nlinalg import (
    SVD, Det, Eig, Eigh, EighGrad, MatrixInverse, MatrixPinv, QRFull, QRIncomplete, det, eig, eigh,
    lstsq, matrix_dot, matrix_inverse, pinv, qr, svd,
)

__all__ = ["MatrixInverse", "matrix_inverse", "MatrixPinv", "pinv", "Det", "det", "Eig", "eig",
           "Eigh", "eigh", "EighGrad", "QRFull", "QRIncomplete", "qr", "SVD", "svd",
           "lstsq", "matrix_dot", "matrix_power", "trace", "diag", "extract_diag", "alloc_diag", "norm",
           "tensorinv", "tensorsolve", "AllocDiag", "ExtractDiag", "TensorInv"]


def _zero_disconnected(outputs, grads):
    """Theano's helper of gradient rules: each gradient, or zeros shaped as its output
    where the output is disconnected from the cost (None or a ``DisconnectedType``)."""
    from symnb.core.gradient_types import is_disconnected
    from symnb.core.tensor.alloc import zeros_like

    return [zeros_like(o) if g is None or is_disconnected(g) else g for o, g in zip(outputs, grads)]


_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)

from symnb.core.absent import module_getattr  # noqa: E402

__getattr__ = module_getattr("symnb.tensor.nlinalg")  # Theano names symnb lacks: say so
del module_getattr
