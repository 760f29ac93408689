"""What is known before the compiled program runs, and what may be computed ahead of it.

Values are computed ahead of the program at three moments, by the same rules:

- as the graph is built (:func:`static_value`): constants, shapes the static types fix,
  and what ops that may run ahead compute from those -- so that most size errors are
  reported on the user's line and lengths are static for XLA;
- when a function is compiled (:func:`fold`, constant folding): a node whose inputs are
  all constants becomes the constant it computes;
- while JAX traces the program (:func:`known_while_tracing`): constants, input shapes
  (XLA's shapes are static) and what ops that may run ahead compute from those; the
  interpreter runs such nodes with their NumPy ``perform``, so lengths derived from input
  shapes stay static.

An op may run ahead (:func:`may_run_ahead`) unless it has effects (``Op.has_effects``:
printing, a check, which must happen when the program runs) or computing it ahead may
cost more than the program would (``Op.costly_to_fold``: a loop, an array far larger
than its inputs); an op holding inner graphs may run ahead when every node of them may.
An op whose outputs depend on its inputs' shapes only (``Op.reads_shape_only``) is known
whenever those shapes are.

The size thresholds of these decisions are all here, each with its reason.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Sequence

import numpy as np

from symnb.core.graph.evaluate import NOT_KNOWN, evaluate
from symnb.core.graph.basic import Apply, Constant, Variable, walk_nodes
from symnb.core.graph.error_base import SymnbError

__all__ = [
    "MAX_INLINE_ELEMENTS", "MAX_FOLDED_BYTES", "MAX_SPECIALIZED_ELEMENTS",
    "may_run_ahead", "static_value", "get_scalar_constant_value", "NotScalarConstantError",
    "EmptyConstantError", "extract_constant",
    "fold", "known_while_tracing", "small_enough_to_inline",
]

#: A filled array (zeros, a range, an identity, the ones a rewrite writes) with at most
#: this many elements is made ahead of the program and embedded in it as a constant; a
#: larger one is built by the device when the program runs. 1024 elements (8 KiB of
#: float64) cost nothing noticeable in program size or compile time, and cover the
#: shape-like arrays (a range of indices, a small mask) whose values XLA must see.
MAX_INLINE_ELEMENTS = 1024

#: Constant folding replaces a node whose inputs are all constants by its value when
#: that value has at most this many bytes. Larger than ``MAX_INLINE_ELEMENTS``: the
#: inputs are constants of the program already, so a result of comparable size adds
#: little; the bound stops a broadcast of small constants from embedding a huge one.
MAX_FOLDED_BYTES = 1 << 20

#: A compiled function compiles one program per distinct value of an input that a
#: length needs while tracing, only when that input has at most this many elements: a
#: program per value pays off for values that repeat (lengths, counts, small index
#: vectors); a larger array would seldom hit its cache.
MAX_SPECIALIZED_ELEMENTS = 64


def may_run_ahead(op: Any) -> bool:
    """True when ``op``'s outputs may be computed ahead of the program (folded, at build
    time, at trace time): no effects, no excessive cost, also in its inner graphs."""
    if op.has_effects or op.costly_to_fold:
        return False
    if not op.inner_graphs:
        return True
    decided = op.__dict__.get("_may_run_ahead")  # ops are immutable: decided once
    if decided is None:
        decided = all(not (node.op.has_effects or node.op.costly_to_fold)
                      for graph in op.inner_graphs for node in walk_nodes(graph.nodes))
        op.__dict__["_may_run_ahead"] = decided
    return decided


def small_enough_to_inline(shape: Sequence[int]) -> bool:
    """True when an array of ``shape`` may be embedded in the program as a constant."""
    return int(np.prod(shape, dtype=np.int64)) <= MAX_INLINE_ELEMENTS


# -- as the graph is built ---------------------------------------------------------------

def static_value(var: Variable, depth: int = 8) -> np.ndarray | None:
    """``var``'s value when it is known without any input value, else None.

    Known: constants, shapes that the static types fix, and ops that may run ahead
    applied to known values (e.g. ``x.shape[0] * 2`` when x's static shape is known),
    through at most ``depth`` nodes. A node failing on those values leaves the value
    unknown: the error is the graph's own, reported when it runs.
    """
    if isinstance(var, Constant):
        return var.data
    if var.owner is None:
        return None
    env: dict[int, Any] = {}
    order: list[Apply] = []
    if not _collect(var, depth, env, order, set()):
        return None
    if not evaluate(order, env, on_error=NOT_KNOWN):
        return None
    return env[id(var)]


class NotScalarConstantError(SymnbError):
    """Theano's: the variable is not known to be one scalar value before the program runs."""


class EmptyConstantError(NotScalarConstantError):
    """Theano's: the variable is a constant with no element (no scalar value)."""


def get_scalar_constant_value(v: Any, elemwise: bool = True, only_process_constants: bool = False,
                              max_recur: int = 10) -> np.ndarray:
    """Theano's ``get_scalar_constant_value``: the scalar a variable is known to hold
    without any input value (a 0-d array), or :class:`NotScalarConstantError`.

    Known as :func:`static_value` knows it, through at most ``max_recur`` nodes; an array
    whose elements are all equal counts as that scalar, as in Theano. A Python or NumPy
    number is returned as it is. ``only_process_constants``: constants only.
    ``elemwise=False`` only made Theano's search faster; it changes nothing here.
    """
    if isinstance(v, (int, float, complex, np.number, np.ndarray)) and not isinstance(v, bool):
        value = np.asarray(v)
    elif only_process_constants:
        value = v.data if isinstance(v, Constant) else None
    elif isinstance(v, Variable):
        source = _scalar_source(v, max_recur)
        value = static_value(source, depth=max_recur)
        if value is not None and source is not v:  # (an element of MakeVector is cast)
            value = np.asarray(value).astype(v.type.numpy_dtype)
    else:
        value = None
    if value is None:
        raise NotScalarConstantError(v)
    value = np.asarray(value)
    if value.size == 0:
        raise EmptyConstantError(v)
    if value.size > 1 and not (value == value.flat[0]).all():
        raise NotScalarConstantError(v)
    return np.array(value.reshape(-1)[0])


def _scalar_source(v: Variable, depth: int) -> Variable:
    """``v``, or the variable holding its scalar that the nodes' ``Op.scalar_source`` lead
    to (through an ``Alloc``, a true ``Assert``, ... at most ``depth`` of them)."""
    def known(var: Variable) -> Any:
        try:
            return get_scalar_constant_value(var, max_recur=depth)
        except NotScalarConstantError:
            return None

    for _ in range(depth):
        node = v.owner
        source = node.op.scalar_source(node, known) if node is not None else None
        if source is None:
            break
        v = source
    return v


def extract_constant(x: Any, elemwise: bool = True, only_process_constants: bool = False) -> Any:
    """Theano's ``extract_constant``: the scalar ``x`` is known to hold (as
    :func:`get_scalar_constant_value` finds it), else ``x`` itself."""
    try:
        return get_scalar_constant_value(x, elemwise, only_process_constants)
    except NotScalarConstantError:
        return x


def _collect(var: Variable, depth: int, env: dict[int, Any], order: list[Apply],
             seen: set[int]) -> bool:
    """Whether ``var`` can be known statically; the nodes computing it are appended to
    ``order`` (each after its inputs' nodes), the values read from types put in ``env``.
    Recursive, but at most ``depth`` (a few) levels deep."""
    if isinstance(var, Constant) or id(var) in env:
        return True
    node = var.owner
    if node is None or depth == 0:
        return False
    if id(node) in seen:
        return True
    seen.add(id(node))
    if node.op.reads_shape_only:
        return _from_static_shapes(node, env)
    if not may_run_ahead(node.op):
        return False
    if not all(_collect(inp, depth - 1, env, order, seen) for inp in node.inputs):
        return False
    order.append(node)
    return True


def _from_static_shapes(node: Apply, env: dict[int, Any]) -> bool:
    """Put in ``env`` the outputs of a node reading its inputs' shapes only, when the
    static types fix those shapes: computed on stand-ins of those shapes (views of one
    zero, so no memory is used whatever the shapes)."""
    shapes = [var.type.shape for var in node.inputs]
    if any(None in shape for shape in shapes):
        return False
    stand_ins = {id(var): np.broadcast_to(np.zeros((), var.type.numpy_dtype), shape)
                 for var, shape in zip(node.inputs, shapes)}
    if not evaluate([node], stand_ins, on_error=NOT_KNOWN):
        return False
    env.update((id(out), stand_ins[id(out)]) for out in node.outputs)
    return True


# -- when a function is compiled ----------------------------------------------------------

def fold(node: Apply) -> list[np.ndarray] | None:
    """The values of ``node``'s outputs when constant folding may replace it by them: its
    inputs are all constants, it may run ahead, it runs on them, and each value has at
    most ``MAX_FOLDED_BYTES``; else None."""
    if not node.inputs:
        return None
    for var in node.inputs:  # most nodes read a variable: the cheapest test first
        if not isinstance(var, Constant):
            return None
    if not may_run_ahead(node.op):
        return None
    env: dict[int, Any] = {}
    with warnings.catch_warnings():  # the graph's own warnings come when it runs
        warnings.simplefilter("ignore")
        if not evaluate([node], env, on_error=NOT_KNOWN):
            return None
    values = [env[id(out)] for out in node.outputs]
    if any(value.nbytes > MAX_FOLDED_BYTES for value in values):
        return None
    return values


# -- while the program is traced ----------------------------------------------------------

def known_while_tracing(nodes: Iterable[Apply]) -> set[int]:
    """Ids of the variables surely known (NumPy values) while the program is traced:
    constants, shapes, and what ops that may run ahead compute from them (the
    interpreter runs those nodes with ``perform``).

    ``nodes`` are in execution order; they may include the nodes of inner graphs (a
    walk), whose inputs are traced. Missing a known value only costs a check or a
    refusal of a rare graph, never a wrong result.
    """
    known: set[int] = set()
    for node in nodes:
        if node.op.reads_shape_only or (
                may_run_ahead(node.op)
                and all(isinstance(v, Constant) or id(v) in known for v in node.inputs)):
            known.update(id(o) for o in node.outputs)
    return known
