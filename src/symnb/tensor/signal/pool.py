"""``symnb.tensor.signal.pool``: Theano's pooling functions and ops.

The ops take Theano 1.0's constructor and call, ``Pool(ignore_border=False, mode='max',
ndim=2)(x, ws, stride=None, pad=None)``, ``MaxPoolGrad(ignore_border)(x, maxout, gz, ws)``,
``AveragePoolGrad(ignore_border, mode)(x, gz, ws)``, ``DownsampleFactorMaxGradGrad(
ignore_border)(x, maxout, gz, ws)``, and ``Pool.out_shape``; see symnb.core.tensor.pool.
"""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.pool import (AveragePoolGrad, MaxPoolGrad, MaxPoolGradGrad, Pool,
                                    PoolBase)
from symnb.core.tensor.pool_api import max_pool_2d_same_size, pool_2d, pool_3d

#: Theano 1.0's name of the gradient of :class:`MaxPoolGrad`.
DownsampleFactorMaxGradGrad = MaxPoolGradGrad

__all__ = ["pool_2d", "pool_3d", "max_pool_2d_same_size", "Pool", "PoolBase", "MaxPoolGrad",
           "MaxPoolGradGrad", "DownsampleFactorMaxGradGrad", "AveragePoolGrad"]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
