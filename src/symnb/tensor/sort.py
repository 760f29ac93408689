"""``symnb.tensor.sort`` (``T.sort``'s home in Theano, ``theano.tensor.sort``): sorting
and the top ``k`` values along an axis."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.extra_ops import argsort, sort
from symnb.core.tensor.topk import TopKOp, argtopk, topk, topk_and_argtopk

__all__ = ["sort", "argsort", "TopKOp", "topk", "argtopk", "topk_and_argtopk"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
