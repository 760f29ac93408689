"""``symnb.tensor.nlinalg`` (``T.nlinalg``): Theano's ``theano.tensor.nlinalg``, linear
algebra after ``numpy.linalg``."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.linalg_functions import (
    alloc_diag, extract_diag, matrix_power, norm, tensorinv, tensorsolve, trace,
)
from symnb.core.tensor.math_extra import diag
from symnb.core.tensor.nlinalg import (
    SVD, Det, Eig, Eigh, EighGrad, MatrixInverse, MatrixPinv, QRFull, QRIncomplete, det, eig, eigh,
    lstsq, matrix_dot, matrix_inverse, pinv, qr, svd,
)

__all__ = ["MatrixInverse", "matrix_inverse", "MatrixPinv", "pinv", "Det", "det", "Eig", "eig",
           "Eigh", "eigh", "EighGrad", "QRFull", "QRIncomplete", "qr", "SVD", "svd",
           "lstsq", "matrix_dot", "matrix_power", "trace", "diag", "extract_diag", "alloc_diag", "norm",
           "tensorinv", "tensorsolve"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)

from symnb.core.absent import module_getattr  # noqa: E402

__getattr__ = module_getattr("symnb.tensor.nlinalg")  # Theano names symnb lacks: say so
del module_getattr
