"""Theano's ``theano.compat``: the names its Python 2/3 layer gave, as they were on Python 3.

    from symnb.compat import PY3, OrderedDict, izip, imap, BytesIO, cmp, exc_message
"""

from __future__ import annotations

import configparser
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping as DictMixin, ValuesView
from importlib import reload
from io import BytesIO
from operator import truediv as operator_div
from typing import Any

PY3 = True
izip = zip
imap = map
ifilter = filter
next = next  # noqa: A001,PLW0127  (six.next: the builtin on Python 3)

__all__ = ["PY3", "b", "BytesIO", "Callable", "next", "configparser", "reload", "cmp",
           "operator_div", "DictMixin", "Iterable", "Mapping", "OrderedDict", "ValuesView",
           "decode", "decode_iter", "decode_with", "get_unbound_function", "imap", "izip",
           "ifilter", "exc_message", "DefaultOrderedDict"]


def b(text: str) -> bytes:
    """six's ``b``: a byte string literal (Latin-1, as six encoded it)."""
    return text.encode("latin-1")


def exc_message(e: BaseException) -> Any:
    """An exception's message: its first argument, unpacked while that is itself an
    exception (Python 3 keeps a re-raised exception in the new one's arguments)."""
    message = e.args[0]
    return exc_message(message) if isinstance(message, Exception) else message


def cmp(x: Any, y: Any) -> int:
    """Python 2's ``cmp``: -1 if x < y, 0 if x == y, 1 if x > y."""
    return (x > y) - (x < y)


def get_unbound_function(unbound: Any) -> Any:
    """The plain function behind a bound method (the argument itself if it is none)."""
    return getattr(unbound, "__func__", unbound)


def decode(x: bytes) -> str:
    return x.decode()


def decode_iter(items: Iterable[bytes]) -> Iterator[str]:
    for x in items:
        yield x.decode()


def decode_with(x: bytes, encoding: str) -> str:
    return x.decode(encoding)


class DefaultOrderedDict(OrderedDict):
    """An ``OrderedDict`` that makes a missing key's value with ``default_factory`` (as
    ``collections.defaultdict``)."""

    def __init__(self, default_factory: Callable[[], Any] | None = None, *args: Any, **kwargs: Any):
        if default_factory is not None and not callable(default_factory):
            raise TypeError("first argument must be callable")
        super().__init__(*args, **kwargs)
        self.default_factory = default_factory

    def __missing__(self, key: Any) -> Any:
        if self.default_factory is None:
            raise KeyError(key)
        self[key] = value = self.default_factory()
        return value

    def __reduce__(self) -> tuple:
        args = () if self.default_factory is None else (self.default_factory,)
        return type(self), args, None, None, iter(self.items())

    def copy(self) -> "DefaultOrderedDict":
        return type(self)(self.default_factory, self)

    __copy__ = copy
