"""Theano's sparse ops (``theano.sparse.basic``): what each computes on SciPy matrices
(``perform``, the test values' engine), its types and its gradient, Theano's structured
rules included (a *structured* gradient keeps the sparsity pattern of the sparse input:
``sp_ones_like(x) * g``). Their XLA lowering is ``symnb/lower_xla/rules/sparse.py``.

The outputs' variables are made through ``SparseType.variable_type`` (the classes
``symnb.core.sparse.variable`` installs above this module).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.sparse

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.op import Op
from symnb.core.graph.type import TensorType
from symnb.core.sparse.type import FORMATS, SparseType, is_sparse_value
from symnb.core.tensor.basic import as_tensor_variable

__all__ = [
    "SparseOp", "pattern_sources", "as_sparse_variable", "is_sparse_variable", "upcast",
    "CSMProperties", "csm_properties", "CSM", "CSR", "CSC", "CSMGrad",
    "DenseFromSparse", "dense_from_sparse", "SparseFromDense", "csr_from_dense", "csc_from_dense",
    "Transpose", "transpose", "Neg", "neg", "SpOnesLike", "sp_ones_like",
    "AddSS", "add_s_s", "AddSD", "add_s_d", "MulSS", "mul_s_s", "MulSD", "mul_s_d",
    "StructuredDot", "structured_dot", "Dot", "dot", "TrueDot", "true_dot", "SpSum", "sp_sum",
    "add", "sub", "mul", "HStack", "VStack", "hstack", "vstack",
]


def pattern_sources(outputs: Sequence[Variable]) -> set[int]:
    """The ids of the graph's sparse roots (inputs, constants, shared variables) whose
    stored entries a node computing ``outputs`` reads (``SparseOp.reads_pattern``):
    they must store no zero in a compiled program (``SparseType.to_program``)."""
    from symnb.core.graph.basic import ancestors

    readers = [v.owner for v in ancestors(outputs)
               if v.owner is not None and getattr(v.owner.op, "reads_pattern", False)]
    sparse_inputs = [i for node in readers for i in node.inputs if is_sparse_variable(i)]
    return {id(v) for v in ancestors(sparse_inputs) if v.owner is None and is_sparse_variable(v)}


def is_sparse_variable(x: Any) -> bool:
    """Whether ``x`` is a symbolic sparse variable (Theano's ``_is_sparse_variable``)."""
    return isinstance(x, Variable) and isinstance(x.type, SparseType)


def as_sparse_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` if it is a sparse variable, a sparse constant if it is a SciPy csr or csc
    matrix; TypeError otherwise (Theano's ``as_sparse_variable``)."""
    if isinstance(x, Apply):
        if len(x.outputs) != 1:
            raise ValueError("It is ambiguous which output of a multi-output Op has to be fetched.")
        x = x.outputs[0]
    if isinstance(x, Variable):
        if not isinstance(x.type, SparseType):
            raise TypeError(f"{label(x)!r} is a {x.type.short()}, not a sparse variable "
                            f"(Variable type field must be a SparseType)")
        return x
    if is_sparse_value(x) and x.format in FORMATS:
        return SparseType.constant_type(SparseType(x.format, x.dtype), x, name=name)
    raise TypeError(f"Cannot convert {type(x).__name__} to SparseType: expected a "
                    "scipy.sparse csr or csc matrix")


def as_sparse_or_tensor_variable(x: Any, name: str | None = None) -> Variable:
    """A sparse variable for a sparse value, a tensor variable for anything else."""
    if is_sparse_variable(x) or is_sparse_value(x):
        return as_sparse_variable(x, name)
    return as_tensor_variable(x, name=name)


def upcast(*dtypes: str) -> str:
    """The dtype of an operation on these dtypes (Theano's ``scalar.upcast``)."""
    return str(np.result_type(*(np.dtype(d) for d in dtypes)))


def _sparse_output(format: str, dtype: str) -> Variable:
    return SparseType.variable_type(SparseType(format, dtype))


def _tensor_output(dtype: str, shape: tuple) -> Variable:
    return TensorType.variable_type(TensorType(dtype, shape))


def _as_format(value: Any, format: str, dtype: str) -> Any:
    """``value`` (a SciPy matrix or an array) as a SciPy matrix of ``format`` and ``dtype``."""
    matrix = FORMATS[format](value)
    return matrix if matrix.dtype == dtype else matrix.astype(dtype)


def _check_same_shape(op: str, x: Any, y: Any) -> None:
    if x.shape != y.shape:
        raise ValueError(f"{op}: the operands' shapes differ: {x.shape} and {y.shape}")


class SparseOp(Op):
    """An op of ``symnb.sparse``. Never folded into a constant nor run while tracing: its
    values are SciPy matrices, which a compiled program holds as dense matrices
    (``SparseType.to_program``), so it runs in the program."""

    costly_to_fold = True
    #: SciPy computes the stored entries with NumPy's ufuncs, which raise the flags.
    nonfinite_raises_flag = True
    #: What the op computes depends on which entries its sparse inputs *store*, not only
    #: on their values (``sp_ones_like``; a product keeping ``0 * inf`` out): a compiled
    #: program holds matrices dense, where a stored zero is no entry, so the matrices
    #: reaching such an op are refused with stored zeros (:func:`pattern_sources`).
    reads_pattern = False

    def public_name(self) -> str:
        return getattr(self, "_public", None) or super().public_name()


# -- construction and properties ------------------------------------------------------------

class CSMProperties(SparseOp):
    """``(data, indices, indptr, shape)`` of a csr or csc matrix (int32 index vectors)."""

    reads_pattern = True
    _public = "csm_properties"

    def make_node(self, csm: Any) -> Apply:
        csm = as_sparse_variable(csm)
        return Apply(self, [csm], [_tensor_output(csm.type.dtype, (None,)),
                                   _tensor_output("int32", (None,)), _tensor_output("int32", (None,)),
                                   _tensor_output("int32", (2,))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        (csm,) = inputs
        if not is_sparse_value(csm):
            raise TypeError(f"csm_properties: expected a sparse matrix, got {type(csm).__name__}")
        return [np.asarray(csm.data, dtype=node.outputs[0].type.dtype),
                np.asarray(csm.indices, dtype="int32"), np.asarray(csm.indptr, dtype="int32"),
                np.asarray(csm.shape, dtype="int32")]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        # The number of stored entries is known from the value only: the lengths are read
        # from the op's own outputs (a shape rewrite then keeps the op, which computes them).
        _, _, indptr, shape = node.outputs
        nnz = indptr[-1]
        major = shape[0 if node.inputs[0].type.format == "csr" else 1]
        return [(nnz,), (nnz,), (major + 1,), (2,)]

    def L_op(self, inputs, outputs, output_grads):
        (csm,) = inputs
        g_data = output_grads[0]
        if g_data is None:
            return [None]
        _, indices, indptr, shape = outputs
        return [CSM(csm.type.format)(g_data, indices, indptr, shape)]


csm_properties = CSMProperties()


def csm_data(csm: Any) -> Variable:
    """The ``data`` vector of a sparse variable."""
    return csm_properties(csm)[0]


def csm_indices(csm: Any) -> Variable:
    """The ``indices`` vector of a sparse variable."""
    return csm_properties(csm)[1]


def csm_indptr(csm: Any) -> Variable:
    """The ``indptr`` vector of a sparse variable."""
    return csm_properties(csm)[2]


def csm_shape(csm: Any) -> Variable:
    """The ``shape`` vector of a sparse variable."""
    return csm_properties(csm)[3]


def _index_vector(value: Any, what: str) -> Variable:
    if not isinstance(value, Variable):
        array = np.asarray(value)
        as32 = array.astype("int32")
        if not np.array_equal(array, as32):
            raise build_error(f"CSM: {what} does not fit int32", ValueError)
        value = as32
    value = as_tensor_variable(value)
    if value.type.ndim != 1 or value.type.dtype[:3] not in ("int", "uin"):
        raise build_error(f"CSM: {what} must be a vector of integers, got {value.type.short()}",
                          TypeError)
    return value


class CSM(SparseOp):
    """A csr or csc matrix from its ``data``, ``indices``, ``indptr`` and ``shape``
    (Theano's ``CSM(format)``, ``CSR`` and ``CSC``). Its gradient reaches ``data`` only."""

    __props__ = ("format",)

    def __init__(self, format: str, kmap: Any = None) -> None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of: 'csr', 'csc'; got {format!r}")
        if kmap is not None:
            raise ValueError("CSM: kmap was removed from Theano")
        self.format = format

    def public_name(self) -> str:
        return self.format.upper()

    def make_node(self, data: Any, indices: Any, indptr: Any, shape: Any) -> Apply:
        data = as_tensor_variable(data)
        if data.type.ndim != 1:
            raise build_error(f"CSM: data must be a vector, got {data.type.short()}", TypeError)
        indices, indptr = _index_vector(indices, "indices"), _index_vector(indptr, "indptr")
        shape = _index_vector(shape, "shape")
        return Apply(self, [data, indices, indptr, shape], [_sparse_output(self.format, data.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        data, indices, indptr, shape = inputs
        if len(shape) != 2:
            raise ValueError("CSM: the shape should be an array of length 2")
        if data.shape != indices.shape:
            raise ValueError(f"CSM: data (shape {data.shape}) must have as many elements as "
                             f"indices (shape {indices.shape})")
        matrix = FORMATS[self.format]((data.copy(), indices.copy(), indptr.copy()),
                                      shape=tuple(int(n) for n in shape))
        return [matrix]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        shape = node.inputs[3]
        return [(shape[0], shape[1])]

    def L_op(self, inputs, outputs, output_grads):
        data, indices, indptr, shape = inputs
        (g_out,) = output_grads
        return [CSMGrad(self.format)(indices, indptr, g_out), None, None, None]


CSR = CSM("csr")
CSC = CSM("csc")


class CSMGrad(SparseOp):
    """The gradient of ``CSM`` with respect to ``data``: for each stored entry ``k``
    (row and column from ``indices`` and ``indptr``), the entry of ``g`` there (zero
    where ``g`` stores none), as Theano's ``CSMGrad``."""

    __props__ = ("format",)
    #: A gradient's own op: differentiated no further (Theano's ``CSMGrad`` has no grad).
    differentiable = False

    def __init__(self, format: str) -> None:
        self.format = format

    def make_node(self, indices: Any, indptr: Any, g: Any) -> Apply:
        g = as_sparse_variable(g)
        indices, indptr = as_tensor_variable(indices), as_tensor_variable(indptr)
        return Apply(self, [indices, indptr, g], [_tensor_output(g.type.dtype, (None,))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        indices, indptr, g = inputs
        major = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        dense = g.toarray()
        values = dense[major, indices] if self.format == "csr" else dense[indices, major]
        return [np.asarray(values, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]


# -- conversions ----------------------------------------------------------------------------

class DenseFromSparse(SparseOp):
    """The dense matrix of a sparse one (``dense_from_sparse``, ``x.toarray()``); its
    gradient is structured by default (``structured=True``: ``sp_ones_like(x) * g``)."""

    __props__ = ()
    _public = "dense_from_sparse"

    def __init__(self, structured: bool = True) -> None:
        self.sparse_grad = structured

    def __str__(self) -> str:
        return f"DenseFromSparse{{structured_grad={self.sparse_grad}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_tensor_output(x.type.dtype, (None, None))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        (x,) = inputs
        return [np.asarray(x.toarray(), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        (gz,) = output_grads
        if self.sparse_grad:
            left, right = sp_ones_like(x), gz
            # Theano's upcast: mul of float32 and float64 operands is not implemented
            if right.dtype == "float64" and left.dtype == "float32":
                left = Cast("float64")(left)
            if right.dtype == "float32" and left.dtype == "float64":
                right = right.astype("float64")
            return [mul_s_d(left, right)]
        return [SparseFromDense(x.type.format)(gz)]


dense_from_sparse = DenseFromSparse()


class SparseFromDense(SparseOp):
    """A sparse matrix of ``format`` from a dense one (``csr_from_dense``,
    ``csc_from_dense``); a vector is a row, a scalar a 1x1 matrix, as in Theano."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of: 'csr', 'csc'; got {format!r}")
        self.format = format

    def public_name(self) -> str:
        return f"{self.format}_from_dense"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim > 2:
            raise build_error(f"symnb (as Theano) has no sparse tensor types of more than 2 "
                              f"dimensions, but {label(x)!r} has {x.type.ndim}", TypeError)
        if x.type.ndim == 1:
            x = x.dimshuffle("x", 0)
        elif x.type.ndim == 0:
            x = x.dimshuffle("x", "x")
        return Apply(self, [x], [_sparse_output(self.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        (x,) = inputs
        return [FORMATS[self.format](x)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        # A regular gradient of the sparse output may come dense (sparse.dot's, as in
        # Theano): it is the dense input's gradient as it is.
        return [dense_from_sparse(gz) if is_sparse_variable(gz) else gz]


csr_from_dense = SparseFromDense("csr")
csc_from_dense = SparseFromDense("csc")


class Cast(SparseOp):
    """A sparse matrix cast to ``out_type`` (Theano's sparse ``Cast``)."""

    __props__ = ("out_type",)

    def __init__(self, out_type: str) -> None:
        self.out_type = str(np.dtype(out_type))

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_sparse_output(x.type.format, self.out_type)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        (x,) = inputs
        return [x.astype(self.out_type)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        (gz,) = output_grads
        if np.dtype(x.type.dtype).kind in "fc" and np.dtype(self.out_type).kind in "fc":
            return [Cast(x.type.dtype)(gz)]
        return [None]


def cast(variable: Any, dtype: Any) -> Variable:
    """``variable`` (sparse) cast to ``dtype``."""
    return Cast(dtype)(variable)


# -- elementwise ----------------------------------------------------------------------------

class Transpose(SparseOp):
    """The transpose: a csr matrix becomes csc and a csc csr (no copy in SciPy)."""

    __props__ = ()
    _public = "transpose"
    format_map = {"csr": "csc", "csc": "csr"}

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_sparse_output(self.format_map[x.type.format], x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        (x,) = inputs
        return [x.transpose()]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0][::-1]]

    def L_op(self, inputs, outputs, output_grads):
        return [transpose(output_grads[0])]


transpose = Transpose()


class Neg(SparseOp):
    """``-x`` of a sparse matrix."""

    __props__ = ()
    _public = "neg"

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        return [-inputs[0]]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [neg(output_grads[0])]


neg = Neg()


class SpOnesLike(SparseOp):
    """A matrix of ``x``'s format and pattern whose stored entries are all one
    (Theano's ``sp_ones_like``); no gradient."""

    reads_pattern = True
    __props__ = ()
    _public = "sp_ones_like"
    differentiable = False

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        (x,) = inputs
        ones = x.copy()
        ones.data = np.ones_like(x.data)
        return [ones]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [None]


sp_ones_like = SpOnesLike()


class AddSS(SparseOp):
    """``x + y`` of two sparse matrices (sparse, of ``x``'s format)."""

    __props__ = ()
    _public = "add"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        return Apply(self, [x, y], [_sparse_output(x.type.format, upcast(x.type.dtype, y.type.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        _check_same_shape("add", x, y)
        out = node.outputs[0].type
        return [_as_format(x + y, out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        return [gz, gz]


add_s_s = AddSS()


class AddSD(SparseOp):
    """``x + y`` of a sparse ``x`` and a dense matrix ``y``: dense. The gradient with
    respect to ``x`` is structured."""

    __props__ = ()
    _public = "add"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        if y.type.ndim != 2:
            raise build_error(f"add of a sparse matrix and {label(y)!r}: it must be a matrix, "
                              f"got {y.type.short()}", TypeError)
        return Apply(self, [x, y], [_tensor_output(upcast(x.type.dtype, y.type.dtype),
                                                   tuple(1 if b else None for b in y.type.broadcastable))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        x, y = inputs
        _check_same_shape("add", x, y)
        return [np.asarray(x + y, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        x, _ = inputs
        (gz,) = output_grads
        return [mul(sp_ones_like(x), gz), gz]


add_s_d = AddSD()


class MulSS(SparseOp):
    """Elementwise ``x * y`` of two sparse matrices (sparse, of ``x``'s format)."""

    reads_pattern = True
    __props__ = ()
    _public = "mul"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        return Apply(self, [x, y], [_sparse_output(x.type.format, upcast(x.type.dtype, y.type.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        _check_same_shape("mul", x, y)
        out = node.outputs[0].type
        return [_as_format(x.multiply(y), out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        (gz,) = output_grads
        return [mul(y, gz), mul(x, gz)]


mul_s_s = MulSS()


class MulSD(SparseOp):
    """Elementwise ``x * y`` of a sparse ``x`` and a dense ``y`` (a matrix or a scalar):
    sparse, of ``x``'s format and pattern."""

    reads_pattern = True
    __props__ = ()
    _public = "mul"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        if y.type.ndim not in (0, 2):
            raise build_error(f"mul of a sparse matrix and {label(y)!r}: it must be a matrix or "
                              f"a scalar, got {y.type.short()}", NotImplementedError)
        return Apply(self, [x, y], [_sparse_output(x.type.format, upcast(x.type.dtype, y.type.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        out = node.outputs[0].type
        z = x.astype(out.dtype)  # a copy: x's pattern, entries multiplied in place
        z.data = z.data.copy()
        if np.ndim(y) == 2:
            _check_same_shape("mul", x, y)
            coo = x.tocoo()
            # Each stored entry times y at its place (the entries of x.tocoo() are in
            # x's storage order).
            z.data *= np.asarray(y[coo.row, coo.col], dtype=out.dtype)
        else:
            z.data *= np.asarray(y, dtype=out.dtype)
        return [z]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        (gz,) = output_grads
        gy = dense_from_sparse(mul(x, gz))
        if y.type.ndim == 0:
            gy = gy.sum()
        return [mul(y, gz), gy]


mul_s_d = MulSD()


def by_sparseness(name: str, x: Any, y: Any, both: Any, left: Any, right: Any,
                  error: type = TypeError) -> Variable:
    """``both(x, y)`` of two sparse operands, ``left(x, y)`` of a sparse ``x`` and a dense
    ``y``, ``right(y, x)`` of a dense ``x`` and a sparse ``y`` (the sparse operand first,
    as Theano's ops take them); ``error`` naming ``symnb.sparse.<name>`` when neither is."""
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    if is_sparse_variable(x) and is_sparse_variable(y):
        return both(x, y)
    if is_sparse_variable(x):
        return left(x, y)
    if is_sparse_variable(y):
        return right(y, x)
    raise build_error(f"symnb.sparse.{name}: at least one operand must be sparse", error)


def add(x: Any, y: Any) -> Variable:
    """``x + y`` where at least one of them is sparse: sparse when both are, dense
    otherwise (the gradient with respect to the sparse operand then structured)."""
    return by_sparseness("add", x, y, add_s_s, add_s_d, add_s_d, NotImplementedError)


def sub(x: Any, y: Any) -> Variable:
    """``x - y`` where at least one of them is sparse (``x + (-y)``, as Theano)."""
    y = as_sparse_or_tensor_variable(y)
    return add(x, neg(y) if is_sparse_variable(y) else -y)


def mul(x: Any, y: Any) -> Variable:
    """Elementwise ``x * y`` where at least one of them is sparse: sparse (the pattern
    of the sparse operand)."""
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    if is_sparse_variable(x) and is_sparse_variable(y):
        if y.dtype == "float64" and x.dtype == "float32":
            x = cast(x, "float64")
        return mul_s_s(x, y)
    if is_sparse_variable(x):
        if y.dtype == "float64" and x.dtype == "float32":
            x = cast(x, "float64")
        return mul_s_d(x, y)
    if is_sparse_variable(y):
        return mul_s_d(y, x)
    raise build_error("symnb.sparse.mul: at least one operand must be sparse", NotImplementedError)


# -- products and sums ----------------------------------------------------------------------

class StructuredDot(SparseOp):
    """``a @ b`` of a sparse ``a`` and a dense (or sparse) matrix ``b``: dense (sparse
    when ``b`` is). The gradient with respect to ``a`` is structured (``a``'s pattern)."""

    __props__ = ()
    _public = "structured_dot"

    def make_node(self, a: Any, b: Any) -> Apply:
        a = as_sparse_variable(a)
        b = as_sparse_or_tensor_variable(b)
        if b.type.ndim != 2:
            raise build_error(f"structured_dot: {label(b)!r} must be a matrix, got "
                              f"{b.type.short()}", NotImplementedError)
        dtype = upcast(a.type.dtype, b.type.dtype)
        if is_sparse_variable(b):
            return Apply(self, [a, b], [_sparse_output(a.type.format, dtype)])
        return Apply(self, [a, b], [_tensor_output(dtype, (None, b.type.shape[1] if b.type.shape[1] == 1 else None))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        a, b = inputs
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"structured_dot: shapes {a.shape} and {b.shape} are not aligned")
        out = node.outputs[0].type
        product = a @ b
        if isinstance(out, SparseType):
            return [_as_format(product, out.format, out.dtype)]
        return [np.asarray(product, dtype=out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(input_shapes[0][0], input_shapes[1][1])]

    def L_op(self, inputs, outputs, output_grads):
        a, b = inputs
        (g,) = output_grads
        if is_sparse_variable(b):
            raise NotImplementedError("structured_dot's gradient needs a dense second operand "
                                      "(as Theano's)")
        from symnb.core.tensor.blas import dot as dense_dot

        # Theano's structured_dot_grad: (g @ b.T) at a's stored entries only.
        return [mul_s_d(sp_ones_like(a), dense_dot(g, b.T)), structured_dot(transpose(a), g)]


_structured_dot = StructuredDot()


def structured_dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with a sparse ``x`` (or a sparse ``y``: ``(y.T @ x.T).T``); the
    gradient with respect to the sparse operand is structured."""
    if is_sparse_value(x):
        x = as_sparse_variable(x)
    if is_sparse_value(y):
        y = as_sparse_variable(y)
    if is_sparse_variable(x):
        return _structured_dot(x, y)
    if is_sparse_variable(y):
        from symnb.core.tensor.shape import transpose as dense_transpose

        return dense_transpose(_structured_dot(transpose(y), dense_transpose(as_tensor_variable(x))))
    raise build_error("structured_dot requires at least one sparse argument", TypeError)


class Dot(SparseOp):
    """``x @ y`` where at least one operand is sparse: dense, with a regular (not
    structured) gradient (Theano's ``sparse.dot``)."""

    __props__ = ()
    _public = "dot"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
        if not (is_sparse_variable(x) or is_sparse_variable(y)):
            raise build_error(f"Sparse dot product should have at least one sparse variable as "
                              f"inputs, but the inputs are {label(x)!r} ({x.type.short()}) and "
                              f"{label(y)!r} ({y.type.short()}).", TypeError)
        for position, v in enumerate((x, y)):
            if not is_sparse_variable(v) and v.type.ndim not in (1, 2):
                raise build_error(f"symnb.sparse.Dot: input {position} must have ndim of 1 or 2, "
                                  f"{v.type.ndim} given.", TypeError)
        shape = (None,) * (x.type.ndim - 1) + (None,) * (y.type.ndim - 1)
        return Apply(self, [x, y], [_tensor_output(upcast(x.type.dtype, y.type.dtype), shape)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        x, y = inputs
        product = x @ y
        if is_sparse_value(product):
            product = product.toarray()
        return [np.asarray(product, dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        xshp, yshp = input_shapes
        return [tuple(xshp[:-1]) + tuple(yshp[1:])]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.blas import dot as dense_dot

        x, y = inputs
        (gz,) = output_grads
        if x.type.ndim != 2 or y.type.ndim != 2:
            raise NotImplementedError("symnb.sparse.dot's gradient is defined for two matrices")
        gx = dense_dot(gz, y.T) if not is_sparse_variable(y) else dot(gz, transpose(y))
        gy = dense_dot(x.T, gz) if not is_sparse_variable(x) else dot(transpose(x), gz)
        return [gx, gy]


_dot = Dot()


def dot(x: Any, y: Any) -> Variable:
    """``x @ y``, at least one operand sparse: a dense result, a regular gradient."""
    if is_sparse_value(x):
        x = as_sparse_variable(x)
    if is_sparse_value(y):
        y = as_sparse_variable(y)
    if not (is_sparse_variable(x) or is_sparse_variable(y)):
        raise build_error("symnb.sparse.dot needs at least one sparse operand", TypeError)
    return _dot(x, y)


class TrueDot(SparseOp):
    """``x @ y`` of a sparse ``x`` and a sparse or dense matrix ``y``, as a sparse
    matrix (csr for a csr ``x``, csc for a csc one); a regular gradient, dense for a
    dense ``y`` when ``grad_preserves_dense``."""

    __props__ = ()
    _public = "true_dot"

    def __init__(self, grad_preserves_dense: bool = True) -> None:
        self.grad_preserves_dense = grad_preserves_dense

    def make_node(self, x: Any, y: Any) -> Apply:
        y = as_sparse_or_tensor_variable(y)
        if x.type.dtype != y.type.dtype:
            raise build_error(f"true_dot: the operands' dtypes differ ({x.type.dtype} and "
                              f"{y.type.dtype}); cast one first (as Theano, which does not "
                              "implement it)", NotImplementedError)
        if not is_sparse_variable(x):
            raise build_error(f"true_dot: {label(x)!r} must be sparse", TypeError)
        return Apply(self, [x, y], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, y = inputs
        out = node.outputs[0].type
        return [_as_format(x @ y, out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(input_shapes[0][0], input_shapes[1][1])]

    def L_op(self, inputs, outputs, output_grads):
        x, y = inputs
        (gz,) = output_grads
        y_t = transpose(y) if is_sparse_variable(y) else y.T
        gx = true_dot(gz, y_t)
        gy = true_dot(transpose(x), gz)
        if not is_sparse_variable(y) and self.grad_preserves_dense:
            gy = dense_from_sparse(gy)
        return [gx, gy]


def true_dot(x: Any, y: Any, grad_preserves_dense: bool = True) -> Variable:
    """``x @ y`` as a sparse matrix, at least one operand sparse (a regular gradient)."""
    if is_sparse_value(x):
        x = as_sparse_variable(x)
    if is_sparse_value(y):
        y = as_sparse_variable(y)
    if is_sparse_variable(x):
        return TrueDot(grad_preserves_dense)(x, y)
    if is_sparse_variable(y):
        from symnb.core.tensor.shape import transpose as dense_transpose

        return transpose(TrueDot(grad_preserves_dense)(transpose(y), dense_transpose(as_tensor_variable(x))))
    raise build_error("true_dot needs at least one sparse operand", TypeError)


class SpSum(SparseOp):
    """The sum of a sparse matrix's entries, over ``axis`` (None: all): dense. The
    gradient is sparse, of ``x``'s format: structured (``x``'s pattern) when
    ``sparse_grad``, else every entry."""

    __props__ = ("axis",)
    _public = "sp_sum"

    def __init__(self, axis: int | None = None, sparse_grad: bool = True) -> None:
        if axis not in (None, 0, 1):
            raise ValueError("Illegal value for self.axis.")
        self.axis = axis
        self.structured = sparse_grad

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [_tensor_output(x.type.dtype, () if self.axis is None else (None,))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        (x,) = inputs
        dtype = node.outputs[0].type.dtype
        if self.axis is None:
            return [np.asarray(x.sum(), dtype=dtype)]
        return [np.asarray(x.sum(self.axis), dtype=dtype).ravel()]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        if self.axis is None:
            return [()]
        return [(input_shapes[0][1 - self.axis],)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.alloc import ones_like

        (x,) = inputs
        (gz,) = output_grads
        if np.dtype(x.type.dtype).kind not in "fc":
            return [None]
        dense = dense_from_sparse(x)
        if self.axis is None:
            spread = gz * ones_like(dense)
        elif self.axis == 0:
            spread = gz.dimshuffle("x", 0) * ones_like(dense)
        else:
            spread = gz.dimshuffle(0, "x") * ones_like(dense)
        if self.structured:
            return [mul_s_d(sp_ones_like(x), spread)]
        return [SparseFromDense(x.type.format)(spread)]


def sp_sum(x: Any, axis: int | None = None, sparse_grad: bool = False) -> Variable:
    """The sum of a sparse matrix over ``axis`` (None: all entries), dense; the
    gradient is sparse, structured when ``sparse_grad``."""
    return SpSum(axis, sparse_grad)(x)


# -- stacking -------------------------------------------------------------------------------

class HStack(SparseOp):
    """Sparse matrices side by side (``scipy.sparse.hstack``), of ``format`` (default
    csc) and ``dtype`` (required, as in Theano); a regular gradient, sparse of the
    output's format."""

    __props__ = ("format", "dtype")
    _public = "hstack"
    axis = 1

    def __init__(self, format: str | None = None, dtype: Any = None) -> None:
        self.format = "csc" if format is None else format
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of: 'csr', 'csc'; got {format!r}")
        if dtype is None:
            raise ValueError("The output dtype must be specified.")
        self.dtype = str(np.dtype(dtype))

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.format},{self.dtype})"

    def make_node(self, *mat: Any) -> Apply:
        if not mat:
            raise ValueError("Cannot join an empty list of sparses.")
        blocks = [as_sparse_variable(x) for x in mat]
        return Apply(self, blocks, [_sparse_output(self.format, self.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        stack = scipy.sparse.hstack if self.axis == 1 else scipy.sparse.vstack
        return [_as_format(stack(list(inputs), format=self.format, dtype=self.dtype),
                           self.format, self.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        total = input_shapes[0][self.axis]
        for shape in input_shapes[1:]:
            total = total + shape[self.axis]
        other = input_shapes[0][1 - self.axis]
        return [(other, total) if self.axis == 1 else (total, other)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.shape import shape as shape_of

        (gz,) = output_grads
        if is_sparse_variable(gz):
            gz = dense_from_sparse(gz)
        grads, start = [], 0
        for x in inputs:
            stop = start + shape_of(dense_from_sparse(x))[self.axis]
            piece = gz[:, start:stop] if self.axis == 1 else gz[start:stop]
            continuous = np.dtype(x.type.dtype).kind in "fc"
            grads.append(SparseFromDense(self.format)(piece) if continuous else None)
            start = stop
        return grads


class VStack(HStack):
    """Sparse matrices one above the other (``scipy.sparse.vstack``); see HStack."""

    _public = "vstack"
    axis = 0


def hstack(blocks: Sequence[Any], format: str | None = None, dtype: Any = None) -> Variable:
    """Sparse matrices side by side, as ``scipy.sparse.hstack`` (default format csc,
    dtype the blocks' common one)."""
    blocks = [as_sparse_variable(b) for b in blocks]
    if dtype is None:
        dtype = upcast(*[b.type.dtype for b in blocks])
    return HStack(format=format, dtype=dtype)(*blocks)


def vstack(blocks: Sequence[Any], format: str | None = None, dtype: Any = None) -> Variable:
    """Sparse matrices one above the other, as ``scipy.sparse.vstack``."""
    blocks = [as_sparse_variable(b) for b in blocks]
    if dtype is None:
        dtype = upcast(*[b.type.dtype for b in blocks])
    return VStack(format=format, dtype=dtype)(*blocks)
