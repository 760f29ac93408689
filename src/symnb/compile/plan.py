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
from typing import Any, Callable, Mapping

from symnb.compile.construction import (
    apply_givens, check_inputs_listed, check_missing, check_unused, cut_at_inputs, givens_keys,
    to_storage_owners, update_items, update_pairs,
)
from symnb.compile.inputs import make_checker, strict_checker
from symnb.compile.io import InputSpec
from symnb.core.graph.basic import Variable, graph_inputs
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
    #: Per input: the keyword it is passed by, its default (``sn.In(value=...)``) and
    #: the function checking (and converting) its argument.
    names: tuple[str | None, ...]
    defaults: tuple[Any, ...]
    checkers: tuple[Callable[[Any], Any], ...]
    #: ``(variable, shared state)`` of each input with an update (``sn.In(update=...)``).
    state_inputs: tuple[tuple[Variable, SharedVariable], ...]
    allow_input_downcast: bool
    #: ``sn.function``'s arguments, read-only (``copy()`` and pickling rebuild from them).
    construction: Mapping[str, Any]

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
                  name: str | None, allow_input_downcast: bool, on_unused_input: str,
                  no_default_updates: Any, construction: dict[str, Any]) -> FunctionPlan:
    """The plan of ``sn.function(spec's inputs, outputs, updates, givens, ...)``;
    ``outputs``/``updates``/``givens`` already carry ``spec``'s ``Out``s and state."""
    single = outputs is not None and not isinstance(outputs, (list, tuple))
    listed = [] if outputs is None else [outputs] if single else list(outputs)
    user_outputs = [as_tensor_variable(o) for o in listed]
    pairs = update_pairs(with_default_updates(
        user_outputs, update_items(updates), no_default_updates, skip=givens_keys(givens)))
    replaced = apply_givens(user_outputs + [expr for _, expr in pairs], givens)
    updated, replaced = to_storage_owners([s for s, _ in pairs], replaced)
    inputs, replaced = cut_at_inputs(list(spec.variables), replaced)

    check_inputs_listed(inputs)
    roots = graph_inputs(replaced, blockers=inputs)
    check_missing(roots, inputs, replaced)
    check_unused(inputs, roots, on_unused_input)
    read_only = [v for v in roots if isinstance(v, SharedVariable)
                 and v not in inputs and not any(v is s for s in updated)]
    n = len(user_outputs)
    return FunctionPlan(
        name=name, inputs=tuple(inputs), outputs=tuple(user_outputs), single=single,
        graph_outputs=tuple(replaced[:n]), update_exprs=tuple(replaced[n:]),
        updated_shared=tuple(updated), read_shared=tuple(read_only),
        names=tuple(spec.names), defaults=tuple(spec.defaults),
        checkers=tuple(_checker(var, spec, i, allow_input_downcast) for i, var in enumerate(inputs)),
        state_inputs=tuple(spec.state_givens),
        allow_input_downcast=allow_input_downcast,
        construction=MappingProxyType(dict(construction)))


def _checker(var: Variable, spec: InputSpec, position: int,
             allow_input_downcast: bool) -> Callable[[Any], Any]:
    """Input ``position``'s check: the function's conversion rule, or its own
    (``sn.In(allow_downcast=...)``), refusing other dtypes when ``sn.In(strict=True)``."""
    own = spec.allow_downcast[position]
    check = make_checker(var, allow_input_downcast if own is None else own)
    return strict_checker(var, check) if spec.strict[position] else check
