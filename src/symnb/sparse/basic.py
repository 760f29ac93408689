"""``symnb.sparse.basic``: Theano 1.0's ``theano.sparse.basic`` names that symnb has
(see :mod:`symnb.sparse`)."""

from symnb.core.sparse.ops import (  # noqa: F401
    AddSD, AddSS, CSC, CSM, CSMGrad, CSMProperties, CSR, Cast, DenseFromSparse, Dot, MulSD,
    MulSS, Neg, SparseFromDense, SpOnesLike, SpSum, StructuredDot, Transpose, TrueDot, add,
    add_s_d, add_s_s, as_sparse_or_tensor_variable, as_sparse_variable, cast, csc_from_dense,
    csm_data, csm_indices, csm_indptr, csm_properties, csm_shape, csr_from_dense,
    dense_from_sparse, dot, mul, mul_s_d, mul_s_s, neg, sp_ones_like, sp_sum, structured_dot,
    sub, transpose, true_dot,
)
from symnb.core.sparse.ops import is_sparse_variable as _is_sparse_variable  # noqa: F401
from symnb.core.sparse.shared import SparseSharedVariable, sparse_shared as sparse_constructor  # noqa: F401
from symnb.core.sparse.type import FORMATS, SparseType, is_sparse_value as _is_sparse  # noqa: F401
from symnb.core.sparse.variable import (  # noqa: F401
    SparseConstant, SparseVariable, csc_matrix, csr_matrix, matrix,
)

as_sparse = as_sparse_variable
sparse_formats = ["csc", "csr"]
_mtypes = list(FORMATS.values())
csc_dmatrix = SparseType("csc", "float64")
csr_dmatrix = SparseType("csr", "float64")
csc_fmatrix = SparseType("csc", "float32")
csr_fmatrix = SparseType("csr", "float32")


def _is_dense(x):
    """Whether ``x`` is a NumPy array (Theano's ``_is_dense``)."""
    import numpy as np

    return isinstance(x, np.ndarray)


def _is_dense_variable(x):
    """Whether ``x`` is a symbolic dense (tensor) variable."""
    from symnb.core.graph.basic import Variable

    return isinstance(x, Variable) and not _is_sparse_variable(x)
