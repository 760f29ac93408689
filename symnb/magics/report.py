"""What ``%%symgraph`` shows, as plain functions over a namespace (no IPython here).

- :func:`assigned_variables`: the symbolic variables a cell (re)assigned;
- :func:`function_inputs`: the inputs a shown graph is compiled over;
- :func:`symgraph_html`: the report: each variable's table and debugprint with test
  values, then optionally the optimized graph and a profile of one call.
"""

from __future__ import annotations

import html
from typing import Any, Mapping, Sequence

from symnb.core.errors import label
from symnb.core.graph import Constant, Variable, graph_inputs
from symnb.core.shared import SharedVariable
from symnb.magics.html import pre, table, variable_rows
from symnb.printing import debugprint

__all__ = ["SymgraphUsageError", "snapshot", "assigned_variables", "named_variables",
           "function_inputs", "compile_shown", "symgraph_html"]


class SymgraphUsageError(ValueError):
    """A ``%%symgraph`` option that cannot be honoured (reported as IPython's UsageError)."""


def snapshot(namespace: Mapping[str, Any]) -> dict[str, int]:
    """Object identities by name: compared after the cell to see what it (re)assigned."""
    return {name: id(value) for name, value in namespace.items()}


def assigned_variables(namespace: Mapping[str, Any], before: Mapping[str, int]
                       ) -> list[tuple[str, Variable]]:
    """The (name, variable) pairs of symbolic variables bound to a name that is new or now
    holds another object, in the namespace's order (the order the cell assigned them)."""
    return [(name, value) for name, value in namespace.items()
            if isinstance(value, Variable) and not name.startswith("_")
            and before.get(name) != id(value)]


def named_variables(namespace: Mapping[str, Any], names: Sequence[str]
                    ) -> list[tuple[str, Variable]]:
    """The variables ``--show`` names; an error naming any that is missing or not symbolic."""
    found = []
    for name in names:
        if name not in namespace:
            raise SymgraphUsageError(f"%%symgraph --show: no variable named {name!r} after the cell ran")
        value = namespace[name]
        if not isinstance(value, Variable):
            raise SymgraphUsageError(f"%%symgraph --show: {name!r} is of type {type(value).__name__}, "
                                     f"not a symbolic variable")
        found.append((name, value))
    return found


def function_inputs(outputs: Sequence[Variable]) -> list[Variable]:
    """The root variables ``outputs`` depend on that need a value at call time: roots
    without owner that are neither constants (fixed data) nor shared variables (their
    own storage). These are exactly the inputs ``sn.function`` requires."""
    return [v for v in graph_inputs(outputs)
            if v.owner is None and not isinstance(v, (Constant, SharedVariable))]


def compile_shown(shown: Sequence[tuple[str, Variable]], profile: bool) -> Any:
    """One function computing the shown variables that have an owner (``None`` if none
    has), over their :func:`function_inputs`."""
    from symnb import function  # imports JAX: only when --optimized/--profile asks

    outputs = [var for _, var in shown if var.owner is not None]
    if not outputs:
        return None
    name = ", ".join(name for name, var in shown if var.owner is not None)
    return function(function_inputs(outputs), outputs, profile=profile, name=name)


def _profile_arguments(fn: Any) -> list[Any]:
    missing = [label(v) for v in fn.inputs if v._test_value is None]
    if missing:
        raise SymgraphUsageError("%%symgraph --profile calls the function on the inputs' test values; "
                                 f"no test value for: {', '.join(missing)}")
    return [v._test_value for v in fn.inputs]


def symgraph_html(shown: Sequence[tuple[str, Variable]], optimized: bool = False,
                  profile: bool = False) -> str:
    """The ``%%symgraph`` report for ``shown`` (name, variable) pairs."""
    if not shown:
        return "<p>%%symgraph: the cell assigned no symbolic variable.</p>"
    parts = []
    done: dict = {}  # shared across the trees: a subgraph already shown is referenced by id
    for name, var in shown:
        tree = debugprint(var, file="str", print_test_value=True, done=done)
        parts.append(f"<h4>{html.escape(name)}</h4>{table(variable_rows(var))}{pre(tree)}")
    if optimized or profile:
        fn = compile_shown(shown, profile)
        if fn is None:
            parts.append("<p>Nothing to compile: the variables shown are all inputs.</p>")
        else:
            parts.append(_compiled_section(fn, optimized, profile))
    return "<div class=\"symnb-symgraph\">" + "".join(parts) + "</div>"


def _compiled_section(fn: Any, optimized: bool, profile: bool) -> str:
    inputs = ", ".join(label(v) for v in fn.inputs) or "no inputs"
    parts = []
    if optimized:
        title = (f"Optimized graph (optimizer={fn.maker.optimizer!r}, inputs: {inputs}, "
                 f"{len(fn.maker.fgraph.history)} rewrite(s))")
        text = debugprint(fn, file="str", print_test_value=True)
        parts.append(f"<h4>{html.escape(title)}</h4>{pre(text)}")
    if profile:
        fn(*_profile_arguments(fn))
        title = f"Profile of one call on the test values of {inputs}"
        parts.append(f"<h4>{html.escape(title)}</h4>{pre(fn.profile.summary(file='str'))}")
    return "".join(parts)
