"""Error types and the message format every symnb error shares.

A message shows, on one screen: what went wrong (with full shapes and dtypes), the
user's line that built the failing node, and where each of that node's inputs was
built, since the real bug is often a line or two earlier.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from symnb.core.config import config
from symnb.core.graph import Apply, Constant, Variable
from symnb.core.type import describe_shape

__all__ = [
    "SymnbError", "TestValueError", "TestValueAssertionError", "GraphRuntimeError",
    "MissingTestValueError", "OutOfMemoryError", "IndexOutOfBoundsError",
    "label", "failure_headline", "format_node_error", "describe_inputs", "register_high_verbosity_section",
]


class SymnbError(Exception):
    """Base of symnb's own errors."""


class TestValueError(SymnbError, ValueError):
    """A node could not be computed on the test values of its inputs."""

    __test__ = False  # not a pytest test class


class TestValueAssertionError(TestValueError, AssertionError):
    """An ``Assert`` failed on the test values while the graph was built."""

    __test__ = False


class MissingTestValueError(SymnbError, AttributeError):
    """A test value was asked for, but an input it depends on has none."""


class GraphRuntimeError(SymnbError, ValueError):
    """A compiled function could not run a node on the values it was called with."""


class OutOfMemoryError(SymnbError, MemoryError):
    """A compiled function needed more memory than the device has; the message names
    the node whose output is largest, its shape and bytes, and the largest values."""


class IndexOutOfBoundsError(GraphRuntimeError, IndexError):
    """A compiled function was called with an index out of range for the axis it indexes
    (NumPy raises ``IndexError`` there; XLA alone would clamp or drop the index)."""


def label(var: Variable) -> str:
    """A name for messages: the user's name, else the name assigned on the user's line."""
    if var.name is not None:
        return var.name
    if isinstance(var, Constant):
        return f"constant {var.auto_name()}"
    if var.owner is None or len(var.owner.outputs) == 1:
        assigned = var.site.assigned_name()
        if assigned is not None:
            return assigned
        expression = var.site.expression()  # a part of the line: show its source
        if expression is not None and len(expression) <= 40 and "\n" not in expression:
            return expression
    return var.auto_name()


def _value_summary(value: np.ndarray | None, var: Variable) -> str:
    if value is None:
        return f"{var.dtype} {describe_shape(var.type.shape)}"
    return f"{value.dtype} {describe_shape(value.shape)}"


def describe_inputs(node: Apply, values: Sequence[np.ndarray | None] | None = None) -> list[str]:
    """One line per input: index, label, dtype and shape, and where it was built."""
    lines = []
    names = [label(v) for v in node.inputs]
    width = max((len(n) for n in names), default=0)
    for i, (var, name) in enumerate(zip(node.inputs, names)):
        value = values[i] if values is not None else None
        where = _where_built(var)
        lines.append(f"  #{i} {name:<{width}}  {_value_summary(value, var):<18} {where}")
    return lines


def _where_built(var: Variable) -> str:
    if isinstance(var, Constant):
        return "constant"
    site = var.site
    if not site:
        return ""
    kind = "input created at" if var.owner is None else "built at"
    return f"{kind} {site.short()}: {site.line}"


def failure_headline(node: Apply, err: BaseException, context: str = "") -> str:
    """``ValueError in dot: <message>`` (without repeating the op's name)."""
    op_name = node.op.display_name()
    # Errors raised while lowering name inputs by position; reword them with names.
    reword = getattr(err, "with_names", None)
    text = reword([label(v) for v in node.inputs]) if reword is not None else str(err)
    if text.startswith(f"{op_name}: "):
        text = text[len(op_name) + 2:]
    return f"{type(err).__name__} in {op_name}{context}: {text}"


def format_node_error(node: Apply, headline: str, values: Sequence[np.ndarray | None] | None = None,
                      extra: Sequence[str] = ()) -> str:
    """The shared layout of a node failure, by ``config.exception_verbosity``.

    'low': the headline and the user's line; 'medium' (default): also each input's
    name, dtype, shape and the line that built it, and ``extra``; 'high': also more
    user frames and the sections registered by higher layers (e.g. a debugprint).
    """
    verbosity = config.exception_verbosity
    lines = [headline]
    frames = 1 if verbosity != "high" else config.traceback__limit
    if node.site:
        lines.append(node.site.format(limit=frames))
    else:
        lines.append("  (the node was built by symnb itself, not on a user's line)")
    if verbosity == "low":
        return "\n".join(lines)
    lines.append(f"Inputs of {node.op.display_name()}:")
    lines.extend(describe_inputs(node, values))
    lines.extend(extra)
    if verbosity == "high":
        for section in _HIGH_VERBOSITY_SECTIONS:
            lines.extend(section(node))
    return "\n".join(lines)


_HIGH_VERBOSITY_SECTIONS: list[Callable[[Apply], list[str]]] = []


def register_high_verbosity_section(section: Callable[[Apply], list[str]]) -> None:
    """Add lines about a failing node to messages under ``exception_verbosity='high'``
    (the printing layer registers a debugprint of the node)."""
    if section not in _HIGH_VERBOSITY_SECTIONS:
        _HIGH_VERBOSITY_SECTIONS.append(section)
