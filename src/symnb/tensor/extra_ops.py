"""``symnb.tensor.extra_ops`` (``T.extra_ops``): the Theano module's functions that
programs import from it (each also in ``T`` itself)."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.extra_ops import Unique, cumprod, cumsum
from symnb.core.tensor.math_extra import to_one_hot
from symnb.core.tensor.shape import squeeze
from symnb.core.tensor.shape_extra import repeat

__all__ = ["Unique", "cumsum", "cumprod", "repeat", "squeeze", "to_one_hot"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
