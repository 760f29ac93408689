"""The lowering registry: ``lower(op, node)`` returns a JAX function for that node.

Rules are registered by Op class (``@lower.register(Exp)``), in small files by topic
under ``symnb/lower_xla/rules/``. A rule receives the op and its node (for static
types and parameters) and returns a callable taking and returning JAX arrays: one
array, or a tuple for an op with several outputs.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Any, Callable

from symnb.core.errors import SymnbError
from symnb.core.graph import Apply
from symnb.core.op import Op

__all__ = ["lower", "MissingLoweringError", "StaticValueRequired", "DynamicShapeError"]


class MissingLoweringError(NotImplementedError):
    """No lowering rule is registered for an Op class."""


class StaticValueRequired(ValueError):
    """A rule needs, while tracing, the value of node inputs (``indices``) that depend
    on run-time values (a length, a shape, a slice bound). The compiled function then
    specializes on the function inputs those values come from."""

    def __init__(self, message: str, indices: tuple[int, ...]) -> None:
        super().__init__(message)
        self.indices = tuple(indices)


class DynamicShapeError(SymnbError, ValueError):
    """A graph needs a shape that depends on run-time values; XLA cannot express it."""


@singledispatch
def lower(op: Op, node: Apply) -> Callable[..., Any]:
    raise MissingLoweringError(
        f"no XLA lowering rule for {type(op).__module__}.{type(op).__qualname__} "
        f"(op {op.display_name()}); register one with @symnb.lower_xla.lower.register("
        f"{type(op).__name__})")
