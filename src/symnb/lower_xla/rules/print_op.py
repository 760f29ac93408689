"""``Print`` inside the XLA program: an ordered host callback, so prints appear in
execution order, inside loop bodies and only in the branch a conditional takes."""

from __future__ import annotations

import jax

from symnb.core.tensor.print_op import Print
from symnb.lower_xla.registry import lower


@lower.register(Print)
def _print(op, node):
    def print_value(x):
        jax.debug.callback(op.emit, x, ordered=True)
        return x

    return print_value
