"""Which function inputs a value-dependent length comes from.

``T.zeros((n, 3))``, ``T.arange(n)`` or ``x.reshape((k, -1))`` with ``n``/``k``
computed from input *values* need those values while XLA traces. The compiled
function then passes the inputs they come from as static arguments, compiling once
per distinct value. Lengths computed from input *shapes* are static already.
"""

from __future__ import annotations

from typing import Sequence

from symnb.core.graph import Variable, ancestors
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
    for var in ancestors(variables, stop_at=_is_shape):
        if var.owner is None and id(var) in position:
            if _static_size(var) is None or _static_size(var) > MAX_STATIC_SIZE:
                return None
            found.add(position[id(var)])
    return found


def _is_shape(var: Variable) -> bool:
    return isinstance(var.owner.op, (Shape, ShapeI))


def _static_size(var: Variable) -> int | None:
    if None in var.type.shape:
        return None
    size = 1
    for length in var.type.shape:
        size *= length
    return size
