"""``symnb.tensor.signal.pool``: Theano's pooling functions and ops."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.pool import AveragePoolGrad, MaxPoolGrad, MaxPoolGradGrad, Pool
from symnb.core.tensor.pool_api import max_pool_2d_same_size, pool_2d, pool_3d

__all__ = ["pool_2d", "pool_3d", "max_pool_2d_same_size", "Pool", "MaxPoolGrad", "MaxPoolGradGrad",
           "AveragePoolGrad"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
