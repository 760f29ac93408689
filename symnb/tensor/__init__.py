"""``symnb.tensor`` (imported as ``T``): NumPy-like symbolic tensors.

A curated re-export of the core tensor API; see ``symnb.core.tensor`` for the ops.
"""

from symnb.core.gradient import grad  # Theano spelled it T.grad too
from symnb.core.tensor import *  # noqa: F401,F403
from symnb.core.tensor import __all__ as _core_all

__all__ = list(_core_all) + ["grad"]

# Theano's sub-namespaces: T.nnet.conv2d, T.signal.pool.pool_2d, T.nnet.bn, ...
from symnb.tensor import nnet, signal  # noqa: E402,F401


def _entry_points() -> None:
    """The functions of ``T`` are public entry points: an error they raise shows the
    user's line first, without symnb's frames (see :mod:`symnb.core.traceback_filter`).
    Only this namespace is wrapped; symnb's own code calls ``symnb.core.tensor``."""
    import types

    from symnb.core.traceback_filter import api_boundary

    namespace = globals()
    for name in __all__:
        value = namespace.get(name)
        if isinstance(value, types.FunctionType) and value.__module__.startswith("symnb."):
            namespace[name] = api_boundary(value)


_entry_points()
