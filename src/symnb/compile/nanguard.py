"""``NanGuardMode``: stop at the first node that produces a NaN, an Inf or a huge value.

The function runs node by node (see ``linkers``); each node's inputs coming from
outside the graph and each node's outputs are checked, in execution order, so the
error names the first node where the bad value appears and the user's line that
built it. Functions compiled without this mode run at full XLA speed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.compile.linkers import Linker
from symnb.compile.mode import Mode, register_mode_name
from symnb.core.graph.errors import SymnbError, format_node_error, label, printed_node
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.type import describe_shape

__all__ = ["NanGuardMode", "NanGuardError"]

BIG = 1e10


class NanGuardError(SymnbError, AssertionError):
    """A NaN, Inf or big value appeared under NanGuardMode."""


class _NanGuardLinker(Linker):
    def __init__(self, nan_is_error: bool, inf_is_error: bool, big_is_error: bool) -> None:
        self.checks = (nan_is_error, inf_is_error, big_is_error)

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        for position, (var, value) in enumerate(zip(node.inputs, thunk.inputs)):
            if var.owner is None:  # values made inside the graph were checked when made
                self._check(node, index, thunk.inputs, var, value, f"input #{position}")
        thunk()
        for position, (var, value) in enumerate(zip(node.outputs, thunk.outputs)):
            self._check(node, index, thunk.inputs, var, value, f"output #{position}")

    def _check(self, node: Apply, index: int, inputs: list[Any], var: Variable, value: Any,
               where: str) -> None:
        problems = _problems(np.asarray(value), *self.checks)
        if not problems:
            return
        headline = (f"NanGuardMode: {' and '.join(problems)} in {where} {label(var)!r} "
                    f"({value.dtype} {describe_shape(np.shape(value))}) of "
                    f"{node.op.display_name()} (toposort index {index})")
        extra = _debugprint(node)
        error = NanGuardError(format_node_error(node, headline, inputs, extra))
        error.node = node  # GraphExplorer(error) draws the graph with this node marked
        raise error


def _problems(value: np.ndarray, nan: bool, inf: bool, big: bool) -> list[str]:
    if value.dtype.kind not in "fc" or value.size == 0:
        return []
    found = []
    if nan and np.isnan(value).any():
        found.append("NaN")
    if inf and np.isinf(value).any():
        found.append("Inf")
    if big and (np.abs(value[np.isfinite(value)]) > BIG).any():
        found.append(f"big value (> {BIG:g})")
    return found


def _debugprint(node: Apply) -> list[str]:
    text = printed_node(node)  # the printing layer's debugprint, registered on import
    return [] if text is None else ["Debugprint of the node:", text]


class NanGuardMode(Mode):
    """Raise at the first node whose inputs or outputs hold NaN, Inf or |value| > 1e10."""

    def __init__(self, nan_is_error: bool = True, inf_is_error: bool = True,
                 big_is_error: bool = True, optimizer: Any = "default") -> None:
        super().__init__(linker=_NanGuardLinker(nan_is_error, inf_is_error, big_is_error),
                         optimizer=optimizer)


register_mode_name(("NANGUARDMODE",), NanGuardMode)  # sn.function(mode='NanGuardMode')
