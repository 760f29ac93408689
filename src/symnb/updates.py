"""``symnb.updates``: Theano's ``theano.updates``, the ``OrderedUpdates`` dictionary that
update lists are collected in (PyMC3's and Lasagne's optimizers return or subclass it)."""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from symnb.core.tensor.shared import SharedVariable

__all__ = ["OrderedUpdates"]


def _check_key(key: Any) -> None:
    if not isinstance(key, SharedVariable):
        raise TypeError(f"OrderedUpdates keys must be shared variables (sn.shared), got {key!r}")


def _warn_unordered(other: Any) -> None:
    # Theano's warning: the updates would run in an order that changes between runs.
    if isinstance(other, dict) and len(other) > 1 and not isinstance(other, OrderedDict):
        warnings.warn("OrderedUpdates given a non-ordered dictionary with more than one "
                      "update: the order of the updates may be non-deterministic",
                      stacklevel=3)


class OrderedUpdates(OrderedDict):
    """An ordered ``{shared variable: new value}`` dictionary (Theano's semantics): keys
    must be shared variables; ``update`` refuses to give a key a second, different value
    (``KeyError('Collision', key)``); ``a + b`` is the union of both."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args:
            _warn_unordered(args[0])
        super().__init__(*args, **kwargs)
        for key in self:
            _check_key(key)

    def __setitem__(self, key: Any, value: Any) -> None:
        _check_key(key)
        super().__setitem__(key, value)

    def update(self, other: Any = None) -> None:  # type: ignore[override]
        if other is None:
            return
        _warn_unordered(other)
        for key, value in OrderedDict(other).items():
            if key in self:
                if self[key] is value:
                    continue
                raise KeyError("Collision", key)
            self[key] = value

    def __add__(self, other: Any) -> "OrderedUpdates":
        result = OrderedUpdates()
        result.update(self)
        result.update(other)
        return result

    def __radd__(self, other: Any) -> "OrderedUpdates":
        result = OrderedUpdates()
        result.update(other)
        result.update(self)
        return result
