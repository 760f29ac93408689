"""Theano's ``theano.configparser``: the flag set and ``change_flags``.

    from symnb.configparser import change_flags   # also symnb.change_flags
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Mapping

from symnb.core.graph.config import config
from symnb.core.graph.traceback_filter import entry_points as _entry_points

__all__ = ["config", "change_flags"]


def change_flags(args: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
                 **kwargs: Any) -> contextlib.AbstractContextManager:
    """Theano 1.0's ``change_flags``: set flags for a ``with`` block, or for each call of the
    function it decorates, and restore them afterwards. Flags are given as keywords or as a
    mapping (for dotted names: ``change_flags({'unittests.rseed': 3})``); the keywords win.
    The same as ``sn.config.change_flags(**flags)``."""
    flags = dict(args)
    flags.update(kwargs)
    return config.change_flags(**flags)


# A public entry point: an error it raises shows the user's line first (traceback_filter).
_entry_points(globals())
