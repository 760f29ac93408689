"""Reverse-mode differentiation over symnb graphs: ``sn.grad`` and friends.

The gradient graph is built from each op's ``L_op`` rule with ordinary tensor ops, so
it carries test values like any graph, and its nodes record the user's ``sn.grad``
line as their creation site (the first frame outside symnb).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from symnb.core.graph.errors import SymnbError, describe_given, label, operand_label
from symnb.core.graph.basic import Apply, Constant, Variable, toposort
from symnb.core.gradient_stable import stabilized_seeds
from symnb.core.gradient_types import disconnected_type, is_disconnected, is_null
from symnb.core.scopes import gradient_of, gradient_scope
from symnb.core.graph.source import warn_at_user_line
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import ones_like, zeros_like
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.graph.config import config
from symnb.core.graph.type import is_float
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["grad", "DisconnectedInputError", "NullGradientError", "NullTypeGradError",
           "disconnected_grad",
           "gradient_rule", "register_gradient", "register_seed_rewrite"]


class DisconnectedInputError(SymnbError, ValueError):
    """The cost does not depend (differentiably) on a variable in ``wrt``."""


class NullGradientError(SymnbError, TypeError):
    """A gradient was asked for where none exists (an op's gradient is undefined or not
    implemented: :class:`NullTypeGradError`), or a gradient of the wrong kind was given or
    returned (an integer-valued one)."""


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
    its variable's dtype where that is a float dtype. Integers follow Theano's op contract
    (theano/gradient.py): the gradient of an integer or boolean variable is that of its
    continuous extension, a float tensor (``grad(cast(x, 'float64') ** 2, x)`` is
    ``2 * x`` in float64 for an int32 ``x``; zeros are ``config.floatX``), and an
    integer-valued output passes zeros to its inputs (comparisons, ``argmax``, integer
    casts and arithmetic: the inputs stay connected, so no ``DisconnectedInputError``).
    An integer cost is seeded with ``config.floatX`` ones, as Theano does.
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
    # Integer and bool variables are accepted: Theano defines their gradient (see grad).
    if not isinstance(var, Variable):
        raise TypeError(f"grad: wrt must be a variable or a list of variables; the list holds "
                        f"{describe_given(var)}")


def _is_discrete(var: Variable) -> bool:
    """Whether ``var`` holds integers or booleans (a type without a dtype does not)."""
    dtype = getattr(var.type, "dtype", None)
    return dtype is not None and not is_float(str(dtype))


def float_dtype_of(var: Variable) -> str:
    """The dtype of ``var``'s gradient: its own where it is a float dtype, else
    ``config.floatX`` (Theano's ``_float_zeros_like`` / ``_float_ones_like``)."""
    return config.floatX if _is_discrete(var) else var.dtype


def _seeds(cost: Variable | None, known_grads: dict | None) -> dict[int, tuple[Variable, Variable]]:
    seeds: dict[int, tuple[Variable, Variable]] = {}
    if cost is not None:
        cost = as_tensor_variable(cost)
        if cost.ndim != 0:
            raise TypeError(f"grad: the cost must be a scalar; {label(cost)!r} has type "
                            f"{cost.type.short()}{_where(cost)}. Reduce it first (e.g. cost.sum() "
                            f"or cost.mean()), or pass known_grads for a non-scalar expression.")
        # ones_like, not a constant: like Theano's fill, the gradient then depends on the
        # cost's inputs, so ``sn.function([x], sn.grad(2 * x, x))`` uses ``x`` (rewrites
        # fold the scalar fill away). An integer cost gets floatX ones (Theano's
        # _float_ones_like): the ops computing it pass zeros on (see _backpropagate).
        seeds[id(cost)] = (cost, ones_like(cost, float_dtype_of(cost)))
    for var, g in (known_grads or {}).items():
        if not isinstance(var, Variable):
            raise TypeError(f"grad: known_grads keys must be symbolic variables, "
                            f"got {type(var).__name__}")
        if is_disconnected(g):  # Theano's placeholder for "no gradient from here"
            seeds.pop(id(var), None)
            continue
        if is_null(g):  # carried to what depends on var; an error only where asked for
            seeds[id(var)] = (var, g)
            continue
        g = _check_known_grad(var, as_tensor_variable(g))
        seeds[id(var)] = (var, g)  # the cost's own known gradient replaces its ones (Theano)
    if cost is None and not known_grads:  # (known gradients all disconnected: no seed)
        raise ValueError("grad: give a cost, or known_grads when cost is None")
    return seeds


def _check_known_grad(var: Variable, g: Variable) -> Variable:
    """``g`` as ``var``'s gradient: of ``var``'s dtype (a float gradient of an integer
    variable kept as it is), broadcast to ``var``'s shape when it has fewer axes, after
    checking its type fits ``var``'s."""
    if _is_discrete(var) and _is_discrete(g):  # Theano's TypeError: gradients are floats
        raise TypeError(f"grad: known_grads[{label(var)!r}] has type {g.type.short()}: a gradient "
                        f"must be a float tensor (or a NullType or DisconnectedType variable), "
                        f"also for an integer variable{_where(var)}")
    # Theano hands a known gradient to the op as it is; a scalar for a matrix is
    # read as NumPy broadcasts it (every element's gradient), and made the variable's
    # shape here, so no op sees a gradient of another shape than its output.
    lead = var.ndim - g.ndim
    mismatch = lead < 0 or any(
        a is not None and b is not None and a != b and a != 1
        for a, b in zip(g.type.shape, var.type.shape[lead:]))
    if mismatch:
        raise TypeError(f"grad: known_grads[{label(var)!r}] has type {g.type.short()}, which does "
                        f"not fit (nor broadcast to) the variable's type "
                        f"{var.type.short()}{_where(var)}")
    # Unknown static lengths: the test values still show a mismatch, which broadcasting
    # in the backward pass would otherwise hide.
    if var.has_test_value and g.has_test_value:
        vshape, gshape = var.test_value.shape, g.test_value.shape
        if any(a != b and a != 1 for a, b in zip(gshape, vshape[lead:])):
            raise ValueError(f"grad: known_grads[{label(var)!r}] has shape {gshape} "
                             f"(test value), the variable {vshape}{_where(var)}")
    if not _is_discrete(var):
        g = m.cast(g, var.dtype)
    if lead or g.type.shape != var.type.shape and any(a == 1 for a in g.type.shape):
        g = _broadcast_to(g, var)
    return g


def _broadcast_to(g: Variable, var: Variable) -> Variable:
    """``g`` broadcast to ``var``'s shape (``var`` read for its shape only)."""
    from symnb.core.tensor.alloc import fill

    return fill(var, g)


class _Zero:
    """A gradient known to be zero, not built yet: what an integer-valued output passes
    to its inputs (Theano's op contract). Kept symbolic-free so that the zeros through
    every comparison and ``argmax`` of a graph add no nodes: a variable with other terms
    drops it, one with only zeros gets ``zeros_like`` at the end (``_finish``)."""

    def __repr__(self) -> str:
        return "ZERO"


ZERO = _Zero()


def _backpropagate(seeds: dict[int, tuple[Variable, Variable]], wrt: list[Variable],
                   blockers: list[Variable]) -> dict[int, Any]:
    """Accumulated gradients of every variable between ``wrt`` and the seeds (a
    variable, a null variable, or :data:`ZERO`)."""
    sources = [var for var, _ in seeds.values()]
    # The walk stops at the blockers (consider_constant): their owners are not visited, so
    # nothing flows past them; the gradient *at* a blocker is still accumulated, as in
    # Theano (``grad(x + y, x, consider_constant=[x])`` is 1; subgraph_grad's ``end``).
    nodes = toposort(sources, blockers)
    reached = _reached_from(nodes, wrt)
    contributions: dict[int, list[Any]] = {key: [g] for key, (_, g) in seeds.items()}
    for node in reversed(nodes):
        if not node.op.differentiable or not any(id(i) in reached for i in node.inputs):
            continue
        # Only outputs that depend on wrt matter (Theano's var_to_app_to_idx): a null
        # gradient on another output does not spread (test_disconnected_nan).
        output_grads = [_total(contributions.get(id(o))) if id(o) in reached else None
                        for o in node.outputs]
        if all(g is None for g in output_grads):
            continue
        # "grad of tanh", "grad of x[idx]" nodes: the forward op in the user's words
        with gradient_of(node.op.words(node, operand_label), node.site):
            input_grads = _node_input_grads(node, output_grads)
        for inp, g in zip(node.inputs, input_grads):
            if g is not None and id(inp) in reached:
                contributions.setdefault(id(inp), []).append(g)
    return {key: _total(gs) for key, gs in contributions.items()}


def _node_input_grads(node: Apply, output_grads: list[Any]) -> list[Any]:
    """One gradient (or None, ZERO, a null variable) per input of ``node``.

    Theano's rules (theano/gradient.py, ``_populate_grad_dict``): the op's ``L_op`` sees
    the gradients of its float outputs; an integer-valued output passes zeros to the
    inputs connected to it (the op contract: its gradient is that of a piecewise
    constant function), and a null gradient (``grad_undefined``) passes itself on."""
    pattern = _connection_pattern(node)
    discrete = [_is_discrete(o) for o in node.outputs]
    live = [None if g is None or g is ZERO or is_null(g) or flat else g
            for g, flat in zip(output_grads, discrete)]
    all_discrete = all(flat or g is None for g, flat in zip(output_grads, discrete))
    if any(g is not None for g in live):
        grads = _input_grads(node, live)
    elif _may_be_undefined_anyway(node.op):
        # Only zeros flow in, but the gradient may be undefined whatever flows
        # (undefined_grad; a user's op): Theano asked the op, so ask it with zeros and
        # keep only what is null (a binomial draw's p: NullTypeGradError, as Theano).
        zeros = [None if g is None or is_null(g) else zeros_like(o, float_dtype_of(o))
                 for o, g in zip(node.outputs, output_grads)]
        grads = [g if is_null(g) else None
                 for g in gradient_rule(node.op, node.inputs, node.outputs, zeros) or []]
        grads += [None] * (len(node.inputs) - len(grads))
    else:
        grads = [None] * len(node.inputs)
    result = []
    for i, (inp, g) in enumerate(zip(node.inputs, grads)):
        row = pattern[i]
        null = next((og for j, og in enumerate(output_grads) if row[j] and is_null(og)), None)
        if null is not None and (g is not None or is_float(inp.dtype) or all_discrete):
            result.append(null)  # Theano's rule: a null gradient flows to what it depends on
        elif g is None and any(row[j] and og is not None and not is_null(og)
                               and (discrete[j] or og is ZERO)
                               for j, og in enumerate(output_grads)):
            result.append(ZERO)
        else:
            result.append(g)
    return result


def _may_be_undefined_anyway(op: Any) -> bool:
    """Whether ``op``'s gradient may be null even where only zeros reach it: ops that
    say so (``gradient_undefined``: ``undefined_grad``) and ops defined outside symnb."""
    return getattr(op, "gradient_undefined", False) or \
        not type(op).__module__.startswith("symnb.")


def _connection_pattern(node: Apply) -> list[list[bool]]:
    """``[input][output]``: whether the output depends on the input (the op's
    ``connection_pattern``, Theano's; every pair by default)."""
    method = getattr(node.op, "connection_pattern", None)
    if method is None:
        return [[True] * len(node.outputs) for _ in node.inputs]
    return [list(row) for row in method(node)]


def _reached_from(nodes: list[Apply], wrt: list[Variable]) -> set[int]:
    """Variables that depend on some ``wrt`` variable through differentiable ops, along
    their connection patterns (forward reachability; ``nodes`` stops at the blockers, so
    nothing is reached through one)."""
    reached = {id(v) for v in wrt}
    for node in nodes:
        if not node.op.differentiable:
            continue
        inputs = [i for i, inp in enumerate(node.inputs) if id(inp) in reached]
        if not inputs:
            continue
        pattern = _connection_pattern(node)
        reached.update(id(o) for j, o in enumerate(node.outputs)
                       if any(pattern[i][j] for i in inputs))
    return reached


def _total(grads: list[Any] | None) -> Any:
    if not grads:
        return None
    null = next((g for g in grads if is_null(g)), None)
    if null is not None:  # a sum with a null term is null (Theano)
        return null
    terms = [g for g in grads if g is not ZERO]
    if not terms:
        return ZERO
    total = terms[0]
    for g in terms[1:]:
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
    if grads is None:  # Theano's TypeError
        raise TypeError(f"{node.op.display_name()}.grad returned None, expected a list of "
                        f"gradients (one per input)")
    grads = list(grads)
    if len(grads) != len(node.inputs):  # Theano's ValueError
        raise ValueError(f"{node.op.display_name()}.L_op returned {len(grads)} gradients "
                         f"for {len(node.inputs)} inputs (the wrong number of gradient terms)")
    return [_fit(inp, g, node) for inp, g in zip(node.inputs, grads)]


def _fit(inp: Variable, g: Variable | None, node: Apply) -> Variable | None:
    """The gradient as the input's dtype; a float one as it is for an integer input
    (Theano: the gradient of an integer is a float)."""
    if g is None or is_disconnected(g):
        return None
    if is_null(g):
        return g
    g = as_tensor_variable(g)
    if _is_discrete(g) and not (isinstance(g, Constant) and not g.data.any()):
        # Theano's TypeError: an integer gradient would have rounded the numbers.
        raise TypeError(f"{node.op.display_name()}.L_op returned an integer-valued gradient "
                        f"({g.type.short()}) for its input {label(inp)!r}: gradients are float "
                        f"tensors, also for integer inputs")
    if _is_discrete(inp):
        return g if not _is_discrete(g) else m.cast(g, config.floatX)
    if g.ndim != inp.ndim:
        raise AssertionError(f"{node.op.display_name()}.L_op: gradient of {label(inp)!r} has "
                             f"{g.ndim} dimension(s), expected {inp.ndim}")
    if getattr(g.type, "is_sparse", False):  # a sparse gradient: its own cast (symnb.sparse)
        return g if g.dtype == inp.dtype else g.astype(inp.dtype)
    return m.cast(g, inp.dtype)


def _finish(var: Variable, g: Any, policy: str, return_disconnected: str,
            null_gradients: str = "raise") -> Variable | None:
    if g is ZERO:  # connected, through integer values only: Theano's zeros
        return zeros_like(var, float_dtype_of(var))
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
        return zeros_like(var, float_dtype_of(var))  # Theano's _float_zeros_like
    if return_disconnected == "Disconnected":
        return disconnected_type()
    return None
