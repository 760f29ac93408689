"""A failed call's values on its error (``err.call_values``), from the NumPy replay.

Every error a call raises about a node (a shape a node cannot take, an index or
``Assert`` check, ``NanGuardMode``'s verdict) goes through :func:`with_call_values`
before it leaves the function: the graph is replayed with the call's arguments and the
shared variables' values before the call (unchanged by the failed call), see
:mod:`symnb.core.failed_call`. The values are kept on the error for
``GraphExplorer(err)`` and the error's HTML, and enter its record (``err.record``), from
which its message is drawn again.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import label, set_record
from symnb.core.failed_call import CallValues, NodeValues, keep_inner, replay

__all__ = ["with_call_values"]


def with_call_values(error: Exception, function: Any, arrays: Sequence[Any]) -> Exception:
    """``error`` with ``error.call_values`` set (when it names a node), for the call of
    ``function`` with ``arrays`` (its checked arguments; shared values are read here),
    and its record (and so its message) holding them."""
    node = getattr(error, "node", None)
    if node is None or getattr(error, "call_values", None) is not None:
        return error
    try:
        values = _replayed(error, node, function, arrays)
    except Exception:  # noqa: BLE001 -- the replay must never hide the error it explains
        return error
    error.call_values = values
    if getattr(error, "_record", None) is not None:
        set_record(error, values.record(error.record))
    else:  # an error made from a message alone: its values follow it
        error.add_note("\n".join(values.lines()))
    return error


def _replayed(error: Exception, node: Any, function: Any, arrays: Sequence[Any]) -> CallValues:
    arguments = [(label(v), np.asarray(a)) for v, a in zip(function.inputs, arrays)]
    arguments += [(label(v), v.get_value()) for v in function._all_shared]
    env = {id(v): value for v, (_, value) in zip(function._program_inputs, arguments)}
    bad_value = getattr(error, "bad_value", None)  # NanGuardMode's test of a value
    last: list[NodeValues] = []
    in_loops: dict[int, tuple] = {}  # an inner graph's values, the last evaluation's

    def failing(seen: NodeValues) -> bool:
        if seen.holder is not None:
            keep_inner(in_loops, seen)
        if seen.node is not node:
            return False
        last[:] = [seen]
        if seen.error is not None:
            return True
        return bad_value is not None and any(bad_value(v) for v in seen.inputs + seen.outputs)

    found, other = replay(function.nodes, env, failing)
    computed = {id(v): (v, env[id(v)]) for v in function._program_inputs if id(v) in env}
    computed.update((id(v), (v, env[id(v)])) for n in function.nodes for v in n.outputs if id(v) in env)
    values = CallValues(arguments, node, found, other, last[0] if last else None, computed, in_loops)
    values.function = function  # GraphExplorer(err) draws its graph around a node in a loop body
    values.program = (list(function.nodes), list(function._program_inputs))  # replayed again on demand
    return values
