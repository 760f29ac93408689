"""The plan of a compiled function: what ``sn.function`` was asked to compile, checked
and settled once, before anything is rewritten, traced or called.

:func:`plan_function` reads ``sn.function``'s arguments (``sn.In`` options included),
applies the givens and default updates, checks the inputs (``construction.py``'s
checks) and returns a :class:`FunctionPlan`: a frozen value of tuples. ``Function``
makes its graph, its program and its calling convention (``call.CallSpec``) from it,
and sets nothing afterwards but the program it re-specializes (``Function._rebuild``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from symnb.compile.container import Container
from symnb.compile.construction import (
    apply_givens, check_givens_keys, check_inputs_listed, check_missing, check_no_generic,
    check_no_null,
    check_unused, cut_at_inputs, givens_pairs, to_storage_owners, update_items, update_pairs,
)
from symnb.compile.inputs import make_checker, strict_checker
from symnb.compile.io import NO_DEFAULT, InputSpec
from symnb.core.graph.basic import Variable, graph_inputs
from symnb.core.graph.errors import label
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shared import SharedVariable
from symnb.core.updates import with_default_updates

__all__ = ["FunctionPlan", "plan_function"]


@dataclass(frozen=True)
class FunctionPlan:
    """What a compiled function computes and how it is called (every field immutable).

    The program's arguments are ``inputs``, then ``updated_shared``, then
    ``read_shared`` (:attr:`program_inputs`); its results are ``graph_outputs``, then
    ``update_exprs`` (one per updated shared variable, in that order)."""

    name: str | None
    #: The argument variables (an input computed in the graph cut to a root of its own).
    inputs: tuple[Variable, ...]
    #: The outputs as the user wrote them (``f.outputs``).
    outputs: tuple[Variable, ...]
    #: One output, returned bare (not in a list).
    single: bool
    #: The outputs as the program computes them (givens applied, clones of shared
    #: storage replaced by their owner), then the new values of ``updated_shared``.
    graph_outputs: tuple[Variable, ...]
    update_exprs: tuple[Variable, ...]
    updated_shared: tuple[SharedVariable, ...]
    read_shared: tuple[SharedVariable, ...]
    #: Per input: the keyword it is passed by, its default (``sn.In(value=...)``, as its
    #: check returned it; ``NO_DEFAULT``: none) and the function checking (and
    #: converting) its argument.
    names: tuple[str | None, ...]
    defaults: tuple[Any, ...]
    checkers: tuple[Callable[[Any], Any], ...]
    #: ``(variable, shared state)`` of each input with an update (``sn.In(update=...)``).
    state_inputs: tuple[tuple[Variable, SharedVariable], ...]
    #: Theano's three values: True, False, or None (the default: a Python float for a
    #: floatX input is rounded; False refuses one that does not fit exactly).
    allow_input_downcast: bool | None
    #: ``sn.function``'s arguments, read-only (``copy()`` and pickling rebuild from them).
    construction: Mapping[str, Any]
    #: Theano's ``output_keys``: outputs given as a dict ``{key: variable}`` are computed
    #: in the order of their sorted keys, and a call returns ``{key: value}``; None: not.
    output_keys: tuple[str, ...] | None = None

    @property
    def program_inputs(self) -> tuple[Variable, ...]:
        return self.inputs + self.updated_shared + self.read_shared

    @property
    def all_shared(self) -> tuple[SharedVariable, ...]:
        return self.updated_shared + self.read_shared

    @property
    def title(self) -> str:
        """How messages name the function."""
        return f"function {self.name!r}" if self.name else "the compiled function"


def plan_function(spec: InputSpec, outputs: Any, updates: Any, givens: Any, *,
                  name: str | None, allow_input_downcast: bool | None, on_unused_input: str,
                  no_default_updates: Any, construction: dict[str, Any],
                  rebuild_strict: bool = True) -> FunctionPlan:
    """The plan of ``sn.function(spec's inputs, outputs, updates, givens, ...)``;
    ``outputs``/``updates``/``givens`` already carry ``spec``'s ``Out``s and state."""
    output_keys = None
    if isinstance(outputs, Mapping):  # Theano's dict of outputs, computed in sorted key order
        output_keys, outputs = _keyed_outputs(outputs)
    single = outputs is not None and not isinstance(outputs, (list, tuple))
    listed = [] if outputs is None else [outputs] if single else list(outputs)
    user_outputs = [as_tensor_variable(o) for o in listed]
    inputs = list(spec.variables)
    check_inputs_listed(inputs)
    # Every walk stops at the inputs: the function is the graph between them and the
    # outputs, so a draw above an input is no part of it (its stream does not advance).
    givens = givens_pairs(givens, strict=rebuild_strict)
    check_givens_keys(givens, inputs)
    explicit = update_pairs(update_items(updates))
    # The default updates are those of the shared variables the graph as compiled reads
    # (givens applied, cut at the inputs, ifelse branches' copies included).
    _, walked = cut_at_inputs(inputs, apply_givens(user_outputs + [e for _, e in explicit], givens, inputs))
    pairs = update_pairs(with_default_updates(
        user_outputs, explicit, no_default_updates, givens=givens, blockers=inputs, walked=walked))
    replaced = apply_givens(user_outputs + [expr for _, expr in pairs], givens, inputs)
    updated, replaced = to_storage_owners([s for s, _ in pairs], replaced, inputs)
    inputs, replaced = cut_at_inputs(inputs, replaced)

    roots = graph_inputs(replaced, blockers=inputs)
    # Theano's order: an unused input is reported before a missing one.
    check_no_null(roots)
    check_no_generic(list(inputs) + list(roots))
    check_unused(inputs, roots, on_unused_input)
    check_missing(roots, inputs, replaced)
    read_only = [v for v in roots if isinstance(v, SharedVariable)
                 and v not in inputs and not any(v is s for s in updated)]
    n = len(user_outputs)
    exact_pattern = _sparse_pattern_sources(inputs, replaced)
    checkers = tuple(_checker(var, spec, i, allow_input_downcast, id(var) in exact_pattern)
                     for i, var in enumerate(inputs))
    return FunctionPlan(
        name=name, inputs=tuple(inputs), outputs=tuple(user_outputs), single=single,
        graph_outputs=tuple(replaced[:n]), update_exprs=tuple(replaced[n:]),
        updated_shared=tuple(updated), read_shared=tuple(read_only),
        names=tuple(spec.names), defaults=_checked_defaults(inputs, spec.defaults, checkers),
        checkers=checkers, state_inputs=tuple(spec.states),
        allow_input_downcast=allow_input_downcast,
        construction=MappingProxyType(dict(construction)), output_keys=output_keys)


def _keyed_outputs(outputs: Mapping) -> tuple[tuple[str, ...], list[Any]]:
    """Theano's outputs given as a dict: its keys (strings, as Theano asserted), sorted,
    and the outputs in that order."""
    for key in outputs:
        if not isinstance(key, str):
            raise TypeError(f"sn.function: the keys of a dict of outputs are strings (Theano's "
                            f"output_keys), got {key!r}")
    keys = tuple(sorted(outputs))
    return keys, [outputs[key] for key in keys]


def _sparse_pattern_sources(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> set[int]:
    """The ids of the sparse inputs whose stored entries the graph reads (refused with
    stored zeros: ``SparseType.to_program``); none without sparse inputs."""
    if not any(getattr(v.type, "is_sparse", False) for v in inputs):
        return set()
    from symnb.core.sparse.ops import pattern_sources

    return pattern_sources(outputs)


def _checker(var: Variable, spec: InputSpec, position: int,
             allow_input_downcast: bool | None, exact_pattern: bool = True) -> Callable[[Any], Any]:
    """Input ``position``'s check: the function's conversion rule, or its own
    (``sn.In(allow_downcast=...)``), refusing other dtypes when ``sn.In(strict=True)``;
    ``exact_pattern``: a sparse input's stored entries are read (see make_checker)."""
    own = spec.allow_downcast[position]
    check = make_checker(var, allow_input_downcast if own is None else own, exact_pattern)
    return strict_checker(var, check) if spec.strict[position] else check


def _checked_defaults(inputs: list[Variable], defaults: list[Any],
                      checkers: tuple[Callable[[Any], Any], ...]) -> tuple[Any, ...]:
    """Each default (``sn.In(value=...)``) checked once, as Theano filters it when the
    function is made: a default the input cannot take is refused here, not at each call
    that uses it, and a call passes the checked array as it is."""
    checked = []
    for var, default, check in zip(inputs, defaults, checkers):
        if default is NO_DEFAULT:
            checked.append(default)
            continue
        try:
            if isinstance(default, Container):  # read at each call: checked then too
                check(default.value)
                checked.append(default)
            else:
                checked.append(check(default))
        except (TypeError, ValueError) as error:
            raise type(error)(f"sn.In({label(var)!r}, value=...): the default value does not "
                              f"fit the input: {error}") from None
    return tuple(checked)
