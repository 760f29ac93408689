"""Graphs whose lengths depend on run-time values, refused before compiling.

XLA needs every shape while tracing. ``nonzero`` of a run-time value lowers to a
padded index (``symnb.lower_xla.rules.subtensor``), exact as the index of
``set_subtensor``/``inc_subtensor``. Reading ``x[m.nonzero()]`` or ``x[mask]`` needs
the mask's values while tracing: the function specializes on the inputs they come from
(``symnb.compile.specialize``), when it can; a read whose mask no call can provide, and
every other use of a run-time ``nonzero`` (which would see the padded length), is
refused when the function is built, naming the line.
"""

from __future__ import annotations

from typing import Sequence

from symnb.compile.specialize import HINTS, never_static_reason
from symnb.core.graph.errors import label, node_error
from symnb.core.graph.basic import Apply, Constant, Place, Variable, node_places, walk_nodes
from symnb.core.tensor import subtensor as st
from symnb.core.tensor import subtensor_index as si
from symnb.core.graph.static import known_while_tracing
from symnb.lower_xla.registry import DynamicShapeError
from symnb.lower_xla.rules.python_op import shapes_known_only_by_running
from symnb.lower_xla.rules.subtensor import (
    array_entries, array_inputs, mask_read_message, nonzero_use_message,
)

__all__ = ["check_dynamic_shapes"]


def check_dynamic_shapes(nodes: Sequence[Apply], outputs: Sequence[Variable],
                         inputs: Sequence[Variable] | None = None, n_arguments: int = 0) -> None:
    """Refuse graphs that use a value-dependent length XLA cannot express.

    ``nodes`` are the toposorted nodes of the program and ``outputs`` its outputs; the
    graphs they hold (loop bodies, branches) are checked too. A ``nonzero`` of a
    run-time value may be the index of ``set_subtensor`` or ``inc_subtensor`` (alone,
    or with the other outputs of the same ``nonzero``); ``x[mask]`` with a run-time mask
    may appear inside them. Reads (``x[m.nonzero()]``, ``x[mask]``) are allowed when a
    call can provide the mask while tracing: given the program's ``inputs`` (the first
    ``n_arguments`` of them the function's arguments, the others shared variables),
    when it is computed from arguments of a small fixed size or shared variables;
    without ``inputs``, never.
    """
    # Most graphs hold none of the ops concerned: found by the walk that makes no places.
    if not any(_concerned(node) for node in walk_nodes(nodes)):
        return
    places = list(node_places(nodes))
    every_known = known_while_tracing(place.node for place in places)

    def may_read(mask: Variable, place: Place) -> str | None:
        """None when a read with ``mask`` (an input of ``place``'s node) may run; else why not."""
        if inputs is None:
            return ""
        return never_static_reason(mask, place, inputs, n_arguments, HINTS["a mask"], every_known)

    graphs = [(nodes, outputs, lambda: "the function")]
    graphs += [(inner.nodes, inner.outputs, holder.node.op.display_name)
               for holder in places for inner in holder.node.op.inner_graphs]
    place_of = {id(place.node): place for place in places}
    for graph_nodes, graph_outputs, owner in graphs:
        _check_graph(graph_nodes, graph_outputs, owner, place_of, may_read)


#: The ops whose lengths may depend on run-time values.
_CONCERNED = (st.Nonzero, st.FlatNonzero, st._IndexOp)


def _concerned(node: Apply) -> bool:
    return (isinstance(node.op, _CONCERNED) or node.op.length_from_values
            or shapes_known_only_by_running(node))


def _check_graph(nodes, outputs, owner, place_of, may_read) -> None:
    """``check_dynamic_shapes`` for one graph; ``owner()`` names what its outputs are
    outputs of (asked only for the message)."""
    if not any(_concerned(node) for node in nodes):
        return
    known = known_while_tracing(nodes)
    clients = _clients(nodes, outputs)
    for node in nodes:
        if node.op.length_from_values and not all(_is_known(v, known) for v in node.inputs):
            raise node_error(DynamicShapeError, node, (
                f"DynamicShapeError in {node.op.display_name()}: the length of its output "
                f"depends on the values of {', '.join(label(v) for v in node.inputs)}, known "
                f"only at run time, in {owner()}; XLA needs static shapes."))
        if shapes_known_only_by_running(node) and not all(_is_known(v, known) for v in node.inputs):
            raise node_error(DynamicShapeError, node, (
                f"DynamicShapeError in {node.op.display_name()}: it runs as Python (its "
                f"perform) and only running it gives its output shapes (no infer_shape, "
                f"no static output types), in {owner()}; a compiled function runs such a "
                f"node between two programs, but not inside a loop body or a branch: give "
                f"the op an infer_shape(node, input_shapes) method"))
        if isinstance(node.op, (st.Nonzero, st.FlatNonzero)) and not _is_known(node.inputs[0], known):
            for var in node.outputs:
                for client, position in clients.get(id(var), []):
                    if _padding_is_harmless(client, position, node):
                        continue
                    reason = _read_refused(client, position, place_of, may_read)
                    if reason is not None:
                        raise DynamicShapeError(nonzero_use_message(node, client, owner()) + reason)
        if isinstance(node.op, st._IndexOp) and _has_runtime_mask(node, known):
            if isinstance(node.op, st.AdvancedSubtensor):
                mask = next(v for e, v in zip(array_entries(node.op.idx_list), array_inputs(node))
                            if isinstance(e, si.Mask) and not _is_known(v, known))
                reason = may_read(mask, place_of[id(node)])
                if reason is not None:
                    raise DynamicShapeError(mask_read_message(node) + _because(reason))
            elif not _mask_alone(node):
                raise DynamicShapeError(mask_read_message(node))


def _read_refused(client: Apply | None, position: int | None, place_of, may_read) -> str | None:
    """None when ``client`` reads with a run-time ``nonzero`` (its input ``position``)
    whose mask a call can provide while tracing; else the end of the refusal."""
    if client is None or not isinstance(client.op, st.AdvancedSubtensor) or position == 0:
        return ""
    reason = may_read(client.inputs[position], place_of[id(client)])
    return None if reason is None else _because(reason)


def _because(reason: str) -> str:
    return f"\nThe mask cannot be known while tracing: it {reason}" if reason else ""


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
