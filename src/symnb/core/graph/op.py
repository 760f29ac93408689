"""``Op``: what a node computes. An Op *is* its methods.

- ``make_node``: type inference (dtype and static shape of every output);
- ``perform``: the NumPy reference implementation, also the test-value engine;
- ``infer_shape``: output shapes from input shapes, without computing values;
- ``L_op``: the gradient rule.

Ops are small immutable values, equal and hashable by the parameters named in
``__props__``. What other layers do with an Op (lowering to XLA, rendering) lives in
registries keyed by the Op's class in those layers.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph import test_value, theano_ops
from symnb.core.graph.config import config
from symnb.core.graph.errors import MethodNotDefined, PerformNotDefined
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.source import capture_site
from symnb.core.graph.traceback_filter import hide_library_frames
from symnb.core.graph.type import TensorType

__all__ = ["Op", "PureOp", "MethodNotDefined", "perform_only", "operand_text", "snake_case"]


class PureOp:
    """The base of :class:`Op` holding ``__call__`` (Theano's ``gof.op.PureOp``, from which
    ``Op`` derives): code that overrides ``__call__`` and builds its node with Theano's
    ``super(theano.Op, self).__call__(...)`` (PyMC3's ``DifferentialEquation``) reaches
    this one, as it reached ``PureOp.__call__`` in Theano."""

    def __call__(self, *inputs: Any, name: str | None = None, return_list: bool = False,
                 **make_node_keywords: Any) -> Any:
        """Build a node: infer types, record the user's line, compute test values.
        Returns the output, or the list of outputs when there are several or when
        ``return_list`` is true (Theano's keyword). Other keywords go to ``make_node``,
        as in Theano (``crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx=y)``)."""
        try:
            node = self.make_node(*inputs, **make_node_keywords)
            node.site = capture_site(config.traceback__limit)
            test_value.compute_node(node)
        except Exception as err:  # traceback filtering: see core/graph/traceback_filter.py
            hide_library_frames(err)
            raise
        if return_list or (len(node.outputs) != 1 and getattr(self, "default_output", None) is None):
            return node.outputs
        out = node.default_output()  # the op's default_output, or the only output
        if name is not None:
            out.name = name
        return out

    @classmethod
    def _get_test_value(cls, v: Variable) -> np.ndarray:
        """Theano's ``PureOp._get_test_value``: ``v``'s test value (a constant's value, a
        shared variable's, a variable's ``tag.test_value``), which code overriding
        ``__call__`` reads (PyMC3's ``DifferentialEquation``); a
        ``MissingTestValueError``, an ``AttributeError`` as in Theano, when it has none."""
        return v.test_value


class Op(PureOp):
    """Base class of every operation. Subclasses set ``__props__`` and the methods above."""

    __props__: tuple[str, ...] = ()
    #: Theano's: the index of the output that calling the op returns (and
    #: ``Apply.default_output()`` and ``as_tensor_variable(node)`` give); None: the only one.
    default_output: int | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        perform = cls.__dict__.get("perform")
        # Theano's perform(node, inputs, output_storage) as symnb's, which returns them.
        if perform is not None and theano_ops.writes_output_storage(perform):
            cls.perform = theano_ops.returning_outputs(perform)

    @property
    def output_class(self) -> type[Variable]:
        """The Variable class of the outputs: tensor variables, with NumPy's operators
        and methods (``x + y``, ``x.sum()``), as the tensor package registers them."""
        return TensorType.variable_type

    # -- identity --------------------------------------------------------------------
    def _props(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__props__)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        return hash((type(self), self._props()))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__props__ and name in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.{name} is immutable")
        object.__setattr__(self, name, value)

    def display_name(self) -> str:
        """The name shown in printed graphs and messages, e.g. ``Reshape{2}``."""
        name = type(self).__name__
        props = self._props()
        if not props:
            return name
        return f"{name}{{{', '.join(_prop_str(p) for p in props)}}}"

    def public_name(self) -> str:
        """The op's name in the user's words, what graph views write on a box (``add``,
        ``dot``, ``reshape``, ``log_softmax``): the public function that builds it.
        ``display_name`` stays Theano's spelling (``Elemwise{add,no_inplace}``), for
        debugprint, pprint and messages. Default: the class name in snake case."""
        return snake_case(type(self).__name__)

    def words(self, node: Apply, name_of: Any) -> str:
        """``node`` (an application of this op) as the user writes it, where that is an
        expression rather than a call (``x[t]``, ``xs.shape[0]``; ``name_of(var)``: how
        an input is called); else :meth:`public_name`. Views label an unnamed node so."""
        return self.public_name()

    def __repr__(self) -> str:
        return self.display_name()

    def __str__(self) -> str:
        return self.display_name()

    # -- building: __call__ is PureOp's ---------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """The node of ``self`` over ``inputs``. Default: Theano's, from the class's
        ``itypes`` and ``otypes`` (lists of types, e.g. ``[T.dmatrix]``)."""
        if hasattr(self, "itypes") and hasattr(self, "otypes"):
            return theano_ops.node_from_itypes(self, inputs)
        raise MethodNotDefined(f"{type(self).__name__} does not implement make_node "
                                  f"(nor lists itypes and otypes)")

    # -- the NumPy reference -------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Compute the outputs with NumPy; return one array per output, of the output dtype."""
        raise PerformNotDefined(self)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        """Output shapes as tuples of ints or symbolic int64 scalars."""
        raise MethodNotDefined(f"{type(self).__name__} does not implement infer_shape")

    def computes_in(self, node: Apply) -> str | None:
        """The dtype this node's arithmetic is done in, where it is not its output's (a
        reduction's accumulator, Theano's integer division in double); None: the output's.
        Read by the lowering (it casts to it) and by the device check (a float64 step
        needs JAX's 64-bit mode even when no variable is float64)."""
        return None

    def scalar_source(self, node: Apply, known: Callable[[Variable], Any]) -> Variable | None:
        """The variable whose scalar this node's output holds, when the graph's structure
        says so without running the node (``Alloc``'s value, a true ``Assert``'s input, an
        element of ``MakeVector``): Theano's ``get_scalar_constant_value`` looks through
        them. ``known(var)`` is the constant scalar ``var`` holds, or None. None here."""
        return None

    def element(self, node: Apply, index: int) -> Variable | None:
        """The variable that is element ``index`` of this node's vector output, when an
        input is (``MakeVector``'s); None here."""
        return None

    # -- computing ahead of the program (the deciders are in symnb.core.graph.static) ------------
    #: Running the op does more than compute its outputs (it prints, it checks a
    #: condition): it runs in the compiled program, never ahead of it (folded, or at
    #: trace time). An op holding inner graphs has effects when a node of them has.
    has_effects = False

    #: Whenever ``perform`` makes a NaN or Inf from finite inputs, NumPy raises a
    #: floating-point flag (a ufunc's arithmetic, checked by NumPy after each call): the
    #: test values' NaN/Inf warning then checks the outputs only when a flag was raised.
    nonfinite_raises_flag = False

    #: The op is an extension written in Python (its ``perform``), as Theano's
    #: documentation writes them, even though its class is symnb's (``as_op``'s): a
    #: compiled program runs its ``perform`` through a host callback (what
    #: :func:`perform_only` says). Ops defined outside symnb with a ``perform`` and no
    #: lowering rule are so without saying it.
    perform_only = False

    #: Each output's shape is always its test value's (whatever the inputs' shapes): a
    #: host callback may then take it when neither the output types nor ``infer_shape``
    #: give it (Theano's ops ran with shapes known only as they ran; XLA needs them first).
    fixed_output_shapes = False

    #: Computing the outputs ahead of the program may cost more than the program would (a
    #: loop; an array whose size its inputs do not bound): not folded, nor run at trace
    #: time by the interpreter; the op's lowering rule decides by size.
    costly_to_fold = False

    #: The outputs depend on the inputs' shapes only, not on their values (``x.shape``):
    #: known while the program is traced (XLA's shapes are static), and as the graph is
    #: built when the static types fix those shapes.
    reads_shape_only = False

    #: The lengths of the outputs depend on the input *values* (``np.unique``): XLA
    #: cannot compile it, so a compiled function runs it on the host between two
    #: programs (``symnb.compile.split_program``).
    length_from_values = False

    def shape_without_running(self, node: Apply) -> bool:
        """Whether ``infer_shape``'s answer for ``node`` is the shape its run would give
        whenever the op's own graph cannot fail, so that a shape alone need not run it
        (the shape rewrite; it checks broadcasts and reshapes itself). Default: an op that
        holds no inner graphs; an op holding some says when its graphs cannot fail."""
        return not self.inner_graphs

    def value_inputs(self, node: Apply, index: int) -> Sequence[int]:
        """Positions of ``node``'s inputs whose *values* output ``index``'s value may
        depend on (what a length needed while tracing must be specialized on). Default:
        every input. A loop narrows it to what its body reads for that output."""
        return range(len(node.inputs))

    # -- inner graphs (a loop body, the branches of a condition, a fused chain) -------------
    #: The graphs the op holds and runs: :class:`symnb.core.graph.inner_graph.InnerGraph` objects
    #: (``inputs``, ``outputs``, ``nodes`` in execution order). Whole-graph passes go into
    #: them with ``symnb.core.graph.walk_nodes``; printers read the members below, which
    #: every op holding graphs describes itself by.
    inner_graphs: tuple = ()

    #: True when :meth:`display_name` spells the inner graph out already (a fused chain,
    #: ``Composite{tanh((i0 + i1))}``): printers then do not show it apart.
    names_inner_graph = False

    @property
    def inner_inputs(self) -> list[Variable]:
        """The inputs of the inner graphs, each once (an IfElse's branches share theirs)."""
        seen: set[int] = set()
        inputs = []
        for graph in self.inner_graphs:
            for var in graph.inputs:
                if id(var) not in seen:
                    seen.add(id(var))
                    inputs.append(var)
        return inputs

    @property
    def inner_outputs(self) -> list[Variable]:
        """The outputs of the inner graphs, graph after graph."""
        return [var for graph in self.inner_graphs for var in graph.outputs]

    def inner_feeds(self, node: Apply) -> list[Variable | None]:
        """The outer variable that feeds each of :attr:`inner_inputs` when ``node`` runs
        (None where none does as it is). Default: ``node``'s inputs, in order."""
        return list(node.inputs[:len(self.inner_inputs)])

    def make_node_replacing_copies(self, inputs: Sequence[Variable], replacements: dict[int, Variable]
                                   ) -> Apply | None:
        """A node over ``inputs`` whose inner graphs read ``replacements[origin_key(v)]``
        in place of each copy ``v`` they hold of an outer variable being replaced
        (``symnb.core.graph.copies``); None where they hold none. Default: None (only an
        ``ifelse``'s branches hold copies of the user's variables)."""
        return None

    def inner_output_notes(self) -> list[str]:
        """A short note per inner output ('' where none): its graph's ``role`` (numbered
        when that graph has several outputs), e.g. an IfElse's ``then``/``else``."""
        notes = []
        for graph in self.inner_graphs:
            count = len(graph.outputs)
            if not graph.role:
                notes.extend([""] * count)
            else:
                notes.extend([graph.role] if count == 1 else [f"{graph.role} {i}" for i in range(count)])
        return notes

    # -- differentiation -------------------------------------------------------------------
    #: False for ops whose outputs carry no gradient to their inputs (shape, a random
    #: draw's lengths...): sn.grad stops there.
    differentiable = True
    #: True for ops whose outputs are always integers or booleans (comparisons, argmax,
    #: any): sn.grad passes zeros to their inputs without asking ``L_op`` (Theano's rule
    #: for integer-valued outputs), so such an op needs no ``L_op``.
    discrete_outputs = False

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Variable | None]:
        """Gradients of a cost with respect to each input, given ``output_grads``.

        Return ``None`` for an input the outputs do not depend on differentiably.
        Default: Theano's ``grad(inputs, output_grads)`` when the class defines one
        (``output_grads`` holds None for an output the cost does not depend on; for an op
        defined outside symnb, a ``DisconnectedType`` variable, as Theano gives).
        """
        grad = getattr(self, "grad", None)
        if callable(grad):
            if type(self).__module__.partition(".")[0] != "symnb":
                # A user's op, written for Theano: its grad is given a DisconnectedType
                # variable for an output the cost does not depend on (Theano's contract;
                # such ops test ``isinstance(g.type, DisconnectedType)``), not None.
                from symnb.core.gradient_types import disconnected_type

                output_grads = [disconnected_type() if g is None else g for g in output_grads]
            return list(grad(list(inputs), list(output_grads)))
        raise NotImplementedError(f"{self.display_name()} has no gradient rule (L_op, or "
                                  f"Theano's grad)")


def perform_only(op: Op) -> bool:
    """Whether ``op`` is written in Python only (Theano's way of extending it): its class
    has a ``perform`` of its own and comes from outside symnb, or says so
    (``Op.perform_only``). Unless a lowering rule is registered for its class, a
    compiled program runs its perform through a host callback."""
    cls = type(op)
    if cls.perform is Op.perform:
        return False
    return cls.perform_only or cls.__module__.partition(".")[0] != "symnb"


def operand_text(text: str) -> str:
    """``text`` as the operand of ``[...]`` or ``.shape``: parenthesised unless a name,
    or already indexed or called (``x``, ``h[0]``, ``T.dot(x, w)``)."""
    depth, top_level_space = 0, False
    for char in text:
        depth += (char in "([{") - (char in ")]}")
        top_level_space = top_level_space or (char == " " and depth == 0)
    return f"({text})" if top_level_space or text.startswith("-") else text


def snake_case(name: str) -> str:
    """``LogSoftmax`` -> ``log_softmax``, ``AbstractConv2d`` -> ``abstract_conv2d``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _prop_str(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_prop_str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return str(value)
