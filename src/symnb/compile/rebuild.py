"""Theano's ``rebuild_collect_shared`` (``theano.compile.pfunc``): a graph's outputs
copied with some variables replaced, and the shared variables it reads collected with
their updates (the explicit ones and the ``default_update`` of each).

One mapping ``old -> copy`` covers the outputs, the replacement values and the update
expressions, so a variable read by several of them is copied once, as in Theano.
"""

from __future__ import annotations

from typing import Any

from symnb.compile.io import Out
from symnb.core.graph.basic import Variable, graph_inputs, toposort
from symnb.core.graph.copies import replacements_by_origin
from symnb.core.graph.errors import label
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shared import SharedVariable, shared
from symnb.core.updates import excluded_from_default_updates

__all__ = ["rebuild_collect_shared"]


def rebuild_collect_shared(outputs: Any, inputs: Any = None, replace: Any = None,
                           updates: Any = None, rebuild_strict: bool = True,
                           copy_inputs_over: bool = True, no_default_updates: Any = False
                           ) -> tuple[list[Variable], Any, list[Any]]:
    """Copy the graph of ``outputs`` (a variable, an ``Out``, or a list or tuple of them)
    with each key of ``replace`` (a dict or pairs; a value that is not a variable becomes
    a shared variable) replaced by its value.

    Returns ``(input_variables, cloned_outputs, [clone_d, update_d, update_expr,
    shared_inputs])`` as Theano 1.0: ``inputs`` (or their clones with
    ``copy_inputs_over=False``, which clones every root: a shared variable's clone shares
    its storage), the copies in the structure of ``outputs``, the mapping from each
    variable to its copy, the update of each shared variable and the ``(shared, update)``
    pairs in order (``updates`` first, then the default updates met, unless
    ``no_default_updates`` is True or lists the variable), and the shared variables read.
    ``rebuild_strict=False`` (a replacement of another type) is refused, as in ``pfunc``.
    """
    if not rebuild_strict:
        raise NotImplementedError("rebuild_collect_shared(rebuild_strict=False): symnb replaces "
                                  "a variable only by one of the same type")
    rebuild = _Rebuild(copy_inputs_over, excluded_from_default_updates(no_default_updates))
    for old, new in (replace.items() if isinstance(replace, dict) else (replace or [])):
        if not isinstance(old, Variable):
            raise TypeError(f"given keys must be Variable, got {type(old).__name__}")
        new = new if isinstance(new, Variable) else shared(new)
        if id(old) in rebuild.clone_ids:
            raise AssertionError(
                f"When using 'givens' or 'replace' with several (old_v, new_v) replacement "
                f"pairs, you can not have a new_v variable depend on an old_v one. Here, the "
                f"old_v {label(old)} is used to compute other new_v's, but it is scheduled to "
                f"be replaced by {label(new)}.")
        if new.type != old.type:
            raise TypeError(f"{label(old)!r} ({old.type.short()}) cannot be replaced by "
                            f"{label(new)!r} ({new.type.short()}): not the same type")
        rebuild.replaced.append((old, rebuild.set(old, rebuild.copy(new))))
    input_variables = [rebuild.set(i, rebuild.root(i)) if id(i) not in rebuild.clone_ids
                       else rebuild.clone_d[i] for i in (inputs or [])]
    for variable in input_variables:
        if isinstance(variable, SharedVariable):
            raise TypeError(f"Cannot use a shared variable ({label(variable)}) as explicit input. "
                            f"Consider substituting a non-shared variable via the `givens` parameter")
    for target, value in (updates.items() if isinstance(updates, dict) else (updates or [])):
        rebuild.add_update(target, value)
    cloned_outputs = _map_outputs(outputs, rebuild.copy)
    # Update expressions are copied last; copying one may meet new shared variables, whose
    # default updates join the list being walked.
    position = 0
    while position < len(rebuild.update_expr):
        target, value = rebuild.update_expr[position]
        rebuild.update_d[target] = rebuild.copy(value)
        if target not in rebuild.shared_inputs:
            rebuild.shared_inputs.append(target)
        position += 1
    return input_variables, cloned_outputs, [rebuild.clone_d, rebuild.update_d,
                                             rebuild.update_expr, rebuild.shared_inputs]


def _map_outputs(outputs: Any, copy: Any) -> Any:
    def one(output: Any) -> Any:
        if isinstance(output, Out):
            return Out(copy(output.variable), borrow=output.borrow)
        if isinstance(output, Variable):
            return copy(output)
        raise TypeError(f"Outputs must be symnb Variable or Out instances. Received {output!r} "
                        f"of type {type(output).__name__}")

    if outputs is None:
        return []
    if isinstance(outputs, (list, tuple)):
        return [one(output) for output in outputs]
    return one(outputs)


class _Rebuild:
    """The mapping and the collections of one ``rebuild_collect_shared``."""

    def __init__(self, copy_inputs_over: bool, excluded: Any) -> None:
        self.copy_inputs_over, self.excluded = copy_inputs_over, excluded
        #: Theano's ``clone_d``: each variable met (keyed by the variable) to its copy.
        self.clone_d: dict[Variable, Variable] = {}
        self.clone_ids: dict[int, Variable] = {}
        self.update_d: dict[SharedVariable, Variable] = {}
        self.update_expr: list[tuple[SharedVariable, Variable]] = []
        self.shared_inputs: list[SharedVariable] = []
        #: The ``replace`` pairs ``(old, copy of new)``: an ifelse's branches hold copies of old.
        self.replaced: list[tuple[Variable, Variable]] = []

    def set(self, old: Variable, new: Variable) -> Variable:
        self.clone_d[old] = self.clone_ids[id(old)] = new
        return new

    def root(self, var: Variable) -> Variable:
        """A root's copy: itself, or a clone with ``copy_inputs_over=False``; a shared
        variable is collected with its default update."""
        if isinstance(var, SharedVariable):
            self._collect_shared(var)
        return var if self.copy_inputs_over else var.clone()

    def copy(self, var: Variable) -> Variable:
        """The copy of ``var``'s graph (every node copied, as Theano's clone does)."""
        if id(var) in self.clone_ids:
            return self.clone_ids[id(var)]
        known = list(self.clone_d)
        for root in graph_inputs([var], known):
            if id(root) not in self.clone_ids:
                self.set(root, self.root(root))
        inside = replacements_by_origin(self.replaced)  # copies in an ifelse's branches
        for node in toposort([var], known):
            new_inputs = [self.clone_ids[id(i)] for i in node.inputs]
            replacing = node.op.make_node_replacing_copies(new_inputs, inside) if inside else None
            new_node = replacing if replacing is not None else node.op.make_node(*new_inputs)
            new_node.site = node.site
            for old, new in zip(node.outputs, new_node.outputs):
                new.name = old.name
                self.set(old, new)
        return self.clone_ids[id(var)]

    def add_update(self, target: Any, value: Any) -> None:
        if not isinstance(target, SharedVariable):
            raise TypeError(f"update target must be a SharedVariable, got {target!r}")
        if target in self.update_d:
            raise ValueError(f"this shared variable already has an update expression: "
                             f"{label(target)!r} <- {label(self.update_d[target])!r}")
        value = as_tensor_variable(value)
        # A more specific static shape fits (a shared variable's shape is unknown).
        if value.dtype != target.dtype or value.ndim != target.ndim:
            raise TypeError(
                f"An update must have the same type as the original shared variable "
                f"(shared_var={label(target)}, shared_var.type={target.type}, "
                f"update_val={label(value)}, update_val.type={value.type}).")
        self.update_d[target] = value
        self.update_expr.append((target, value))

    def _collect_shared(self, var: SharedVariable) -> None:
        if var not in self.shared_inputs:
            self.shared_inputs.append(var)
        if var.default_update is None or var in self.update_d or self.excluded is True:
            return
        if self.excluded is not False and var in self.excluded:
            return
        self.add_update(var, var.default_update)
