"""``symnb.tensor`` (imported as ``T``): NumPy-like symbolic tensors.

A curated re-export of the core tensor API; see ``symnb.core.tensor`` for the ops.
"""

from symnb.core.gradient import grad  # Theano spelled it T.grad too
from symnb.core.tensor import *  # noqa: F401,F403
from symnb.core.tensor import __all__ as _core_all

__all__ = list(_core_all) + ["grad"]

# Theano's sub-namespaces: T.nnet.conv2d, T.signal.pool.pool_2d, T.nnet.bn, ...
from symnb.tensor import nnet, signal  # noqa: E402,F401
