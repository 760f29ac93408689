"""Reverse-mode differentiation over symnb graphs: ``sn.grad`` and friends.

The gradient graph is built from each op's ``L_op`` rule with ordinary tensor ops, so
it carries test values like any graph, and its nodes record the user's ``sn.grad``
line as their creation site (the first frame outside symnb).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from symnb.core.graph.errors import SymnbError, describe_given, label, operand_label
from symnb.core.graph.basic import Apply, Variable, toposort
from symnb.core.gradient_stable import stabilized_seeds
from symnb.core.gradient_types import disconnected_type, is_disconnected, is_null
from symnb.core.scopes import gradient_of, gradient_scope
from symnb.core.graph.source import warn_at_user_line
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import ones_like, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.graph.type import is_float
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["grad", "DisconnectedInputError", "NullGradientError", "NullTypeGradError",
           "disconnected_grad",
           "gradient_rule", "register_gradient", "register_seed_rewrite"]


class DisconnectedInputError(SymnbError, ValueError):
    """The cost does not depend (differentiably) on a variable in ``wrt``."""


class NullGradientError(SymnbError, TypeError):
    """A gradient was asked for where none exists (an integer or boolean variable)."""


class NullTypeGradError(NullGradientError):
    """A gradient asked for is null: an op said its gradient is undefined or not
    implemented (``grad_undefined``, ``grad_not_implemented``; Theano's name)."""


def disconnected_grad(x: Any) -> Variable:
    """``x`` for values, a constant for differentiation: no gradient flows back through it
    and ``x`` counts as not connected there (Theano's ``DisconnectedGrad`` op, whose
    ``connection_pattern`` says so; ``T.stop_gradient`` is the elementwise equivalent)."""
    from symnb.core.tensor.gradient_views import disconnected_grad_  # (a view op of the tensor layer)

    return disconnected_grad_(x)


@api_boundary  # errors show the user's line: core/graph/traceback_filter.py
def grad(cost: Variable | None, wrt: Variable | Sequence[Variable],
         consider_constant: Iterable[Variable] | None = None,
         disconnected_inputs: str = "raise", add_names: bool = True,
         known_grads: dict | None = None, return_disconnected: str = "zero",
         null_gradients: str = "raise") -> Any:
    """Gradients of the scalar ``cost`` with respect to ``wrt`` (one variable or a list).

    - ``consider_constant``: variables through which no gradient flows.
    - ``known_grads``: ``{variable: its gradient}``, added to (or, with ``cost=None``,
      replacing) the backpropagation from ``cost``: backprop from a separating set.
    - ``disconnected_inputs``: ``'raise'`` (default), ``'warn'`` or ``'ignore'`` when the
      cost does not depend on a ``wrt`` variable; ``return_disconnected``: ``'zero'``
      (zeros like the variable), ``'none'`` or ``'Disconnected'`` (a ``DisconnectedType``
      variable) for such variables.
    - ``add_names``: name each gradient ``(dcost/dvar)`` where the cost and the variable
      have names (Theano's argument, in Theano's position, and its names).
    - ``null_gradients``: ``'raise'`` (:class:`NullTypeGradError`, default) or ``'return'``
      (the null variable) where an op's gradient is undefined or not implemented
      (``grad_undefined``: see core/gradient_types.py).

    Returns one gradient for one variable, else a list (a tuple for a tuple), each of
    its variable's dtype. Integer/bool ``wrt`` raise :class:`NullGradientError`; paths
    through integer values (e.g. ``T.cast(x, 'int32')``) carry no gradient.
    """
    _check_policies(disconnected_inputs, return_disconnected)
    if null_gradients not in ("raise", "return"):
        raise ValueError(f"null_gradients must be 'raise' or 'return', got {null_gradients!r}")
    single = isinstance(wrt, Variable)
    wrt_list = [wrt] if single else _wrt_list(wrt)
    for var in wrt_list:
        _check_differentiable_variable(var)
    with gradient_scope(_gradient_title(cost, wrt_list)):  # the pictures' group
        blockers = list(consider_constant or [])
        # The written unstable forms (log(sigmoid(z))...) are differentiated in their stable
        # form: a copy of the cost graph, the user's left as written (core/gradient_stable.py).
        seeds = _seeds(cost, known_grads)
        for rewrite in _SEED_REWRITES:  # registered from above (register_seed_rewrite)
            seeds = rewrite(seeds, wrt_list, blockers)
        seeds = stabilized_seeds(seeds, wrt_list, blockers)
        grads = _backpropagate(seeds, wrt_list, blockers)
        results = [_finish(v, grads.get(id(v)), disconnected_inputs, return_disconnected,
                           null_gradients) for v in wrt_list]
    for var, result in zip(wrt_list, results):
        # What the gradient is of, for the viewer's gradient-norm overlay (a variable
        # the user passed in, known_grads' own, is not the gradient's to annotate).
        if isinstance(result, Variable) and result.owner is not None and result is not var:
            result.tag.gradient_of = var
            cost_name = getattr(cost, "name", None)
            if add_names and cost_name is not None and var.name is not None and result.name is None:
                result.name = f"(d{cost_name}/d{var.name})"
    if single:
        return results[0]
    return tuple(results) if isinstance(wrt, tuple) else results


def _gradient_title(cost: Variable | None, wrt: list[Variable]) -> str:
    """``∂loss/∂W1``, ``∂loss/∂(W1, b1, W2)``: the group the pictures draw this call as."""
    of = label(cost) if isinstance(cost, Variable) else "known_grads"
    labels = [label(v) for v in wrt]
    names = ", ".join(labels)
    if any(text.startswith("<") for text in labels):  # unnamed: their types say little
        names = f"{len(wrt)} variables"
    if len(names) > 40:
        names = names[:39] + "\u2026"
    return f"\u2202{of}/\u2202{names if len(wrt) == 1 else '(' + names + ')'}"


def _check_policies(disconnected_inputs: str, return_disconnected: str) -> None:
    if disconnected_inputs not in ("raise", "warn", "ignore"):
        raise ValueError(f"disconnected_inputs must be 'raise', 'warn' or 'ignore', "
                         f"got {disconnected_inputs!r}")
    if return_disconnected not in ("zero", "none", "None", "Disconnected"):  # Theano's spellings
        raise ValueError(f"return_disconnected must be 'zero', 'none' (or 'None') or 'Disconnected', "
                         f"got {return_disconnected!r}")


def _where(var: Variable) -> str:
    """``, created at file.py:12: <source line>`` for messages ('' when unknown)."""
    where = var.site.describe("created at")
    return f", {where}" if where else ""


def _wrt_list(wrt: Any) -> list:
    """``wrt`` given as several variables: a list (or another iterable, not a string)."""
    if isinstance(wrt, (str, bytes)) or not isinstance(wrt, Iterable):
        raise TypeError(f"grad: wrt must be a variable or a list of variables, got "
                        f"{describe_given(wrt)}")
    return list(wrt)


def _check_differentiable_variable(var: Any) -> None:
    if not isinstance(var, Variable):
        raise TypeError(f"grad: wrt must be a variable or a list of variables; the list holds "
                        f"{describe_given(var)}")
    if not is_float(var.dtype):
        raise NullGradientError(
            f"grad: cannot differentiate with respect to {label(var)!r} ({var.type.short()}"
            f"{_where(var)}): integer/bool variables have no gradient. Cast it to a float "
            f"dtype before use if you need a gradient.")


def _seeds(cost: Variable | None, known_grads: dict | None) -> dict[int, tuple[Variable, Variable]]:
    seeds: dict[int, tuple[Variable, Variable]] = {}
    if cost is not None:
        cost = as_tensor_variable(cost)
        if cost.ndim != 0:
            raise TypeError(f"grad: the cost must be a scalar; {label(cost)!r} has type "
                            f"{cost.type.short()}{_where(cost)}. Reduce it first (e.g. cost.sum() "
                            f"or cost.mean()), or pass known_grads for a non-scalar expression.")
        if not is_float(cost.dtype):
            raise NullGradientError(f"grad: the cost {label(cost)!r} has integer/bool dtype "
                                    f"{cost.dtype}{_where(cost)}, which has no gradient")
        # ones_like, not a constant: like Theano's fill, the gradient then depends on the
        # cost's inputs, so ``sn.function([x], sn.grad(2 * x, x))`` uses ``x`` (rewrites
        # fold the scalar fill away).
        seeds[id(cost)] = (cost, ones_like(cost))
    for var, g in (known_grads or {}).items():
        if not isinstance(var, Variable):
            raise TypeError(f"grad: known_grads keys must be symbolic variables, "
                            f"got {type(var).__name__}")
        if is_disconnected(g):  # Theano's placeholder for "no gradient from here"
            continue
        if is_null(g):  # carried to what depends on var; an error only where asked for
            seeds[id(var)] = (var, g)
            continue
        g = _check_known_grad(var, as_tensor_variable(g))
        if id(var) in seeds:
            g = m.add(seeds[id(var)][1], g)
        seeds[id(var)] = (var, g)
    if cost is None and not known_grads:  # (known gradients all disconnected: no seed)
        raise ValueError("grad: give a cost, or known_grads when cost is None")
    return seeds


def _check_known_grad(var: Variable, g: Variable) -> Variable:
    """``g`` as ``var``'s dtype, after checking its type fits ``var``'s."""
    mismatch = g.ndim != var.ndim or any(
        a is not None and b is not None and a != b for a, b in zip(g.type.shape, var.type.shape))
    if mismatch:
        raise TypeError(f"grad: known_grads[{label(var)!r}] has type {g.type.short()}, which does "
                        f"not fit the variable's type {var.type.short()}{_where(var)}")
    # Unknown static lengths: the test values still show a mismatch, which broadcasting
    # in the backward pass would otherwise hide.
    if var.has_test_value and g.has_test_value and var.test_value.shape != g.test_value.shape:
        raise ValueError(f"grad: known_grads[{label(var)!r}] has shape {g.test_value.shape} "
                         f"(test value), the variable {var.test_value.shape}{_where(var)}")
    return m.cast(g, var.dtype)


def _backpropagate(seeds: dict[int, tuple[Variable, Variable]], wrt: list[Variable],
                   blockers: list[Variable]) -> dict[int, Variable]:
    """Accumulated gradients of every variable between ``wrt`` and the seeds."""
    sources = [var for var, _ in seeds.values()]
    # The walk stops at the blockers (consider_constant): their owners are not visited, so
    # nothing flows past them; the gradient *at* a blocker is still accumulated, as in
    # Theano (``grad(x + y, x, consider_constant=[x])`` is 1; subgraph_grad's ``end``).
    nodes = toposort(sources, blockers)
    relevant = _nodes_leading_to(nodes, wrt)
    contributions: dict[int, list[Variable]] = {key: [g] for key, (_, g) in seeds.items()}
    for node in reversed(nodes):
        if id(node) not in relevant:
            continue
        # "grad of tanh", "grad of x[idx]" nodes: the forward op in the user's words
        with gradient_of(node.op.words(node, operand_label), node.site):
            output_grads = [_total(contributions.get(id(o))) for o in node.outputs]
            if all(g is None for g in output_grads):
                continue
            null = next((g for g in output_grads if is_null(g)), None)
            if null is not None:  # Theano's rule: a null gradient flows to every input
                input_grads = [null if is_float(i.dtype) else None for i in node.inputs]
            else:
                input_grads = _input_grads(node, output_grads)
        for inp, g in zip(node.inputs, input_grads):
            if g is not None:
                contributions.setdefault(id(inp), []).append(g)
    return {key: _total(gs) for key, gs in contributions.items()}


def _nodes_leading_to(nodes: list[Apply], wrt: list[Variable]) -> set[int]:
    """Nodes with an input that depends on some ``wrt`` variable (forward reachability;
    ``nodes`` stops at the blockers, so nothing is reached through one)."""
    reached = {id(v) for v in wrt}
    relevant = set()
    for node in nodes:
        if node.op.differentiable and any(id(i) in reached for i in node.inputs):
            relevant.add(id(node))
            reached.update(id(o) for o in node.outputs)
    return relevant


def _total(grads: list[Variable] | None) -> Variable | None:
    if not grads:
        return None
    null = next((g for g in grads if is_null(g)), None)
    if null is not None:  # a sum with a null term is null (Theano)
        return null
    total = grads[0]
    for g in grads[1:]:
        total = m.add(total, g)
    return total


#: Gradient rules kept above their op's module, by Op class (a plain dict, not
#: functools.singledispatch: its frame would pass for the user's line in creation sites).
_GRADIENT_RULES: dict[type, Callable[..., list]] = {}


def register_gradient(op_class: type, rule: Callable[..., list]) -> None:
    """Use ``rule(op, inputs, outputs, output_grads)`` for ``op_class``'s gradient: for an
    op whose gradient builds graphs its own module cannot import (Scan's builds a scan)."""
    _GRADIENT_RULES[op_class] = rule


#: Rewrites of the cost graph before backpropagating, installed by the modules above
#: (``core/rewriting/lazy_branches.py``: the branches of ``ifelse`` over the whole cost
#: graph); each takes and returns the seeds, as ``stabilized_seeds`` does.
_SEED_REWRITES: list[Callable[..., dict]] = []


def register_seed_rewrite(rewrite: Callable[..., dict]) -> None:
    """Run ``rewrite(seeds, wrt, blockers) -> seeds`` before every backpropagation
    (``seeds``: ``{id(var): (var, its gradient)}``; it returns them moved onto a copy of
    their graph, or as they were)."""
    if rewrite not in _SEED_REWRITES:
        _SEED_REWRITES.append(rewrite)


def gradient_rule(op: Any, inputs: Sequence[Variable], outputs: Sequence[Variable],
                  output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    """The gradients of a node's inputs: the rule registered for the op's class (or a
    base class), else the op's own ``L_op``."""
    for cls in type(op).__mro__:
        rule = _GRADIENT_RULES.get(cls)
        if rule is not None:
            return rule(op, inputs, outputs, output_grads)
    return op.L_op(inputs, outputs, output_grads)


def _input_grads(node: Apply, output_grads: list[Variable | None]) -> list[Variable | None]:
    grads = gradient_rule(node.op, node.inputs, node.outputs, output_grads)
    if len(grads) != len(node.inputs):
        raise AssertionError(f"{node.op.display_name()}.L_op returned {len(grads)} gradients "
                             f"for {len(node.inputs)} inputs")
    return [_fit(inp, g, node) for inp, g in zip(node.inputs, grads)]


def _fit(inp: Variable, g: Variable | None, node: Apply) -> Variable | None:
    """The gradient as the input's dtype; None for integer inputs (no gradient flows)."""
    if g is None or is_disconnected(g) or not is_float(inp.dtype):
        return None
    if is_null(g):
        return g
    g = as_tensor_variable(g)
    if g.ndim != inp.ndim:
        raise AssertionError(f"{node.op.display_name()}.L_op: gradient of {label(inp)!r} has "
                             f"{g.ndim} dimension(s), expected {inp.ndim}")
    if getattr(g.type, "is_sparse", False):  # a sparse gradient: its own cast (symnb.sparse)
        return g if g.dtype == inp.dtype else g.astype(inp.dtype)
    return m.cast(g, inp.dtype)


def _finish(var: Variable, g: Variable | None, policy: str, return_disconnected: str,
            null_gradients: str = "raise") -> Variable | None:
    if is_null(g):
        if null_gradients == "raise":
            raise NullTypeGradError(f"grad of {label(var)!r}{_where(var)}: tensor.grad encountered "
                                    f"a NaN. {g.type.why_null}")
        return g
    if g is not None:
        return g
    message = (f"grad: the cost does not depend on {label(var)!r} ({var.type.short()}{_where(var)}), "
               f"or only through a blocked path (consider_constant / disconnected_grad / "
               f"non-differentiable op or integer values). "
               f"Pass disconnected_inputs='ignore' to get zeros.")
    if policy == "raise":
        raise DisconnectedInputError(message)
    if policy == "warn":
        warn_at_user_line(message)
    if return_disconnected == "zero":
        return zeros_like(var)
    if return_disconnected == "Disconnected":
        return disconnected_type()
    return None
