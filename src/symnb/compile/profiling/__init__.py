"""Profiles of compiled functions (``sn.function(..., profile=True)``, ``f.profile``),
one module per job:

- ``stats``: recording the calls (:class:`ProfileStats`, Theano's API: ``summary()``,
  ``calls``, ``compiles``, ...);
- ``xla``: what XLA says about the program (cost, memory, which nodes each operation
  works for);
- ``measure``: timing the program's operations (``jax.profiler``'s trace, or a
  node-by-node replay), scaled to the real call;
- ``attribute``: giving the operations' time to nodes and lines, a fused operation as
  one unit, the time outside the program as another, adding up to the call;
- ``render`` and ``format``: the tables as text, seconds and shares as every view
  writes them;
- ``timeline``: one call traced, host work and XLA operations in time, as a picture.

The graph pictures, ``ProfileView`` and ``%%symgraph --profile`` read this package's
measurement; importing the package imports no JAX (``ProfileStats`` is loaded when
first asked for).
"""

from __future__ import annotations

from typing import Any

from symnb.compile.profiling.format import percent_text, seconds_text
from symnb.compile.profiling.records import CompileRecord, Operation, ProfileReport

__all__ = ["ProfileStats", "CompileRecord", "Operation", "ProfileReport", "seconds_text",
           "percent_text"]


def __getattr__(name: str) -> Any:
    if name == "ProfileStats":  # imports JAX: only when a profile is made
        from symnb.compile.profiling.stats import ProfileStats

        return ProfileStats
    raise AttributeError(f"module 'symnb.compile.profiling' has no attribute {name!r}")
