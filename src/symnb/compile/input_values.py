"""``f[key]`` and ``f[key] = value``: Theano's access to a compiled function's input
values (``function_module.Function.__getitem__``, its ``finder``).

A key is an input's position in ``sn.function``'s input list, its variable or its name
(a name two inputs share is ambiguous). What an input's value is, as in Theano 1.0:

- an input with ``update`` (state): its current value; setting it sets the state (also
  for a state a call may pass: ``In``'s ``implicit=False``);
- an input with a default: the default, or the value set with ``f[key] = value``,
  which the next call uses if the argument is not passed; after that call the
  default is back (Theano refed its defaults after each call);
- a required input: None, or the value set, which no call uses (the argument must
  still be passed, as in Theano); a call clears it.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple, Sequence

from symnb.compile.container import default_value
from symnb.compile.io import NO_DEFAULT, In
from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import label
from symnb.core.tensor.shared import SharedVariable

__all__ = ["InputValues"]

_AMBIGUOUS = object()  # a name two inputs share


class _Slot(NamedTuple):
    """Where an input's value lives: argument ``position``, or the ``state`` variable."""

    position: int | None
    state: SharedVariable | None


class InputValues:
    """The input values of one compiled function (see the module's docstring).

    ``listed``: ``sn.function``'s inputs (variables and ``In``, shortcuts converted);
    ``state``: ``(variable, shared state)`` of the inputs with an update; ``defaults``
    and ``checkers``: per argument, its default (``NO_DEFAULT``: required) and the check
    converting a value to what a call would pass."""

    def __init__(self, listed: Sequence[Any], state: Sequence[tuple[Variable, SharedVariable]],
                 defaults: Sequence[Any], checkers: Sequence[Any]) -> None:
        self._defaults, self._checkers = tuple(defaults), tuple(checkers)
        states = {id(variable): shared for variable, shared in state}
        self._finder: dict[Any, Any] = {}
        #: The variable of each argument position.
        self._variables: list[Variable] = []
        position = 0
        for index, item in enumerate(listed):
            variable = item.variable if isinstance(item, In) else item
            name = (item.name if isinstance(item, In) else None) or getattr(variable, "name", None)
            state = states.get(id(variable)) if isinstance(item, In) and item.update is not None else None
            if state is not None and not item.is_argument:
                slot = _Slot(None, state)
            else:  # an argument (a state a call may pass too: its value is the state's)
                slot, position = _Slot(position, state), position + 1
                self._variables.append(variable)
            self._finder[index] = self._finder[variable] = slot
            if name is not None:
                self._finder[name] = _AMBIGUOUS if name in self._finder else slot
        #: Per argument position, the value ``f[key] = value`` set since the last call.
        self._set: dict[int, Any] = {}

    def __contains__(self, key: Any) -> bool:
        return self._key(key) in self._finder

    def get(self, key: Any) -> Any:
        return self.get_slot(self.slot(key))

    def get_slot(self, slot: _Slot) -> Any:
        """The value of the input at ``slot`` (see :meth:`get`)."""
        if slot.state is not None:
            return slot.state.get_value()
        if slot.position in self._set:
            return self._set[slot.position]
        default = self._defaults[slot.position]
        if default is NO_DEFAULT:
            return None
        return self._checkers[slot.position](default_value(default))

    def set(self, key: Any, value: Any) -> bool:
        """Set the input's value; True when it is an argument's, for the next call."""
        return self.set_slot(self.slot(key, setting=True), value)

    def set_slot(self, slot: _Slot, value: Any) -> bool:
        """Set the value of the input at ``slot`` (see :meth:`set`)."""
        if slot.state is not None:
            slot.state.set_value(value)
            return False
        self._set[slot.position] = self._checkers[slot.position](value)
        return True

    def take_overrides(self) -> dict[int, Any]:
        """The values set since the last call, by argument position, cleared: the call
        uses those of inputs with a default for the arguments it is not passed."""
        taken, self._set = self._set, {}
        return taken

    def _key(self, key: Any) -> Any:
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            return int(key)
        return key if isinstance(key, (str, Variable)) else None

    def index_of(self, slot: _Slot) -> int:
        """The position in the function's input list of the input at ``slot``."""
        return next(key for key, found in self._finder.items() if type(key) is int and found is slot)

    def variable_at(self, position: int) -> Variable:
        """The variable of the argument at ``position``."""
        return self._variables[position]

    def slot(self, key: Any, setting: bool = False) -> _Slot:
        """Where the value of the input ``key`` (position, variable or name) lives."""
        slot = self._finder.get(self._key(key))
        if slot is None:
            known = [label(k) if isinstance(k, Variable) else repr(k)
                     for k in self._finder if not isinstance(k, int)]
            hint = f". The inputs are {', '.join(known)} (or their positions)" if setting else ""
            raise TypeError(f"Unknown input or state: {key}{hint}")
        if slot is _AMBIGUOUS:
            raise TypeError(f"Ambiguous name: {key} - please check the names of the inputs of "
                            f"your function for duplicates.")
        return slot
