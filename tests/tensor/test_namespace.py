"""``symnb.tensor``'s public surface: written out, so that a new export is deliberate and
no internal helper is reachable as ``T.x``."""

import inspect

import symnb.tensor as T

PUBLIC = {
    # variables and constructors
    "TensorVariable", "TensorConstant", "tensor", "scalar", "vector", "matrix", "tensor3", "tensor4",
    "constant", "as_tensor_variable",
    "iscalar", "ivector", "imatrix", "itensor3", "itensor4",
    "lscalar", "lvector", "lmatrix", "ltensor3", "ltensor4",
    "bscalar", "bvector", "bmatrix", "btensor3", "btensor4",
    "fscalar", "fvector", "fmatrix", "ftensor3", "ftensor4",
    "dscalar", "dvector", "dmatrix", "dtensor3", "dtensor4", "TensorType", "Elemwise",
    "tensor5", "itensor5", "ltensor5", "btensor5", "ftensor5", "dtensor5",
    "erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "psi", "tri_gamma", "gammainc",
    "gammaincc", "i0", "i1", "iv", "j0", "j1", "jv",
    "cosh", "sinh", "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh",
    "log2", "log10", "exp2", "deg2rad", "rad2deg", "as_tensor", "Apply", "Constant", "Op", "fill_diagonal", "power",
    # Theano's rows, columns and plural forms
    "row", "col", "rows", "cols", "scalars", "vectors", "matrices", "tensor3s", "tensor4s",
    *(p + kind for p in "fdilb" for kind in ("row", "col", "rows", "cols", "scalars", "vectors",
                                               "matrices", "tensor3s", "tensor4s")),
    # elementwise
    "add", "sub", "mul", "true_div", "floor_div", "mod", "pow", "maximum", "minimum", "neg", "abs",
    "sign", "round", "round_half_to_even", "round_half_away_from_zero", "floor", "ceil", "exp", "log", "log1p", "expm1", "sqrt", "square", "sin", "cos", "tan",
    "tanh", "sigmoid", "softplus", "erf", "eq", "neq", "lt", "le", "gt", "ge", "and_", "or_", "xor",
    "invert", "isnan", "isinf", "clip", "switch", "where", "divide", "bitwise_not", "identity", "tensor_copy",
    "stop_gradient", "cast",
    # reductions, products, networks
    "sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any", "all",
    "dot", "matmul", "tensordot", "outer", "Dot", "Matmul", "Tensordot",
    "softmax", "log_softmax", "categorical_crossentropy", "binary_crossentropy", "Softmax",
    "LogSoftmax",
    # shapes, joining, creation, indexing
    "shape", "shape_i", "reshape", "dimshuffle", "transpose", "flatten", "squeeze", "expand_dims",
    "Shape", "ShapeI", "Reshape", "DimShuffle",
    "stack", "stacklists", "concatenate", "Join", "Stack", "Split",
    "alloc", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "fill", "arange", "eye",
    "identity_like", "Alloc", "Arange", "Eye", "mgrid", "ogrid",
    "set_subtensor", "inc_subtensor", "nonzero", "flatnonzero", "nonzero_values",
    # Theano's other tensor functions
    "cumsum", "cumprod", "sort", "argsort", "topk", "argtopk", "topk_and_argtopk", "specify_shape", "isclose", "allclose",
    "max_and_argmax", "batched_dot", "batched_tensordot", "diag", "triu", "tril", "sgn", "join", "tile", "repeat",
    "roll", "shape_padleft", "shape_padright", "shape_padaxis", "addbroadcast", "unbroadcast",
    "patternbroadcast", "inv", "sqr", "abs_", "int_div", "get_scalar_constant_value", "NotScalarConstantError", "complex_dtypes", "continuous_dtypes", "float_dtypes", "integer_dtypes", "discrete_dtypes", "all_dtypes", "int_dtypes", "uint_dtypes", "Variable",
    # checks, printing, gradients
    "Assert", "AssertionFailedError", "Print", "grad", "verify_grad", "Tensor", "Rop", "Lop", "jacobian", "hessian",
    # Theano's sub-namespaces
    "nnet", "signal", "xlogx", "opt", "shared_randomstreams", "raw_random", "extra_ops", "sharedvar", "nlinalg",
    "slinalg", "basic", "type",
    # theano.tensor.basic's names test_basic.py imports (issue 38)
    "wscalar", "wvector", "wmatrix", "wtensor3", "wtensor4", "cscalar", "cvector", "cmatrix",
    "ctensor3", "ctensor4", "zscalar", "zvector", "zmatrix", "ztensor3", "ztensor4", "wrow", "wcol",
    "crow", "ccol", "zrow", "zcol", "EmptyConstantError", "extract_constant", "ptp", "smallest",
    "ceil_intdiv", "swapaxes", "horizontal_stack", "vertical_stack", "cov", "diagonal", "get_vector_length",
    "is_flat", "second", "isnan_", "scal", "ARange", "Argmax", "Mean", "TensorFromScalar",
    "ScalarFromTensor", "tensor_from_scalar", "scalar_from_tensor", "trunc", "Tri", "tri",
    # theano.tensor.subtensor's names (Theano's T had them: ``from .subtensor import *``)
    # and the modules theano.tensor.subtensor and theano.tensor.elemwise
    "subtensor", "elemwise", "Subtensor", "IncSubtensor", "AdvancedSubtensor1",
    "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedIncSubtensor", "AdvancedBooleanSubtensor",
    "AdvancedBooleanIncSubtensor", "take", "get_canonical_form_slice", "advanced_subtensor1",
    "advanced_inc_subtensor1", "advanced_set_subtensor1", "advanced_subtensor",
    "advanced_inc_subtensor", "advanced_set_subtensor", "advanced_boolean_subtensor",
    "advanced_boolean_inc_subtensor", "advanced_boolean_set_subtensor",
    # the rest of theano.tensor.basic's names test_basic.py uses (issue 38)
    "AllocDiag", "AllocEmpty", "Choose", "Default", "ExtractDiag", "MaxAndArgmax", "NoneConst",
    "PermuteRowElements", "Rebroadcast", "SpecifyShape", "Tile", "chi2sf", "choose",
    "complex_from_polar", "conj", "real", "imag", "angle", "complex", "default",
    "inverse_permutation", "numeric_grad", "permute_row_elements", "setdefault",
}


def test_the_public_names_are_exactly_the_listed_ones():
    names = {name for name in dir(T) if not name.startswith("_")}
    assert names - PUBLIC == set(), "exported but not listed as public"
    assert PUBLIC - names == set(), "listed as public but not exported"


def test_internal_helpers_are_not_reachable():
    for helper in ("normalize_axes", "result_dtype", "Reduce", "getitem", "as_tensor_args",
                   "build_error", "static_value", "ELEMWISE_OPS"):
        assert not hasattr(T, helper), helper


def test_every_name_is_the_core_object():
    from symnb.core.tensor import math, reduction, shape

    # Each function of T is the core function behind a public entry point, which removes
    # symnb's frames from the tracebacks of the errors it raises (core/graph/traceback_filter.py).
    # The elementwise functions are Theano's: the op's instance (Op.__call__ removes the
    # frames), so a class attribute fn = T.exp stays the op.
    assert T.exp is math.exp and T.sum.__wrapped__ is reduction.sum
    assert T.reshape.__wrapped__ is shape.reshape
    assert inspect.signature(T.reshape) == inspect.signature(shape.reshape)
    assert T.exp.__doc__ == math.exp.__doc__ and T.exp.__name__ == "exp"
    # T.nnet.softmax has Theano's semantics (a vector gives a 1 x n matrix); T.softmax is
    # symnb's own (keeps the shape, takes an axis): no longer the same function.
    assert T.nnet.sigmoid is T.sigmoid and T.nnet.categorical_crossentropy is T.categorical_crossentropy


def test_five_dimensional_inputs_as_theano():
    import numpy as np

    import symnb as sn

    x = T.tensor5("x")
    assert x.type == T.TensorType(sn.config.floatX, (False,) * 5)
    assert T.dtensor5 == T.TensorType("float64", (False,) * 5) and T.ltensor5.dtype == "int64"
    value = np.arange(2 * 3 * 1 * 2 * 2, dtype="float64").reshape(2, 3, 1, 2, 2)
    y = T.dtensor5("y")
    np.testing.assert_allclose(sn.function([y], y.sum(axis=(0, 2)))(value), value.sum(axis=(0, 2)))
