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
from symnb.core.graph.errors import SymnbError, error_from_record, label, node_record
from symnb.core.failed_call import NodeValues, replay
from symnb.core.graph.inner_graph import role_holding
from symnb.core.graph.basic import Apply, Constant, Variable
from symnb.core.graph.type import describe_shape
from symnb.core.tensor.composite import Composite
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["NanGuardMode", "NanGuardError", "NanGuardLinker"]

BIG = 1e10


class NanGuardError(SymnbError, AssertionError):
    """A NaN, Inf or big value appeared under NanGuardMode."""


class NanGuardLinker(Linker):
    """Runs each node, checking the values from outside the graph it reads and the
    values it makes; raises ``error_class`` (its message starting with ``mode_name``)
    at the first NaN, Inf or big value, as the checks ask. DebugMode's
    ``check_isfinite`` is this check (NaN and Inf), constants left out
    (``check_constants``)."""

    def __init__(self, nan_is_error: bool, inf_is_error: bool, big_is_error: bool,
                 error_class: type[SymnbError] = NanGuardError, mode_name: str = "NanGuardMode",
                 check_constants: bool = True) -> None:
        self.checks = (nan_is_error, inf_is_error, big_is_error)
        self.error_class, self.mode_name = error_class, mode_name
        self.check_constants = check_constants

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        for position, (var, value) in enumerate(zip(node.inputs, thunk.inputs)):
            # Values made inside the graph were checked when made.
            if var.owner is None and (self.check_constants or not isinstance(var, Constant)):
                self._check(node, index, thunk.inputs, var, value, f"input #{position}")
        thunk()
        for position, (var, value) in enumerate(zip(node.outputs, thunk.outputs)):
            if node.op.inner_graphs and self._bad(value):
                self._look_inside(node, thunk.inputs)
            self._check(node, index, thunk.inputs, var, value, f"output #{position}")

    def _bad(self, value: Any) -> bool:
        return bool(_problems(np.asarray(value), *self.checks))

    def _check(self, node: Apply, index: int, inputs: list[Any], var: Variable, value: Any,
               where: str, inside: str = "") -> None:
        problems = _problems(np.asarray(value), *self.checks)
        if not problems:
            return
        headline = (f"{self.mode_name}: {' and '.join(problems)} in {where} {label(var)!r} "
                    f"({value.dtype} {describe_shape(np.shape(value))}) of "
                    f"{node.op.display_name()}" + (f" ({inside})" if inside else ""))
        # Where it sits in the toposort: internal, for 'high' only (which adds a debugprint).
        details = [f"Toposort index: {index}"]
        record = node_record(node, headline, values=inputs, details=details)
        error = error_from_record(self.error_class, record)
        error.node = node  # GraphExplorer(error) draws the graph with this node marked
        error.bad_value = self._bad  # what the call's replay looks for (compile/call_values.py)
        raise error

    def _look_inside(self, holder: Apply, inputs: list[Any]) -> None:
        """A loop, branch or fused chain made a bad value: replay it in NumPy on the same
        inputs and name the first node of its inner graphs that made one, and the
        iteration (the program ran the inner graph as a whole, inside XLA)."""
        env = {id(var): np.asarray(value) for var, value in zip(holder.inputs, inputs)}

        def first_bad(seen: NodeValues) -> bool:
            return seen.node is not holder and seen.outputs is not None \
                and any(self._bad(v) for v in seen.outputs)

        found, _ = replay([holder], env, first_bad)
        if found is None:
            return  # NumPy computes no bad value there: the holder's output is reported
        # A fused chain's name is the optimizer's (Composite{...}), not the user's.
        fused = isinstance(found.holder.op, Composite)
        inside = "inside a fused chain of operations" if fused else f"inside {_part_of(found)}"
        if getattr(found.holder.op, "loops", False):
            inside = (f"iteration {found.evaluation} of {found.holder.op.display_name()} "
                      f"{found.holder.site.describe()}")
        for position, (var, value) in enumerate(zip(found.node.outputs, found.outputs)):
            self._check(found.node, 0, found.inputs, var, value, f"output #{position}", inside)


def _part_of(found: NodeValues) -> str:
    """The holder's name, with the branch the node is in when it holds several graphs
    (``the then branch of IfElse``)."""
    holder = found.holder.op
    role = role_holding(holder, found.node)
    return f"the {role} branch of {holder.display_name()}" if role else holder.display_name()


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


class NanGuardMode(Mode):
    """Raise at the first node whose inputs or outputs hold NaN, Inf or ``|value| > 1e10``."""

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, nan_is_error: bool = True, inf_is_error: bool = True,
                 big_is_error: bool = True, optimizer: Any = "default") -> None:
        super().__init__(linker=NanGuardLinker(nan_is_error, inf_is_error, big_is_error),
                         optimizer=optimizer)


register_mode_name(("NANGUARDMODE",), NanGuardMode)  # sn.function(mode='NanGuardMode')
