"""The last program of a split function (``symnb.compile.split_program``), compiled
per length bucket where padding is exact, else per length.

A program taking a host node's output sees its length as an argument shape: compiled
once per distinct length. Padding makes lengths share a program: each host output of
unknown length is padded along its first axis to the next power of two (a *bucket*) by
repeating its last row, and the program is rewritten (:func:`_padded_graph`) so that no
result sees the padding:

- operations that keep rows apart compute padded rows (values no result will read):
  elementwise operations, dimshuffles keeping the first axis first, softmax of each row,
  a dot product whose rows are the padded ones, broadcasts to a padded shape, gathers
  ``x[i]`` with a padded index (padded by repeating its last real index: in bounds),
  ``x[arange(n), labels]`` of padded rows and its increment (a cross-entropy);
- ``x[-1]`` reads the last real row; a gradient written back into a ``scan_until``
  loop's buffer (``PadRows``) takes the real rows only;
- a reduction over the first axis masks the padded rows out (they read as the
  reduction's identity, or as the first real row in a max or min); ``mean`` divides by
  the real count; a dot product over the padded axis of both factors (a weight's
  gradient) reads the padded rows as zeros; ``x.shape[0]`` is the real length (an
  argument of the program) and ``arange(x.shape[0])`` is padded as the rows are;
- ``set_subtensor``/``inc_subtensor`` at a padded index write the last real index again:
  a set writes the last real value again, an increment adds zero (its padded rows masked);
- an output with padded rows is cut to its real length on the host.

A graph where the padding could reach anything else (a reshape, a sort, an update, a
length used as a shape) keeps one program per length; ``lengths_reason`` says which
node stopped the buckets, at the user's line.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, clone_replace, toposort
from symnb.core.scan.rows import PadRows
from symnb.core.graph.errors import label
from symnb.core.tensor import math as m
from symnb.core.tensor import reduction as red
from symnb.core.tensor import subtensor as st
from symnb.core.tensor.subtensor import getitem
from symnb.core.tensor import subtensor_index as si
from symnb.core.tensor.alloc import Alloc, Arange, arange
from symnb.core.tensor.blas import Contraction
from symnb.core.tensor.nnet import _Normalize
from symnb.core.tensor.broadcast import BroadcastLike, SumToShape
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.join import stack
from symnb.core.tensor.shape import DimShuffle, Shape, ShapeI, shape_i
from symnb.core.graph.type import TensorType
from symnb.lower_xla.registry import static_inputs

__all__ = ["bucketed_stage", "bucket", "LastStage"]


def bucket(length: int) -> int:
    """The padded length of ``length`` rows: the next power of two (0 stays 0)."""
    return 0 if length == 0 else 1 << (length - 1).bit_length()


class _NotExact(Exception):
    """Padding could reach a result through ``node``."""

    def __init__(self, node: Apply | None, why: str) -> None:
        # None: a value with no node of its own (an input handed on as an update)
        where = "a value" if node is None else f"{node.op.display_name()} ({node.site.describe()})"
        super().__init__(f"{where} {why}")


class LastStage:
    """The program computing the outputs and updates from the arguments and the host
    values; ``groups`` (bucketed only): per length group, the positions of the host
    values padded to its bucket; ``trimmed``: per output, the group whose length it is
    cut to on the host (None: not padded)."""

    def __init__(self, function: Any, groups: list[list[int]] | None = None,
                 trimmed: Sequence[int | None] = ()) -> None:
        self.function = function
        self.groups = groups
        self.trimmed = list(trimmed)

    def run(self, arrays: list[Any], host: list[np.ndarray], single: bool,
            call: Any = None) -> Any:
        """The program's outputs for the arguments ``arrays`` and the host values
        ``host`` (padded here, the outputs cut here); ``call`` runs the program (default:
        the compiled function; ``as_jax`` passes the program's JAX function)."""
        call = call or self.function
        if self.groups is None:
            outputs = call(*arrays, *host)
            return outputs[0] if single else outputs
        host = list(host)
        lengths = []
        for positions in self.groups:
            length = len(host[positions[0]])
            lengths.append(np.int64(length))
            for p in positions:
                host[p] = _padded(host[p], bucket(length))
        outputs = call(*arrays, *host, *lengths)
        outputs = [out if group is None else out[:lengths[group]]
                   for out, group in zip(outputs, self.trimmed)]
        return outputs[0] if single else outputs


def _padded(value: np.ndarray, length: int) -> np.ndarray:
    """``value`` with its last row repeated up to ``length`` rows."""
    if len(value) == length:
        return value
    return np.concatenate([value, np.repeat(value[-1:], length - len(value), axis=0)])


def bucketed_stage(graph: Sequence[Variable], fresh: dict[Variable, Variable],
                   groups: list[list[Variable]], inputs: list[Variable], n_outputs: int,
                   updated_shared: Sequence[Any], make_function: Any,
                   options: dict[str, Any]) -> tuple[LastStage, str, str]:
    """The last program of the chain: ``graph`` (the outputs, then the new values of
    ``updated_shared``) with each host output replaced by its argument (``fresh``).
    ``groups``: host outputs of one length each (the outputs of one ``nonzero``...).
    Returns it, how it is specialized (``'buckets'`` or ``'per length'``) and why not
    buckets ('' when it is)."""
    replaced = clone_replace(list(graph), dict(fresh))
    arguments = inputs + list(fresh.values())
    updates = dict(options)
    try:
        padded, trimmed, lengths = _padded_graph(replaced, fresh, groups, n_outputs)
    except _NotExact as why:
        function = make_function(arguments, replaced[:n_outputs],
                                 updates=list(zip(updated_shared, replaced[n_outputs:])), **updates)
        return LastStage(function), "per length", f"padding is not exact: {why}"
    function = make_function(arguments + lengths, padded[:n_outputs],
                             updates=list(zip(updated_shared, padded[n_outputs:])), **updates)
    position = {id(v): i for i, v in enumerate(fresh)}
    stage = LastStage(function, [[position[id(v)] for v in group] for group in groups], trimmed)
    return stage, "buckets", ""


def _padded_graph(outputs: list[Variable], fresh: dict[Variable, Variable],
                  groups: list[list[Variable]], n_outputs: int
                  ) -> tuple[list[Variable], list[int | None], list[Variable]]:
    """``outputs`` computed from host values padded to their bucket: the new outputs,
    per function output the group whose real length it is cut to (or None), and per
    group the int64 argument holding its real length. Raises ``_NotExact``."""
    group_of: dict[int, int] = {}  # id(padded variable) -> its group
    lengths: list[Variable] = []
    for number, group in enumerate(groups):
        lengths.append(TensorType.variable_type(TensorType("int64", ()),
                                                 name=f"length of {label(group[0])}"))
        for var in group:
            group_of[id(fresh[var])] = number
    valid: dict[tuple[int, int], Variable] = {}

    def real_rows(group: int, like: Variable, ndim: int) -> Variable:
        """True on the real rows of ``like`` (of ``group``), as ``ndim`` dimensions."""
        key = (group, ndim)
        if key not in valid:
            rows = m.lt(arange(shape_i(like, 0)), lengths[group])
            valid[key] = rows.dimshuffle(0, *["x"] * (ndim - 1)) if ndim > 1 else rows
        return valid[key]

    new: dict[int, Variable] = {}
    roots = list(fresh.values())
    from_lengths = {id(v) for v in lengths}  # values computed from a real length
    shape_of: dict[int, int] = {}  # id(the shape of a padded value) -> its group
    padded_shape: dict[int, Variable] = {}  # id(that shape) -> the padded value's shape
    counting: set[int] = set()  # arange(real length), padded: row numbers
    # Padded values whose padded rows are not copies of the last real row (computed from
    # row numbers): as an index into an unpadded array they could point anywhere.
    unsafe: set[int] = set()
    for node in toposort(outputs, roots):
        inputs = [new.get(id(v), v) for v in node.inputs]
        padded = [group_of.get(id(v)) for v in inputs]
        # A real length is an argument: used as a length (a shape, a range bound), each
        # value would compile a program, and its rows would not match the padded ones.
        if isinstance(node.op, st.Subtensor) and node.op.idx_list == (0,) \
                and id(inputs[0]) in shape_of:  # x.shape[0]: the real length
            new[id(node.outputs[0])] = lengths[shape_of[id(inputs[0])]]
            continue
        counted = _counting(node, inputs, lengths)
        if counted is not None:  # arange(n) of a real length n: padded as the rows are
            made = node.op.make_node(inputs[0], shape_i(fresh[groups[counted][0]], 0), inputs[2])
            made.site = node.site
            new[id(node.outputs[0])] = made.outputs[0]
            group_of[id(made.outputs[0])] = counted
            counting.add(id(made.outputs[0]))
            unsafe.add(id(made.outputs[0]))
            continue
        if isinstance(node.op, Alloc) and id(inputs[1]) in shape_of \
                and id(inputs[0]) not in from_lengths:  # zeros like a padded value
            made = node.op.make_node(inputs[0], padded_shape[id(inputs[1])])
            made.site = node.site
            new[id(node.outputs[0])] = made.outputs[0]
            group_of[id(made.outputs[0])] = shape_of[id(inputs[1])]
            continue
        for position in static_inputs(node.op, node):
            if id(inputs[position]) in from_lengths:
                raise _NotExact(node, "uses the run-time length as a length")
        length_values = not node.op.reads_shape_only and any(id(v) in from_lengths for v in inputs)
        if all(g is None for g in padded):
            results = node.outputs
            if any(a is not b for a, b in zip(inputs, node.inputs)):
                rebuilt = node.op.make_node(*inputs)
                rebuilt.site = node.site
                results = rebuilt.outputs
                new.update(zip(map(id, node.outputs), results))
            if length_values:
                from_lengths.update(id(v) for v in results)
            continue
        results, group = _padded_node(node, inputs, padded, real_rows, lengths, counting, unsafe)
        if any(id(v) in unsafe for v in inputs):
            unsafe.update(id(v) for v in results)
        if isinstance(node.op, Shape):
            shape_of[id(results[0])] = group
            padded_shape[id(results[0])] = node.op.make_node(inputs[0]).outputs[0]
            group = None
        if length_values or isinstance(node.op, (Shape, ShapeI, red.Mean)):
            from_lengths.update(id(v) for v in results)
        for old, result in zip(node.outputs, results):
            new[id(old)] = result
            if group is not None and result.ndim > 0:
                group_of[id(result)] = group
    final = [new.get(id(v), v) for v in outputs]
    trimmed = [group_of.get(id(v)) for v in final[:n_outputs]]
    for node_var, var in zip(outputs[n_outputs:], final[n_outputs:]):
        if id(var) in group_of:
            raise _NotExact(node_var.owner, "gives a shared variable's new value of a "
                                            "run-time length")
    return final, trimmed, lengths


def _padded_node(node: Apply, inputs: list[Variable], padded: list[int | None], real_rows: Any,
                 lengths: list[Variable], counting: set[int],
                 unsafe: set[int]) -> tuple[list[Variable], int | None]:
    """The outputs of ``node`` on ``inputs``, some with padded rows (``padded``: the
    group of each input, or None); and the group of the padded outputs (None: none)."""
    op = node.op
    groups = {g for g in padded if g is not None}
    if len(groups) > 1:
        raise _NotExact(node, "combines values of two run-time lengths")
    (group,) = groups

    def built(op_: Any, *args: Variable) -> list[Variable]:
        made = op_.make_node(*args)
        made.site = node.site
        return made.outputs

    if isinstance(op, Elemwise):
        ndim = node.outputs[0].ndim
        for var, g in zip(inputs, padded):
            if g is not None and var.ndim != ndim:
                raise _NotExact(node, "broadcasts a value of a run-time length")
            if g is None and var.ndim == ndim and var.type.shape[0] != 1:
                raise _NotExact(node, "combines a value of a run-time length with another")
        return built(op, *inputs), group
    if isinstance(op, BroadcastLike):  # the gradient of a sum: the shape of its input
        x, like = inputs
        if padded[1] is None or (padded[0] is None and x.ndim == like.ndim
                                 and x.type.shape[0] != 1) or (padded[0] is not None
                                                               and x.ndim != like.ndim):
            raise _NotExact(node, "broadcasts a value of a run-time length")
        return built(op, *inputs), group
    if isinstance(op, SumToShape):  # a gradient summed back to a broadcast input's shape
        g, like = inputs
        if padded[0] is not None and padded[1] is not None and g.ndim == like.ndim:
            return built(op, *inputs), group  # rows stay rows (summed only when 1 = 1 real)
        if padded[1] is None and (like.ndim < g.ndim or like.type.shape[0] == 1):
            masked = m.switch(real_rows(group, g, g.ndim), g, m.cast(0, g.dtype))
            return built(op, masked, like), None
        raise _NotExact(node, "sums a value of a run-time length to another shape")
    if isinstance(op, DimShuffle):
        if not op.pattern or op.pattern[0] != 0:
            raise _NotExact(node, "moves the axis of a run-time length")
        return built(op, *inputs), group
    if isinstance(op, ShapeI):
        if op.i == 0:
            return [lengths[group]], None
        return built(op, *inputs), None
    if isinstance(op, Shape):
        (x,) = inputs
        return [stack(lengths[group], *[shape_i(x, i) for i in range(1, x.ndim)])], group
    if isinstance(op, red.Reduce) and type(op) in _IDENTITY:
        return _masked_reduction(node, inputs[0], group, real_rows, lengths), \
            (group if 0 not in op.reduced_axes(inputs[0].ndim) else None)
    if isinstance(op, (st.AdvancedSubtensor, st.AdvancedIncSubtensor)) and padded[0] is None \
            and any(id(v) in unsafe for v in inputs[op.n_values:]):
        raise _NotExact(node, "indexes with padded rows that may point anywhere")
    if isinstance(op, st.AdvancedSubtensor) and padded[0] is None and _leading_arrays(op, padded):
        return built(op, *inputs), group
    if isinstance(op, (st.AdvancedSubtensor, st.AdvancedIncSubtensor)) and padded[0] is not None \
            and _leading_arrays(op, [None] + padded[1:]) and id(inputs[op.n_values]) in counting:
        # x[arange(n), i] of padded rows (a cross-entropy): row r reads (or adds to) row r
        return built(op, *inputs), group
    if isinstance(op, Contraction):
        return _padded_contraction(node, inputs, padded, group, real_rows, built)
    if isinstance(op, _Normalize) and 0 not in op.axis:  # softmax of each row
        return built(op, *inputs), group
    if isinstance(op, (st.Subtensor, st.IncSubtensor)) and padded[0] is not None \
            and op.idx_list[:1] == (_ALL_ROWS,) and all(g is None for g in padded[op.n_values:]):
        # x[:, ...] keeps the rows as rows (a column of each row...), and so does its
        # gradient's increment of the same view
        if isinstance(op, st.IncSubtensor):
            y, view_ndim = inputs[1], _view_ndim(op.idx_list, inputs[0].ndim)
            if padded[1] is None and y.ndim == view_ndim and y.type.shape[0] != 1:
                raise _NotExact(node, "combines a value of a run-time length with another")
            if padded[1] is not None and y.ndim != view_ndim:
                raise _NotExact(node, "broadcasts a value of a run-time length")
        return built(op, *inputs), group
    if isinstance(op, st.Subtensor) and op.idx_list == (-1,) and padded[0] is not None:
        # x[-1]: the last real row (a padded program has one: no row pads to none)
        return [getitem(inputs[0], m.sub(lengths[group], 1))], None
    if isinstance(op, st.IncSubtensor) and op.idx_list == (-1,) and padded[0] is not None \
            and padded[1] is None:  # its gradient: written into the last real row
        x, y = inputs
        return [st.inc_subtensor(getitem(x, m.sub(lengths[group], 1)), y,
                                 set_instead_of_inc=op.set_instead_of_inc)], group
    if isinstance(op, PadRows) and padded[0] is not None and padded[1] is None:
        # a gradient written back into a loop's buffer: the real rows only
        count = lengths[group] if len(inputs) == 2 else m.minimum(inputs[2], lengths[group])
        return built(op, inputs[0], inputs[1], count), None
    if isinstance(op, st.AdvancedIncSubtensor) and padded[0] is None \
            and _leading_arrays(op, padded):
        x, y, *index = inputs
        if padded[1] is not None and y.ndim != x.ndim - len(index) + 1:
            raise _NotExact(node, "broadcasts a value of a run-time length")
        if not op.set_instead_of_inc:  # the repeated last index adds zero
            rows = real_rows(group, index[0], x.ndim - len(index) + 1)
            y = m.switch(rows, y, m.cast(0, y.dtype))
        elif padded[1] is not None:  # the padded index repeats the last: so do the values
            last = m.maximum(m.sub(lengths[group], 1), 0)
            y = st.AdvancedSubtensor((si.ARRAY,))(y, m.minimum(arange(shape_i(y, 0)), last))
        return built(op, x, y, *index), None
    raise _NotExact(node, f"reads a value of a run-time length ({type(op).__name__} is not "
                          f"made exact on padded rows)")


def _padded_contraction(node: Apply, inputs: list[Variable], padded: list[int | None],
                        group: int, real_rows: Any, built: Any) -> tuple[list[Variable], int | None]:
    """A dot product with padded rows: rows of a free first axis stay rows; a sum over
    the padded axis of both (a weight's gradient) reads the padded rows as zeros."""
    x, y = inputs
    ax, ay = node.op.contracted(x.ndim, y.ndim)
    if padded[0] is not None and padded[1] is None and 0 not in ax:
        return built(node.op, x, y), group
    if padded[0] is not None and padded[1] is not None and (0, 0) in zip(ax, ay):
        x = m.switch(real_rows(group, x, x.ndim), x, m.cast(0, x.dtype))
        y = m.switch(real_rows(group, y, y.ndim), y, m.cast(0, y.dtype))
        return built(node.op, x, y), None  # the padded axis is summed over
    raise _NotExact(node, "multiplies a value of a run-time length along an axis it cannot "
                          "mask")


def _counting(node: Apply, inputs: list[Variable], lengths: list[Variable]) -> int | None:
    """The group whose real length ``node`` counts up to (``arange(n)``), or None."""
    if not isinstance(node.op, Arange):
        return None
    start, stop, step = inputs
    if not (_constant_is(start, 0) and _constant_is(step, 1)):
        return None
    return next((g for g, length in enumerate(lengths) if stop is length), None)


#: The index entry ``:`` (every row).
_ALL_ROWS = si.Slice(None, None, None)


def _view_ndim(idx_list: Sequence[Any], ndim: int) -> int:
    """The dimensions of ``x[idx]`` for a basic index: an integer takes one away, a
    ``None`` adds one."""
    removed = sum(1 for e in idx_list if isinstance(e, int) or e is si.SCALAR)
    added = sum(1 for e in idx_list if e is None)
    return ndim - removed + added


def _constant_is(var: Variable, value: int) -> bool:
    return isinstance(var, Constant) and np.ndim(var.data) == 0 and var.data == value


def _leading_arrays(op: Any, padded: list[int | None]) -> bool:
    """Whether the index arrays are the first entries, each of one padded group, 1-d."""
    entries = si.input_entries(op.idx_list)
    index_groups = padded[op.n_values:]
    arrays = [i for i, e in enumerate(entries) if op.idx_list[e] is si.ARRAY]
    if not arrays or arrays != list(range(len(arrays))) or entries[:len(arrays)] != arrays:
        return False
    if any(isinstance(e, si.Mask) for e in op.idx_list):
        return False
    return all(index_groups[i] is not None for i in arrays) and \
        all(g is None for i, g in enumerate(index_groups) if i not in arrays)


#: The value padded rows read as in an extremum: the first row's.
_FIRST_ROW = object()

#: The reductions over padded rows masked exactly: the value the padding reads as.
_IDENTITY = {red.Sum: 0, red.Prod: 1, red.Mean: 0, red.Any: False, red.All: True,
             red.Max: _FIRST_ROW, red.Min: _FIRST_ROW}


def _masked_reduction(node: Apply, x: Variable, group: int, real_rows: Any,
                      lengths: list[Variable]) -> list[Variable]:
    op = node.op
    axes = op.reduced_axes(x.ndim)
    if 0 not in axes:  # the padded rows stay rows of the result
        made = op.make_node(x)
        made.site = node.site
        return made.outputs
    identity = _IDENTITY[type(op)]
    if identity is _FIRST_ROW:
        # A padded program has a real row (an empty selection pads to none): reading the
        # first one instead of the padded rows leaves a max or min as it was, and makes
        # no infinity that NanGuardMode would see.
        identity = getitem(x, slice(0, 1))
    else:
        identity = m.cast(identity, x.dtype)
    masked = m.switch(real_rows(group, x, x.ndim), x, identity)
    if isinstance(op, red.Mean):
        total = red.sum(masked, axis=axes, keepdims=op.keepdims)
        count = lengths[group]
        for a in axes:
            if a != 0:
                count = m.mul(count, shape_i(x, a))
        dtype = node.outputs[0].dtype
        result = m.true_div(m.cast(total, dtype), m.cast(count, dtype))
        return [m.cast(result, dtype)]
    made = op.make_node(masked)
    made.site = node.site
    return made.outputs
