"""Assert -> a run-time check of the compiled program (``symnb.lower_xla.checks``).

A condition known while tracing (a constant, or computed from shapes) is checked then,
and a false one fails like any node that cannot run (the report names the assert's
line). A traced condition becomes a run-time check of the jitted program; a false
one raises ``AssertionFailedError`` with the assert's message and line.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from symnb.core.graph.basic import Apply, Constant
from symnb.core.tensor.assertion import Assert, AssertionFailedError, failure_text
from symnb.lower_xla.checks import CheckKind, may_check, register_check_kind, require
from symnb.lower_xla.registry import lower


def _message(node: Apply, facts: dict[str, int]) -> str:
    index = facts["condition"]
    return failure_text(node.op, index, node.inputs[1 + index].name)


register_check_kind("assert", CheckKind(_message, plain=AssertionError, error=AssertionFailedError))


@lower.register(Assert)
def _assert(op, node):
    def check(x, *conditions):
        for index, condition in enumerate(conditions):
            ok = np.all(condition) if isinstance(condition, np.ndarray) else jnp.all(condition)
            require(ok, node, "assert", condition=index)
        return x

    return check


@may_check.register(Assert)
def _assert_may_check(op: Assert, node: Apply, known: set[int]) -> bool:
    return any(not isinstance(v, Constant) and id(v) not in known for v in node.inputs[1:])
