"""``sn.In`` and ``sn.Out``: Theano's input and output specifications for
``sn.function``.

    f = sn.function([x, sn.In(y, value=1.0)], z)     # f(2.0) uses y = 1.0
    f = sn.function([sn.In(s, value=0.0, update=s + x), x], s)   # s is internal state

An input with ``update`` holds state: its value starts at ``value`` and becomes the
update's value after each call (stored in a hidden shared variable, so a failed call
leaves it as it was). As in Theano, it is still an optional argument (``In``'s
``implicit=False``, the default unless ``value`` is a container): a call passing it
computes with the value passed, and the state becomes the update's value of it
(``fn(1, 2, w=400)``: ``w`` goes 400 -> 401). ``implicit=True`` (the default for a
container) makes it internal state only.

Theano's input shortcuts are read as ``In`` (:func:`convert_function_input`):

    f = sn.function([x, (y, 1.0), ((s, s + x), 0.0)], z)   # In(y, value=1.0), a state s
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from symnb.compile.container import Container, refused_state_container, shared_container
from symnb.core.graph.errors import label
from symnb.core.graph.basic import Variable
from symnb.core.graph.source import warn_at_user_line
from symnb.core.tensor.shared import SharedVariable, shared

__all__ = ["In", "Param", "Out", "NO_DEFAULT", "InputSpec", "expand_inputs", "state_names",
           "unwrap_outputs", "convert_function_input", "convert_shortcuts"]


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"

    def __reduce__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT = _NoDefault()  # an input that must be passed


class In:
    """An input of ``sn.function`` with Theano's options.

    - ``name``: the keyword the argument may be passed by (default: the variable's name);
    - ``value``: the default used when the argument is not passed (``None``, as in
      Theano: no default, the argument is required);
    - ``update``: an expression of the inputs giving the next value (the input then
      holds internal state and is not an argument);
    - ``allow_downcast``, ``strict``: this argument's conversion rule (``strict``: the
      exact dtype only; ``allow_downcast``: overrides the function's
      ``allow_input_downcast``);
    - ``mutable``, ``borrow``, ``autoname``, ``implicit``: accepted; symnb never writes
      into its arguments (XLA works on copies), so they change nothing.
    """

    def __init__(self, variable: Variable, name: str | None = None, value: Any = NO_DEFAULT,
                 update: Any = None, mutable: bool | None = None, strict: bool = False,
                 allow_downcast: bool | None = None, autoname: bool = True,
                 implicit: bool | None = None, borrow: bool | None = None,
                 shared: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"In: expected a symbolic variable, got {type(variable).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"In({label(variable)!r}): name must be a string, got {name!r}")
        if value is None:  # Theano's In: value=None is no default (a passed None is a value)
            value = NO_DEFAULT
        self.variable, self.name, self.value, self.update = variable, name, value, update
        self.mutable, self.strict, self.allow_downcast = mutable, strict, allow_downcast
        self.autoname, self.implicit, self.borrow, self.shared = autoname, implicit, borrow, shared

    def __repr__(self) -> str:
        return f"In({label(self.variable)!r})"

    @property
    def is_argument(self) -> bool:
        """Whether a call may pass this input: Theano's rule for ``implicit`` (None: an
        argument unless ``value`` is a container; an input without update always is)."""
        if self.update is None:
            return True
        return not self.implicit if self.implicit is not None else not isinstance(self.value, Container)


class Param(In):
    """Theano's deprecated name of :class:`In`, with its signature: ``default`` is
    ``In``'s ``value`` (None: no default). Warns as Theano 1.0 did."""

    def __init__(self, variable: Variable, default: Any = None, name: str | None = None,
                 mutable: bool = False, strict: bool = False, allow_downcast: bool | None = None,
                 implicit: bool | None = None, borrow: bool | None = None) -> None:
        warn_at_user_line("The Param class is deprecated. Replace Param(default=N)"
                          " by theano.In(value=N)")
        super().__init__(variable, name=name, value=NO_DEFAULT if default is None else default,
                         mutable=mutable, strict=strict, allow_downcast=allow_downcast,
                         implicit=implicit, borrow=borrow)


class Out:
    """An output of ``sn.function``; ``borrow`` is accepted (outputs are always NumPy
    arrays the caller owns)."""

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        self.variable, self.borrow = variable, borrow

    def __repr__(self) -> str:
        return f"Out({label(self.variable)!r})"


def convert_function_input(item: Any) -> Any:
    """One of ``sn.function``'s inputs with Theano's shortcuts read as ``In`` (Theano
    1.0's ``convert_function_input``, its messages included): ``(name, r)``,
    ``(r, value)``, ``((r, update), value)``, ``(name, r, value)``,
    ``(name, (r, update), value)`` and ``(In(...), value)``. Anything but a tuple or a
    list is returned as it is."""
    if not isinstance(item, (list, tuple)):
        return item
    original = item
    if not item:
        raise TypeError(f"Nonsensical input specification: {item}")
    name = item[0] if isinstance(item[0], str) else None
    rest = item[1:] if name is not None else item
    invalid = TypeError(f"Invalid input syntax: {original} (check documentation or use an In instance)")
    first = rest[0] if rest else None
    update = value = None
    if isinstance(first, (list, tuple)):
        if len(first) != 2 or len(rest) != 2:
            raise invalid
        (variable, update), value = rest
    elif isinstance(first, Variable):
        if len(rest) > 2:
            raise invalid
        variable, value = first, (rest[1] if len(rest) == 2 else None)
    elif isinstance(first, In):
        if len(rest) > 2:
            raise invalid
        return _with_value(first, name, rest[1]) if len(rest) == 2 else first
    else:
        raise TypeError(f"The input specification is not valid: {rest}")
    if not isinstance(variable, Variable):
        raise TypeError(f"Unknown input type: {type(variable)}, expected Variable instance")
    if update is not None and not isinstance(update, Variable):
        raise TypeError(f"Unknown update type: {type(update)}, expected Variable instance")
    if isinstance(value, (Variable, In)):
        raise TypeError(f"The value for input {variable} should not be a Variable or "
                        f"SymbolicInput instance (got: {value})")
    return In(variable, name=name, value=NO_DEFAULT if value is None else value, update=update)


def _with_value(given: In, name: str | None, value: Any) -> In:
    """``(In(...), value)``: a copy of the ``In`` with that value (and name, if given)."""
    spec = copy.copy(given)
    spec.value = value
    if name is not None:
        spec.name = name
    return spec


def convert_shortcuts(inputs: Any, updates: Any, givens: Any, profile: Any) -> list[Any]:
    """``sn.function``'s inputs with Theano's shortcuts read as ``In``. As in Theano 1.0,
    inputs given as tuples (its "old semantics") refuse ``updates``, ``givens`` and
    ``profile``, with Theano's messages."""
    inputs = list(inputs)
    if any(isinstance(item, (list, tuple)) for item in inputs):
        if profile:
            raise NotImplementedError("profiling not supported in old-style function")
        if updates or givens:
            raise NotImplementedError("In() instances and tuple inputs trigger the old semantics, "
                                      "which disallow using updates and givens")
    return [convert_function_input(item) for item in inputs]


@dataclass
class InputSpec:
    """What ``expand_inputs`` found: the argument variables, and per argument its
    keyword, default and conversion rule; the state inputs as givens and updates."""

    variables: list[Variable] = field(default_factory=list)
    names: list[str | None] = field(default_factory=list)
    defaults: list[Any] = field(default_factory=list)
    allow_downcast: list[bool | None] = field(default_factory=list)
    strict: list[bool] = field(default_factory=list)
    state_givens: list[tuple[Variable, SharedVariable]] = field(default_factory=list)
    state_updates: list[tuple[SharedVariable, Any]] = field(default_factory=list)
    #: The states a call may also pass (``In.is_argument``): arguments, not givens.
    argument_states: list[tuple[Variable, SharedVariable]] = field(default_factory=list)

    @property
    def states(self) -> list[tuple[Variable, SharedVariable]]:
        """Every input holding state, with its shared variable."""
        return self.state_givens + self.argument_states

    def merged_givens(self, givens: Any) -> Any:
        if not self.state_givens:
            return givens
        items = list(givens.items()) if isinstance(givens, dict) else list(givens or [])
        return items + self.state_givens

    def merged_updates(self, updates: Any) -> Any:
        if not self.state_updates:
            return updates
        items = list(updates.items()) if isinstance(updates, dict) else list(updates or [])
        return items + self.state_updates


def expand_inputs(inputs: Any) -> InputSpec:
    """Split ``sn.function``'s inputs (variables and ``In``) into an :class:`InputSpec`."""
    spec = InputSpec()
    for item in inputs:
        if not isinstance(item, In):
            spec.variables.append(item)
            spec.names.append(getattr(item, "name", None))
            spec.defaults.append(NO_DEFAULT)
            spec.allow_downcast.append(None)
            spec.strict.append(False)
            continue
        default = item.value
        if item.update is not None:
            if item.value is NO_DEFAULT:
                _refuse_state_without_value(item, inputs)
            state = _state(item)
            spec.state_updates.append((state, item.update))
            if not item.is_argument:
                spec.state_givens.append((item.variable, state))
                continue
            # Passed or not, the call computes with the argument: by default the state's value.
            spec.argument_states.append((item.variable, state))
            default = shared_container(state)
        spec.variables.append(item.variable)
        spec.names.append(_keyword(item))
        spec.defaults.append(default)
        spec.allow_downcast.append(item.allow_downcast)
        spec.strict.append(bool(item.strict))
    return spec


def _refuse_state_without_value(item: In, inputs: Any) -> None:
    """``In(x, update=...)`` with no ``value=``: Theano took it as an argument whose update
    the next call's argument overwrites. symnb refuses it (a state needs its initial
    value), after Theano's own error where the update reads a variable that is not an
    input (``MissingInputError``, as Theano raised it)."""
    from symnb.compile.construction import check_missing
    from symnb.core.graph.basic import graph_inputs

    listed = [i.variable if isinstance(i, In) else i for i in inputs]
    check_missing(graph_inputs([item.update]), listed, [item.update])
    raise ValueError(f"In({label(item.variable)!r}, update=...): an input with an update holds "
                     f"state, and needs its initial value= ")


def _state(item: In) -> SharedVariable:
    """The shared variable holding an input's state: a new one of its initial value, or
    the one of ``value=f.container[s]`` (another function's state, or a shared
    variable's ``container``), which both functions then read and update, as in Theano."""
    if isinstance(item.value, Container):
        if item.value.shared is None:
            raise refused_state_container(item.variable)
        if item.value.shared.type.dtype != item.variable.dtype \
                or item.value.shared.ndim != item.variable.ndim:
            raise TypeError(f"In({label(item.variable)!r}, value=<container>, update=...): the "
                            f"container holds {item.value.shared.type.short()}, the input is "
                            f"{item.variable.type.short()}")
        return item.value.shared
    return shared(item.value, name=item.name or item.variable.name, dtype=item.variable.dtype)


def state_names(inputs: Any) -> list[str]:
    """The keywords of the inputs among ``sn.function``'s ``inputs`` that hold internal
    state only (``sn.In(..., update=..., implicit=True)``): names that are no argument."""
    return [_keyword(item) for item in inputs if isinstance(item, In) and not item.is_argument]


def _keyword(item: In) -> str | None:
    """The keyword an ``In`` is passed by: its ``name``, else its variable's."""
    return item.name if item.name is not None else item.variable.name


def unwrap_outputs(outputs: Any) -> Any:
    """``outputs`` with each ``Out`` replaced by its variable."""
    if isinstance(outputs, Out):
        return outputs.variable
    if isinstance(outputs, (list, tuple)):
        return type(outputs)(o.variable if isinstance(o, Out) else o for o in outputs)
    if isinstance(outputs, dict):  # Theano's output_keys
        return {k: o.variable if isinstance(o, Out) else o for k, o in outputs.items()}
    return outputs
