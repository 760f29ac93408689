"""``symnb.tensor.signal.downsample``: the spelling older Theano tutorials use
(``max_pool_2d(input, ds, ignore_border=False, st=None, padding=(0, 0), mode='max')``)."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.pool import Pool as DownsampleFactorMax
from symnb.core.tensor.pool_api import max_pool_2d, max_pool_2d_same_size

__all__ = ["max_pool_2d", "max_pool_2d_same_size", "DownsampleFactorMax"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
