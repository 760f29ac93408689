"""``T.xlogx``: Theano's module of ``xlogx`` and ``xlogy0`` (0 where ``x`` is 0)."""

from symnb.core.tensor.math_extra import xlogx as xlogx, xlogy0 as xlogy0

__all__ = ["xlogx", "xlogy0"]
