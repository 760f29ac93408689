"""``sn.clone``: Theano's ``theano.clone``, a copy of a graph with some variables replaced.

Every node between the outputs and their roots is copied (new ``Apply`` nodes, as in
Theano, even where nothing upstream was replaced). ``share_inputs=True`` keeps the roots
(inputs, shared variables, constants); ``share_inputs=False`` clones them too, with
``Variable.clone``: a new input of the same type, name and test value, a new constant of
the same data, and for a shared variable a *memory-aliased* clone (a distinct variable
reading and writing the original's storage: Lasagne's batch normalization gives such a
clone a ``default_update`` to update the original's running averages).

Two places where Theano's ``clone`` did something its documentation did not say, and
symnb does what it says: with ``share_inputs=False`` and ``replace``, Theano lost the
replacements (its two-pass rebuild cloned the temporary placeholders, so the result read
a fresh, unbound input); here the replacements apply. A root read both by the outputs
and by a replacement value is cloned once, not twice.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.basic import Variable, graph_inputs, toposort
from symnb.core.graph.copies import replacements_by_origin
from symnb.core.graph.errors import label
from symnb.core.graph.test_value_memory import copy_dropped
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["clone"]


def clone(output: Any, replace: Any = None, strict: bool = True, share_inputs: bool = True) -> Any:
    """A copy of ``output`` (a variable, or a list or tuple of them: a list comes back)
    with each key of ``replace`` (a dict, or pairs ``(old, new)``) replaced by its value.

    ``strict=True`` requires a replacement of the replaced variable's dtype and number of
    dimensions (``TypeError`` otherwise); ``strict=False`` takes whatever the ops accept.
    ``share_inputs=False`` also clones the roots: see the module's docstring.
    """
    single = isinstance(output, Variable)
    outputs = [output] if single else list(output)
    pairs = _replace_pairs(replace, strict)
    copier = _GraphCopier(share_inputs)
    # A replacement is copied apart from the outputs: a key it reads stays itself there
    # (``replace={x: 2 * x}`` doubles x once), as in Theano's two passes.
    new_values = copier.copy([new for _, new in pairs], [])
    result = copier.copy(outputs, [(old, new) for (old, _), new in zip(pairs, new_values)])
    return result[0] if single else result


def _replace_pairs(replace: Any, strict: bool) -> list[tuple[Variable, Variable]]:
    if replace is None:
        return []
    if not isinstance(replace, (dict, list, tuple)):
        raise ValueError(f"clone: replace must be a dict, a list or tuple of pairs, or None; "
                         f"got {type(replace).__name__}")
    pairs = []
    for old, new in (replace.items() if isinstance(replace, dict) else replace):
        if not isinstance(old, Variable):
            raise TypeError(f"clone: the keys of replace must be variables, got {type(old).__name__}")
        new = as_tensor_variable(new)
        if strict and (old.dtype != new.dtype or old.ndim != new.ndim):
            raise TypeError(f"clone: {label(old)!r} ({old.type.short()}) cannot be replaced by "
                            f"{label(new)!r} ({new.type.short()}) with strict=True; pass "
                            f"strict=False to let the ops take the new type")
        pairs.append((old, new))
    return pairs


class _GraphCopier:
    """Copies graphs, cloning each root once (``share_inputs=False``) or keeping it."""

    def __init__(self, share_inputs: bool) -> None:
        self.share_inputs = share_inputs
        self.roots: dict[int, Variable] = {}

    def root(self, var: Variable) -> Variable:
        if self.share_inputs:
            return var
        if id(var) not in self.roots:
            self.roots[id(var)] = var.clone()
        return self.roots[id(var)]

    def copy(self, outputs: Sequence[Variable], replaced: Sequence[tuple[Variable, Variable]]
             ) -> list[Variable]:
        """Copies of ``outputs`` with the variables ``old`` of ``replaced`` swapped for ``new``."""
        mapping = {id(old): new for old, new in replaced}
        inside = replacements_by_origin(replaced)  # copies in an ifelse's branches
        changed = set(mapping)  # ids of originals whose copies may hold other values
        blockers = [old for old, _ in replaced]
        for var in graph_inputs(outputs, blockers):
            mapping.setdefault(id(var), self.root(var))
        for node in toposort(outputs, blockers):
            new_inputs = [mapping[id(i)] for i in node.inputs]
            replacing = node.op.make_node_replacing_copies(new_inputs, inside) if inside else None
            new_node = replacing if replacing is not None else node.op.make_node(*new_inputs)
            new_node.site = node.site
            same_values = replacing is None and not any(id(i) in changed for i in node.inputs)
            for old, new in zip(node.outputs, new_node.outputs):
                new.name = old.name
                if same_values and new._test_value is None:
                    # The same inputs' values: no recompute (one dropped to save memory is
                    # recomputed, when read, from the same values too).
                    new._test_value = old._test_value
                    if new._test_value is None:
                        copy_dropped(old, new)
                mapping[id(old)] = new
                if not same_values:
                    changed.add(id(old))
        return [mapping[id(o)] for o in outputs]
