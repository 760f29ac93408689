"""Shared-variable updates made by a scan step (Theano: the step returns a dict).

Each shared variable a step updates becomes a recurrent state of the loop: its
initial value is the shared variable, the step reads its value of the previous step
(the shared variable in the step's graph is swapped for the state's inner input) and
its update expression computes the next one. The loop keeps only the last step of
these outputs; ``scan`` returns them as ``updates`` (``shared -> value after the last
step``), for ``sn.function(..., updates=updates)``.

A shared variable created while the step was traced (or the step of an enclosing
scan) that carries a default update (the key of a random stream drawn from in the
step) takes the loop's final state as its default update
(:func:`carry_default_updates`): an enclosing scan's step, or ``sn.function``, then
advances it by every step of the loop whether or not the user passes the updates.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Variable, clone_replace
from symnb.core.graph.inner_graph import known_test_value, placeholder_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.updates import with_default_updates

__all__ = ["shared_states", "carry_default_updates"]


def shared_states(inner_outputs: Sequence[Variable], step_updates: Sequence[tuple[Any, Any]],
                  n_outs: int, name: str, non_seqs: Sequence[Variable]
                  ) -> tuple[list[Variable], list[Variable], list[Variable]]:
    """``(updated, placeholders, new_inner_outputs)``.

    ``inner_outputs`` are the step's outputs (the first ``n_outs``) then its stopping
    condition, if any; ``step_updates`` the pairs it returned. The default updates of
    the shared variables the step reads are added, but not of those read only through
    a non-sequence (``non_seqs``): as in Theano, a random draw passed as a non-sequence
    is drawn once before the loop, the same at every step (a dropout mask), where one
    the step reads from outside without passing it is drawn anew at each step.
    ``new_inner_outputs`` are the outputs, then one update expression per updated
    variable, then the condition, all reading the placeholders instead of the updated
    shared variables.
    """
    pairs = with_default_updates(list(inner_outputs), _checked(step_updates, name),
                                 blockers=non_seqs)
    if not pairs:
        return [], [], list(inner_outputs)
    updated = [var for var, _ in pairs]
    placeholders = [placeholder_like(var, value=known_test_value(var), name=var.name)
                    for var in updated]
    exprs = [as_tensor_variable(expr) for _, expr in pairs]
    for var, expr in zip(updated, exprs):
        _check_update(var, expr, name)
    outs, condition = list(inner_outputs[:n_outs]), list(inner_outputs[n_outs:])
    replaced = clone_replace(outs + exprs + condition, dict(zip(updated, placeholders)))
    return updated, placeholders, replaced


def carry_default_updates(updated: Sequence[Variable], finals: Sequence[Variable],
                          mark: int) -> None:
    """Make the default update of each updated shared variable created while the step
    was traced (``serial > mark``: a random stream's key, made by a draw in the step,
    or in the step of an enclosing scan being traced) its value after the loop's last
    step (``finals``, in the order of ``updated``).

    Why: such a default update was built by the step (the key after one draw, reading
    the step's arguments), so outside the loop it reads variables that exist only
    inside (an enclosing scan, or ``sn.function`` without the scan's updates, raised
    MissingInputError), and where it reads none it advances the key by one draw
    where the loop drew once per step (the next call, or the next step of an
    enclosing scan, repeated the loop's draws). The loop's final state is the key
    after the loop, in the scope that holds the loop. A shared variable made before
    the step keeps the default update its owner gave it (Theano's behaviour).
    """
    for var, final in zip(updated, finals):
        if var.default_update is not None and var.serial > mark:
            var.default_update = final


def _checked(step_updates: Sequence[tuple[Any, Any]], name: str) -> list[tuple[Any, Any]]:
    from symnb.core.tensor.shared import SharedVariable

    seen: set[int] = set()
    for var, _ in step_updates:
        if not isinstance(var, SharedVariable):
            raise build_error(f"scan {name!r}: the step function returned an update of "
                              f"{label(var)!r}, which is not a shared variable", TypeError)
        if id(var) in seen:
            raise build_error(f"scan {name!r}: shared variable {label(var)!r} is updated twice",
                              ValueError)
        seen.add(id(var))
    return list(step_updates)


def _check_update(var: Variable, expr: Variable, name: str) -> None:
    state = var.type
    if expr.dtype != state.dtype or expr.ndim != state.ndim or any(
            a is not None and b is not None and a != b
            for a, b in zip(expr.type.shape, state.shape)):
        raise build_error(
            f"scan {name!r}: the update of shared variable {label(var)!r} ({state.short()}) has "
            f"type {expr.type.short()}; an update keeps the shared variable's dtype and shape "
            f"(cast it with .astype('{state.dtype}'))", TypeError)
