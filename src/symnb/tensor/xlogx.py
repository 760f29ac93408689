"""``T.xlogx``: Theano's module of ``xlogx`` and ``xlogy0`` (0 where ``x`` is 0)."""

from symnb.core.tensor.math_extra import xlogx as xlogx, xlogy0 as xlogy0
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["xlogx", "xlogy0"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
