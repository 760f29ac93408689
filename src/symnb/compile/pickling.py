"""Pickling and copying compiled functions.

A compiled function pickles as the arguments ``sn.function`` was given (the graph,
its inputs, updates, givens and mode): unpickling compiles it again, so the program
always matches the symnb and JAX that load it. Shared variables pickle with their
values (``SharedVariable.__reduce_ex__``), so a trained model comes back as it was
saved; creation sites pickle as file/line/function frames (``core/graph/source.py``).
An input holding state (``sn.In(..., update=...)``) pickles its current value, through
its state's container: functions pickled together that share a state (``In(s,
value=f.container[s], ...)``) share it once unpickled, as in Theano. A copy
(``f.copy()``, ``copy.copy(f)``) starts from a copy of the current state, and returns a
list of its outputs, as Theano's copies did.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Callable

from symnb.core.graph.errors import describe_given, label
from symnb.core.tensor.shared import SharedVariable

__all__ = ["function_reduce", "copied_function", "rebuilt_function"]


def function_reduce(function: Any, build: Callable[..., Any]) -> tuple:
    """``Function.__reduce__``: rebuild from the construction arguments with ``build``
    (``sn.function``, passed in: it imports this module, not the reverse)."""
    from symnb.compile.container import shared_container

    construction = dict(function.plan.construction)
    construction["profile"] = None  # profiles are per process
    construction["inputs"] = _with_state_values(function, shared_container)
    return (rebuilt_function, (construction, build))


def _with_state_values(function: Any, value_of: Callable[[SharedVariable], Any]) -> list[Any]:
    """The function's inputs, each holding state given ``value_of(its state)`` as value."""
    from symnb.compile.io import In

    states = {id(variable): state for variable, state in function.plan.state_inputs}
    inputs = []
    for item in function.plan.construction["inputs"]:
        if isinstance(item, In) and item.update is not None and id(item.variable) in states:
            argument = item.is_argument
            item = copy.copy(item)
            item.value = value_of(states[id(item.variable)])
            item.implicit = not argument  # a container would make it internal state only
        inputs.append(item)
    return inputs


def _with_own_defaults(function: Any, inputs: list[Any]) -> list[Any]:
    """``inputs`` with each argument's default the function's own (checked) value, so that
    a copy's ``g.value[a] is f.value[a]``: Theano's copy shared a default that is not
    state (only a state's value is copied)."""
    from symnb.compile.io import NO_DEFAULT, In

    defaults = iter(function.plan.defaults)  # one per argument, in the inputs' order
    shared_defaults = []
    for item in inputs:
        if isinstance(item, In) and item.update is not None:
            shared_defaults.append(item)  # state: not an argument
            continue
        default = next(defaults)
        if isinstance(item, In) and default is not NO_DEFAULT:
            item = copy.copy(item)
            item.value = default
        shared_defaults.append(item)
    return shared_defaults


def rebuilt_function(construction: dict, build: Callable[..., Any]) -> Any:
    """The function ``build(**construction)``: ``sn.function`` (what unpickling calls)."""
    return build(**construction)


def copied_function(function: Any, swap: Any, delete_updates: bool, name: str | None,
                    profile: bool | None, build: Callable[..., Any]) -> Any:
    """``Function.copy``: the same construction with shared variables swapped (in the
    graph and as update targets) and, with ``delete_updates``, no update at all."""
    construction = dict(function.plan.construction)
    if name is not None:
        construction["name"] = name
    construction["profile"] = profile
    construction["inputs"] = _with_own_defaults(
        function, _with_state_values(function, lambda state: state.get_value()))
    # Theano's copy rebuilt the function from the list of its outputs, so a copy returns
    # a list, whatever the original returned (one output unpacked, or None for none).
    outputs = construction.get("outputs")
    if not isinstance(outputs, Mapping):  # a dict of outputs stays one (output_keys)
        construction["outputs"] = [] if outputs is None else \
            list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    if delete_updates:
        construction["updates"] = None
        construction["no_default_updates"] = True
        # Theano's copy keeps the signature: an input that fed only the deleted
        # updates stays an argument of the copy, now unused (not an error).
        if construction.get("on_unused_input", "raise") == "raise":
            construction["on_unused_input"] = "ignore"
    if swap:
        construction.update(_swapped(construction, _swap_dict(swap)))
    return rebuilt_function(construction, build)


def _swap_dict(swap: Any) -> dict:
    """Theano's ``swap``: a dict of shared variables to shared variables, or a refusal
    naming what was given instead."""
    if not isinstance(swap, Mapping):
        raise TypeError(f"copy(swap=...): swap must be a dict of shared variables to shared "
                        f"variables, got {describe_given(swap)}")
    for old, new in swap.items():
        for role, item in (("key", old), ("value", new)):
            if not isinstance(item, SharedVariable):
                raise TypeError(f"copy(swap=...): swap maps shared variables to shared variables; "
                                f"the {role} {describe_given(item)} is not a shared variable")
    return swap


def _swapped(construction: dict, swap: dict) -> dict:
    for old, new in swap.items():
        if old.type.dtype != new.type.dtype or old.type.ndim != new.type.ndim:
            raise TypeError(f"copy(swap=...): {label(old)!r} ({old.type.short()}) cannot be "
                            f"swapped for {label(new)!r} ({new.type.short()})")
    updates = construction.get("updates")
    items = list(updates.items()) if isinstance(updates, dict) else list(updates or [])
    retargeted = [(swap.get(target, target), expr) for target, expr in items]
    givens = construction.get("givens")
    given_items = list(givens.items()) if isinstance(givens, dict) else list(givens or [])
    return {"updates": retargeted or None, "givens": given_items + list(swap.items())}
