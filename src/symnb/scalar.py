"""``symnb.scalar``: the names of Theano's ``theano.scalar`` that programs use.

``upcast(*dtypes)``: the dtype of a result combining these dtypes, by NumPy 2's
promotion rules (Theano's table differed for some integer/float pairs; see
docs/porting.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["upcast"]


def upcast(dtype: Any, *dtypes: Any) -> str:
    """The promoted dtype of ``dtype`` and ``dtypes`` (``'floatX'`` means config.floatX)."""
    names = [config.floatX if d == "floatX" else d for d in (dtype, *dtypes)]
    return str(np.result_type(*[np.dtype(d) for d in names]))


# The functions above are public entry points: an error they raise shows the user's line
# first, without symnb's frames (symnb.core.graph.traceback_filter).
_entry_points(globals())
