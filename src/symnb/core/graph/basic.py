"""The graph IR: ``Variable``, ``Constant``, ``Apply`` and iterative graph walks.

Every walk here uses an explicit stack, never recursion, so a graph ten thousand
nodes deep is as easy to handle as a shallow one.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.copies import mark_copy, replacements_by_origin
from symnb.core.graph.source import Site, register_value_class
from symnb.core.graph.type import TensorType

__all__ = [
    "Variable", "Constant", "Apply", "Tag",
    "toposort", "ancestors", "value_ancestors", "graph_inputs", "clone_replace", "walk_nodes", "node_places", "Place",
    "install_test_values",
]


class _TestValueHooks(NamedTuple):
    compute_missing: Callable[["Variable"], np.ndarray]
    set_test_value: Callable[["Variable", Any], None]
    is_dropped: Callable[["Variable"], bool]


#: The test-value machinery, installed by ``symnb.core.graph.test_value`` (which ``op.py``
#: imports): it runs ops, which sit above this module, so this module cannot import it.
_test_values: _TestValueHooks | None = None


def install_test_values(compute_missing: Callable[["Variable"], np.ndarray],
                        set_test_value: Callable[["Variable", Any], None],
                        is_dropped: Callable[["Variable"], bool]) -> None:
    """Install what ``var.test_value`` calls to compute a value not held (pending, or
    dropped to save memory) and to set one, and what tells a dropped value."""
    global _test_values
    _test_values = _TestValueHooks(compute_missing, set_test_value, is_dropped)


class Tag:
    """Free-form annotations of a variable (Theano's ``var.tag``).

    ``tag.test_value`` is the variable's test value itself, not a copy.
    """

    def __init__(self, variable: "Variable") -> None:
        object.__setattr__(self, "_variable", variable)

    @property
    def test_value(self) -> np.ndarray:
        return self._variable.test_value

    @test_value.setter
    def test_value(self, value: Any) -> None:
        self._variable.test_value = value


@register_value_class  # a named one groups the pictures (source.py)
class Variable:
    """A value in a graph: an input (no owner) or the output ``index`` of ``owner``."""

    # "__dict__": libraries built on Theano attach their own attributes to variables
    # (Keras: x._keras_shape, x._uses_learning_phase), as Theano's variables allowed.
    __slots__ = ("type", "owner", "index", "name", "_test_value", "_site", "_tag", "__weakref__",
                 "__dict__")

    def __init__(self, type: TensorType, owner: "Apply | None" = None, index: int | None = None,
                 name: str | None = None, site: Site | None = None) -> None:
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self._test_value: np.ndarray | None = None
        self._site = site
        self._tag: Tag | None = None

    # -- type shortcuts -------------------------------------------------------------
    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable

    @property
    def static_shape(self) -> tuple[int | None, ...]:
        return self.type.shape

    @property
    def tag(self) -> Tag:
        if self._tag is None:
            self._tag = Tag(self)
        return self._tag

    @property
    def site(self) -> Site:
        """Where user code created this variable (its owner's site for an output)."""
        if self.owner is not None:
            return self.owner.site
        return self._site if self._site is not None else Site()

    # -- test values (the machinery lives in symnb.core.graph.test_value) -----------------
    @property
    def test_value(self) -> np.ndarray:
        value = self._test_value
        if value is None:  # pending, or dropped to save memory: computed now
            return _test_values.compute_missing(self)
        return value

    @test_value.setter
    def test_value(self, value: Any) -> None:
        _test_values.set_test_value(self, value)

    @property
    def has_test_value(self) -> bool:
        """Whether the test value is known: held, or dropped to save memory (and
        computed again when read); False while it is pending."""
        return self._test_value is not None or _test_values.is_dropped(self)

    def get_parents(self) -> list["Apply"]:
        """Theano's graph walk step: the node that computes this variable, if any."""
        return [self.owner] if self.owner is not None else []

    # -- copies -----------------------------------------------------------------------
    def clone(self) -> "Variable":
        """A new root variable like this one (Theano's ``Variable.clone``): the same class,
        type, name, creation site, annotations (``tag``) and test value (if it has one),
        and no owner."""
        # Positional, as Theano's clone calls it (type, owner, index, name): subclasses of
        # libraries built on Theano (PyMC3's random variables) take these four first.
        copy = type(self)(self.type, None, None, self.name)
        copy._site = self.site
        # A root has no node to recompute from: a value dropped to save memory is
        # computed again for it.
        copy._test_value = self.test_value if self.has_test_value else None
        copy_tag(self, copy)
        return copy

    # -- naming -----------------------------------------------------------------------
    def auto_name(self) -> str:
        """The name to show: the user's name, else one from the op that made it."""
        if self.name is not None:
            return self.name
        if self.owner is not None:
            op_name = self.owner.op.display_name()
            if len(self.owner.outputs) == 1:
                return op_name
            return f"{op_name}.{self.index}"
        return f"<{self.type!r}>"

    def __repr__(self) -> str:
        if config.print_test_value and self.has_test_value:  # Theano's flag: name, then value
            return f"{self.auto_name()}\n{self.test_value!r}"
        return self.auto_name()

    def __str__(self) -> str:
        return self.auto_name()


class Constant(Variable):
    """A variable with a fixed value, stored in ``data`` (read-only)."""

    __slots__ = ("data",)

    def __init__(self, type: TensorType, data: np.ndarray, name: str | None = None) -> None:
        super().__init__(type, name=name)
        data = np.asarray(data, dtype=type.dtype)
        data.flags.writeable = False
        self.data = data
        self._test_value = data

    @property
    def value(self) -> np.ndarray:
        """The constant's data (Theano's ``Constant.value``, the same as ``data``)."""
        return self.data

    def clone(self) -> "Constant":
        """A new constant holding the same (read-only) data, named alike."""
        copy = type(self)(self.type, self.data, name=self.name)
        copy_tag(self, copy)
        return copy

    def auto_name(self) -> str:
        if self.name is not None:
            return self.name
        return format_constant(self.data)


def copy_tag(source: Variable, copy: Variable) -> None:
    """Give ``copy`` the free-form annotations of ``source``'s tag (a shallow copy, as
    Theano's ``copy.copy(tag)``); the test value is each variable's own."""
    if source._tag is not None:
        notes = {k: v for k, v in vars(source._tag).items() if k != "_variable"}
        vars(copy.tag).update(notes)


def format_constant(data: np.ndarray) -> str:
    if data.ndim == 0:
        return str(data[()])  # float32(0.1) shows as 0.1, not 0.10000000149011612
    if data.size <= 6:
        return np.array2string(data, separator=", ")
    return f"<{data.dtype} array of shape {data.shape}>"


class Apply:
    """One application of ``op`` to ``inputs`` producing ``outputs``.

    ``outputs``: the output types (a variable of each is made), or, as Theano's
    ``Apply``, fresh output variables (``x.type()``: no owner yet), which become the
    node's. ``site`` records where user code built it; rewrites copy it to the nodes they
    create, so errors keep pointing at the user's line after optimization.
    """

    __slots__ = ("op", "inputs", "outputs", "site", "__weakref__")

    def __init__(self, op: "Op", inputs: Sequence[Variable],
                 outputs: Sequence[TensorType | Variable], site: Site | None = None) -> None:
        self.op = op
        self.inputs = list(inputs)
        self.site = site if site is not None else Site()
        output_class = op.output_class
        self.outputs = [_adopted(out, self, i) if isinstance(out, Variable)
                        else output_class(out, owner=self, index=i) for i, out in enumerate(outputs)]

    def get_parents(self) -> list[Variable]:
        """Theano's graph walk step: the node's inputs."""
        return list(self.inputs)

    @property
    def out(self) -> Variable:
        (output,) = self.outputs
        return output

    def default_output(self) -> Variable:
        """Theano's: the output the op's ``default_output`` names, or the only one; an
        ``AttributeError`` when that index is not an int in range, or is None with several
        outputs (as Theano)."""
        index = getattr(self.op, "default_output", None)
        if index is None:
            if len(self.outputs) == 1:
                return self.outputs[0]
            raise AttributeError(f"{self.op.display_name()}.default_output should be an output "
                                 f"index (the node has {len(self.outputs)} outputs)")
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise AttributeError(f"{self.op.display_name()}.default_output should be an int, "
                                 f"got {index!r}")
        if not 0 <= index < len(self.outputs):
            raise AttributeError(f"{self.op.display_name()}.default_output is out of range: "
                                 f"{index}, and the node has {len(self.outputs)} outputs")
        return self.outputs[index]

    def __repr__(self) -> str:
        args = ", ".join(v.auto_name() for v in self.inputs)
        return f"{self.op.display_name()}({args})"


def _adopted(var: Variable, node: Apply, index: int) -> Variable:
    """``var`` made output ``index`` of ``node``: Theano's ``Apply(op, inputs, outputs)``
    takes output *variables*, fresh ones (``x.type()`` in a ``make_node``)."""
    if var.owner is not None:
        raise ValueError(f"{node.op.display_name()}.make_node: output {index} ({var.auto_name()}) "
                         f"is already an output of {var.owner.op.display_name()}; give a new "
                         f"variable (x.type()) or a type")
    var.owner, var.index = node, index
    # Its test value is the node's to compute (test_value.compute_node), not a value
    # generated for a fresh input of a fully known type.
    var._test_value = None
    var._site = None
    return var


# -- walks --------------------------------------------------------------------------

def toposort(outputs: Iterable[Variable], inputs: Iterable[Variable] = (),
             inputs_of: Callable[[Apply], Sequence[Variable]] | None = None) -> list[Apply]:
    """Apply nodes needed for ``outputs``, each after the nodes producing its inputs.

    The walk stops at ``inputs`` (their owners are not included). ``inputs_of(node)``,
    when given, stands for ``node.inputs`` (a graph as it was before a rewrite edited it:
    :mod:`symnb.core.graph.history`).
    """
    stop = {id(v) for v in inputs}
    order: list[Apply] = []
    done: set[int] = set()
    stack: list[tuple[Apply, bool]] = []
    for out in outputs:
        if out.owner is not None and id(out) not in stop:
            stack.append((out.owner, False))
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if expanded:
            done.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        for inp in reversed(node.inputs if inputs_of is None else inputs_of(node)):
            owner = inp.owner
            if owner is not None and id(inp) not in stop and id(owner) not in done:
                stack.append((owner, False))
    return order


def ancestors(outputs: Iterable[Variable], blockers: Iterable[Variable] = (),
              stop_at: Callable[[Variable], bool] | None = None) -> Iterator[Variable]:
    """Every variable ``outputs`` depend on (themselves included), not walking past
    ``blockers`` nor past the variables for which ``stop_at(var)`` is true."""
    stop = {id(v) for v in blockers}

    def inputs_of(var: Variable) -> Sequence[Variable]:
        if var.owner is None or id(var) in stop or (stop_at is not None and stop_at(var)):
            return ()
        return var.owner.inputs

    return _walk_up(outputs, inputs_of)


def value_ancestors(outputs: Iterable[Variable]) -> Iterator[Variable]:
    """The variables whose *values* those of ``outputs`` may depend on (themselves
    included): :func:`ancestors`, not past a variable read for its shape only
    (``x.shape``), and through each node only to the inputs the output's value depends
    on (``Op.value_inputs``: a loop's output, to what its body reads for it)."""

    def inputs_of(var: Variable) -> Sequence[Variable]:
        node = var.owner
        if node is None or node.op.reads_shape_only:
            return ()
        return [node.inputs[i] for i in node.op.value_inputs(node, var.index)]

    return _walk_up(outputs, inputs_of)


def _walk_up(outputs: Iterable[Variable],
             inputs_of: Callable[[Variable], Sequence[Variable]]) -> Iterator[Variable]:
    """Each variable reached from ``outputs`` through ``inputs_of``, once, depth first
    and inputs in order (an explicit stack: graphs deeper than Python's recursion limit)."""
    seen: set[int] = set()
    stack = list(outputs)
    while stack:
        var = stack.pop()
        if id(var) in seen:
            continue
        seen.add(id(var))
        yield var
        stack.extend(reversed(inputs_of(var)))


def graph_inputs(outputs: Iterable[Variable], blockers: Iterable[Variable] = ()) -> list[Variable]:
    """The root variables (no owner, or a blocker) ``outputs`` depend on."""
    stop = {id(v) for v in blockers}
    return [v for v in ancestors(outputs, blockers) if v.owner is None or id(v) in stop]


def clone_replace(outputs: Sequence[Variable], replace: dict[Variable, Variable] | None = None,
                  blockers: Iterable[Variable] = (), mark_copies: bool = False) -> list[Variable]:
    """Copies of ``outputs`` with the variables in ``replace`` swapped for their values.

    Nodes that do not depend on a replaced variable are shared, not copied. Copies keep
    the creation site of the node they copy. The walk does not go past ``blockers``
    (kept as they are: a replaced variable above them is not reached). A replaced
    variable's copies inside inner graphs (an ``ifelse`` branch's: ``copies.py``) are
    replaced too. ``mark_copies``: the copies remember what they copy (an inner graph
    being made of them).
    """
    mapping: dict[int, Variable] = {id(k): v for k, v in (replace or {}).items()}
    inside = replacements_by_origin((replace or {}).items())
    for node in toposort(outputs, list(replace or {}) + list(blockers)):
        new_inputs = [mapping.get(id(i), i) for i in node.inputs]
        new_node = node.op.make_node_replacing_copies(new_inputs, inside) if inside else None
        if new_node is None:
            if all(a is b for a, b in zip(new_inputs, node.inputs)):
                continue
            new_node = node.op.make_node(*new_inputs)
        new_node.site = node.site
        for old, new in zip(node.outputs, new_node.outputs):
            new.name = old.name
            if mark_copies:
                mark_copy(old, new)
            mapping[id(old)] = new
    return [mapping.get(id(o), o) for o in outputs]


# -- walks into inner graphs ----------------------------------------------------------

class Place(NamedTuple):
    """Where a node sits in a graph that may hold inner graphs (see :func:`node_places`)."""

    node: Apply
    #: The node's position in the nodes of its own graph, and how many nodes that graph has.
    index: int
    count: int
    #: The places of the nodes holding the inner graph it belongs to, outermost first
    #: (empty for a node of the outer graph).
    enclosing: tuple["Place", ...]


def node_places(nodes: Sequence[Apply]) -> Iterator[Place]:
    """Every node of ``nodes`` and of the graphs they hold (``op.inner_graphs``: loop
    bodies, branches, fused elementwise chains), at any depth, each with its place.

    Each node comes before the nodes of its inner graphs, which come before the next node.
    Two graphs of the same structure give their nodes in the same order, so a node found
    in one is the node at the same position of the other.
    """
    stack: list[tuple[Sequence[Apply], int, tuple[Place, ...]]] = [(nodes, 0, ())]
    while stack:
        graph_nodes, position, enclosing = stack.pop()
        if position == len(graph_nodes):
            continue
        node = graph_nodes[position]
        place = Place(node, position, len(graph_nodes), enclosing)
        yield place
        stack.append((graph_nodes, position + 1, enclosing))
        for inner in reversed(node.op.inner_graphs):
            stack.append((inner.nodes, 0, enclosing + (place,)))


def walk_nodes(nodes: Sequence[Apply]) -> Iterator[Apply]:
    """Every node of ``nodes`` and of their inner graphs, at any depth (see :func:`node_places`).

    The walk for every pass over a whole graph: checks, dtypes, dynamic shapes. (The
    same order as ``node_places``, without making a place per node: a few passes walk
    every graph compiled.)
    """
    stack = [iter(nodes)]
    while stack:
        for node in stack[-1]:
            yield node
            inner = node.op.inner_graphs
            if inner:  # its graphs, the first on top, before the node after it
                stack.extend(iter(graph.nodes) for graph in reversed(inner))
                break
        else:
            stack.pop()
