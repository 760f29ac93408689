"""Lowering symnb graphs to XLA through JAX: graph -> JAX callable.

The registry of rules (``lower``, keyed by Op class), the rules themselves
(``rules/``), the interpreter running a graph through them, run-time checks and the
program cache. It imports nothing above ``symnb.core``; the compile pipeline
(``sn.function``, modes, profiling) is ``symnb.compile``. Imported on the first
compile (never by ``import symnb``), it first checks the JAX version: JAX's public API
is used throughout, its private modules only in ``jax_private.py``, for the versions
tested.
"""

from symnb.lower_xla import jax_private as _jax_private  # noqa: F401  (first: the version check)
from symnb.lower_xla.registry import MissingLoweringError, lower
from symnb.lower_xla import rules as _rules  # noqa: F401,E402  (registers every rule)

__all__ = ["lower", "MissingLoweringError"]
