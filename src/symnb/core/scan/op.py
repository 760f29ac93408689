"""The ``Scan`` op: a loop whose body is an inner graph.

Layout of a Scan node (``ScanInfo`` records the shapes of these lists):

- outer inputs: ``[n_steps, *sequences, *initial_states, *non_sequences]`` -- ``n_steps``
  is the int64 number of iterations (the front end already took the minimum with the
  sequences' lengths); one initial state per output that has taps;
- inner inputs (the step function's arguments): one per sequence tap, one per output
  tap, one per non-sequence;
- inner outputs: one per output, then the stopping condition of a ``scan_until`` loop;
- outer outputs: per output, every step stacked along a new axis 0 (or only the last
  step where ``return_last`` says so), then, for a ``scan_until`` loop, the int64
  number of steps run.

Sequence taps follow Theano: with ``lo = min(taps, 0)``, step ``t`` reads
``seq[t + k - lo]`` for tap ``k``. Output taps are negative: tap ``k`` reads the value
``-k`` steps back, from the initial state for the first steps. An output with taps
``(-1,)`` takes its state itself as initial value; other taps take the ``-min(taps)``
previous steps stacked along axis 0. ``go_backwards`` reads the first ``n_steps``
positions of each sequence window in reverse.

A ``scan_until`` loop stops after the first step whose condition is true. XLA needs
static shapes, so the node's stacked outputs keep ``n_steps`` rows (its buffer): rows
past the last step run repeat the last step's value (``outputs[-1]`` is the final state)
and the extra output counts the steps run. ``scan`` returns the rows run, as Theano
did: ``StepsRun`` of the buffer and the count (``symnb.core.scan.rows``).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from symnb.core.absent import class_getattr
from symnb.core.graph.errors import label
from symnb.core.graph_compare import equal_computations
from symnb.core.gradient import gradient_rule
from symnb.core.graph.basic import Apply, Variable, value_ancestors
from symnb.core.graph.inner_graph import InnerGraph, infer_inner_shapes
from symnb.core.graph.op import Op
from symnb.core.scan.perform import run_loop
from symnb.core.scan.taps import is_plain_state, seq_window, state_depth
from symnb.core.graph.type import TensorType

__all__ = ["Scan", "ScanInfo", "seq_window", "state_depth"]


class ScanInfo(NamedTuple):
    """The static description of a loop (hashable, part of the op's identity)."""

    seq_taps: tuple[tuple[int, ...], ...]
    out_taps: tuple[tuple[int, ...], ...]      # () for an output without recurrence
    n_non_seqs: int
    go_backwards: bool = False
    truncate_gradient: int = -1
    as_while: bool = False
    return_last: tuple[bool, ...] = ()
    name: str = "scan_fn"

    @property
    def n_seqs(self) -> int:
        return len(self.seq_taps)

    @property
    def n_outs(self) -> int:
        return len(self.out_taps)

    @property
    def recurrent(self) -> list[int]:
        """Indices of the outputs with taps (each has an initial state input)."""
        return [j for j, taps in enumerate(self.out_taps) if taps]


class Scan(Op):
    """A loop over an inner graph (built by :func:`symnb.core.scan.scan`)."""

    __props__ = ("inner", "info")
    costly_to_fold = True  # a long loop is better run by XLA than ahead of it
    loops = True  # its inner graph runs once per iteration (a failed call's replay counts them)

    def __init__(self, inner: InnerGraph, info: ScanInfo) -> None:
        self.inner = inner
        self.info = info

    # Theano's internals of its Scan (``op.fn``...) raise, saying why symnb lacks them.
    __getattr__ = class_getattr("symnb.scan_module.scan_op.Scan")

    # -- identity: Theano's (two loops are equal when their inner graphs compute the same) --
    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other) or self.info != other.info:
            return False
        mine, theirs = self.inner, other.inner
        return mine is theirs or (
            [v.type for v in mine.inputs] == [v.type for v in theirs.inputs]
            and [v.type for v in mine.outputs] == [v.type for v in theirs.outputs]
            and equal_computations(mine.outputs, theirs.outputs, mine.inputs, theirs.inputs))

    def __hash__(self) -> int:
        inner = self.inner
        return hash((type(self), self.info, tuple(v.type for v in inner.inputs),
                     tuple(v.type for v in inner.outputs)))

    # -- the inner-graph interface of Op (what printing and whole-graph passes read) ------
    @property
    def inner_graphs(self) -> tuple[InnerGraph, ...]:
        return (self.inner,)

    def inner_feeds(self, node: Apply) -> list[Variable | None]:
        """In inner-input order: a sequence feeds one inner input per tap, a recurrent
        output's initial state one per tap, then the non-sequences one each."""
        _, seqs, inits, non_seqs = self.split(node.inputs)
        feeds = [seq for seq, taps in zip(seqs, self.info.seq_taps) for _ in taps]
        for init, j in zip(inits, self.info.recurrent):
            feeds.extend([init] * len(self.info.out_taps[j]))
        return feeds + non_seqs

    def inner_output_notes(self) -> list[str]:
        """``until`` for the stopping condition of a ``scan_until`` loop."""
        notes = [""] * len(self.inner.outputs)
        if self.info.as_while:
            notes[-1] = "until"
        return notes

    def public_name(self) -> str:
        """``scan(step)``: the loop over the user's step function."""
        return f"scan({self.info.name})"

    def display_name(self) -> str:
        kind = ",until" if self.info.as_while else ""
        return f"Scan{{{self.info.name}{kind}}}"

    def describe(self) -> str:
        return f"scan {self.info.name!r}"

    # -- Theano's names for the parts of a loop ------------------------------------------------
    # Theano's Scan exposes its step graph as ``op.inputs``/``op.outputs`` and splits input
    # lists with ``inner_seqs``/``outer_seqs``/...; real code and Theano's tests read these.
    # The layout is symnb's (one outer input per sequence, whatever its taps; shared
    # variables among the non-sequences), so only the splits that mean the same are given.
    @property
    def inputs(self) -> list[Variable]:
        """The step function's inputs (Theano's ``Scan.inputs``): one per sequence tap,
        one per output tap, then one per non-sequence."""
        return list(self.inner.inputs)

    @property
    def outputs(self) -> list[Variable]:
        """The step function's outputs (Theano's ``Scan.outputs``): one per output, then
        the stopping condition of a ``scan_until`` loop."""
        return list(self.inner.outputs)

    @property
    def n_seqs(self) -> int:
        """The number of sequences (Theano's ``Scan.n_seqs``)."""
        return self.info.n_seqs

    @property
    def n_outs(self) -> int:
        """The number of outputs (Theano's ``Scan.n_outs``)."""
        return self.info.n_outs

    def _n_inner_seqs(self) -> int:
        return sum(len(taps) for taps in self.info.seq_taps)

    def inner_seqs(self, inner_inputs: Sequence[Variable]) -> list[Variable]:
        """The inner inputs that read the sequences (one per tap), of the list
        ``inner_inputs`` laid out as :attr:`inputs` (Theano's ``Scan.inner_seqs``)."""
        return list(inner_inputs[:self._n_inner_seqs()])

    def inner_non_seqs(self, inner_inputs: Sequence[Variable]) -> list[Variable]:
        """The inner inputs that receive the non-sequences (Theano's ``inner_non_seqs``)."""
        return list(inner_inputs[len(inner_inputs) - self.info.n_non_seqs:])

    def outer_seqs(self, node_or_inputs: Apply | Sequence[Variable]) -> list[Variable]:
        """The sequences among a node's inputs (an Apply or its input list; Theano's
        ``Scan.outer_seqs``)."""
        return self.split(_input_list(node_or_inputs))[1]

    def outer_non_seqs(self, node_or_inputs: Apply | Sequence[Variable]) -> list[Variable]:
        """The non-sequences among a node's inputs (Theano's ``Scan.outer_non_seqs``)."""
        return self.split(_input_list(node_or_inputs))[3]

    # -- input layout ----------------------------------------------------------------------
    def split(self, items: Sequence[Any]) -> tuple[Any, list, list, list]:
        """``(n_steps, sequences, initial_states, non_sequences)`` of outer inputs."""
        info = self.info
        n_seqs, n_states = info.n_seqs, len(info.recurrent)
        return (items[0], list(items[1:1 + n_seqs]),
                list(items[1 + n_seqs:1 + n_seqs + n_states]), list(items[1 + n_seqs + n_states:]))

    def outer_position(self, inner_position: int) -> int:
        """The position of the outer input that feeds inner input ``inner_position``."""
        info, q = self.info, inner_position
        for i, taps in enumerate(info.seq_taps):
            if q < len(taps):
                return 1 + i
            q -= len(taps)
        for k, j in enumerate(info.recurrent):
            if q < len(info.out_taps[j]):
                return 1 + info.n_seqs + k
            q -= len(info.out_taps[j])
        return 1 + info.n_seqs + len(info.recurrent) + q

    # -- what depends on what, over the steps ------------------------------------------------
    def inner_sources(self, variables: Sequence[Variable]) -> set[int]:
        """Positions of the inner inputs whose values those of the inner ``variables``
        depend on at some step: a state's input holds its output of the step before, so
        what that output depends on counts too."""
        info = self.info
        state_output, q = {}, sum(len(taps) for taps in info.seq_taps)
        for j in info.recurrent:
            for _ in info.out_taps[j]:
                state_output[q] = j
                q += 1
        position = {id(v): i for i, v in enumerate(self.inner.inputs)}
        found: set[int] = set()
        followed: set[int] = set()
        pending = list(variables)
        while pending:
            roots = [position[id(v)] for v in value_ancestors(pending) if id(v) in position]
            pending = []
            for q in roots:
                found.add(q)
                j = state_output.get(q)
                if j is not None and j not in followed:
                    followed.add(j)
                    pending.append(self.inner.outputs[j])
        return found

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Theano's ``Op.connection_pattern``: ``[i][j]`` is True when output ``j``
        depends on outer input ``i`` through the inner graph, over the steps (a state
        reads its own earlier outputs). The number of steps is connected to none, as in
        Theano. The layout is symnb's (inputs: n_steps, sequences, initial states,
        non-sequences; outputs as ``scan`` returns them, then the shared updates)."""
        pattern = [[False] * len(node.outputs) for _ in node.inputs]
        for j in range(len(node.outputs)):
            for q in self.inner_sources([self.inner.outputs[j]]):
                pattern[self.outer_position(q)][j] = True
        return pattern

    def value_inputs(self, node: Apply, index: int) -> list[int]:
        """The number of steps and the outer inputs feeding what the body reads for
        output ``index`` (a ``scan_until`` loop: and for its stopping condition)."""
        memo = self.__dict__.setdefault("_value_inputs", {})  # ops are immutable
        if index not in memo:
            info = self.info
            targets = [self.inner.outputs[index]] if index < info.n_outs else []
            if info.as_while:
                targets.append(self.inner.outputs[info.n_outs])
            memo[index] = sorted({0} | {self.outer_position(q) for q in self.inner_sources(targets)})
        return memo[index]

    # -- building ----------------------------------------------------------------------------
    def make_node(self, n_steps: Variable, *inputs: Variable) -> Apply:
        info = self.info
        _, seqs, inits, non_seqs = self.split([n_steps, *inputs])
        if n_steps.ndim != 0 or n_steps.dtype != "int64":
            raise TypeError(f"Scan: n_steps must be an int64 scalar, got {n_steps.type.short()}")
        if len(non_seqs) != info.n_non_seqs:
            raise TypeError(f"Scan: expected {info.n_non_seqs} non-sequences, got {len(non_seqs)}")
        for outer, inner, extra in self._pairs(seqs, inits, non_seqs):
            if outer.dtype != inner.dtype or outer.ndim != inner.ndim + extra:
                raise TypeError(f"{self.display_name()}: input {label(outer)!r} has type "
                                f"{outer.type.short()}, which does not fit the step function's "
                                f"{label(inner)!r} ({inner.type.short()}"
                                f"{', one step of it' if extra else ''})")
        length = _static_length(n_steps)
        types = []
        for j, out in enumerate(self.inner.outputs[:info.n_outs]):
            row = out.type.shape
            last = bool(info.return_last) and info.return_last[j]
            types.append(TensorType(out.dtype, row if last else (length, *row)))
        if info.as_while:
            types.append(TensorType("int64", ()))
        return Apply(self, [n_steps, *inputs], types)

    def _pairs(self, seqs: list, inits: list, non_seqs: list) -> list[tuple[Variable, Variable, int]]:
        """``(outer input, an inner input it feeds, extra leading axes of the outer)``."""
        info, inner = self.info, self.inner.inputs
        pairs, q = [], 0
        for taps, seq in zip(info.seq_taps, seqs):
            pairs.append((seq, inner[q], 1))
            q += len(taps)
        for j, init in zip(info.recurrent, inits):
            taps = info.out_taps[j]
            pairs.append((init, inner[q], 0 if is_plain_state(taps) else 1))
            q += len(taps)
        pairs.extend((v, inner[q + i], 0) for i, v in enumerate(non_seqs))
        return pairs

    # -- the NumPy reference -------------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return run_loop(self, node, inputs)

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        info = self.info
        rows = _inner_output_shapes(self, node, input_shapes)
        shapes = []
        for j, row in enumerate(rows):
            last = bool(info.return_last) and info.return_last[j]
            shapes.append(tuple(row) if last else (node.inputs[0], *row))
        if info.as_while:
            shapes.append(())
        return shapes

    def shape_without_running(self, node: Apply) -> bool:
        """A loop's shapes hold without running it (Theano's ``infer_shape`` removes a
        Scan from a function that reads only its shapes) when no step can fail: each node
        of the body is a dimshuffle or an elementwise op whose operands' lengths are known
        to agree, with no effects, and each state's step keeps the state's shape."""
        from symnb.core.rewriting.structure import may_mismatch
        from symnb.core.tensor.elemwise import Elemwise
        from symnb.core.tensor.shape import DimShuffle, shape_i

        for inner_node in self.inner.nodes:
            op = inner_node.op
            if op.has_effects or not (isinstance(op, DimShuffle) or (
                    isinstance(op, Elemwise) and not may_mismatch(inner_node))):
                return False
        info = self.info
        _, _, inits, _ = self.split(node.inputs)
        input_shapes = [tuple(shape_i(v, d) for d in range(v.ndim)) for v in node.inputs]
        try:
            rows = _inner_output_shapes(self, node, input_shapes)
        except NotImplementedError:
            return False
        for init, j in zip(inits, info.recurrent):
            state = input_shapes[node.inputs.index(init)]
            row = state if is_plain_state(info.out_taps[j]) else state[1:]
            if not _same_shape(rows[j], row):
                return False
        return True

    # -- differentiation -------------------------------------------------------------------------
    def L_op(self, inputs, outputs, output_grads):
        # The rule builds a backward scan, so it lives above this module (core/scan/grad.py
        # registers it for Scan); asking the registry keeps op.L_op working for callers.
        return gradient_rule(self, inputs, outputs, output_grads)


def _same_shape(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Whether two shapes (entries: ints or int scalars) are known to be equal."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y or (not isinstance(x, Variable) and not isinstance(y, Variable) and int(x) == int(y)):
            continue
        if not (isinstance(x, Variable) and isinstance(y, Variable)
                and equal_computations([x], [y])):
            return False
    return True


def _input_list(node_or_inputs: Apply | Sequence[Variable]) -> list[Variable]:
    return list(node_or_inputs.inputs if isinstance(node_or_inputs, Apply) else node_or_inputs)


def _static_length(n_steps: Variable) -> int | None:
    from symnb.core.tensor.shape import static_int

    try:
        length = static_int(n_steps)
    except (TypeError, ValueError):
        return None
    return length if length is not None and length >= 0 else None


def _inner_output_shapes(op: Scan, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
    """Row shapes of the outputs, from the inner graph's shape rules."""
    rows = infer_inner_shapes(op.inner, _inner_input_shapes(op, input_shapes), op.display_name())
    return rows[:op.info.n_outs]


def _inner_input_shapes(op: Scan, input_shapes: Sequence[tuple]) -> list[tuple]:
    info = op.info
    _, seq_shapes, init_shapes, non_seq_shapes = op.split(input_shapes)
    shapes = []
    for taps, shape in zip(info.seq_taps, seq_shapes):
        shapes.extend([tuple(shape[1:])] * len(taps))
    for j, shape in zip(info.recurrent, init_shapes):
        taps = info.out_taps[j]
        row = tuple(shape) if is_plain_state(taps) else tuple(shape[1:])
        shapes.extend([row] * len(taps))
    shapes.extend(tuple(s) for s in non_seq_shapes)
    return shapes
