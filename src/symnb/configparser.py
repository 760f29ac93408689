"""Theano's ``theano.configparser``: the flag set and ``change_flags``.

    from symnb.configparser import change_flags   # also symnb.change_flags
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Mapping

from symnb.core.graph.config import _FLAGS, config
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


class ConfigParam:
    """One flag as Theano's ``configparser.ConfigParam`` shows it (libraries walk
    ``_config_var_list`` to save and restore flags, as PyMC3's models do): ``fullname``
    (dotted: ``'warn.round'``), the ``doc``, and the value read and set through the
    descriptor protocol, ``param.__get__(True, None)`` / ``param.__set__(None, value)``."""

    def __init__(self, name: str, doc: str) -> None:
        self.fullname = name.replace("__", ".")
        self.doc = doc
        self._name = name

    def __get__(self, cls: Any, type_: Any = None) -> Any:
        return getattr(config, self._name)

    def __set__(self, cls: Any, value: Any) -> None:
        setattr(config, self._name, value)

    def __repr__(self) -> str:
        return f"ConfigParam({self.fullname!r})"


#: Theano's list of every flag, as :class:`ConfigParam` objects.
_config_var_list = [ConfigParam(name, flag.doc) for name, flag in sorted(_FLAGS.items())]


# A public entry point: an error it raises shows the user's line first (traceback_filter).
_entry_points(globals())
