"""``symnb.tensor`` (imported as ``T``): NumPy-like symbolic tensors.

A curated re-export of the core tensor API; see ``symnb.core.tensor`` for the ops.
"""

from symnb.core.tensor import *  # noqa: F401,F403
from symnb.core.tensor import __all__  # noqa: F401
