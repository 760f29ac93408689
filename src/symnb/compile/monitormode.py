"""``MonitorMode``: Theano's mode calling ``pre_func(i, node, fn)`` before and
``post_func(i, node, fn)`` after each node runs (the graph then runs node by node).

As in Theano, ``fn.inputs`` and ``fn.outputs`` are lists of one-element storage
cells: ``[input[0] for input in fn.inputs]`` are the input values, and each output
cell holds ``None`` until the node has run (what ``pre_func`` sees), then its value
(what ``post_func`` sees). The values are read-only NumPy arrays: the node computes
with the values the graph gives it, so a callback that changes a cell is refused
rather than ignored.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from symnb.compile.linkers import Linker
from symnb.compile.mode import Mode
from symnb.core.graph.basic import Apply
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["MonitorMode", "MONITOR_LINKER_NAMES"]

#: Theano's names of the linkers that run a graph one node at a time (Python thunks,
#: C thunks per op, the virtual machines): MonitorMode honours them all by running
#: each node through its XLA lowering, eagerly, in the graph's order. ``'c'`` (the
#: whole graph as one C function) has no node to call the callbacks around.
MONITOR_LINKER_NAMES = ("py", "c|py", "c|py_nogc", "vm", "vm_nogc", "cvm", "cvm_nogc")

Callback = Callable[[int, Apply, Any], None]


class MonitorMode(Mode):
    """Call ``pre_func`` / ``post_func`` (each optional) around every node.

    ``optimizer``: as for :class:`Mode` (``'default'``: ``sn.config.optimizer``).
    ``linker``: None, one of :data:`MONITOR_LINKER_NAMES`, or a linker that only runs
    each node (``symnb.gof.OpWiseCLinker()``); anything else raises ``ValueError``.
    """

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, pre_func: Callback | None = None, post_func: Callback | None = None,
                 optimizer: Any = "default", linker: Any = None) -> None:
        _check_linker(linker)
        self.pre_func, self.post_func = pre_func, post_func
        super().__init__(linker=_MonitorLinker(self), optimizer=optimizer)

    def __copy__(self) -> "MonitorMode":
        # including()/excluding() copy the mode: the copy's linker calls the copy's
        # callbacks, so changing them on one mode leaves the other as it was.
        copied = object.__new__(type(self))
        copied.__dict__.update(self.__dict__)
        copied.linker = _MonitorLinker(copied)
        return copied


class _MonitorLinker(Linker):
    """Runs each node between its mode's ``pre_func`` and ``post_func``."""

    def __init__(self, mode: MonitorMode) -> None:
        self.mode = mode

    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        fn = _StorageCells(thunk)
        if self.mode.pre_func is not None:
            self.mode.pre_func(index, node, fn)
            fn.check_unchanged("pre_func", index, node)
        fn()
        if self.mode.post_func is not None:
            self.mode.post_func(index, node, fn)
            fn.check_unchanged("post_func", index, node)

    def __repr__(self) -> str:
        return "MonitorLinker()"


class _StorageCells:
    """``fn`` as a MonitorMode callback sees it (Theano's thunk): ``inputs`` and
    ``outputs`` are one-element storage cells, the outputs ``[None]`` until ``fn()``
    has run the node."""

    def __init__(self, thunk: Any) -> None:
        self._thunk = thunk
        self._given = [_read_only(value) for value in thunk.inputs]
        self._computed: list[Any] = [None] * len(thunk.node.outputs)
        self.inputs = [[value] for value in self._given]
        self.outputs = [[None] for _ in self._computed]

    def __call__(self) -> None:
        """Run the node (once, whoever calls first) and fill the output cells."""
        if self._thunk.outputs is None:
            self._thunk()
            self._computed = [_read_only(value) for value in self._thunk.outputs]
        for cell, value in zip(self.outputs, self._computed):
            cell[0] = value

    def check_unchanged(self, callback: str, index: int, node: Apply) -> None:
        """Refuse a cell the callback replaced: the node computes with the graph's
        values and the next nodes read what it computed, whatever a cell holds."""
        cells = [("inputs", k, cells, value) for k, (cells, value) in
                 enumerate(zip(self.inputs, self._given))]
        if self._thunk.outputs is not None:
            cells += [("outputs", k, cells, value) for k, (cells, value) in
                      enumerate(zip(self.outputs, self._computed))]
        for kind, k, cell, value in cells:
            if not cell or cell[0] is not value:
                built = f", built at {node.site.short()}" if node.site else ""
                raise RuntimeError(
                    f"MonitorMode: {callback} replaced fn.{kind}[{k}][0] of node {index} "
                    f"({node.op.display_name()}{built}); the storage cells show the values "
                    f"the node computes with and computed, and cannot change them: write "
                    f"the change in the graph instead (e.g. T.switch)")


def _read_only(value: Any) -> Any:
    """``value`` as a NumPy array that refuses writes (a view: a constant's own array
    stays writable); values NumPy cannot hold are passed as they are."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        return value
    if array.dtype == object:
        return value
    view = array.view()
    view.flags.writeable = False
    return view


def _check_linker(linker: Any) -> None:
    if linker is None or (isinstance(linker, str) and linker in MONITOR_LINKER_NAMES):
        return
    if isinstance(linker, Linker) and type(linker).hook is Linker.hook:
        return  # a linker that only runs each node (symnb.gof.OpWiseCLinker)
    why = ("it compiles the whole graph as one program: there is no node to call "
           "pre_func/post_func around" if isinstance(linker, str) and linker == "c" else
           "MonitorMode runs each node between pre_func and post_func itself"
           if isinstance(linker, Linker) else "it is not a linker MonitorMode knows")
    raise ValueError(
        f"MonitorMode(linker={linker!r}): {why}. Accepted: None (the default), "
        f"{', '.join(repr(name) for name in MONITOR_LINKER_NAMES)} or symnb.gof.OpWiseCLinker() "
        f"(each runs the graph node by node, every node through its XLA lowering); to call "
        f"other callbacks around each node too, use Mode(linker=WrapLinker([...]))")
