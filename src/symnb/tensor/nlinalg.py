"""``symnb.tensor.nlinalg`` (``T.nlinalg``): Theano's ``theano.tensor.nlinalg``, linear
algebra after ``numpy.linalg``."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.nlinalg import (
    Det, Eig, Eigh, EighGrad, MatrixInverse, MatrixPinv, QRFull, QRIncomplete, SVD, alloc_diag,
    det, diag, eig, eigh, extract_diag, lstsq, matrix_dot, matrix_inverse, matrix_power, norm,
    pinv, qr, svd, tensorinv, tensorsolve, trace,
)

__all__ = ["MatrixInverse", "matrix_inverse", "MatrixPinv", "pinv", "Det", "det", "Eig", "eig",
           "Eigh", "eigh", "EighGrad", "QRFull", "QRIncomplete", "qr", "SVD", "svd",
           "lstsq", "matrix_dot", "matrix_power", "trace", "diag", "extract_diag", "alloc_diag", "norm",
           "tensorinv", "tensorsolve"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)

from symnb.core.absent import module_getattr  # noqa: E402

__getattr__ = module_getattr("symnb.tensor.nlinalg")  # Theano names symnb lacks: say so
del module_getattr
