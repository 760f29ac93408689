"""Graphs whose lengths depend on run-time values, refused before compiling.

XLA needs every shape while tracing. ``nonzero`` of a run-time value lowers to a
padded index (``symnb.lower_xla.rules.subtensor``), exact only as the index of
``set_subtensor``/``inc_subtensor``; every other use, and reading ``x[mask]`` with a
run-time mask, would see the padded length, so the function refuses the graph when it
is built, naming the line.
"""

from __future__ import annotations

from typing import Callable, Sequence

from symnb.core.graph.basic import Apply, Constant, Variable, walk_nodes
from symnb.core.tensor import subtensor as st
from symnb.core.tensor import subtensor_index as si
from symnb.core.graph.static import known_while_tracing
from symnb.lower_xla.registry import DynamicShapeError
from symnb.lower_xla.rules.subtensor import (
    array_entries, array_inputs, mask_read_message, nonzero_use_message,
)

__all__ = ["check_dynamic_shapes"]


def check_dynamic_shapes(nodes: Sequence[Apply], outputs: Sequence[Variable]) -> None:
    """Refuse graphs that use a value-dependent length XLA cannot express.

    ``nodes`` are the toposorted nodes of the program and ``outputs`` its outputs; the
    graphs they hold (loop bodies, branches) are checked too. A ``nonzero`` of a
    run-time value may only be the index of ``set_subtensor`` or ``inc_subtensor``
    (alone, or with the other outputs of the same ``nonzero``); ``x[mask]`` with a
    run-time mask may only appear inside them.
    """
    every = list(walk_nodes(nodes))
    if not any(isinstance(node.op, _CONCERNED) for node in every):
        return
    _check_graph(nodes, outputs, lambda: "the function")
    for holder in every:
        for inner in holder.op.inner_graphs:
            _check_graph(inner.nodes, inner.outputs, holder.op.display_name)


#: The ops whose lengths may depend on run-time values.
_CONCERNED = (st.Nonzero, st.FlatNonzero, st._IndexOp)


def _check_graph(nodes: Sequence[Apply], outputs: Sequence[Variable], owner: Callable[[], str]) -> None:
    """``check_dynamic_shapes`` for one graph; ``owner()`` names what its outputs are
    outputs of (asked only for the message)."""
    if not any(isinstance(node.op, _CONCERNED) for node in nodes):
        return
    known = known_while_tracing(nodes)
    clients = _clients(nodes, outputs)
    for node in nodes:
        if isinstance(node.op, (st.Nonzero, st.FlatNonzero)) and not _is_known(node.inputs[0], known):
            for var in node.outputs:
                for client, position in clients.get(id(var), []):
                    if not _padding_is_harmless(client, position, node):
                        raise DynamicShapeError(nonzero_use_message(node, client, owner()))
        if isinstance(node.op, st._IndexOp) and _has_runtime_mask(node, known):
            if isinstance(node.op, st.AdvancedSubtensor) or not _mask_alone(node):
                raise DynamicShapeError(mask_read_message(node))


def _is_known(var: Variable, known: set[int]) -> bool:
    return isinstance(var, Constant) or id(var) in known


def _clients(nodes: Sequence[Apply], outputs: Sequence[Variable]) -> dict[int, list]:
    clients: dict[int, list] = {}
    for node in nodes:
        for position, var in enumerate(node.inputs):
            clients.setdefault(id(var), []).append((node, position))
    for var in outputs:
        clients.setdefault(id(var), []).append((None, None))
    return clients


def _padding_is_harmless(client: Apply | None, position: int | None, nonzero_node: Apply) -> bool:
    """True for an index input of an AdvancedIncSubtensor whose arrays all come from it."""
    if client is None or not isinstance(client.op, st.AdvancedIncSubtensor) or position < 2:
        return False
    for entry, var in zip(array_entries(client.op.idx_list), array_inputs(client)):
        if entry is not si.ARRAY or var.owner is not nonzero_node:
            return False
    return True


def _has_runtime_mask(node: Apply, known: set[int]) -> bool:
    return any(isinstance(e, si.Mask) and not _is_known(v, known)
               for e, v in zip(array_entries(node.op.idx_list), array_inputs(node)))


def _mask_alone(node: Apply) -> bool:
    return len(array_entries(node.op.idx_list)) == 1

