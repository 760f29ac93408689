"""Which symbolic variables a ``%%symgraph`` cell made, and the names it shows them under.

A cell binds symbolic variables to names directly (``y = x * 2``) or inside lists, tuples
and dicts (``gW = T.grad(c, [W1, W2])``, ``updates = [(v, v_new), ...]``): each element
is shown as ``gW[0]``, ``updates[0][1]``, ``d['key']``. What cannot be shown that way (a
set, which has no order to name its elements by; a container nested too deep; more
elements than a report can hold) is not dropped silently: it comes back as a note that
names it and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import label

__all__ = ["SymgraphUsageError", "CellVariables", "snapshot", "assigned_variables",
           "named_variables"]

# list[tuple[...]] (an updates list) is as deep as Theano code nests its variables.
_MOST_DEPTH = 2
# Each variable is a table row and an output of the compiled function.
_MOST_PER_NAME = 64
# A container's elements enter its identity up to this length: a list grown in place
# (``updates += [...]``) counts as reassigned, a huge list costs one id.
_MOST_ELEMENTS_COMPARED = 1000


class SymgraphUsageError(ValueError):
    """A ``%%symgraph`` option that cannot be honoured (reported as IPython's UsageError)."""


@dataclass
class CellVariables:
    """The (name, variable) pairs to show, and a note for each thing not shown and why."""

    shown: list[tuple[str, Variable]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, name: str, value: Any) -> None:
        """Add ``value`` bound to ``name``: a variable, or the variables it contains."""
        found: list[tuple[str, Variable]] = []
        self._collect(name, value, 0, found)
        if len(found) > _MOST_PER_NAME:
            self.notes.append(f"{name}: {len(found)} symbolic variables; the first {_MOST_PER_NAME} "
                              f"are shown and compiled, {found[_MOST_PER_NAME][0]} and the "
                              f"{len(found) - _MOST_PER_NAME - 1} after it are not "
                              "(bind those you want to see to a name of their own)")
            found = found[:_MOST_PER_NAME]
        self.shown += found

    def _collect(self, name: str, value: Any, depth: int, found: list) -> None:
        if isinstance(value, Variable):
            found.append((name, value))
            return
        if isinstance(value, (set, frozenset)):
            count = sum(isinstance(v, Variable) for v in value)
            if count:
                self.notes.append(f"{name}: a {type(value).__name__} of {count} symbolic variable(s) "
                                  "is not shown: its elements have no order to name them by "
                                  "(make it a list)")
            return
        items = _items(name, value)
        if items is None:
            return
        if depth == _MOST_DEPTH:
            count = _count_variables(value)
            if count:
                self.notes.append(f"{name}: {count} symbolic variable(s) nested more than "
                                  f"{_MOST_DEPTH} levels deep are not shown (bind them to a name)")
            return
        for item_name, item in items:
            self._collect(item_name, item, depth + 1, found)


def _items(name: str, value: Any) -> list[tuple[str, Any]] | None:
    """The named elements of a list, tuple or dict (``None`` for anything else)."""
    if isinstance(value, (list, tuple)):
        return [(f"{name}[{i}]", v) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return [(f"{name}[{_key_text(k)}]", v) for k, v in value.items()]
    return None


def _key_text(key: Any) -> str:
    # A Theano updates dict is keyed by shared variables: named as the messages name them.
    return label(key) if isinstance(key, Variable) else repr(key)


def _count_variables(value: Any) -> int:
    if isinstance(value, Variable):
        return 1
    items = _items("", value)
    return sum(_count_variables(v) for _, v in items) if items else 0


def _identity(value: Any) -> Any:
    """What tells that a name now holds something else: the object, and for a list or dict
    (which a cell may change in place) its elements."""
    if isinstance(value, (list, dict)) and len(value) <= _MOST_ELEMENTS_COMPARED:
        elements = value.items() if isinstance(value, dict) else enumerate(value)
        return id(value), tuple((id(k) if isinstance(value, dict) else k, id(v)) for k, v in elements)
    return id(value)


def snapshot(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """Identities by name: compared after the cell to see what it (re)assigned."""
    return {name: _identity(value) for name, value in namespace.items() if not name.startswith("_")}


def assigned_variables(namespace: Mapping[str, Any], before: Mapping[str, Any]) -> CellVariables:
    """The symbolic variables bound, directly or in a list, tuple or dict, to a name that is
    new or now holds something else, in the namespace's order (the order the cell assigned
    them); notes on those that cannot be shown."""
    result = CellVariables()
    for name, value in namespace.items():
        if not name.startswith("_") and before.get(name) != _identity(value):
            result.add(name, value)
    return result


def named_variables(namespace: Mapping[str, Any], names: Sequence[str]) -> CellVariables:
    """The variables ``--show`` names (each a variable or a container of them); an error
    naming any name that is missing or holds nothing symbolic."""
    result = CellVariables()
    for name in names:
        if name not in namespace:
            raise SymgraphUsageError(f"%%symgraph --show: no variable named {name!r} after the cell ran")
        value = namespace[name]
        before = len(result.shown) + len(result.notes)
        result.add(name, value)
        if len(result.shown) + len(result.notes) == before:
            raise SymgraphUsageError(f"%%symgraph --show: {name!r} is of type {type(value).__name__}, "
                                     "not a symbolic variable nor a list, tuple or dict of them")
    return result
