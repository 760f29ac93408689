"""Which function inputs a value-dependent length comes from.

``T.zeros((n, 3))``, ``T.arange(n)`` or ``x.reshape((k, -1))`` with ``n``/``k``
computed from input *values* need those values while XLA traces. The compiled
function then passes the inputs they come from as static arguments, compiling once
per distinct value. Lengths computed from input *shapes* are static already.

A length computed from a shared variable's value (Lasagne's transposed convolution with
a shared ``output_size``, ``T.zeros((n,))`` with ``n`` shared) is specialized on in the
same way: the shared variable is passed as a static argument, so each call's program is
the one for the variable's *current* value (``set_value`` between calls selects, or
compiles, another; never a stale one). Its size is known only at call time: a value of
more than ``MAX_SPECIALIZED_ELEMENTS`` elements is refused then (``check_specializable``).

A length inside a loop body computed from what the loop passes it (``x[:n]`` with ``n``
a sequence's element or a state) is known while tracing when those values are: the loop
declares the outer inputs they come from (``static_inputs`` of ``Scan``), the function
specializes on the arguments those come from, and the loop is then run step by step
while tracing (``symnb.lower_xla.rules.scan``). The walks follow values only
(``value_ancestors``: not into a shape, and through a loop only to what its body reads
for that output), so a length computed from labels does not specialize on activations.

An ``ifelse`` declares the operands its branches' lengths are computed from in the same
way, and its branches close over them (``symnb.lower_xla.rules.ifelse``).

A value no call can provide (computed from an input of no fixed size) is refused when
the function is built (``check_static_values``), naming it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.errors import label, node_error
from symnb.core.graph.basic import (Apply, Constant, Place, Variable, node_places, value_ancestors,
                                    walk_nodes)
from symnb.core.graph.static import MAX_SPECIALIZED_ELEMENTS, known_while_tracing
from symnb.lower_xla.registry import DynamicShapeError, passed_as_is, static_inputs

__all__ = ["value_sources", "check_static_values", "check_specializable", "never_static_reason",
           "HINTS"]


def value_sources(variables: Sequence[Variable], inputs: Sequence[Variable],
                  n_arguments: int | None = None) -> set[int] | None:
    """Positions in ``inputs`` whose values ``variables`` depend on, through anything
    but a shape; None when one of them could not be a static argument. Inputs from
    ``n_arguments`` on are shared variables: their size is checked at call time
    (:func:`check_specializable`), since ``set_value`` may change it."""
    position = {id(v): i for i, v in enumerate(inputs)}
    arguments = len(inputs) if n_arguments is None else n_arguments
    found: set[int] = set()
    for var in value_ancestors(variables):
        if var.owner is None and id(var) in position:
            i = position[id(var)]
            size = _static_size(var)
            if i < arguments and (size is None or size > MAX_SPECIALIZED_ELEMENTS):
                return None
            found.add(i)
    return found


def check_specializable(node: Apply, variables: Sequence[Variable], values: Sequence[Any]) -> None:
    """Refuse to specialize on a shared variable whose current value is too large to be
    a static argument (``variables``: the shared variables a length of ``node`` needs
    while tracing, ``values`` their current values): a program per value of a large
    array would seldom be reused, and hashing it would slow every call."""
    for var, value in zip(variables, values):
        size = int(np.size(value))
        if size > MAX_SPECIALIZED_ELEMENTS:
            raise node_error(
                DynamicShapeError, node, f"DynamicShapeError in {node.op.display_name()}: a length XLA needs to "
                      f"compile the program depends on the value of shared variable "
                      f"{label(var)!r}, which has {size} elements; symnb compiles a program per "
                      f"distinct value only for values of at most {MAX_SPECIALIZED_ELEMENTS} "
                      f"elements. Compute the length from shapes (x.shape[i]) and constants.")


def _static_size(var: Variable) -> int | None:
    if None in var.type.shape:
        return None
    size = 1
    for length in var.type.shape:
        size *= length
    return size


# -- values that can never be static: refused when the function is built ---------------

def check_static_values(nodes: Sequence[Apply], inputs: Sequence[Variable], n_arguments: int) -> None:
    """Refuse, before compiling, a graph whose lowering needs while tracing a value that
    no call could provide: one computed from an input too large to specialize on, or,
    inside a loop body or a branch, from the values passed to it. ``inputs[:n_arguments]`` are the function's arguments.

    Values computed from argument values or shared variables are fine: the function
    specializes on them. The rules say which inputs they need while tracing (``registry.static_inputs``).
    """
    default = static_inputs.dispatch(object)
    # Most graphs need no value while tracing: found by the walk that makes no places.
    if all(static_inputs.dispatch(type(node.op)) is default for node in walk_nodes(nodes)):
        return
    places = list(node_places(nodes))
    needing = [place for place in places if static_inputs.dispatch(type(place.node.op)) is not default]
    known = known_while_tracing(place.node for place in places)
    # The innermost first: a length in a loop body is reported at its own line.
    for place in sorted(needing, key=lambda place: -len(place.enclosing)):
        node = place.node
        for position, role in static_inputs(node.op, node).items():
            var = node.inputs[position]
            if isinstance(var, Constant) or id(var) in known:
                continue
            reason = never_static_reason(var, place, inputs, n_arguments, HINTS[role], known)
            if reason is not None:
                raise node_error(
                    DynamicShapeError, node, f"DynamicShapeError in {node.op.display_name()}: {label(var)} "
                          f"({role}) {reason}. XLA needs it to compile the program (its "
                          f"shapes are static).")


def _known_outside(var: Variable, enclosing: tuple[Place, ...], known: set[int]) -> bool:
    """Whether ``var`` (a root of an inner graph held by ``enclosing[-1]``) is known
    while tracing: a constant, or an inner input that receives, unchanged, an outer
    value known then -- at any depth. (``W[1].shape`` for a draw in a scan step, where
    ``W`` is another scan's output: the shape of a scan's output follows from its
    inputs' shapes, so it is static.)"""
    if isinstance(var, Constant) or id(var) in known:
        return True
    if not enclosing or var.owner is not None:
        return False
    holder = enclosing[-1].node
    for graph in holder.op.inner_graphs:
        if var in graph.inputs:
            outer = passed_as_is(holder.op, holder).get(graph.inputs.index(var))
            if outer is None:
                return False
            return all(_known_outside(root, enclosing[:-1], known) for root in
                       value_ancestors([holder.inputs[outer]]) if root.owner is None)
    return False


def _declared_feed(var: Variable, holder: Apply) -> Variable | None:
    """The outer input feeding ``var`` (an input of ``holder``'s inner graph) when
    ``holder`` declares it needs it while tracing (a loop whose body's lengths are
    computed from what it passes), else None."""
    feeds = dict(zip(map(id, holder.op.inner_inputs), holder.op.inner_feeds(holder)))
    outer = feeds.get(id(var))
    if outer is None or not any(holder.inputs[p] is outer for p in static_inputs(holder.op, holder)):
        return None
    return outer


#: What to do instead, by the role of a value that can never be static.
HINTS = {
    "the number of steps": "use sn.scan_until with a stopping condition instead",
    "a slice bound": "use a mask instead, e.g. T.switch(T.ge(T.arange(x.shape[0]), s), 0, x)",
    "a shape": "compute it from input shapes (x.shape[i]) and constants, or pass it as an input",
    "a size": "compute it from input shapes (x.shape[i]) and constants, or pass it as an input",
    "a range bound": "compute it from input shapes (x.shape[i]) and constants, or pass it as an input",
    "a piece length": "compute it from input shapes (x.shape[i]) and constants, or pass it as an input",
    "a loop body's length": "compute the lengths in the step from shapes and constants",
    "a branch's length": "compute the lengths in the branch from shapes and constants",
    "a mask": "read masked values with T.switch(mask, x, 0), or sums like (x * mask).sum()",
}


def never_static_reason(var: Variable, place: Place, inputs: Sequence[Variable], n_arguments: int,
                        hint: str, known: set[int]) -> str | None:
    """Why ``var`` (an input of ``place``'s node) can never be known while tracing, or
    None when a call may provide it. ``inputs[:n_arguments]`` are the function's
    arguments, the other ``inputs`` its shared variables; ``known``: the ids of the
    values known while tracing (``known_while_tracing``)."""
    roots = [v for v in value_ancestors([var]) if v.owner is None]
    if place.enclosing:
        holder_place = place.enclosing[-1]
        holder = holder_place.node
        for root in roots:
            if _known_outside(root, place.enclosing, known):
                continue
            outer = _declared_feed(root, holder)
            if outer is None:
                # Specializing cannot reach through this graph's inputs to the arguments.
                return (f"is computed from the values {holder.op.display_name()} "
                        f"({holder.site.describe()}) passes to its inner graph, which XLA sees "
                        f"only at run time; {hint}")
            # The loop runs its steps one by one with the values it passes, when known.
            reason = never_static_reason(outer, holder_place, inputs, n_arguments, hint, known)
            if reason is not None:
                return (f"is computed from {label(outer)!r}, which {holder.op.display_name()} "
                        f"({holder.site.describe()}) passes to its inner graph, and which {reason}")
        return None
    position = {id(v): i for i, v in enumerate(inputs)}
    for root in roots:
        i = position.get(id(root))
        if i is None or i >= n_arguments:  # a shared variable: specialized on its value
            continue
        size = _static_size(root)
        if size is None or size > MAX_SPECIALIZED_ELEMENTS:
            return (f"depends on the values of input {label(root)!r} ({root.type.short()}); "
                    f"the function compiles a program per distinct value only for inputs of "
                    f"a fixed size of at most {MAX_SPECIALIZED_ELEMENTS} elements (declare its shape)")
    return None
