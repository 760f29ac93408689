"""``MonitorMode``: Theano's mode calling ``pre_func(i, node, fn)`` before and
``post_func(i, node, fn)`` after each node runs (the graph then runs node by node).

As in Theano, ``fn.inputs`` and ``fn.outputs`` are lists of one-element storage
cells: ``[input[0] for input in fn.inputs]`` are the input values.
"""

from __future__ import annotations

from typing import Any, Callable

from symnb.compile.linkers import WrapLinker
from symnb.compile.mode import Mode
from symnb.core.graph.basic import Apply

__all__ = ["MonitorMode"]


class _Cells:
    """What a MonitorMode callback sees as ``fn``: the node's values in storage cells."""

    def __init__(self, fn: Any) -> None:
        self.inputs = [[value] for value in fn.inputs]
        outputs = fn.outputs
        self.outputs = [[None] for _ in range(len(outputs or []))] if outputs is None \
            else [[value] for value in outputs]


class MonitorMode(Mode):
    """Call ``pre_func`` / ``post_func`` (each optional) around every node."""

    def __init__(self, pre_func: Callable[[int, Apply, Any], None] | None = None,
                 post_func: Callable[[int, Apply, Any], None] | None = None,
                 optimizer: Any = "default", linker: Any = None) -> None:
        self.pre_func, self.post_func = pre_func, post_func
        super().__init__(linker=WrapLinker([self._around]), optimizer=optimizer)

    def _around(self, index: int, node: Apply, fn: Any) -> None:
        if self.pre_func is not None:
            self.pre_func(index, node, _Cells(fn))
        fn()
        if self.post_func is not None:
            self.post_func(index, node, _Cells(fn))
