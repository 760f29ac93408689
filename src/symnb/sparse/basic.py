"""``symnb.sparse.basic``: Theano 1.0's ``theano.sparse.basic`` names that symnb has
(see :mod:`symnb.sparse`)."""

from symnb.core.sparse.ops import (  # noqa: F401
    HStack, VStack, hstack, vstack, AddSD, AddSS, CSC, CSM, CSMGrad, CSMProperties, CSR, Cast, DenseFromSparse, Dot, MulSD,
    MulSS, Neg, SparseFromDense, SpOnesLike, SpSum, StructuredDot, Transpose, TrueDot, add,
    add_s_d, add_s_s, as_sparse_or_tensor_variable, as_sparse_variable, cast, csc_from_dense,
    csm_data, csm_indices, csm_indptr, csm_properties, csm_shape, csr_from_dense,
    dense_from_sparse, dot, mul, mul_s_d, mul_s_s, neg, sp_ones_like, sp_sum, structured_dot,
    sub, transpose, true_dot,
)
from symnb.core.sparse.comparison import *  # noqa: F401,F403
from symnb.core.sparse.indexing import (  # noqa: F401
    GetItem2d, GetItem2Lists, GetItem2ListsGrad, GetItemList, GetItemListGrad, GetItemScalar,
    get_item_2d, get_item_2lists, get_item_2lists_grad, get_item_list, get_item_list_grad,
    get_item_scalar,
)
from symnb.core.sparse.structure import (  # noqa: F401
    Diag, EnsureSortedIndices, Remove0, SquareDiagonal, clean, diag, ensure_sorted_indices,
    remove0, square_diagonal,
)
from symnb.core.sparse.vector_ops import (  # noqa: F401
    AddSSData, ColScaleCSC, MulSV, RowScaleCSC, SamplingDot, StructuredAddSV, add_s_s_data,
    col_scale, mul_s_v, row_scale, sampling_dot, structured_add_s_v,
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

#: Theano's dtype lists of its sparse module.
all_dtypes = sorted(SparseType.dtype_set)
complex_dtypes = [t for t in all_dtypes if t[:7] == "complex"]
float_dtypes = [t for t in all_dtypes if t[:5] == "float"]
int_dtypes = [t for t in all_dtypes if t[:3] == "int"]
uint_dtypes = [t for t in all_dtypes if t[:4] == "uint"]
integer_dtypes = int_dtypes + uint_dtypes
continuous_dtypes = complex_dtypes + float_dtypes
discrete_dtypes = int_dtypes + uint_dtypes


def _structured_functions():
    """Theano's structured elementwise functions (``structured_monoid``), by name."""
    from symnb import tensor as T
    from symnb.core.sparse.elemwise import structured_monoid
    from symnb.core.tensor.elemwise import Add

    # T.add takes any number of operands (a function): the op itself here

    ops = {"structured_sigmoid": T.nnet.sigmoid, "structured_exp": T.exp,
           "structured_log": T.log, "structured_pow": T.pow, "structured_minimum": T.minimum,
           "structured_maximum": T.maximum, "structured_add": Add(), "sin": T.sin, "tan": T.tan,
           "arcsin": T.arcsin, "arctan": T.arctan, "sinh": T.sinh, "arcsinh": T.arcsinh,
           "tanh": T.tanh, "arctanh": T.arctanh, "rint": T.round_half_to_even, "sgn": T.sgn,
           "ceil": T.ceil, "floor": T.floor, "log1p": T.log1p, "expm1": T.expm1,
           "deg2rad": T.deg2rad, "rad2deg": T.rad2deg, "trunc": T.trunc, "sqr": T.sqr,
           "sqrt": T.sqrt, "conj": T.conj}
    return {name: structured_monoid(op, name) for name, op in ops.items()}


globals().update(_structured_functions())


def __getattr__(name: str):
    if name.startswith("__"):  # probes (__path__, __file__ ...): the usual answer
        raise AttributeError(f"module 'symnb.sparse.basic' has no attribute {name!r}")
    from symnb.core.absent import NotInSymnbError

    raise NotInSymnbError(f"symnb.sparse.basic.{name} is a name of theano.sparse.basic that symnb "
                          "does not have: symnb.sparse has Theano's basic sparse API (see "
                          "docs/porting.md, theano.sparse)")
