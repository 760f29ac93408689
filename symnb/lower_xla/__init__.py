"""Lowering symnb graphs to XLA through JAX's public API.

Imported on the first compile, never by ``import symnb``.
"""

from symnb.lower_xla.registry import MissingLoweringError, lower
from symnb.lower_xla.function import Function, function

__all__ = ["lower", "MissingLoweringError", "Function", "function"]
