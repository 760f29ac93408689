"""Ops written the way Theano's documentation extends it ("Making arithmetic Ops on
double": ``DoubleOp``), accepted as they are:

- ``perform(self, node, inputs, output_storage)`` writing ``output_storage[i][0]``
  (symnb's own ops return their outputs): :func:`returning_outputs` wraps it;
- ``itypes`` / ``otypes`` in place of a ``make_node``: :func:`node_from_itypes`;
- ``grad(inputs, output_grads)`` in place of ``L_op`` (``Op.L_op`` calls it).

The perform's values are checked here as Theano's types filtered them: a value of
another dtype is converted when no information is lost (a Python float for a float64
output), else refused naming the op and the output.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.graph.type import TensorType

# ``op`` below is a ``symnb.core.graph.op.Op`` (which imports this module: not imported).
Op = Any

__all__ = ["writes_output_storage", "returning_outputs", "node_from_itypes", "as_type"]


def _required_positional(perform: Callable[..., Any]) -> int:
    """How many positional parameters ``perform`` requires (``self`` included)."""
    try:
        parameters = list(inspect.signature(perform).parameters.values())
    except (TypeError, ValueError):
        return 0
    return len([p for p in parameters
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty])


def writes_output_storage(perform: Callable[..., Any]) -> bool:
    """Whether ``perform`` takes Theano's ``output_storage`` (``self, node, inputs,
    output_storage`` and maybe ``params``) rather than returning its outputs."""
    return _required_positional(perform) >= 4


def returning_outputs(perform: Callable[..., Any]) -> Callable[..., Any]:
    """Theano's ``perform(self, node, inputs, output_storage)`` as symnb's
    ``perform(self, node, inputs) -> outputs`` (called with ``output_storage``, it
    behaves as Theano's, for code that calls it so). A ``params`` parameter it requires
    gets the op's ``get_params(node)``, as Theano gave it (None without one)."""
    wants_params = _required_positional(perform) >= 5

    @functools.wraps(perform)
    def perform_returning(self: Op, node: Apply, inputs: Sequence[np.ndarray],
                          output_storage: list | None = None, *params: Any) -> Any:
        if output_storage is not None:
            return perform(self, node, inputs, output_storage, *params)
        storage: list[list[Any]] = [[None] for _ in node.outputs]
        if wants_params:
            get_params = getattr(self, "get_params", None)
            perform(self, node, inputs, storage, get_params(node) if get_params else None)
        else:
            perform(self, node, inputs, storage)
        return [_filtered(self, node, i, cell[0]) for i, cell in enumerate(storage)]

    perform_returning.writes_output_storage = True  # type: ignore[attr-defined]
    return perform_returning


def _filtered(op: Op, node: Apply, index: int, value: Any) -> np.ndarray:
    """An output value as its declared type holds it (Theano's ``TensorType.filter``):
    converted to the declared dtype when nothing is lost, else refused."""
    declared = node.outputs[index].type
    if value is None:
        raise ValueError(f"{op.display_name()}.perform left output {index} unset "
                         f"(write output_storage[{index}][0])")
    if getattr(declared, "is_sparse", False):  # a SciPy matrix: its type's filter
        try:
            return declared.filter(value)
        except TypeError as error:
            raise TypeError(f"{op.display_name()}.perform returned a value output {index} "
                            f"cannot hold: {error}") from None
    array = np.asarray(value)
    if array.dtype != declared.numpy_dtype:
        if not np.can_cast(array.dtype, declared.numpy_dtype, "safe"):
            raise TypeError(f"{op.display_name()}.perform returned {array.dtype} for output "
                            f"{index}, declared {declared.dtype}; converting would lose "
                            f"information: cast it in perform")
        array = array.astype(declared.numpy_dtype)
    if array.ndim != declared.ndim:
        raise ValueError(f"{op.display_name()}.perform returned a {array.ndim}-d value for "
                         f"output {index}, declared {declared.ndim}-d ({declared!r})")
    return array


def as_type(spec: Any, where: str) -> TensorType:
    """A type of ``itypes``/``otypes`` (``where`` names the list, for the message): a
    ``TensorType``, or a constructor of a fixed dtype that stands for one as in Theano
    (``T.dmatrix``: its ``type``)."""
    found = spec if isinstance(spec, TensorType) else getattr(spec, "type", None)
    if not isinstance(found, TensorType):
        raise TypeError(f"{where} holds {spec!r}: give types, e.g. T.dmatrix, T.fvector "
                        f"or T.TensorType('float64', (None, None))")
    return found


def node_from_itypes(op: Op, inputs: Sequence[Any]) -> Apply:
    """Theano's default ``make_node``: inputs checked against ``op.itypes`` (dtype and
    number of dimensions; a static length where the type fixes one), one fresh
    output of each of ``op.otypes``."""
    itypes = [as_type(t, f"{op.display_name()}.itypes") for t in op.itypes]
    otypes = [as_type(t, f"{op.display_name()}.otypes") for t in op.otypes]
    if len(inputs) != len(itypes):
        raise TypeError(f"{op.display_name()} takes {len(itypes)} input(s) (its itypes), "
                        f"got {len(inputs)}")
    for position, (var, expected) in enumerate(zip(inputs, itypes)):
        if not isinstance(var, Variable):
            raise TypeError(f"{op.display_name()}: input {position} must be a symbolic variable "
                            f"of type {expected!r}, got {type(var).__name__}")
        if not _fits(var.type, expected):
            raise build_error(f"{op.display_name()}: input {position} ({label(var)}) has type "
                              f"{var.type!r}; its itypes expect {expected!r}", TypeError,
                              op=op, inputs=list(inputs))
    return Apply(op, list(inputs), otypes)


def _fits(actual: TensorType, expected: TensorType) -> bool:
    return (actual.dtype == expected.dtype and actual.ndim == expected.ndim
            and all(e is None or a == e for a, e in zip(actual.shape, expected.shape)))
