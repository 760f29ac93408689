"""The graph of a :class:`~symnb.core.graph.fgraph.FunctionGraph` as it was at any step
of its rewrite history.

``FunctionGraph.replace`` edits nodes in place (each reader of the replaced variable gets
the new one in its ``inputs``), so after compiling, a node a rewrite made may read what
a *later* rewrite put there: its ``inputs`` show the end of the story, not the step.
Each :class:`~symnb.core.graph.fgraph.RewriteRecord` keeps the readers it moved, so the
graph before step ``k`` is the final graph with the steps ``k``, ``k + 1``... undone, read
through :meth:`GraphState.inputs_of` without touching a node.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from symnb.core.graph.basic import Apply, Variable, toposort

__all__ = ["GraphState", "state_before", "states_backwards"]


class GraphState:
    """The graph at one step: its ``outputs`` and, per node, the inputs it read then."""

    def __init__(self, outputs: Sequence[Variable], changed: dict[tuple[int, int], Variable]) -> None:
        self.outputs = list(outputs)
        self._changed = changed  # (id(node), input position) -> the input it read then

    def inputs_of(self, node: Apply) -> list[Variable]:
        """``node``'s inputs in this state."""
        if not self._changed:
            return node.inputs
        return [self._changed.get((id(node), i), var) for i, var in enumerate(node.inputs)]

    def order(self) -> list[Apply]:
        """The nodes of this state, each after those computing its inputs."""
        return toposort(self.outputs, inputs_of=self.inputs_of)

    def readers(self, order: list[Apply] | None = None) -> dict[int, list[tuple[Any, int]]]:
        """``{id(variable): [(reading node, input position), ...]}``, outputs as
        ``("output", k)``."""
        readers: dict[int, list[tuple[Any, int]]] = {}
        for node in self.order() if order is None else order:
            for i, var in enumerate(self.inputs_of(node)):
                readers.setdefault(id(var), []).append((node, i))
        for k, var in enumerate(self.outputs):
            readers.setdefault(id(var), []).append(("output", k))
        return readers

    def undo(self, record: Any) -> "GraphState":
        """The state before ``record``'s step, when this one is the state after it."""
        outputs, changed = list(self.outputs), dict(self._changed)
        for client, i in record.clients:
            if client == "output":
                outputs[i] = record.old
            else:
                changed[(id(client), i)] = record.old
        return GraphState(outputs, changed)


def states_backwards(fgraph: Any) -> Iterator[tuple[int, GraphState, GraphState]]:
    """``(k, before, after)`` for each step ``k`` of ``fgraph.history``, last first: one
    pass over the history for all of them."""
    after = GraphState(fgraph.outputs, {})
    for k in range(len(fgraph.history) - 1, -1, -1):
        before = after.undo(fgraph.history[k])
        yield k, before, after
        after = before


def state_before(fgraph: Any, step: int) -> GraphState:
    """The graph before step ``step`` of ``fgraph.history`` (``len(history)``: the final
    graph; ``step + 1``: the graph just after the step)."""
    state = GraphState(fgraph.outputs, {})
    for record in reversed(fgraph.history[step:]):
        state = state.undo(record)
    return state
