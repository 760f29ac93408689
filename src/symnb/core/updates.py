"""Default updates: the update a shared variable carries with it (Theano's
``SharedVariable.default_update``).

A shared variable whose ``default_update`` is set is updated by every compiled
function whose graph reads it (``sn.function`` adds the pair unless told not to with
``no_default_updates``), and, when it is read inside a scan step, by the scan (as an
update the scan returns). Random streams use this: a generator's state advances at
each call without the user listing the update.

This module is the one place that collects them; the compiled function and scan both
call :func:`with_default_updates`.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Variable, graph_inputs

__all__ = ["with_default_updates", "excluded_from_default_updates"]


def excluded_from_default_updates(no_default_updates: Any) -> Any:
    """Normalize ``no_default_updates``: True (no default update at all), False (all),
    or a collection of shared variables whose default updates are left out."""
    if no_default_updates is True or no_default_updates is False or no_default_updates is None:
        return bool(no_default_updates)
    # A collection, never a lone variable or a string (whose letters Python would iterate).
    if not isinstance(no_default_updates, (list, tuple, set, frozenset)):
        raise TypeError(f"no_default_updates must be a bool or a list of shared variables, "
                        f"got {type(no_default_updates).__name__}")
    items = list(no_default_updates)
    from symnb.core.tensor.shared import SharedVariable

    for item in items:
        if not isinstance(item, SharedVariable):
            shown = label(item) if isinstance(item, Variable) else repr(item)
            raise TypeError(f"no_default_updates lists {shown}, which is not a shared variable")
    return items


def with_default_updates(outputs: Sequence[Variable], updates: Sequence[tuple[Any, Any]],
                         no_default_updates: Any = False,
                         givens: Sequence[tuple[Variable, Variable]] = (),
                         blockers: Iterable[Variable] = (),
                         walked: Sequence[Variable] | None = None) -> list[tuple[Any, Any]]:
    """``updates`` (pairs ``shared -> expression``) followed by the default updates of the
    shared variables that ``outputs`` and the update expressions read (or ``walked``,
    where the caller has them already cut and replaced as it compiles them: a copy inside
    an ``ifelse`` branch reads what is above a cut only until the cut reaches it).

    A default update's expression may read other shared variables with default updates:
    they are added too, until none is missing (as Theano does). Variables already
    updated and those excluded by ``no_default_updates`` keep no default update.

    The walk is the graph the caller compiles: it does not go past ``blockers`` (a
    function's inputs, which cut the graph; a scan's non-sequences, computed once
    before the loop), and where it reaches the key of a pair of ``givens`` (old, new)
    it reads ``new`` instead. So a draw only reachable through an input, or through a
    replaced variable, is not part of the graph, and its stream does not advance
    (Theano's ``pfunc``). A shared variable so replaced keeps its default update only
    where ``new`` reads it (``givens={a: a + 10}``: Theano's rebuild meets ``a`` while
    copying ``a + 10``), and that update is compiled with the givens applied too.
    """
    excluded = excluded_from_default_updates(no_default_updates)
    if excluded is True:
        return list(updates)
    from symnb.core.tensor.shared import SharedVariable

    replacements = {id(old): new for old, new in givens}
    # A givens key is read as its replacement the first time it is reached; reached
    # again (from the replacement), it is read as itself.
    done = {id(s) for s, _ in updates}
    if excluded:
        done |= {id(v) for v in excluded}
    pairs = list(updates)
    pending = list(walked) if walked is not None else \
        list(outputs) + [expr for _, expr in updates if isinstance(expr, Variable)]
    stops = list(blockers) + [old for old, _ in givens]
    while pending:
        added = []
        for var in graph_inputs(pending, stops):
            if id(var) in replacements:  # read once, the first time it is reached
                added.append(replacements.pop(id(var)))
            elif isinstance(var, SharedVariable) and var.default_update is not None \
                    and id(var) not in done:
                done.add(id(var))
                pairs.append((var, var.default_update))
                added.append(var.default_update)
        pending = [v for v in added if isinstance(v, Variable)]
    return pairs
