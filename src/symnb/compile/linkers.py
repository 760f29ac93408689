"""Linkers: how a compiled function runs its graph.

The default (no linker) runs the whole graph as one ``jax.jit`` program. A linker
here runs it node by node instead (eagerly, each node through its XLA lowering), so
that code can look at every node's inputs and outputs: the debugging modes
(``WrapLinker``, ``NanGuardMode``, ``DebugMode``) are built on this.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from symnb.core.graph.basic import Apply
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["Linker", "WrapLinker"]

#: ``callback(i, node, fn)``: ``fn()`` runs the node; ``fn.inputs`` / ``fn.outputs``
#: hold its input and (after the call) output values.
Callback = Callable[[int, Apply, Any], None]


class Linker:
    """Base class: runs a graph node by node, through ``hook(index, node, thunk)``."""

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        thunk()

    def start_call(self) -> None:
        """Called before each call of the compiled function."""


class _Chained:
    """``fn`` as the next callback in the chain sees it: calling it runs the rest."""

    def __init__(self, index: int, node: Apply, thunk: Any, rest: Sequence[Callback]) -> None:
        self._index, self._node, self._thunk, self._rest = index, node, thunk, rest

    @property
    def inputs(self) -> list[Any]:
        return self._thunk.inputs

    @property
    def outputs(self) -> list[Any] | None:
        return self._thunk.outputs

    def __call__(self) -> list[Any]:
        if not self._rest:
            return self._thunk()
        self._rest[0](self._index, self._node, _Chained(self._index, self._node, self._thunk, self._rest[1:]))
        return self._thunk.outputs


class WrapLinker(Linker):
    """Call ``callback(i, node, fn)`` around every node, in execution order.

    With several callbacks, each wraps the next: calling ``fn()`` in the first runs the
    second, and so on; the last one's ``fn()`` runs the node. The node runs once.
    """

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, callbacks: Sequence[Callback] | Callback) -> None:
        self.callbacks = [callbacks] if callable(callbacks) else list(callbacks)
        if not self.callbacks:
            raise ValueError("WrapLinker needs at least one callback")

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        chained = _Chained(index, node, thunk, self.callbacks)
        chained()
        if thunk.outputs is None:
            raise RuntimeError(f"WrapLinker callback did not run node {index} "
                               f"({node.op.display_name()}): call fn() inside the callback")
