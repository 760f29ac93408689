"""``symnb.tensor.extra_ops`` (``T.extra_ops``): Theano's ``theano.tensor.extra_ops``, its
ops (``CumOp``, ``SearchsortedOp``, ``DiffOp``, ``Bartlett``, ``FillDiagonal``, ...) and
the functions that build them (several also in ``T`` itself)."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.extra_ops import CumOp, Unique, cumprod, cumsum
from symnb.core.tensor.extra_ops_numpy import (
    Bartlett, CpuContiguous, DiffOp, FillDiagonal, FillDiagonalOffset, RepeatOp, SearchsortedOp,
    bartlett, bincount, compress, cpu_contiguous, diff, fill_diagonal, fill_diagonal_offset,
    searchsorted,
)
from symnb.core.tensor.multi_index import (
    RavelMultiIndex, UnravelIndex, ravel_multi_index, unravel_index,
)
from symnb.core.tensor.math_extra import to_one_hot
from symnb.core.tensor.shape import squeeze
from symnb.core.tensor.shape_extra import repeat

__all__ = ["Unique", "CumOp", "cumsum", "cumprod", "repeat", "squeeze", "to_one_hot",
           "SearchsortedOp", "searchsorted", "DiffOp", "diff", "Bartlett", "bartlett",
           "FillDiagonal", "fill_diagonal", "FillDiagonalOffset", "fill_diagonal_offset",
           "CpuContiguous", "cpu_contiguous", "bincount", "compress", "RepeatOp",
           "UnravelIndex", "unravel_index", "RavelMultiIndex", "ravel_multi_index"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
