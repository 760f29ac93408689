"""What every graph printer shares: ids, how a variable is named, what a printed object holds.

This module (like all of ``symnb.printing``) never imports JAX: a compiled function is
read through its attributes only (``maker.fgraph`` when it has one, else ``nodes`` and
``outputs``), so printing stays available without the backend loaded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Apply, Constant, Variable, format_constant
# Pictures of 50,000 nodes make some hundred thousand small tuples, all still used when
# done: each collection would walk the whole graph again (a third of the build time).
from symnb.core.graph.collector import collector_paused as collector_paused
from symnb.core.graph.type import describe_shape

__all__ = ["char_id", "leaf_text", "value_text", "output_text", "graph_parts", "summarize_value",
           "collector_paused", "cut_text"]

_SMALL = 6  # arrays up to this size are shown in full


def char_id(number: int) -> str:
    """Theano's letter ids: 0 -> A, 25 -> Z, 26 -> BA, 27 -> BB (base 26, A is the zero digit)."""
    if number == 0:
        return "A"
    letters = ""
    while number:
        number, remainder = divmod(number, 26)
        letters = chr(ord("A") + remainder) + letters
    return letters


def leaf_text(var: Variable) -> str:
    """How a variable is shown when it is not expanded into the op computing it.

    A name wins; an unnamed constant shows its value (``TensorConstant{2.0}``); any
    other unnamed variable shows its type (``<TensorType(float32, shape=(?,))>``).
    """
    if var.name is not None:
        return var.name
    if isinstance(var, Constant):
        return f"{type(var).__name__}{{{value_text(var.data)}}}"
    return var.auto_name()


def value_text(data: np.ndarray) -> str:
    """A constant's value as NumPy prints it (``0.1`` for float32 0.1, not its float64
    expansion), or its dtype and shape when it has more than a few elements."""
    array = np.asarray(data)
    if array.size > _SMALL:
        return format_constant(array)
    if array.ndim == 0:
        return str(array[()])  # NumPy scalar: '2.0', not array2string's '2.'
    return " ".join(np.array2string(array, separator=", ").split())  # one line


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, the last an ellipsis when cut."""
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def output_text(var: Variable) -> str:
    """The op that computes ``var``, with ``.i`` when its node has several outputs."""
    node = var.owner
    assert node is not None, "output_text needs a variable computed by a node"
    suffix = f".{var.index}" if len(node.outputs) > 1 else ""
    return node.op.display_name() + suffix


# -- what a printed object holds -----------------------------------------------------

def graph_parts(obj: Any) -> tuple[list[Variable], list[Apply] | None]:
    """The variables to print for ``obj``, and the execution order of its nodes when
    ``obj`` is a compiled function or function graph (``None`` otherwise)."""
    if isinstance(obj, Variable):
        return [obj], None
    if isinstance(obj, Apply):
        return list(obj.outputs), None
    if isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            if not isinstance(item, Variable):
                raise TypeError(f"item {i} of the list to print is {type(item).__name__}, "
                                f"not a Variable")
        return list(obj), None
    compiled = _compiled_graph(obj)
    if compiled is None:
        raise TypeError(f"cannot print an object of type {type(obj).__name__}: expected a "
                        f"Variable, a list of Variables, an Apply node or a compiled function")
    return compiled


def _compiled_graph(obj: Any) -> tuple[list[Variable], list[Apply]] | None:
    # A function split around host nodes prints its chain as it runs (``nodes``), not
    # the record Theano's ``f.maker`` gives (made on demand: split_program.py)
    fgraph = None if hasattr(obj, "host_nodes") else getattr(getattr(obj, "maker", None), "fgraph", None)
    if fgraph is None and callable(getattr(obj, "toposort", None)) and hasattr(obj, "outputs"):
        fgraph = obj  # a FunctionGraph itself
    if fgraph is not None:
        return list(fgraph.outputs), list(fgraph.toposort())
    nodes = getattr(obj, "nodes", None)
    if nodes is None or not hasattr(obj, "outputs"):
        return None
    return _function_outputs(list(obj.outputs), list(nodes)), list(nodes)


def _function_outputs(outputs: list[Variable], nodes: list[Apply]) -> list[Variable]:
    """A compiled function's outputs as its program computes them, update values included.

    A function without ``maker.fgraph`` keeps the user's outputs and the node list of the
    program; the program's other results (shared-variable updates, outputs rewritten by
    ``givens``) are the nodes nothing else consumes.
    """
    in_program = {id(n) for n in nodes}
    shown = [o for o in outputs if o.owner is None or id(o.owner) in in_program]
    consumed = {id(v) for n in nodes for v in n.inputs} | {id(v) for v in shown}
    for node in nodes:
        if not any(id(o) in consumed for o in node.outputs):
            shown.extend(node.outputs)
    return shown


# -- test values ------------------------------------------------------------------------

def summarize_value(value: np.ndarray | None) -> str:
    """``float32 (3,) [2., 4., 6.]`` for a small value, ``float32 (100, 10) min=.. max=..``
    (with NaN/Inf counts when there are any) for a larger one."""
    if value is None:
        return "no test value"
    array = np.asarray(value)
    head = f"{array.dtype} {describe_shape(array.shape)}"
    if array.size == 0:
        return head
    if array.size <= _SMALL:
        return f"{head} {value_text(array)}"
    if array.dtype.kind == "c":
        return head
    return f"{head} {_range_summary(array)}"


def _range_summary(array: np.ndarray) -> str:
    if array.dtype.kind != "f":
        return f"min={array.min()} max={array.max()}"
    finite = array[np.isfinite(array)]
    text = (f"min={finite.min():.6g} max={finite.max():.6g}" if finite.size
            else "no finite values")
    n_nan, n_inf = int(np.isnan(array).sum()), int(np.isinf(array).sum())
    extra = [f"{n} {kind}" for n, kind in ((n_nan, "NaN"), (n_inf, "Inf")) if n]
    return f"{text} ({', '.join(extra)})" if extra else text
