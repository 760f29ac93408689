"""What a picture writes on its nodes and edges, beyond the user's names.

- :func:`op_name`, :func:`words_of`: an op and a node in the user's words (``add``,
  ``x[t]``, ``xs.shape[0]``), never Theano's internal spelling (``Elemwise{add,no_inplace}``,
  ``Subtensor{?}``, ``Shape_i{0}``), which debugprint and messages keep;
- :func:`role_label`: a node made by ``sn.grad`` or by a rewrite is labelled by what it
  is, ``grad of tanh``, ``fused: mul·add·tanh``, ``local_exp_log: switch``, not by the
  source line it was built on (which its details keep);
- :class:`Shapes`: the concrete shape each edge carries, ``float32 (256, 784)``: for a
  compiled function that has been called, the shape its last call's trace saw
  (``Function.last_shapes``); else the value's own where there is one (a test value, a
  shared variable's value, a constant), else derived from its inputs' by the op's
  ``infer_shape`` rule (a node a rewrite made has no test value); the static type only
  where neither is known.
"""

from __future__ import annotations

from typing import Any, Mapping

from symnb.core.graph import Apply, Constant, Variable
from symnb.core.graph.config import config
from symnb.core.graph.errors import label, operand_label
from symnb.core.tensor.shared import SharedVariable
from symnb.core.graph.type import describe_shape
from symnb.printing._common import cut_text

__all__ = ["op_name", "words_of", "role_label", "node_name", "rewrite_origins", "Shapes", "crossings"]

_ROLE_LIMIT = 40


def op_name(node: Apply) -> str:
    """What views call ``node``'s op: its public name (``add``, ``getitem``, ``conv2d``),
    Theano's spelling (``Elemwise{add,no_inplace}``) only under
    ``config.exception_verbosity == 'high'``, where internals are asked for."""
    return node.op.display_name() if config.exception_verbosity == "high" else node.op.public_name()


def role_label(node: Apply, origins: dict[int, str]) -> str | None:
    """``fused: mul·add``, ``grad of tanh``, ``grad of x[idx]`` (``grad: alloc`` for the
    seed), ``<rewrite>: <op>`` (only with ``config.exception_verbosity == 'high'``: a
    rewrite's name is internal); None for a node the user's own line built (its name or
    source text is then the label)."""
    if type(node.op).__name__ == "Composite":
        inner = node.op.inner_graphs[0].nodes
        return cut_text("fused: " + "\u00b7".join(n.op.public_name() for n in inner), _ROLE_LIMIT)
    scopes = node.site.scoping.scopes
    if scopes and scopes[-1].kind == "grad_of":  # named in the user's words when built
        return cut_text(f"grad of {scopes[-1].name}", _ROLE_LIMIT)
    if scopes and scopes[-1].kind == "grad":  # the seed (ones like the cost), the sums
        return cut_text(f"grad: {node.op.public_name()}", _ROLE_LIMIT)
    if id(node) in origins and config.exception_verbosity == "high":
        # A rewrite's name is symnb's internal name: shown only when asked for.
        return cut_text(f"{origins[id(node)]}: {node.op.public_name()}", _ROLE_LIMIT)
    return None


def node_name(node: Apply, origins: dict[int, str], name_of: Any = label) -> str:
    """What an Apply's box is called (uncut): its role (:func:`role_label`), else its
    output's name or source text (one output; ``name_of``: ``errors.label`` or a
    memo of it), else the op in the user's words (:func:`words_of`)."""
    role = role_label(node, origins)
    if role:
        return role
    if len(node.outputs) != 1:
        return op_name(node)
    return words_of(node.outputs[0], name_of)


def words_of(var: Variable, name_of: Any = label) -> str:
    """``name_of(var)`` (the user's name, assignment or source text), or, where that is
    only the op's Theano spelling, the node in the user's words: ``x[t]``,
    ``xs.shape[0]``, ``add`` (its inputs as :func:`~symnb.core.graph.errors.operand_label` calls them)."""
    text = name_of(var)
    node = var.owner
    if node is None or var.name is not None or text != var.auto_name() or config.exception_verbosity == "high":
        return text
    if len(node.outputs) > 1:
        return f"{node.op.public_name()}.{var.index}"
    return node.op.words(node, lambda v: operand_label(v, name_of))


def rewrite_origins(obj: Any, order: list[Apply]) -> dict[int, str]:
    """``{id(node): rewrite name}`` for the nodes of a compiled function's graph that a
    rewrite made (the node it names and the new nodes under it); {} for other objects."""
    # A function split around host nodes prints its chain as it runs (``nodes``), not
    # the record Theano's ``f.maker`` gives (made on demand: split_program.py)
    fgraph = None if hasattr(obj, "host_nodes") else getattr(getattr(obj, "maker", None), "fgraph", None)
    if fgraph is None or not getattr(fgraph, "history", None):
        return {}
    original = {id(v.owner) for v in getattr(fgraph, "equiv", {}).values() if v.owner is not None}
    present = {id(node) for node in order}
    origins: dict[int, str] = {}
    for record in fgraph.history:
        stack = [record.after] if record.after is not None else []
        while stack:
            node = stack.pop()
            if id(node) in origins or id(node) in original or id(node) not in present:
                continue
            origins[id(node)] = record.name
            stack.extend(v.owner for v in node.inputs if v.owner is not None)
    return origins


def crossings(edges: list) -> dict[str, tuple[dict, dict]]:
    """``{box id: (variables coming in, variables going out)}`` over a picture's edges:
    what a closed group's box counts and lists as its inputs and outputs."""
    crossing: dict[str, tuple[dict, dict]] = {}
    for edge in edges:
        for var in edge.variables:
            crossing.setdefault(edge.target, ({}, {}))[0].setdefault(id(var), var)
            crossing.setdefault(edge.source, ({}, {}))[1].setdefault(id(var), var)
    return crossing


class Shapes:
    """Concrete shapes, computed on demand and remembered: ``text(var)`` is
    ``float32 (256, 784)``, or the static type (``float32 (?, 784)``) when no shape is
    known. Computes no value: a shape is read from a value or derived from shapes."""

    def __init__(self, failed: set[int] = frozenset(),
                 called: Mapping[Variable, tuple[str, tuple]] | None = None) -> None:
        """``failed``: ``id`` of nodes an error names: their outputs' shapes are not
        derived (a rule would answer a shape for inputs that do not fit). ``called``:
        ``{variable: (dtype, shape)}`` of a compiled function's last call
        (``Function.last_shapes``), which wins over the test values."""
        self._failed = failed
        self._called = {id(var): shape for var, (_, shape) in (called or {}).items()}
        self._known: dict[int, tuple | None] = dict(self._called)

    def text(self, var: Variable) -> str:
        shape = self.shape(var)
        if shape is None:
            return var.type.short()
        return f"{var.dtype} {describe_shape(shape)}"

    def origin(self, var: Variable) -> str | None:
        """Where ``var``'s shape comes from: ``"last call"``, ``"test value"`` (its own
        value or one derived from its inputs'), or None when only its type is known."""
        if id(var) in self._called:
            return "last call"
        return None if self.shape(var) is None else "test value"

    def shape(self, var: Variable) -> tuple | None:
        if id(var) in self._known:
            return self._known[id(var)]
        stack = [var]
        while stack:  # iterative: a chain of thousands of nodes must not recurse
            current = stack[-1]
            if id(current) in self._known:
                stack.pop()
                continue
            own = _own_shape(current)
            node = current.owner
            if own is not None or node is None:
                self._known[id(current)] = own
                stack.pop()
                continue
            missing = [v for v in node.inputs if id(v) not in self._known]
            if missing:
                stack.extend(missing)
                continue
            self._derive(node)
            stack.pop()
        return self._known[id(var)]

    def _derive(self, node: Apply) -> None:
        shapes = [self._known[id(v)] for v in node.inputs]
        derived: list = [None] * len(node.outputs)
        if all(s is not None for s in shapes) and id(node) not in self._failed:
            try:
                derived = [_ints(s) for s in node.op.infer_shape(node, [tuple(s) for s in shapes])]
            except Exception:  # noqa: BLE001 - no rule, or one needing values: shape unknown
                pass
        for out, shape in zip(node.outputs, derived):
            self._known.setdefault(id(out), shape if shape is not None else _static(out))


def _own_shape(var: Variable) -> tuple | None:
    if isinstance(var, SharedVariable):
        return tuple(var.get_value(borrow=True).shape)
    if isinstance(var, Constant):
        return tuple(getattr(var.data, "shape", ()))
    value = var._test_value
    if value is not None:
        return tuple(getattr(value, "shape", ()))
    return _static(var) if var.owner is None else None


def _static(var: Variable) -> tuple | None:
    shape = getattr(var.type, "shape", None)
    return tuple(shape) if shape is not None and all(s is not None for s in shape) else None


def _ints(shape: Any) -> tuple | None:
    """``shape`` as ints, or None when a length is symbolic."""
    result = []
    for length in shape:
        if isinstance(length, Variable):
            # A length the rule built from known lengths (``maximum(64, 64)``) carries
            # its value as a test value; one depending on an unknown value does not.
            length = length.data if isinstance(length, Constant) else length._test_value
            if length is None:
                return None
        try:
            result.append(int(length))
        except (TypeError, ValueError):
            return None
    return tuple(result)
