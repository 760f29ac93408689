"""What ``sn.function`` checks of its arguments before compiling, and the graph it
compiles: the one between its inputs and its outputs (as in Theano, an input computed in
the graph cuts it; every walk here stops at the inputs). The inputs are variables listed
once, the outputs depend on nothing else (``MissingInputError``) and
on every input (``UnusedInputError``, per ``on_unused_input``), updates target shared
variables and keep their types, givens keep types. Each error names the variable and
the user's line."""

from __future__ import annotations

from typing import Any

from symnb.core.graph.errors import MissingInputError, SymnbError, label
from symnb.core.graph import Constant, Variable, ancestors, clone_replace, graph_inputs
from symnb.core.tensor.shared import SharedVariable, storage_owner
from symnb.core.gradient_types import NullType
from symnb.core.graph.source import warn_at_user_line
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["MissingInputError", "UnusedInputError", "cut_at_inputs", "update_items", "givens_pairs",
           "update_pairs", "apply_givens", "check_givens_keys", "to_storage_owners",
           "check_inputs_listed", "check_missing", "check_no_null", "check_unused"]


class UnusedInputError(SymnbError, ValueError):
    """An input the outputs do not depend on (``on_unused_input='raise'``)."""


def update_items(updates: Any) -> list[tuple[Any, Any]]:
    if updates is None:
        return []
    return list(updates.items()) if isinstance(updates, dict) else list(updates)


def givens_pairs(givens: Any, strict: bool = True) -> list[tuple[Variable, Variable]]:
    """``givens`` (a dict or pairs) as pairs ``(old, new)``, ``new`` a tensor variable of
    ``old``'s dtype and number of dimensions (any type when not ``strict``: Theano's
    ``rebuild_strict=False``, the ops above then make their nodes for the new type)."""
    if not givens:
        return []
    pairs = []
    for old, new in (givens.items() if isinstance(givens, dict) else givens):
        new = of_type_of(old, new)
        if strict and (old.dtype != new.dtype or old.ndim != new.ndim):
            raise TypeError(f"givens: {label(old)!r} ({old.type.short()}) cannot be replaced by "
                            f"{label(new)!r} of type {new.type.short()}")
        pairs.append((old, new))
    return pairs


def of_type_of(target: Variable, value: Any) -> Variable:
    """``value`` as a variable: a number or array (no variable) as a constant of
    ``target``'s type where it fits it losing nothing (Theano's ``filter_variable``:
    ``updates={n: 0}`` of an int64 ``n``, whose ``0`` alone would be int8), else as
    :func:`as_tensor_variable` makes it (the caller's type check then names both)."""
    if isinstance(value, Variable) or not hasattr(target.type, "filter"):
        return as_tensor_variable(value)
    try:
        return as_tensor_variable(target.type.filter(value))
    except TypeError:
        return as_tensor_variable(value)


def update_pairs(items: list[tuple[Any, Any]]) -> list[tuple[SharedVariable, Variable]]:
    pairs = []
    for target, expr in items:
        if not isinstance(target, SharedVariable):
            raise TypeError(f"updates must target shared variables; {label(target)!r} is not shared")
        expr = of_type_of(target, expr)
        if expr.dtype != target.dtype or expr.ndim != target.ndim or \
                not shapes_compatible(target.type.shape, expr.type.shape):
            raise TypeError(
                f"the update of shared variable {label(target)!r} ({target.type.short()}) has type "
                f"{expr.type.short()}, {expr.site.describe()}\n"
                f"An update must keep the shared variable's dtype and number of dimensions; "
                f"cast it with .astype('{target.dtype}').")
        if any(t is target for t, _ in pairs):
            raise ValueError(f"shared variable {label(target)!r} is updated twice")
        pairs.append((target, expr))
    return pairs


def shapes_compatible(a: tuple, b: tuple) -> bool:
    return all(x is None or y is None or x == y for x, y in zip(a, b))


def apply_givens(outputs: list[Variable], givens: list[tuple[Variable, Variable]],
                 inputs: list[Variable]) -> list[Variable]:
    """``outputs`` with the pairs of :func:`givens_pairs` applied below the ``inputs``
    (a variable replaced above an input that cuts the graph is not part of it)."""
    if not givens:
        return outputs
    return clone_replace(outputs, dict(givens), blockers=inputs)


def to_storage_owners(targets: list[SharedVariable], graph: list[Variable], inputs: list[Variable]
                      ) -> tuple[list[SharedVariable], list[Variable]]:
    """The update targets and the graph with every memory-aliased clone of a shared
    variable (``sn.clone(..., share_inputs=False)``) replaced by the variable whose
    storage it uses: the program then reads and updates each storage once (one argument,
    donated once), and an update of the clone is an update of the original. Two updates
    of one storage are refused (which one Theano kept depended on the order of its
    inputs). The graph is the one below ``inputs``."""
    owners = [storage_owner(t) for t in targets]
    for i, owner in enumerate(owners):
        twin = next((targets[j] for j in range(i) if owners[j] is owner), None)
        if twin is not None:
            raise ValueError(
                f"shared variables {label(twin)!r} and {label(targets[i])!r} are one storage "
                f"(one is a clone of the other made by sn.clone(..., share_inputs=False)), "
                f"and both are updated: keep one update (or one default_update)")
    aliases = {v: storage_owner(v) for v in graph_inputs(graph, blockers=inputs)
               if isinstance(v, SharedVariable) and storage_owner(v) is not v}
    return owners, (clone_replace(graph, aliases, blockers=inputs) if aliases else graph)


def cut_at_inputs(inputs: list[Variable], outputs: list[Variable]
                  ) -> tuple[list[Variable], list[Variable]]:
    """Theano's rule for an input that is computed in the graph (``f = function([h], out)``
    with ``h = 2 * x``): the graph is cut there, and the argument is ``h``'s value. Each
    such input becomes a root like it (``Variable.clone``: its type, name, creation site
    and test value if it has one); what is above it is not part of the function. The cut
    holds inside an ``ifelse``'s branches too, where ``ifelse`` copied the input's
    computation (``clone_replace`` replaces the copies: ``core/graph/copies.py``)."""
    roots = {id(v): _root_like(v) for v in inputs
             if isinstance(v, Variable) and not isinstance(v, Constant) and v.owner is not None}
    if not roots:
        return inputs, outputs
    replace = {v: roots[id(v)] for v in inputs if id(v) in roots}
    return [roots.get(id(v), v) for v in inputs], clone_replace(outputs, replace)


def _root_like(var: Variable) -> Variable:
    root = var.clone()
    vars(root.tag).pop("origin", None)  # the argument itself, not a copy of ``var``
    return root


def check_inputs_listed(inputs: list[Variable]) -> None:
    for i, var in enumerate(inputs):
        if not isinstance(var, Variable):
            raise TypeError(f"input #{i} of sn.function is {type(var).__name__}, not a variable")
        if isinstance(var, Constant):
            raise TypeError(f"input #{i} ({label(var)}) is a constant; constants cannot be inputs")
        if isinstance(var, SharedVariable):  # Theano's refusal, and its advice
            raise TypeError(f"Cannot use a shared variable ({label(var)}) as explicit input. "
                            f"Consider substituting a non-shared variable via the `givens` "
                            f"parameter")
    seen: dict[int, int] = {}
    for i, var in enumerate(inputs):
        if id(var) in seen:  # Theano's UnusedInputError: one of the two values would be ignored
            raise UnusedInputError(
                f"input {label(var)!r} is listed twice, at indices {seen[id(var)]} and {i}: the "
                f"value passed for one of them would be ignored. Please do not duplicate "
                f"variables in the inputs list.")
        seen[id(var)] = i


def check_givens_keys(givens: list[tuple[Variable, Variable]], inputs: list[Variable]) -> None:
    """A ``givens`` key that is an input is refused, as in Theano (replacing it would have
    no effect: the argument's value is what the graph reads)."""
    listed = {id(v) for v in inputs}
    for old, _ in givens:
        if id(old) in listed:
            raise RuntimeError(
                f"You are trying to replace variable {label(old)!r} through the `givens` "
                f"parameter, but this variable is an input to your function. Replacing inputs "
                f"is forbidden because it has no effect. Define a new input `y` and use "
                f"sn.function([y], f(x), givens={{x: g(y)}}), or sn.clone: "
                f"sn.function([x], sn.clone(f(x), replace={{x: g(x)}})).")


def check_no_null(roots: list[Variable]) -> None:
    """A null gradient (``grad(..., null_gradients='return')``'s) has no value to compute:
    refused first, whatever else the inputs lack or leave unused."""
    for var in roots:
        if isinstance(var.type, NullType):
            raise TypeError(f"the outputs depend on a null gradient, which has no value: "
                            f"{var.type.why_null}")


def check_no_generic(roots: list[Variable]) -> None:
    """A variable of Theano's ``generic`` type (any Python object: ``shared([])``,
    ``shared('text')``, ``sn.generic()``) has no array value for XLA to compute with:
    refused, naming it."""
    from symnb.core.tensor.generic_shared import Generic

    for var in roots:
        if not isinstance(var.type, Generic):
            continue
        if isinstance(var, SharedVariable):
            what = (f"a shared variable of Theano's generic type (its value is a "
                    f"{type(var.get_value(borrow=True)).__name__}, not an array)")
            fix = "Make it a tensor: sn.shared(np.asarray(value))."
        else:
            what = "a variable of Theano's generic type (any Python object)"
            fix = "Use a tensor variable (T.vector(), T.matrix(), ...) for array values."
        raise TypeError(f"the function reads {label(var)!r}, {what}: symnb compiles to XLA, "
                        f"which computes with arrays only. {fix}")


def check_missing(roots: list[Variable], inputs: list[Variable], outputs: list[Variable]) -> None:
    check_no_null(roots)
    listed = {id(v) for v in inputs}
    for var in roots:
        if id(var) in listed or isinstance(var, (Constant, SharedVariable)):
            continue
        raise MissingInputError(
            f"the outputs depend on {label(var)!r} ({var.type.short()}), "
            f"{var.site.describe('created at')}\nbut it is not among the function's inputs "
            f"({', '.join(label(v) for v in inputs) or 'none'}). Add it to the inputs, or "
            f"replace it with givens={{{label(var)}: value}}.")


def check_unused(inputs: list[Variable], roots: list[Variable], policy: str) -> None:
    if policy not in ("raise", "warn", "ignore"):
        raise ValueError(f"on_unused_input must be 'raise', 'warn' or 'ignore', got {policy!r}")
    used = {id(v) for v in roots}
    for var in inputs:
        if id(var) in used or policy == "ignore":
            continue
        message = (f"input {label(var)!r} is not used by the outputs; pass "
                   f"on_unused_input='ignore' to sn.function to allow it")
        if policy == "raise":
            raise UnusedInputError(message)
        warn_at_user_line(message)
