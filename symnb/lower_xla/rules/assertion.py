"""Assert -> ``jax.experimental.checkify`` checks inside the one jitted program.

A condition known while tracing (a constant, or computed from shapes) is checked then,
and a false one fails like any node that cannot run (the report names the assert's
line). A traced condition becomes a ``checkify.check``: the program returns a small
error value beside its outputs, read back with them. A host callback would instead
stop the device in the middle of the program on every call.

The compiler wraps a program that holds an Assert (``has_checks``) with ``with_checks``,
does not donate its buffers (a failed call must leave shared variables as they were),
and calls ``raise_failed_check`` after each call. A program may serve every equal graph
(the compile cache), so a check names its node by position in the program, and the
error is reported with the node of the function that was called.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import jax.numpy as jnp
import numpy as np
from jax.experimental import checkify

from symnb.core.errors import format_node_error
from symnb.core.graph import Apply
from symnb.core.tensor.assertion import Assert, AssertionFailedError, failure_text
from symnb.lower_xla.registry import lower

__all__ = ["has_checks", "with_checks", "raise_failed_check"]

_MARK = re.compile(r"symnb Assert node (\d+), condition (\d+)")


@lower.register(Assert)
def _assert(op, node):
    def check(x, *conditions):
        for index, condition in enumerate(conditions):
            if isinstance(condition, np.ndarray):
                if not np.all(condition):
                    raise AssertionError(failure_text(op, index))
                continue
            checkify.check(jnp.all(condition), f"symnb Assert node {id(node)}, condition {index}")
        return x

    return check


def has_checks(nodes: Sequence[Apply]) -> bool:
    """True when the graph holds an Assert, so its program must be wrapped by ``with_checks``."""
    return any(isinstance(node.op, Assert) for node in nodes)


def with_checks(program: Callable[..., Any]) -> Callable[..., Any]:
    """``program`` returning ``(error, outputs)``; jit the result."""
    return checkify.checkify(program)


def raise_failed_check(error: Any, program_nodes: Sequence[Apply], nodes: Sequence[Apply],
                       title: str = "the compiled function") -> None:
    """Raise ``AssertionFailedError`` if a check failed: the assert's message and the line
    that built it in *this* function (``nodes``; the program was built from ``program_nodes``)."""
    text = error.get()
    if text is None:
        return
    mark = _MARK.search(text)
    if mark is None:  # a check that is not an Assert's
        raise AssertionFailedError(text)
    position = next(i for i, n in enumerate(program_nodes) if id(n) == int(mark[1]))
    node, index = nodes[position], int(mark[2])
    reason = failure_text(node.op, index, node.inputs[1 + index].name)
    headline = f"AssertionError in {node.op.display_name()} while running {title}: {reason}"
    raise AssertionFailedError(format_node_error(node, headline))
