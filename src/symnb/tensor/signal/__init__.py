"""``symnb.tensor.signal`` (``T.signal``): Theano's ``pool``, ``downsample`` and ``conv``."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.tensor.signal import conv, downsample, pool  # noqa: F401

__all__ = ["conv", "downsample", "pool"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
