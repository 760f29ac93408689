"""The names of ``symnb.tensor`` (imported as ``T``), which re-exports them, as does
``symnb.tensor.basic`` (Theano's module of the same names): both read them here.

The public names, each re-exported explicitly from the core module that defines it (so
that readers, IDEs and type checkers see them). A name not listed here is internal: code
in the library imports it from its ``symnb.core`` module. Theano's sub-namespaces
(``T.nnet``, ``T.signal``) list their own names.
"""

# Theano's module theano.tensor.var (``from theano.tensor.var import TensorVariable``),
# loaded first: loading a submodule binds its name in the package, and T.var is the
# variance (bound below), as in Theano.
import symnb.tensor.var as _var_module  # noqa: E402,F401
from symnb.core.gradient import grad as grad  # Theano spelled it T.grad too
from symnb.gradient import verify_grad as verify_grad  # theano.tensor.verify_grad
from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.basic import (
    tensor as tensor, scalar as scalar, vector as vector, matrix as matrix, tensor3 as tensor3,
    tensor4 as tensor4, constant as constant, as_tensor_variable as as_tensor_variable,
    as_tensor_variable as as_tensor,  # Theano's shorter name of the same function
    iscalar as iscalar, ivector as ivector, imatrix as imatrix, itensor3 as itensor3,
    itensor4 as itensor4, lscalar as lscalar, lvector as lvector, lmatrix as lmatrix,
    ltensor3 as ltensor3, ltensor4 as ltensor4, bscalar as bscalar, bvector as bvector,
    bmatrix as bmatrix, btensor3 as btensor3, btensor4 as btensor4, fscalar as fscalar,
    fvector as fvector, fmatrix as fmatrix, ftensor3 as ftensor3, ftensor4 as ftensor4,
    dscalar as dscalar, dvector as dvector, dmatrix as dmatrix, dtensor3 as dtensor3,
    dtensor4 as dtensor4, wscalar as wscalar, wvector as wvector, wmatrix as wmatrix,
    wtensor3 as wtensor3, wtensor4 as wtensor4, cscalar as cscalar, cvector as cvector,
    cmatrix as cmatrix, ctensor3 as ctensor3, ctensor4 as ctensor4, zscalar as zscalar,
    zvector as zvector, zmatrix as zmatrix, ztensor3 as ztensor3, ztensor4 as ztensor4,
)
from symnb.core.tensor.basic import (  # Theano's 5-d inputs
    tensor5 as tensor5, itensor5 as itensor5, ltensor5 as ltensor5, btensor5 as btensor5,
    ftensor5 as ftensor5, dtensor5 as dtensor5,
)
from symnb.core.tensor.constructors import (  # Theano's rows, columns and plural forms
    row as row, col as col, rows as rows, cols as cols, scalars as scalars, vectors as vectors,
    matrices as matrices, tensor3s as tensor3s, tensor4s as tensor4s, fscalars as fscalars,
    dscalars as dscalars, iscalars as iscalars, lscalars as lscalars, bscalars as bscalars,
    fvectors as fvectors, dvectors as dvectors, ivectors as ivectors, lvectors as lvectors,
    bvectors as bvectors, fmatrices as fmatrices, dmatrices as dmatrices, imatrices as imatrices,
    lmatrices as lmatrices, bmatrices as bmatrices, frow as frow, frows as frows, drow as drow,
    drows as drows, irow as irow, irows as irows, lrow as lrow, lrows as lrows, brow as brow,
    brows as brows, fcol as fcol, fcols as fcols, dcol as dcol, dcols as dcols, icol as icol,
    icols as icols, lcol as lcol, lcols as lcols, bcol as bcol, bcols as bcols,
    ftensor3s as ftensor3s, dtensor3s as dtensor3s, itensor3s as itensor3s,
    ltensor3s as ltensor3s, btensor3s as btensor3s, ftensor4s as ftensor4s,
    dtensor4s as dtensor4s, itensor4s as itensor4s, ltensor4s as ltensor4s,
    btensor4s as btensor4s, wrow as wrow, wcol as wcol, crow as crow, ccol as ccol,
    zrow as zrow, zcol as zcol,
)
from symnb.core.graph.type import TensorType as TensorType  # TensorType(dtype, broadcastable)(name)
from symnb.core.graph.type import TensorType as Tensor  # Theano 1.0's old name of TensorType
# Theano's Elemwise(scalar_op, inplace_pattern=None, name=None): every elementwise op's class
from symnb.core.tensor.elemwise import Elemwise as Elemwise
from symnb.core.tensor.math import (
    add as add, sub as sub, mul as mul, true_div as true_div, floor_div as floor_div, mod as mod,
    pow as pow, maximum as maximum, minimum as minimum, neg as neg, abs as abs, sign as sign,
    round as round, round_half_to_even as round_half_to_even,
    round_half_away_from_zero as round_half_away_from_zero, floor as floor, ceil as ceil, trunc as trunc,
    exp as exp, log as log, log1p as log1p,
    expm1 as expm1, sqrt as sqrt, square as square, sin as sin, cos as cos, tan as tan, tanh as tanh,
    sigmoid as sigmoid, softplus as softplus, erf as erf, eq as eq, neq as neq, lt as lt, le as le,
    gt as gt, ge as ge, and_ as and_, or_ as or_, xor as xor, invert as invert, isnan as isnan,
    isinf as isinf, clip as clip, switch as switch, where as where, divide as divide,
    bitwise_not as bitwise_not, identity as identity, tensor_copy as tensor_copy,
    stop_gradient as stop_gradient, cast as cast,
)
from symnb.core.tensor.reduction import (
    sum as sum, prod as prod, max as max, min as min, mean as mean, var as var, std as std,
    argmax as argmax, argmin as argmin, any as any, all as all,
)
from symnb.core.tensor.blas import (
    dot as dot, matmul as matmul, tensordot as tensordot, outer as outer, Dot as Dot,
    Matmul as Matmul, Tensordot as Tensordot,
)
from symnb.core.tensor.nnet import (
    softmax as softmax, log_softmax as log_softmax, Softmax as Softmax, LogSoftmax as LogSoftmax,
)
from symnb.core.tensor.losses import (
    categorical_crossentropy as categorical_crossentropy,
    binary_crossentropy as binary_crossentropy,
)
from symnb.core.tensor.shape import (
    shape as shape, shape_i as shape_i, reshape as reshape, dimshuffle as dimshuffle,
    transpose as transpose, flatten as flatten, squeeze as squeeze, expand_dims as expand_dims,
    Shape as Shape, ShapeI as ShapeI, Reshape as Reshape, DimShuffle as DimShuffle,
)
from symnb.core.tensor.join import (
    stack as stack, stacklists as stacklists, concatenate as concatenate, Join as Join, Stack as Stack, Split as Split,
)
from symnb.core.tensor.alloc import (
    alloc as alloc, zeros as zeros, ones as ones, full as full, zeros_like as zeros_like,
    ones_like as ones_like, full_like as full_like, fill as fill, arange as arange, eye as eye,
    identity_like as identity_like, Alloc as Alloc, Arange as Arange, Eye as Eye,
)
from symnb.core.tensor.subtensor import (
    set_subtensor as set_subtensor, inc_subtensor as inc_subtensor, nonzero as nonzero,
    flatnonzero as flatnonzero, nonzero_values as nonzero_values,
)
from symnb.core.tensor.extra_ops import (
    cumsum as cumsum, cumprod as cumprod, sort as sort, argsort as argsort,
    specify_shape as specify_shape,
)
from symnb.core.tensor.math_extra import (
    isclose as isclose, allclose as allclose, max_and_argmax as max_and_argmax,
    batched_dot as batched_dot, diag as diag, triu as triu, tril as tril, sgn as sgn,
)
from symnb.core.tensor.extra_ops_numpy import fill_diagonal as fill_diagonal  # Theano's FillDiagonal
from symnb.core.tensor.topk import (  # theano.tensor.sort's
    topk as topk, argtopk as argtopk, topk_and_argtopk as topk_and_argtopk,
)
from symnb.core.tensor.special import (  # basic_scipy's scalar ops, elementwise
    erfc as erfc, erfcx as erfcx, erfinv as erfinv, erfcinv as erfcinv, gamma as gamma,
    gammaln as gammaln, psi as psi, tri_gamma as tri_gamma, gammainc as gammainc,
    gammaincc as gammaincc, i0 as i0, i1 as i1, iv as iv, j0 as j0, j1 as j1, jv as jv,
    inv as inv, cosh as cosh, sinh as sinh, arcsin as arcsin, arccos as arccos, arctan as arctan,
    arctan2 as arctan2, arcsinh as arcsinh, arccosh as arccosh, arctanh as arctanh,
    log2 as log2, log10 as log10, exp2 as exp2, deg2rad as deg2rad, rad2deg as rad2deg,
)
from symnb.core.tensor.grids import mgrid as mgrid, ogrid as ogrid
from symnb.core.tensor.blas_batched import batched_tensordot as batched_tensordot
from symnb.core.tensor.math import square as sqr, abs as abs_  # Theano's older spellings
from symnb.core.tensor.math import pow as power  # Theano's NumPy-named alias of pow
from symnb.core.graph.static import (  # Theano's constant queries
    get_scalar_constant_value as get_scalar_constant_value, NotScalarConstantError as NotScalarConstantError,
    EmptyConstantError as EmptyConstantError, extract_constant as extract_constant,
)
from symnb.core.tensor.math_extra import (  # Theano's compositions of its ops
    ptp as ptp, smallest as smallest, ceil_intdiv as ceil_intdiv, swapaxes as swapaxes,
    horizontal_stack as horizontal_stack, vertical_stack as vertical_stack, cov as cov,
    diagonal as diagonal,
)
from symnb.core.tensor.shape_extra import get_vector_length as get_vector_length, is_flat as is_flat
from symnb.core.tensor.alloc import fill as second  # Theano's name of fill (fill = second)
from symnb.core.tensor.math import isnan as isnan_  # Theano's isnan op, the function's name for it
from symnb import scalar as scal  # Theano's tensor.basic imported theano.scalar as scal
from symnb.core.tensor.alloc import Arange as ARange  # Theano's ARange(dtype)(start, stop, step)
from symnb.core.tensor.alloc import Tri as Tri, tri as tri
from symnb.core.tensor.reduction import Argmax as Argmax, Mean as Mean  # the ops T.argmax, T.mean build
from symnb.core.tensor.scalar_conversion import (  # Theano's scalar <-> 0-d tensor ops
    TensorFromScalar as TensorFromScalar, ScalarFromTensor as ScalarFromTensor,
    tensor_from_scalar as tensor_from_scalar, scalar_from_tensor as scalar_from_tensor,
)
from symnb.core.tensor.scalar_types import (  # Theano's lists of dtype names
    complex_dtypes as complex_dtypes, continuous_dtypes as continuous_dtypes, float_dtypes as float_dtypes,
    integer_dtypes as integer_dtypes, discrete_dtypes as discrete_dtypes, all_dtypes as all_dtypes,
    int_dtypes as int_dtypes, uint_dtypes as uint_dtypes,
)
from symnb.core.tensor.math import floor_div as int_div  # Theano: "floor_div and int_div are the same thing"
from symnb.core.graph import Variable as Variable  # theano.tensor.Variable: gof's Variable
# theano.tensor re-exported gof's Constant, Apply and Op (tensor/basic.py imported them)
from symnb.core.graph.basic import Apply as Apply, Constant as Constant
from symnb.core.graph.op import Op as Op
from symnb.core.tensor.shape_extra import (
    join as join, tile as tile, repeat as repeat, roll as roll, shape_padleft as shape_padleft,
    shape_padright as shape_padright, shape_padaxis as shape_padaxis, addbroadcast as addbroadcast,
    unbroadcast as unbroadcast, patternbroadcast as patternbroadcast,
)
from symnb.core.rop import Rop as Rop, Lop as Lop
from symnb.core.jacobian import jacobian as jacobian, hessian as hessian
from symnb.core.tensor.assertion import Assert as Assert, AssertionFailedError as AssertionFailedError
from symnb.core.tensor.print_op import Print as Print
from symnb.core.tensor.variable import (
    TensorConstant as TensorConstant, TensorVariable as TensorVariable,
)
from symnb.core.tensor.basic_theano_ops import (  # Theano tensor.basic's own ops
    Default as Default, default as default, setdefault as setdefault, MaxAndArgmax as MaxAndArgmax,
    Choose as Choose, choose as choose, PermuteRowElements as PermuteRowElements,
    permute_row_elements as permute_row_elements, inverse_permutation as inverse_permutation,
    AllocEmpty as AllocEmpty, Rebroadcast as Rebroadcast, Tile as Tile,
)
from symnb.core.tensor.specify_shape import SpecifyShape as SpecifyShape  # SpecifyShape()(x, shape)
from symnb.core.tensor.nlinalg_diag import AllocDiag as AllocDiag, ExtractDiag as ExtractDiag
from symnb.core.graph.none_type import NoneConst as NoneConst
from symnb.gradient import numeric_grad as numeric_grad  # theano.tensor.numeric_grad
from symnb.core.tensor.special import (  # basic_scipy's chi2sf; basic's complex ops
    chi2sf as chi2sf, conj as conj, complex_from_polar as complex_from_polar,
    real as real, imag as imag, angle as angle, complex as complex,
)

# Theano's sub-namespaces: T.nnet.conv2d, T.signal.pool.pool_2d, T.nnet.bn, ...
from symnb.tensor import nnet as nnet, signal as signal, xlogx as xlogx, opt as opt
from symnb.tensor import sharedvar as sharedvar
from symnb.tensor.sharedvar import tensor_constructor as _shared  # Theano's T._shared
from symnb.tensor import shared_randomstreams as shared_randomstreams
from symnb.tensor import raw_random as raw_random
from symnb.tensor import extra_ops as extra_ops
from symnb.tensor import nlinalg as nlinalg, slinalg as slinalg
from symnb.tensor import elemwise as elemwise  # theano.tensor.elemwise
# theano.tensor.subtensor, whose names Theano's T had too (``from .subtensor import *``)
from symnb.tensor import subtensor as subtensor
from symnb.tensor.subtensor import (
    Subtensor as Subtensor, IncSubtensor as IncSubtensor, AdvancedSubtensor1 as AdvancedSubtensor1,
    AdvancedIncSubtensor1 as AdvancedIncSubtensor1, AdvancedSubtensor as AdvancedSubtensor,
    AdvancedIncSubtensor as AdvancedIncSubtensor, AdvancedBooleanSubtensor as AdvancedBooleanSubtensor,
    AdvancedBooleanIncSubtensor as AdvancedBooleanIncSubtensor, take as take,
    get_canonical_form_slice as get_canonical_form_slice, advanced_subtensor1 as advanced_subtensor1,
    advanced_inc_subtensor1 as advanced_inc_subtensor1, advanced_set_subtensor1 as advanced_set_subtensor1,
    advanced_subtensor as advanced_subtensor, advanced_inc_subtensor as advanced_inc_subtensor,
    advanced_set_subtensor as advanced_set_subtensor, advanced_boolean_subtensor as advanced_boolean_subtensor,
    advanced_boolean_inc_subtensor as advanced_boolean_inc_subtensor,
    advanced_boolean_set_subtensor as advanced_boolean_set_subtensor,
)


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())

from symnb.core.absent import module_getattr  # noqa: E402

__getattr__ = module_getattr("symnb.tensor")  # Theano names symnb lacks: say so
del module_getattr
