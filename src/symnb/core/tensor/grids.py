"""``T.mgrid`` and ``T.ogrid``: NumPy's grid builders, as Theano 1.0 wrote them.

``T.mgrid[0:5, 0:3]`` is a list of two 5x3 tensors (the row and column index of each
point); ``T.ogrid[0:5, 0:3]`` the two broadcastable ranges, of shapes (5, 1) and (1, 3).
A list, not one stacked tensor (NumPy's ``mgrid`` stacks): Theano's result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error
from symnb.core.tensor.alloc import arange, ones_like
from symnb.core.tensor.basic import constant

__all__ = ["mgrid", "ogrid"]


def _bound(value: Any) -> Any:
    """A slice bound as Theano's ``arange`` saw it: a Python number is ``T.constant``'s
    (the smallest int dtype holding it, or floatX), so ``mgrid[0:5]`` is int8 as in
    Theano."""
    return value if isinstance(value, Variable) else constant(value)


def _range(part: slice) -> Variable:
    if isinstance(part.step, complex):
        raise build_error("mgrid/ogrid: a complex step (NumPy's number of points) is not "
                          "supported, as in Theano; give the step between points", NotImplementedError)
    bounds = [_bound(b) for b in (part.start or 0, part.stop, part.step or 1)]
    dtype = np.result_type(*[b.dtype for b in bounds])
    return arange(*bounds, dtype=dtype)


class _NdGrid:
    """``mgrid`` (dense grids) or ``ogrid`` (``sparse``: the broadcastable ranges)."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __getitem__(self, parts: Any) -> list[Variable]:
        parts = parts if isinstance(parts, tuple) else (parts,)
        ndim = len(parts)
        ranges = [_range(part) for part in parts]
        ranges = [r.reshape((1,) * j + (r.shape[0],) + (1,) * (ndim - 1 - j))
                  for j, r in enumerate(ranges)]
        if self.sparse:
            return ranges
        ones = [ones_like(r) for r in ranges]
        grids = []
        for i in range(ndim):
            grid = 1
            for j in range(ndim):
                grid = grid * (ranges[j] if j == i else ones[j])
            grids.append(grid)
        return grids

    def __repr__(self) -> str:
        return "ogrid" if self.sparse else "mgrid"


mgrid = _NdGrid(sparse=False)
ogrid = _NdGrid(sparse=True)
