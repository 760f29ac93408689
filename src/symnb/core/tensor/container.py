"""Theano's containers (``theano.gof.link.Container``): a live view of where symnb keeps a
value.

In Theano a ``Container`` holds one value in ``storage``, a one-element list, and is how
functions share values: a shared variable's container, or ``In(s, value=f.container[s],
update=...)``, which makes a second function read and update ``f``'s state. symnb keeps a
value where its owner keeps it (a shared variable's storage, a compiled function's input
values); a :class:`Container` reads and writes that place, so what Theano's code does
through it (``container.value``, ``container.storage[0]``) reads and writes the owner. The
view of a place is made once: ``f2.container[s].storage is f1.container[s].storage`` when
both functions use the same state, as in Theano. Functions' containers:
:mod:`symnb.compile.container`.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

__all__ = ["Container", "shared_container"]


class _Storage(list):
    """The one-element list of a :class:`Container` (``storage[0]``), read and written
    through its owner."""

    def __init__(self, read: Callable[[], Any], write: Callable[[Any], None]) -> None:
        super().__init__([None])
        self._read, self._write = read, write

    def __getitem__(self, index: Any) -> Any:
        if index not in (0, -1):
            raise IndexError(f"a container's storage holds one value (storage[0]), got index {index!r}")
        return self._read()

    def __setitem__(self, index: Any, value: Any) -> None:
        if index not in (0, -1):
            raise IndexError(f"a container's storage holds one value (storage[0]), got index {index!r}")
        self._write(value)

    def __iter__(self):
        yield self._read()

    def __repr__(self) -> str:
        return f"[{self._read()!r}]"


class Container:
    """One value's storage (Theano's ``Container``): ``value`` (and ``data``) reads and
    sets it, ``storage`` is the list Theano's code indexes (``storage[0]``), ``type``
    and ``name`` are its variable's. ``shared``: the shared variable whose value it is
    (None for a function argument's)."""

    def __init__(self, variable: Any, read: Callable[[], Any], write: Callable[[Any], None],
                 shared: Any = None, readonly: bool = False, reduce: Any = None) -> None:
        self.type, self.name = variable.type, variable.name
        self.shared, self.readonly = shared, readonly
        self.storage = _Storage(read, write)
        # How it pickles: the owner and how to find the container again from it.
        self._reduce = reduce

    def __reduce__(self) -> tuple:
        if self._reduce is None:
            raise TypeError(f"container {self!r} cannot be pickled")
        return self._reduce

    @property
    def value(self) -> Any:
        return self.storage[0]

    @value.setter
    def value(self, value: Any) -> None:
        if self.readonly:
            raise Exception(f"Cannot set readonly storage: {self.name}")
        self.storage[0] = value

    data = value

    def __repr__(self) -> str:
        return f"<{self.name or self.type!r}>"


#: The container of each shared variable's storage (keyed by the variable owning it).
_SHARED_CONTAINERS: "weakref.WeakKeyDictionary[Any, Container]" = weakref.WeakKeyDictionary()


def shared_container(owner: Any) -> Container:
    """The container of the value of shared variable ``owner`` (the variable owning the
    storage: a memory-aliased clone's is its origin's), one per storage. ``storage[0]`` is
    the stored value, read-only where it is a NumPy array (``get_value(borrow=True)``);
    setting it is ``set_value``."""
    container = _SHARED_CONTAINERS.get(owner)
    if container is None:
        container = Container(owner, lambda: owner.get_value(borrow=True),
                              lambda value: owner.set_value(value), shared=owner,
                              reduce=(shared_container, (owner,)))
        _SHARED_CONTAINERS[owner] = container
    return container
