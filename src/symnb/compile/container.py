"""``f.container[key]``: the containers (:mod:`symnb.core.tensor.container`) of a compiled
function's inputs, and how ``sn.In(x, value=<container>)`` reads one."""

from __future__ import annotations

import weakref
from typing import Any, Callable

from symnb.core.graph.errors import label
from symnb.core.tensor.container import Container, shared_container

__all__ = ["Container", "FunctionContainers", "shared_container", "default_value"]


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
