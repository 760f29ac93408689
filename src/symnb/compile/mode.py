"""``Mode``: how ``sn.function`` compiles a graph — which rewrites, and which linker.

    sn.function([x], y, mode="FAST_COMPILE")
    sn.function([x], y, mode=Mode(optimizer=None))

``optimizer`` is ``'fast_run'`` (all rewrites), ``'fast_compile'`` (merge and constant
folding only), ``None`` (the graph as written) or ``'default'`` (``sn.config.optimizer``
when the function is compiled). ``linker`` is None for the default whole-graph
``jax.jit`` program; the debugging modes set one that runs the graph node by node.

The compiled function asks its mode for its program (:meth:`Mode.program`) and calls
:meth:`Mode.after_call` after each call that succeeded; a mode changes how functions
run through these hooks (DebugMode checks the rewrites in ``after_call``), never
through flags the function reads.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable, Sequence

from symnb.core.graph.config import config
from symnb.core.rewriting import RewriteQuery, rewrite_tags
from symnb.core.graph.traceback_filter import api_boundary

if TYPE_CHECKING:  # the program types import JAX; this module must not
    from symnb.core.graph.basic import Apply, Variable
    from symnb.lower_xla.cache import Program

__all__ = ["Mode", "FAST_RUN", "FAST_COMPILE", "get_mode", "get_default_mode", "OPTIMIZERS",
           "optdb", "OPT_NONE", "OPT_MERGE", "OPT_FAST_RUN", "OPT_FAST_COMPILE", "OPT_O2",
           "OPT_O3", "OPT_STABILIZE"]

OPTIMIZERS = ("fast_run", "fast_compile", None, "default")


def _optimizer(value: Any) -> str | None:
    if value == "None":  # Theano's spelling in flag strings
        value = None
    if isinstance(value, str):
        value = value.lower()
    if value not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {value!r}; expected one of {OPTIMIZERS!r}")
    return value


#: Theano's linker names: each compiles the whole graph to one XLA program here.
LINKER_NAMES = ("vm", "cvm", "py", "c", "c|py", "c|py_nogc", "vm_nogc", "cvm_nogc")


class Mode:
    """A compilation mode: ``optimizer`` (the rewrites) and ``linker`` (how it runs).

    ``linker`` is None (one ``jax.jit`` program), a :class:`~symnb.compile.Linker`
    running the graph node by node (the debugging modes), or one of Theano's linker
    names (``'vm'``, ``'cvm'``, ``'py'``, ``'c'``, ``'c|py'``...), accepted for Theano
    programs: they all run as one XLA program (there is no C code nor virtual machine
    to choose).
    """

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, linker: Any = None, optimizer: Any = "fast_run") -> None:
        if isinstance(linker, str):
            if linker not in LINKER_NAMES:
                raise ValueError(f"unknown linker {linker!r}; Theano's names {LINKER_NAMES!r} "
                                 f"are accepted (all run as one XLA program), or a "
                                 f"symnb.compile.Linker")
            linker = None
        self.linker = linker
        self.optimizer = _optimizer(optimizer)
        self.rewrite_query = RewriteQuery()

    def including(self, *tags: str) -> "Mode":
        """A copy of this mode that also runs the passes and rewrites tagged ``tags``
        (pass names such as ``'stabilize'``, rewrite names, levels): Theano's
        ``Mode.including``. See :mod:`symnb.core.rewriting.query`."""
        return self._queried(include=tags)

    def excluding(self, *tags: str) -> "Mode":
        """A copy of this mode that skips the passes and rewrites tagged ``tags``
        (``mode.excluding('fusion')``); Theano's tags symnb has no pass for
        (``'inplace'``...) are accepted and change nothing."""
        return self._queried(exclude=tags)

    def requiring(self, *tags: str) -> "Mode":
        """A copy of this mode that runs only the rewrites carrying every tag in ``tags``."""
        return self._queried(require=tags)

    def _queried(self, **tags: Any) -> "Mode":
        queried = copy.copy(self)
        queried.rewrite_query = self.rewrite_query.extended(rewrite_tags(), **tags)
        return queried

    @property
    def effective_optimizer(self) -> str | None:
        """The optimizer level used now (``'default'`` resolved through ``sn.config``)."""
        return config.optimizer if self.optimizer == "default" else self.optimizer

    def program(self, inputs: Sequence["Variable"], outputs: Sequence["Variable"],
                nodes: list["Apply"], donate: tuple[int, ...], optimizer: str | None,
                static: tuple[int, ...], shardings: tuple | None = None,
                bare: bool = False, n_outputs: int | None = None) -> "Program":
        """The program a function runs for the optimized graph (``nodes`` from ``inputs``
        to ``outputs``): one ``jax.jit`` program (from the program cache when an equal
        graph was compiled before), or the graph run node by node through ``linker``.

        ``donate``: argument positions whose buffers the program may reuse (the updated
        shared variables); ``static``: positions the program specializes on;
        ``shardings``: the program's ``(in_shardings, out_shardings)`` over several devices
        (None: one device); ``bare``: one output and no update, which the program
        returns itself (``Program.bare``); ``n_outputs``: how many of ``outputs`` are
        the function's (the rest are updates). A graph run node by node runs where its
        arguments are.
        """
        if self.linker is not None:
            from symnb.compile.node_by_node import node_by_node_program

            return node_by_node_program(inputs, outputs, nodes, self.linker, bare)
        from symnb.lower_xla.cache import compiled_program

        return compiled_program(inputs, outputs, nodes, donate, optimizer, static, shardings, bare,
                                n_outputs)

    def after_call(self, function: Any, arrays: Sequence[Any], results: Sequence[Any]) -> None:
        """Called after each call of ``function`` whose program succeeded, before the
        shared variables are updated: ``arrays`` are the program's arguments (the call's,
        then the shared variables' values), ``results`` its outputs then the updates.
        Raising here fails the call and leaves the shared variables as they were."""

    def __repr__(self) -> str:
        query = self.rewrite_query.describe()
        return (f"{type(self).__name__}(linker={self.linker!r}, optimizer={self.optimizer!r}"
                f"{', ' + query if query else ''})")


FAST_RUN = Mode(optimizer="fast_run")
FAST_COMPILE = Mode(optimizer="fast_compile")

_NAMED = {"FAST_RUN": FAST_RUN, "FAST_COMPILE": FAST_COMPILE}

#: Modes made afresh per use, by upper-case name: the debugging modes register theirs
#: (debugmode.py, nanguard.py), since they build on this module.
_MADE_BY_NAME: dict[str, Callable[[], Mode]] = {}


def register_mode_name(names: Sequence[str], make: Callable[[], Mode]) -> None:
    """``sn.function(mode=name)`` for each of ``names`` (any case) makes ``make()``."""
    for name in names:
        _MADE_BY_NAME[name.upper()] = make


def _debugging_mode(name: str) -> Mode | None:
    make = _MADE_BY_NAME.get(name)
    return make() if make is not None else None


def get_mode(mode: Any) -> Mode:
    """The Mode for ``sn.function(mode=...)``: None (the ``mode`` config flag; its
    default ``'Mode'`` follows ``sn.config.optimizer``), a name (``'FAST_RUN'``,
    ``'FAST_COMPILE'``, ``'DebugMode'``, ``'NanGuardMode'``, ``'Mode'``, any case) or a Mode."""
    if mode is None:
        mode = config.mode
    if isinstance(mode, Mode):
        return mode
    if isinstance(mode, str):
        name = mode.upper()
        if name == "MODE":
            return Mode(optimizer="default")
        named = _NAMED.get(name) or _debugging_mode(name)
        if named is None:
            raise ValueError(f"unknown mode {mode!r}; use 'FAST_RUN', 'FAST_COMPILE', "
                             f"'DebugMode', 'NanGuardMode', 'Mode' or a symnb.compile.Mode")
        return named
    raise TypeError(f"mode must be None, a mode name or a symnb.compile.Mode, got "
                    f"{type(mode).__name__}")


def get_default_mode() -> Mode:
    """Theano's ``get_default_mode()``: the Mode the ``mode`` config flag names
    (``get_mode(None)``)."""
    return get_mode(None)


# Theano's optimizer database and its queries (theano.compile.mode.optdb): symnb's passes.
from symnb.compile.optdb import (  # noqa: E402
    OPT_FAST_COMPILE, OPT_FAST_RUN, OPT_MERGE, OPT_NONE, OPT_O2, OPT_O3, OPT_STABILIZE, optdb,
)
