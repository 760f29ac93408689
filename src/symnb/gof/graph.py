"""``symnb.gof.graph``: the graph classes and walks of Theano's ``theano.gof.graph``.

Libraries built on Theano collect parameters with these walks (Lasagne's
``collect_shared_vars`` is ``[v for v in graph.inputs(reversed(outputs)) if
isinstance(v, SharedVariable)]``), so the order is Theano's: depth first, each node's
inputs from the left, the first output first.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Hashable, Iterable

from symnb.core.graph import Apply, Constant, Variable, toposort
from symnb.core.graph import ancestors as _ancestors
from symnb.core.graph_compare import equal_computations, is_same_graph
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["Apply", "Variable", "Constant", "ancestors", "inputs", "variables", "ops",
           "io_toposort", "is_same_graph", "equal_computations", "stack_search"]


def ancestors(variable_list: Iterable[Variable],
              blockers: Iterable[Variable] | None = None) -> list[Variable]:
    """Every variable ``variable_list`` depends on (themselves included), depth first; the
    walk does not go past ``blockers``."""
    return list(_ancestors(variable_list, blockers or ()))


def inputs(variable_list: Iterable[Variable],
           blockers: Iterable[Variable] | None = None) -> list[Variable]:
    """The variables without an owner (inputs, shared variables, constants) that
    ``variable_list`` depends on, in :func:`ancestors` order."""
    return [v for v in ancestors(variable_list, blockers) if v.owner is None]


def io_toposort(inputs: Iterable[Variable], outputs: Iterable[Variable]) -> list[Apply]:
    """The nodes between ``inputs`` and ``outputs``, each after the nodes it reads from."""
    return toposort(list(outputs), list(inputs))


def variables(i: Iterable[Variable], o: Iterable[Variable]) -> list[Variable]:
    """The variables between ``i`` and ``o``: ``i``, then every node's outputs in
    topological order (Theano's order)."""
    out = list(i)
    known = {id(v) for v in out}
    for node in io_toposort(out, o):
        for var in [*node.inputs, *node.outputs]:
            if id(var) not in known:
                known.add(id(var))
                out.append(var)
    return out


def ops(i: Iterable[Variable], o: Iterable[Variable]) -> set[Apply]:
    """The nodes between ``i`` and ``o`` (Theano's name: they are Apply nodes)."""
    return set(io_toposort(i, o))


def stack_search(start: deque, expand: Callable[[Any], Iterable[Any] | None], mode: str = "bfs",
                 build_inv: bool = False) -> list | tuple[list, dict]:
    """Theano's generic graph walk: every node reachable from ``start`` (a deque, emptied)
    through ``expand(node)``, each once (by identity), in the order visited: breadth first
    (``mode='bfs'``) or depth first (``'dfs'``). With ``build_inv``, also
    ``{node: [the nodes whose expansion gave it]}``."""
    if mode not in ("bfs", "dfs"):
        raise ValueError(f"stack_search: mode should be 'bfs' or 'dfs', got {mode!r}")
    pop = start.popleft if mode == "bfs" else start.pop
    seen: set[int] = set()
    visited: list = []
    expand_inv: dict[Hashable, list] = {}
    while start:
        node = pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        visited.append(node)
        expanded = expand(node)
        if expanded:
            if build_inv:
                for r in expanded:
                    expand_inv.setdefault(r, []).append(node)
            start.extend(expanded)
    return (visited, expand_inv) if build_inv else visited


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
