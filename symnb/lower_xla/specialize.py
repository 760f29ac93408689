"""Which function inputs a value-dependent length comes from.

``T.zeros((n, 3))``, ``T.arange(n)`` or ``x.reshape((k, -1))`` with ``n``/``k``
computed from input *values* need those values while XLA traces. The compiled
function then passes the inputs they come from as static arguments, compiling once
per distinct value. Lengths computed from input *shapes* are static already.
"""

from __future__ import annotations

from typing import Sequence

from symnb.core.graph import Variable
from symnb.core.tensor.shape import Shape, ShapeI

__all__ = ["value_sources", "MAX_STATIC_SIZE"]

#: Inputs with more elements than this are not specialized on (a recompile per value
#: of a large array would never hit its cache).
MAX_STATIC_SIZE = 64


def value_sources(variables: Sequence[Variable], inputs: Sequence[Variable]) -> set[int] | None:
    """Positions in ``inputs`` whose values ``variables`` depend on, through anything
    but a shape; None when one of them could not be a static argument."""
    position = {id(v): i for i, v in enumerate(inputs)}
    found: set[int] = set()
    seen: set[int] = set()
    stack = list(variables)
    while stack:
        var = stack.pop()
        if id(var) in seen:
            continue
        seen.add(id(var))
        owner = var.owner
        if owner is not None and not isinstance(owner.op, (Shape, ShapeI)):
            stack.extend(owner.inputs)
        elif owner is None and id(var) in position:
            static_size = 1
            for length in var.type.shape:
                static_size = None if length is None or static_size is None else static_size * length
            if static_size is None or static_size > MAX_STATIC_SIZE:
                return None
            found.add(position[id(var)])
    return found
