"""Theano's containers: ``shared_var.container`` and ``f.container[key]``.

In Theano a ``Container`` (``theano.gof.link.Container``) holds one value in
``storage``, a one-element list, and is how functions share values: a shared
variable's container, or ``In(s, value=f.container[s], update=...)``, which makes a
second function read and update ``f``'s state. symnb keeps a value where its owner
keeps it (a shared variable's storage, a compiled function's input values); a
:class:`Container` is a live view of that place, so what Theano's code reads and
writes through it (``container.value``, ``container.storage[0]``) reads and writes the
owner. The view of a place is made once: ``f2.container[s].storage is
f1.container[s].storage`` when both functions use the same state, as in Theano.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from symnb.core.graph.errors import label

__all__ = ["Container", "FunctionContainers", "shared_container", "default_value"]


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


def shared_container(var: Any) -> Container:
    """The container of shared variable ``var``'s value: one per storage (a memory-aliased
    clone's is its origin's). ``storage[0]`` is the stored value, read-only where it is
    a NumPy array (``get_value(borrow=True)``); setting it is ``set_value``."""
    from symnb.core.tensor.shared import storage_owner

    owner = storage_owner(var)
    container = _SHARED_CONTAINERS.get(owner)
    if container is None:
        container = Container(owner, lambda: owner.get_value(borrow=True),
                              lambda value: owner.set_value(value), shared=owner,
                              reduce=(shared_container, (owner,)))
        _SHARED_CONTAINERS[owner] = container
    return container


class FunctionContainers:
    """``f.container``: the container of each input of a compiled function, by the
    input's position, variable or name (as ``f[key]``). A state input's is its shared
    state's; an argument's reads and sets what ``f[key]`` reads and sets."""

    def __init__(self, values: Any, function: "weakref.ref[Any]") -> None:
        # The function held weakly: it is freed when the user drops it.
        self._values, self._function = values, function
        self._made: dict[Any, Container] = {}

    def _live(self) -> Any:
        function = self._function()
        if function is None:
            raise ReferenceError("the compiled function of this container was deleted")
        return function

    def __contains__(self, key: Any) -> bool:
        return key in self._values

    def __getitem__(self, key: Any) -> Container:
        slot = self._values.slot(key)
        state = slot.state
        if state is not None:
            return shared_container(state)
        container = self._made.get(slot.position)
        if container is None:
            values, live = self._values, self._live
            container = Container(values.variable_at(slot.position), lambda: values.get_slot(slot),
                                  lambda value: live()._set_slot(slot, value),
                                  reduce=(_function_container, (live(), values.index_of(slot))))
            self._made[slot.position] = container
        return container

    def __repr__(self) -> str:
        return f"<containers of {len(self._made)} input(s)>"


def _function_container(function: Any, index: int) -> Container:
    """The container of input ``index`` of ``function`` (how one pickles)."""
    return function.container[index]


def default_value(default: Any) -> Any:
    """A default as a call passes it: a container's current value (``In(x,
    value=f.container[s])`` reads ``f``'s state at each call), else the default."""
    return default.value if isinstance(default, Container) else default


def refused_state_container(variable: Any) -> NotImplementedError:
    """``In(s, value=f.container[x], update=...)`` where ``x`` is an argument of ``f``: its
    value is not a shared storage symnb can make state of."""
    return NotImplementedError(
        f"In({label(variable)!r}, value=<container>, update=...): the container is an argument's "
        f"of a compiled function, not a state's; symnb shares only state (In(..., update=...)) "
        f"and shared variables' storage between functions")
