"""``Mode``: how ``sn.function`` compiles a graph — which rewrites, and which linker.

    sn.function([x], y, mode="FAST_COMPILE")
    sn.function([x], y, mode=Mode(optimizer=None))

``optimizer`` is ``'fast_run'`` (all rewrites), ``'fast_compile'`` (merge and constant
folding only), ``None`` (the graph as written) or ``'default'`` (``sn.config.optimizer``
when the function is compiled). ``linker`` is None for the default whole-graph
``jax.jit`` program; the debugging modes set one that runs the graph node by node.
"""

from __future__ import annotations

from typing import Any

from symnb.core.config import config

__all__ = ["Mode", "FAST_RUN", "FAST_COMPILE", "get_mode", "OPTIMIZERS"]

OPTIMIZERS = ("fast_run", "fast_compile", None, "default")


def _optimizer(value: Any) -> str | None:
    if value == "None":  # Theano's spelling in flag strings
        value = None
    if isinstance(value, str):
        value = value.lower()
    if value not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {value!r}; expected one of {OPTIMIZERS!r}")
    return value


class Mode:
    """A compilation mode: ``optimizer`` (the rewrites) and ``linker`` (how it runs)."""

    #: DebugMode sets this to compare the optimized graph with the unoptimized one.
    check_rewrites = False

    def __init__(self, linker: Any = None, optimizer: Any = "fast_run") -> None:
        self.linker = linker
        self.optimizer = _optimizer(optimizer)

    @property
    def effective_optimizer(self) -> str | None:
        """The optimizer level used now (``'default'`` resolved through ``sn.config``)."""
        return config.optimizer if self.optimizer == "default" else self.optimizer

    def __repr__(self) -> str:
        return f"{type(self).__name__}(linker={self.linker!r}, optimizer={self.optimizer!r})"


FAST_RUN = Mode(optimizer="fast_run")
FAST_COMPILE = Mode(optimizer="fast_compile")

_NAMED = {"FAST_RUN": FAST_RUN, "FAST_COMPILE": FAST_COMPILE}


def get_mode(mode: Any) -> Mode:
    """The Mode for ``sn.function(mode=...)``: None (``sn.config.optimizer``), a name
    (``'FAST_RUN'``, ``'FAST_COMPILE'``, any case) or a Mode."""
    if mode is None:
        return Mode(optimizer="default")
    if isinstance(mode, Mode):
        return mode
    if isinstance(mode, str):
        named = _NAMED.get(mode.upper())
        if named is None:
            raise ValueError(f"unknown mode {mode!r}; use 'FAST_RUN', 'FAST_COMPILE' or a "
                             f"symnb.compile.Mode")
        return named
    raise TypeError(f"mode must be None, a mode name or a symnb.compile.Mode, got "
                    f"{type(mode).__name__}")
