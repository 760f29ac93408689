"""What a view of an error draws: :func:`error_focus`, the one place that locates the
failing node and the loop (or fused chain) holding it.

Every view of an error reads it: the explorer (``GraphExplorer(err)``), the viewer's model
(``view_model(err)``) and through them the saved viewer and its overview. The failing node
may sit in the outer graph, in a loop body or fused chain of the failed function (a call's
failure, ``err.call_values.function``), or in the body of a loop that failed while it was
built (its test values, :func:`symnb.core.failed_call.failure_values`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from symnb.core.failed_call import CallValues, failure_values
from symnb.core.graph.basic import Apply, walk_nodes

__all__ = ["ErrorFocus", "error_focus", "error_node"]


class ErrorFocus(NamedTuple):
    """``graph``: what to draw (the failed function when a loop body or fused chain of it
    holds the failing node, the loop that failed while built, else the failing node and
    what it reads); ``marked``: the nodes drawn failing, the failing node first, then the
    top-level node holding it (if any); ``holder``: that top-level node, else None;
    ``call_values``: the failing call's (or build's) values, else None."""

    graph: Any
    marked: list[Apply]
    holder: Apply | None
    call_values: CallValues | None


def error_node(err: BaseException, who: str) -> Apply:
    """The node ``err`` names (``err.node``); a TypeError naming ``who`` asked (the
    user's call) and the error's class when it names none."""
    node = getattr(err, "node", None)
    if not isinstance(node, Apply):
        raise TypeError(f"{who}: the {type(err).__name__} names no node "
                        "(only symnb's build and run errors carry .node)")
    return node


def error_focus(err: BaseException, who: str) -> ErrorFocus:
    """Where ``err``'s failing node is, and so what its views draw (see :class:`ErrorFocus`);
    ``who``: the function the user called, named if ``err`` names no node."""
    named = error_node(err, who)
    values = failure_values(err)
    if values is None:
        return ErrorFocus(named, [named], None, None)
    node, function = values.node, values.function
    if function is None:  # failed while built: a loop whose body holds it, or the node itself
        holder = named if named is not node and _holds(named, node) else None
        return ErrorFocus(named, [node, named] if holder is not None else [named], holder, values)
    holder = None if node in function.nodes else next((n for n in function.nodes if _holds(n, node)), None)
    if holder is None:
        return ErrorFocus(named, [named], None, values)
    return ErrorFocus(function, [node, holder], holder, values)


def _holds(holder: Apply, node: Apply) -> bool:
    """True when ``node`` is in ``holder``'s inner graphs, at any depth."""
    return any(node in walk_nodes(graph.nodes) for graph in holder.op.inner_graphs)
