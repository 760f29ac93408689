"""Theano's sparse indexing (``x[i, j]``, ``x[a:b, c:d]``, ``x[[rows]]``,
``x[[rows], [cols]]``): ``GetItemScalar``, ``GetItem2d``, ``GetItemList``,
``GetItem2Lists`` and the gradient ops of the last two, computing SciPy's values.

Each op describes its index as the dense indexing ops do (``idx_list`` and ``n_values``,
``symnb.core.tensor.subtensor_index``), so that inside a compiled program, where a sparse
matrix is its dense matrix, the dense ops' lowering rules, index checks and static slice
bounds apply to it unchanged (``symnb/lower_xla/rules/sparse_indexing.py``). These ops are
not dense index ops (no ``Subtensor`` subclass): the rewrites of dense indexing never see
them.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.sparse

from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.sparse.ops import (
    SparseOp, _as_format, _sparse_output, _tensor_output, as_sparse_variable,
)
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.subtensor import _IndexOp, _symbolic_indexed_shape
from symnb.core.tensor.subtensor_checks import rephrase_index_error

__all__ = ["GetItemScalar", "get_item_scalar", "GetItem2d", "get_item_2d", "GetItemList",
           "get_item_list", "GetItemListGrad", "get_item_list_grad", "GetItem2Lists",
           "get_item_2lists", "GetItem2ListsGrad", "get_item_2lists_grad", "getitem"]


def _integer_vector(value: Any, what: str) -> Variable:
    var = as_tensor_variable(value)
    if var.ndim != 1 or np.dtype(var.dtype).kind not in "iu":
        raise build_error(f"{what}: an index must be a vector of integers, got {label(var)} "
                          f"({var.type.short()})", TypeError)
    return var


def _is_integer_scalar(value: Any) -> bool:
    if isinstance(value, Variable):
        return value.ndim == 0 and np.dtype(value.dtype).kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class _SparseIndexOp(SparseOp):
    """What the sparse indexing ops share with the dense ones: ``idx_list`` (the index's
    structure, its symbolic parts the inputs after ``x``) and SciPy's ``x[index]``."""

    __props__ = ("idx_list",)
    n_values = 1
    idx_list: tuple = ()

    # The dense ops' own words: ``GetItem2d{1:?, :}``, ``x[a:b, :]``.
    display_name = _IndexOp.display_name
    words = _IndexOp.indexed

    def index_values(self, inputs: Sequence[Any]) -> tuple:
        return si.build_index(self.idx_list, [_python_index(v) for v in inputs[self.n_values:]])

    def scipy_getitem(self, node: Apply, inputs: Sequence[Any]) -> Any:
        """SciPy's ``x[index]``; an index out of range is NumPy's IndexError, named."""
        try:
            return inputs[0][self.index_values(inputs)]
        except IndexError as err:
            raise rephrase_index_error(node, inputs, err) from None


def _python_index(value: Any) -> Any:
    array = np.asarray(value)
    return int(array) if array.ndim == 0 else array


class GetItemScalar(_SparseIndexOp):
    """``x[i, j]`` of two integer scalars: the entry, a dense scalar of ``x``'s dtype
    (Theano's ``GetItemScalar``; no gradient, as in Theano)."""

    _public = "get_item_scalar"

    def __init__(self, idx_list: Sequence[Any] = (si.SCALAR, si.SCALAR)) -> None:
        self.idx_list = tuple(idx_list)

    def make_node(self, x: Any, index: Sequence[Any]) -> Apply:
        x = as_sparse_variable(x)
        if len(index) != 2 or not all(_is_integer_scalar(i) for i in index):
            raise build_error(f"GetItemScalar: {label(x)}[i, j] needs two integer scalars, got "
                              f"{index!r} (x[a:b, c:d] is GetItem2d)", TypeError)
        entries, inputs = [], []
        for i in index:
            if isinstance(i, Constant) or not isinstance(i, Variable):
                entries.append(int(i.data if isinstance(i, Constant) else i))
            else:
                entries.append(si.SCALAR)
                inputs.append(i)
        return Apply(GetItemScalar(entries), [x, *inputs], [_tensor_output(x.type.dtype, ())])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        return [np.asarray(self.scipy_getitem(node, inputs), dtype=node.outputs[0].type.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [()]

    def L_op(self, inputs, outputs, output_grads):
        raise NotImplementedError("GetItemScalar (x[i, j] of a sparse x) has no gradient, as "
                                  "in Theano: index x.toarray() for one")


get_item_scalar = GetItemScalar()


def _slice_part(x: Variable, part: Any, what: str) -> tuple[Any, list[Variable]]:
    """A slice bound: None, an int, or a symbolic integer scalar (Theano's ValueError
    for anything else)."""
    if part is None:
        return None, []
    if _is_integer_scalar(part) and not isinstance(part, Variable):
        return int(part), []
    var = part if isinstance(part, Variable) else as_tensor_variable(part)
    if not _is_integer_scalar(var):
        raise build_error(f"Impossible to index into a sparse matrix with slice where "
                          f"{what}={label(var)} ({var.type.short()}): slice bounds are integer "
                          "scalars", ValueError)
    if isinstance(var, Constant):
        return int(var.data), []
    return si.SCALAR, [var]


class GetItem2d(_SparseIndexOp):
    """``x[a:b:s, c:d:t]`` (or ``x[a:b]``): slices of both axes, a sparse matrix of
    ``x``'s format (Theano's ``GetItem2d``; bounds may be symbolic, the step too; no
    gradient, as in Theano). An integer index is refused: Theano has no sparse vector."""

    _public = "get_item_2d"

    def __init__(self, idx_list: Sequence[Any] = (si.Slice(None, None, None),) * 2) -> None:
        self.idx_list = tuple(idx_list)

    def make_node(self, x: Any, index: Sequence[Any]) -> Apply:
        x = as_sparse_variable(x)
        index = tuple(index) if isinstance(index, (tuple, list)) else (index,)
        if len(index) not in (1, 2):
            raise build_error(f"GetItem2d: {label(x)} has 2 axes, got {len(index)} indices",
                              IndexError)
        entries, inputs = [], []
        for ind in index + (slice(None),) * (2 - len(index)):
            if not isinstance(ind, slice):
                if _is_integer_scalar(ind):
                    raise build_error("Theano has no sparse vector: use X[a:b, c:d], "
                                      "X[a:b, c:c+1] or X[a:b] instead.", NotImplementedError)
                raise build_error("Advanced indexing is not implemented for sparse matrices. "
                                  f"Argument not supported: {ind}", ValueError)
            parts = [_slice_part(x, p, w) for p, w in zip((ind.start, ind.stop, ind.step),
                                                          ("start", "stop", "step"))]
            if parts[2][0] == 0:
                raise build_error("slice step cannot be zero", ValueError)
            entries.append(si.Slice(*(p for p, _ in parts)))
            inputs.extend(v for _, vs in parts for v in vs)
        return Apply(GetItem2d(entries), [x, *inputs], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        out = node.outputs[0].type
        return [_as_format(self.scipy_getitem(node, inputs), out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [_symbolic_indexed_shape(node, self.idx_list, input_shapes)]

    def L_op(self, inputs, outputs, output_grads):
        raise NotImplementedError("GetItem2d (x[a:b, c:d] of a sparse x) has no gradient, as "
                                  "in Theano: slice x.toarray() for one")


get_item_2d = GetItem2d()


class GetItemList(_SparseIndexOp):
    """``x[rows]`` of an integer vector: those rows, a sparse matrix of ``x``'s format
    (Theano's ``GetItemList``); its gradient is ``GetItemListGrad``."""

    _public = "get_item_list"
    idx_list = (si.ARRAY,)
    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = as_sparse_variable(x)
        index = _integer_vector(index, "GetItemList")
        return Apply(self, [x, index], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        out = node.outputs[0].type
        return [_as_format(self.scipy_getitem(node, inputs), out.format, out.dtype)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [(input_shapes[1][0], input_shapes[0][1])]

    def L_op(self, inputs, outputs, output_grads):
        x, index = inputs
        return [get_item_list_grad(x, index, output_grads[0]), None]


get_item_list = GetItemList()


def _assigned(x: Any, positions: Sequence[tuple], values: Sequence[Any]) -> Any:
    """A zero matrix of ``x``'s shape, format and dtype with ``values[a]`` written at
    ``positions[a]`` in turn (the last write wins: Theano's loop of assignments)."""
    y = scipy.sparse.lil_matrix(x.shape, dtype=x.dtype)
    for where, value in zip(positions, values):
        y[where] = value
    return _as_format(y, x.format, x.dtype)


class GetItemListGrad(_SparseIndexOp):
    """The gradient of ``x[rows]``: ``gz``'s row ``a`` written at row ``rows[a]`` of a
    zero matrix like ``x`` (the last write wins for a repeated row, as in Theano)."""

    idx_list = (si.ARRAY,)
    __props__ = ()
    differentiable = False  # a gradient's own op (Theano's has no grad)

    def make_node(self, x: Any, index: Any, gz: Any) -> Apply:
        x, gz = as_sparse_variable(x), as_sparse_variable(gz)
        index = _integer_vector(index, "GetItemListGrad")
        return Apply(self, [x, index, gz], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, index, gz = inputs
        self.scipy_getitem(node, inputs[:2])  # NumPy's IndexError for a row out of range
        return [_assigned(x, [int(i) for i in index], [gz[a] for a in range(len(index))])]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]


get_item_list_grad = GetItemListGrad()


class GetItem2Lists(_SparseIndexOp):
    """``x[rows, cols]`` of two integer vectors: the entries, a dense vector of ``x``'s
    dtype (Theano's ``GetItem2Lists``; its gradient is ``GetItem2ListsGrad``)."""

    _public = "get_item_2lists"
    idx_list = (si.ARRAY, si.ARRAY)
    __props__ = ()

    def make_node(self, x: Any, ind1: Any, ind2: Any) -> Apply:
        x = as_sparse_variable(x)
        ind1, ind2 = _integer_vector(ind1, "GetItem2Lists"), _integer_vector(ind2, "GetItem2Lists")
        # Theano declared a floatX vector and returned x's dtype: x's dtype here.
        return Apply(self, [x, ind1, ind2], [_tensor_output(x.type.dtype, (None,))])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[np.ndarray]:
        values = self.scipy_getitem(node, inputs)
        return [np.asarray(values, dtype=node.outputs[0].type.dtype).flatten()]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        x, ind1, ind2 = inputs
        return [get_item_2lists_grad(x, ind1, ind2, output_grads[0]), None, None]


get_item_2lists = GetItem2Lists()


class GetItem2ListsGrad(_SparseIndexOp):
    """The gradient of ``x[rows, cols]``: ``gz[a]`` written at ``(rows[a], cols[a])`` of
    a zero matrix like ``x`` (the last write wins for a repeated entry, as in Theano)."""

    idx_list = (si.ARRAY, si.ARRAY)
    __props__ = ()
    differentiable = False  # a gradient's own op (Theano's has no grad)

    def make_node(self, x: Any, ind1: Any, ind2: Any, gz: Any) -> Apply:
        x, gz = as_sparse_variable(x), as_tensor_variable(gz)
        ind1, ind2 = _integer_vector(ind1, "GetItem2ListsGrad"), _integer_vector(ind2, "GetItem2ListsGrad")
        return Apply(self, [x, ind1, ind2, gz], [_sparse_output(x.type.format, x.type.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any]) -> list[Any]:
        x, ind1, ind2, gz = inputs
        self.scipy_getitem(node, inputs[:3])  # NumPy's IndexError for an entry out of range
        return [_assigned(x, list(zip(map(int, ind1), map(int, ind2))), list(gz))]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        return [input_shapes[0]]


get_item_2lists_grad = GetItem2ListsGrad()


def getitem(x: Variable, args: Any) -> Variable:
    """``x[args]`` of a sparse ``x``, Theano's choice of op: two integer scalars,
    ``GetItemScalar``; two lists, ``GetItem2Lists``; one list, ``GetItemList``;
    slices, ``GetItem2d``."""
    if not isinstance(args, tuple):
        args = (args,)
    if len(args) == 2:
        if _is_integer_scalar(args[0]) and _is_integer_scalar(args[1]):
            return get_item_scalar(x, args)
        if isinstance(args[0], list):
            return get_item_2lists(x, args[0], args[1])
        return get_item_2d(x, args)
    if isinstance(args[0], list):
        return get_item_list(x, args[0])
    return get_item_2d(x, args)
