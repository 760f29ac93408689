"""``ifelse``: a lazy condition. Only the taken branch runs.

``T.switch`` computes both of its branches and chooses elementwise; ``ifelse`` takes
a scalar condition and computes one branch. Each branch is an inner graph: the
part of the branch's graph only that branch reaches is moved inside the IfElse node
(cloned, keeping its creation sites), so it runs only when taken -- in the NumPy
reference (test values) and in XLA (``lax.cond``). Values the condition or both
branches need, the outputs of ops holding graphs of their own, and inputs, are
passed in. Compiling decides the branches again over the whole function
(``core/rewriting/lazy_branches.py``), as ``sn.grad`` does over the cost graph.

The branch expressions are ordinary graph variables, so building them computes
their test values as usual; the IfElse node's own test value runs only the taken
branch.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.errors import build_error, label
from symnb.core.graph.basic import Apply, Constant, Variable, ancestors, clone_replace
from symnb.core.graph.copies import origin_key
from symnb.core.ifelse_grad import ifelse_grad
from symnb.core.graph.inner_graph import InnerGraph, infer_inner_shapes, known_test_value, placeholder_like
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_args, as_tensor_variable
from symnb.core.graph.type import TensorType, describe_shape, is_bool, is_integer
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["ifelse", "IfElse", "SelectIfElse", "branch_graphs", "exclusive_to_one_branch"]


class IfElse(Op):
    """``then`` outputs when the scalar condition is true (nonzero), else ``else`` outputs.

    Inputs: ``[condition, *values]``; both branch graphs take ``values``.
    """

    __props__ = ("then_graph", "else_graph", "name")
    #: Theano's flag for outputs that are views of the branch values: symnb's are never
    #: views (a compiled program's outputs are buffers of their own).
    as_view = False

    def __new__(cls, *args: Any, **kwargs: Any) -> "IfElse":
        # Theano's ``IfElse(n_outs, as_view=False, gpu=False, name=None)``, called on
        # ``(condition, *then_values, *else_values)``: the op that selects values computed
        # outside (SelectIfElse). symnb's own takes its two branch graphs.
        if cls is IfElse and args and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
            cls = SelectIfElse
        return super().__new__(cls)

    def __init__(self, then_graph: InnerGraph, else_graph: InnerGraph, name: str | None = None) -> None:
        self.then_graph = then_graph
        self.else_graph = else_graph
        self.name = name

    def selection(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """When both branches compute nothing (each output is one of the values passed in),
        the positions of the values each branch gives, else None. Theano's ``IfElse(n)``
        is the selection of the first n values or the next n."""
        picks = []
        for graph in self.inner_graphs:
            places = {id(v): i for i, v in enumerate(graph.inputs)}
            if any(id(out) not in places for out in graph.outputs):
                return None
            picks.append(tuple(places[id(out)] for out in graph.outputs))
        return picks[0], picks[1]

    def __eq__(self, other: object) -> bool:
        # A pure selection is the same op whatever its branches' placeholders are (as
        # Theano's IfElse is equal by its number of outputs): IfElse(2) equals the node
        # that ifelse(c, (x1, x2), (y1, y2)) builds.
        if not isinstance(other, IfElse):
            return False
        mine, theirs = self.selection(), other.selection()
        if mine is not None or theirs is not None:
            return mine == theirs
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        picked = self.selection()
        return hash(("IfElse", picked)) if picked is not None else hash((type(self), self._props()))

    @property
    def inner_graphs(self) -> tuple[InnerGraph, InnerGraph]:
        """The branches (roles ``then`` and ``else``), which take the same inputs."""
        return (self.then_graph, self.else_graph)

    def inner_feeds(self, node: Apply) -> list[Variable | None]:
        return list(node.inputs[1:])  # after the condition, one value per inner input

    def display_name(self) -> str:
        return f"IfElse{{{self.name}}}" if self.name else "IfElse"

    def public_name(self) -> str:
        return f"ifelse({self.name})" if self.name else "ifelse"

    def make_node(self, condition: Variable, *values: Variable) -> Apply:
        if len(values) != len(self.then_graph.inputs):
            raise TypeError(f"{self.display_name()}: expected {len(self.then_graph.inputs)} values "
                            f"after the condition, got {len(values)}")
        types = [_merged_type(a.type, b.type)
                 for a, b in zip(self.then_graph.outputs, self.else_graph.outputs)]
        return Apply(self, [condition, *values], types)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        taken = bool(inputs[0])
        graph = self.then_graph if taken else self.else_graph
        branch = "then" if taken else "else"
        results = graph.run(list(inputs[1:]), where=f"the {branch} branch of {self.display_name()}")
        return [np.asarray(r, dtype=out.type.numpy_dtype) for r, out in zip(results, node.outputs)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        from symnb.core.tensor.math import switch

        then_rows = infer_inner_shapes(self.then_graph, input_shapes[1:], self.display_name())
        else_rows = infer_inner_shapes(self.else_graph, input_shapes[1:], self.display_name())
        shapes = []
        for out, a_row, b_row in zip(node.outputs, then_rows, else_rows):
            shapes.append(tuple(
                s if s is not None else a if _same(a, b) else switch(node.inputs[0], a, b)
                for s, a, b in zip(out.type.shape, a_row, b_row)))
        return shapes

    def make_node_replacing_copies(self, inputs: Sequence[Variable], replacements: dict[int, Variable]
                                   ) -> Apply | None:
        """The node with the branches' copies of replaced variables (a function's input
        cutting the graph inside a branch, ``givens``) read from new operands, the
        replacements; operands the branches no longer read are dropped (what was above
        the cut is not needed)."""
        copies = {id(v): replacements[origin_key(v)] for graph in self.inner_graphs
                  for node in graph.nodes for v in node.outputs if origin_key(v) in replacements}
        if not copies:
            return None
        new_operands = list({id(new): new for new in copies.values()}.values())
        places = {id(new): placeholder_like(new, value=known_test_value(new)) for new in new_operands}
        swap = {v: places[id(copies[id(v)])] for graph in self.inner_graphs
                for node in graph.nodes for v in node.outputs if id(v) in copies}
        outs = [clone_replace(graph.outputs, swap) for graph in self.inner_graphs]
        return self._node_over(inputs[0], [*inputs[1:], *new_operands],
                               [*self.then_graph.inputs, *(places[id(v)] for v in new_operands)], outs)

    def _node_over(self, condition: Variable, values: list[Variable], places: list[Variable],
                   outs: list[list[Variable]]) -> Apply:
        """A node of a new IfElse: branches ``outs`` (then, else) over the ``places`` the
        branches still read, each fed by its ``values`` entry."""
        read = {id(v) for v in ancestors([o for group in outs for o in group])}
        kept = [i for i, place in enumerate(places) if id(place) in read]
        then_graph, else_graph = (InnerGraph([places[i] for i in kept], group, role=graph.role)
                                  for group, graph in zip(outs, self.inner_graphs))
        return IfElse(then_graph, else_graph, self.name).make_node(condition, *[values[i] for i in kept])

    def L_op(self, inputs, outputs, output_grads):
        # The gradient is an IfElse on the same condition: the class is handed over,
        # since ifelse_grad.py sits below this module.
        return ifelse_grad(self, inputs, outputs, output_grads, IfElse)


class SelectIfElse(IfElse):
    """Theano's ``IfElse(n_outs, as_view=False, gpu=False, name=None)``: called on
    ``(condition, *then_values, *else_values)`` (2 * n_outs values, computed outside), it
    gives the first n_outs values when the condition is true, else the next n_outs. Its
    node is symnb's :class:`IfElse` whose branches select those values (equal to this op).
    ``as_view`` and ``gpu`` are Theano's memory and device hints: symnb's outputs are never
    views, and JAX places the program."""

    __props__ = ("n_outs", "name")

    def __init__(self, n_outs: int, as_view: bool = False, gpu: bool = False, name: str | None = None) -> None:
        if n_outs < 1:
            raise ValueError(f"IfElse(n_outs={n_outs}): n_outs must be at least 1")
        self.n_outs = int(n_outs)
        self.name = name
        self.__dict__["as_view"] = bool(as_view)
        self.__dict__["gpu"] = bool(gpu)

    @property
    def inner_graphs(self) -> tuple:  # type: ignore[override]
        return ()  # its nodes are symnb's IfElse, which holds the branches

    def selection(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        n = self.n_outs
        return tuple(range(n)), tuple(range(n, 2 * n))

    def make_node(self, condition: Variable, *values: Variable) -> Apply:
        n = self.n_outs
        if len(values) != 2 * n:
            raise TypeError(f"{self.display_name()}: IfElse({n}) takes the condition and {2 * n} "
                            f"values (the {n} of the then branch, then the {n} of the else "
                            f"branch); got {len(values)}")
        condition = _check_condition(as_tensor_variable(condition))
        pairs = [_paired(i, a, b) for i, (a, b) in enumerate(zip(values[:n], values[n:]))]
        operands = [p[0] for p in pairs] + [p[1] for p in pairs]
        places = [placeholder_like(v, value=known_test_value(v)) for v in operands]
        then_graph = InnerGraph(places, places[:n], role="then")
        else_graph = InnerGraph(places, places[n:], role="else")
        return IfElse(then_graph, else_graph, self.name).make_node(condition, *operands)


def _same(a: Any, b: Any) -> bool:
    return a is b or (isinstance(a, int) and isinstance(b, int) and a == b)


def _merged_type(a: TensorType, b: TensorType) -> TensorType:
    shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
    return TensorType(a.dtype, shape)


@api_boundary  # errors show the user's line: core/graph/traceback_filter.py
def ifelse(condition: Any, then_branch: Any, else_branch: Any, name: str | None = None) -> Any:
    """``then_branch`` if the scalar ``condition`` is true (nonzero), else ``else_branch``.

    Lazy: only the taken branch is computed. Branches are tensors, or equally long
    lists/tuples of tensors (the result is then a list); paired outputs must have the
    same dtype and number of dimensions, and the same shape when run by XLA.
    """
    condition = _check_condition(as_tensor_variable(condition))
    single = not isinstance(then_branch, (list, tuple))
    then_list = [then_branch] if single else list(then_branch)
    else_list = [else_branch] if not isinstance(else_branch, (list, tuple)) else list(else_branch)
    if len(then_list) != len(else_list):
        raise build_error(f"ifelse: the then branch has {len(then_list)} output(s) and the else "
                           f"branch {len(else_list)}; they must pair up", TypeError)
    pairs = [_paired(i, a, b) for i, (a, b) in enumerate(zip(then_list, else_list))]
    then_outs, else_outs = [p[0] for p in pairs], [p[1] for p in pairs]
    inside = exclusive_to_one_branch(condition, then_outs, else_outs)
    outer, then_graph, else_graph = branch_graphs(then_outs, else_outs, inside)
    results = IfElse(then_graph, else_graph, name)(condition, *outer)
    results = results if isinstance(results, list) else [results]
    return results[0] if single else results


def branch_graphs(then_outs: list[Variable], else_outs: list[Variable],
                  inside: Callable[[Variable, str], bool],
                  value_of: Callable[[Variable], np.ndarray | None] = known_test_value
                  ) -> tuple[list[Variable], InnerGraph, InnerGraph]:
    """The outer values the branches read, and the two branch graphs over them.

    Each branch's graph is walked up from its outputs; ``inside(var, role)`` says
    whether the node computing ``var`` belongs in the branch ``role`` (``"then"`` or
    ``"else"``). The walk stops at the first variable outside (and at inputs): those
    are the IfElse's operands, computed once outside. ``value_of`` gives an operand's
    test value, which its placeholder holds.
    """
    outer: dict[int, Variable] = {}
    for role, outs in (("then", then_outs), ("else", else_outs)):
        for var in _frontier(outs, lambda v, role=role: inside(v, role)):
            outer.setdefault(id(var), var)
    values = list(outer.values())
    placeholders = [placeholder_like(v, value=value_of(v)) for v in values]
    mapping = dict(zip(values, placeholders))
    then_graph = InnerGraph(placeholders, clone_replace(then_outs, mapping, mark_copies=True), role="then")
    else_graph = InnerGraph(placeholders, clone_replace(else_outs, mapping, mark_copies=True), role="else")
    return values, then_graph, else_graph


def exclusive_to_one_branch(condition: Variable, then_outs: list[Variable],
                            else_outs: list[Variable]) -> Callable[[Variable, str], bool]:
    """What ``ifelse`` moves into a branch as it is built: the nodes only that branch
    reaches, up to the nodes holding graphs of their own (an ``ifelse`` or ``scan``
    upstream stays one node: copying it into a branch would nest it, and stacked
    layers would nest copies of copies). Values the condition needs, or both
    branches, stay outside (computed once). Nothing else is known about the graph
    yet: compiling moves out what the rest of the function also needs, and moves in
    what only one branch needs (``core/rewriting/lazy_branches.py``)."""
    stop = {id(v) for v in ancestors([condition])}
    reached = [{id(v) for v in ancestors(outs, stop_at=lambda v: id(v) in stop)}
               for outs in (then_outs, else_outs)]
    stop |= reached[0] & reached[1]
    return lambda var, role: id(var) not in stop and not var.owner.op.inner_graphs


def _frontier(outputs: list[Variable], inside: Callable[[Variable], bool]) -> list[Variable]:
    """Non-constant variables where the walk up from ``outputs`` stops: inputs, and
    variables computed outside."""
    found: dict[int, Variable] = {}
    seen: set[int] = set()
    stack = list(reversed(outputs))  # popped in the order written: ifelse(c, (x1, x2), ...) reads x1, x2
    while stack:
        var = stack.pop()
        if id(var) in seen or isinstance(var, Constant):
            continue
        seen.add(id(var))
        if var.owner is None or not inside(var):
            found.setdefault(id(var), var)
        else:
            stack.extend(reversed(var.owner.inputs))
    return list(found.values())


def _paired(i: int, a: Any, b: Any) -> tuple[Variable, Variable]:
    a, b = as_tensor_args(a, b)
    if getattr(a.type, "is_sparse", False) or getattr(b.type, "is_sparse", False):
        # Theano refused branches of different types (dense and sparse, csr and csc) with
        # a TypeError; symnb's ifelse holds dense values only.
        raise build_error(
            f"ifelse: output #{i} is {label(a)!r} ({a.type.short()}) in the then branch and "
            f"{label(b)!r} ({b.type.short()}) in the else branch; symnb's ifelse takes dense "
            f"tensors only: convert a sparse matrix with symnb.sparse.dense_from_sparse", TypeError)
    if a.dtype != b.dtype or a.ndim != b.ndim:
        raise build_error(
            f"ifelse: output #{i} is {label(a)!r} ({a.type.short()}) in the then branch and "
            f"{label(b)!r} ({b.type.short()}) in the else branch; both branches must give the same "
            f"dtype and number of dimensions (cast one with .astype)", TypeError)
    if any(x is not None and y is not None and x != y for x, y in zip(a.type.shape, b.type.shape)):
        raise build_error(
            f"ifelse: output #{i} has shape {describe_shape(a.type.shape)} in the then branch and "
            f"{describe_shape(b.type.shape)} in the else branch; both branches must give the "
            f"same shape", ValueError)
    return a, b


def _check_condition(condition: Variable) -> Variable:
    if condition.ndim != 0 or not (is_bool(condition.dtype) or is_integer(condition.dtype)):
        raise build_error(
            f"ifelse: the condition {label(condition)!r} must be a boolean (or integer) scalar, "
            f"got {condition.type.short()}; for an elementwise choice use T.switch, for a float "
            f"compare it (e.g. T.neq(c, 0))", TypeError)
    return condition
