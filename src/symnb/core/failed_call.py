"""The values of a failed call: the graph replayed in NumPy with that call's arguments.

When a compiled function fails on its arguments (a NaN under ``NanGuardMode``, an index
or ``Assert`` check, a shape a node cannot take), the program's own values are gone or
were never computed. The replay runs the function's graph with the one NumPy evaluator
(``symnb.core.graph.evaluate``) on the call's arguments and the shared variables' values as
they were before the call (a failed call leaves them unchanged), watching every node,
inner graphs included, until the failing node fails. What it records is the failing
node's input values, its outputs where it produced them, and, for a node in a loop
body, the iteration. Errors carry it as ``err.call_values`` (:class:`CallValues`).
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from symnb.core.graph.error_record import ErrorRecord, LoopLevel, ValueRecord, bad_entries, short_summary
from symnb.core.graph.errors import input_records, label
from symnb.core.graph.evaluate import PerformContractError, evaluate, run_node, stepping
from symnb.core.graph import Apply, Constant, Variable, toposort

__all__ = ["CallValues", "NodeValues", "replay", "bad_entries", "short_summary", "loop_levels",
           "describe_loops", "keep_inner", "build_values", "failure_values"]

#: ``stop(evaluation) -> bool``: is this evaluation (a :class:`NodeValues`) the one sought?
Stop = Callable[["NodeValues"], bool]


class NodeValues(NamedTuple):
    """One evaluation of a node in a replay."""

    node: Apply
    inputs: list[np.ndarray]
    #: None when the node raised ``error`` on these inputs.
    outputs: list[np.ndarray] | None
    error: Exception | None
    #: The node's evaluation within the current run of the node holding its graph
    #: (the iteration, in a loop body); 0 for a node of the outer graph.
    evaluation: int
    #: The node whose inner graph this evaluation ran in (innermost), if any.
    holder: Apply | None
    #: Every level of inner graphs around this evaluation, outermost first:
    #: ``((holder, its evaluation), ...)`` -- for nested loops, the iteration of each
    #: loop (the last pair is ``(holder, evaluation)``); ``()`` in the outer graph.
    levels: tuple = ()


class _Found(BaseException):
    """Stops the replay (a BaseException: the evaluator's error policies, which wrap
    every Exception of an inner graph, let it through)."""


def replay(nodes: Sequence[Apply], env: dict[int, Any], stop: Stop) -> tuple[NodeValues | None,
                                                                            NodeValues | None]:
    """Evaluate ``nodes`` (execution order; ``env`` seeded with the graph's inputs, as
    for :func:`symnb.core.graph.evaluate.evaluate`) until ``stop`` says an evaluation is the
    one sought, at any depth of inner graphs.

    Returns ``(found, other)``: the evaluation found (None if none was), and the first
    node that failed in NumPy without being sought (None if none did).
    """
    # (token of the current run of an inner graph, its holder, the levels around it)
    holders: list[tuple[int, Apply | None, tuple]] = [(0, None, ())]
    tokens = itertools.count(1)
    counts: collections.Counter = collections.Counter()
    result: list[NodeValues] = []
    failed: list[NodeValues] = []

    def watch(node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        token, holder, around = holders[-1]
        evaluation = counts[token, id(node)]
        counts[token, id(node)] += 1
        levels = around + ((holder, evaluation),) if holder is not None else ()
        if node.op.inner_graphs:  # its inner graphs run within this evaluation of it
            holders.append((next(tokens), node, levels))
        try:
            outputs = run_node(node, inputs)
        except (_Found, PerformContractError):
            raise
        except Exception as error:
            seen = NodeValues(node, list(inputs), None, error, evaluation, holder, levels)
            if stop(seen):
                result.append(seen)
                raise _Found() from None
            if not failed:
                failed.append(seen)
            raise
        finally:
            if node.op.inner_graphs:
                holders.pop()
        seen = NodeValues(node, list(inputs), outputs, None, evaluation, holder, levels)
        if stop(seen):
            result.append(seen)
            raise _Found()
        return outputs

    # The values are what the error shows; NumPy's warnings about them would be noise.
    with np.errstate(all="ignore"), stepping(watch):
        try:
            evaluate(nodes, env, step=watch)
        except _Found:
            pass
        except PerformContractError:
            raise
        except Exception:  # the NumPy reference failed elsewhere first: ``failed`` says where
            pass
    return (result[0] if result else None), (failed[0] if failed else None)


class CallValues:
    """The values of the call that failed, at the node that failed
    (``err.call_values``; ``GraphExplorer(err)`` and the error's HTML show them).

    - ``arguments``: ``[(name, value)]``, the call's arguments, then the shared
      variables' values before the call;
    - ``node``: the failing node (``err.node``);
    - ``inputs``: its input values in this call (NumPy arrays, in input order);
    - ``outputs``: its output values, where the NumPy replay computed them, else None;
    - ``iteration``: for a node inside a loop body, the iteration that failed, else None;
    - ``loops``: ``((loop node, iteration), ...)``, every loop it failed in, outermost first;
    - ``where``: ``"iteration 3 of Scan{step}"`` (every level of nested loops, innermost
      first: ``"iteration 1 of Scan{inner}, in iteration 2 of Scan{outer}"``), or ``""``
      for a node of the outer graph;
    - ``note``: what the replay could not establish (``""`` when it found the failure);
    - ``value_of(var)``: any variable's value in this call, where the replay computed it
      (every node of the outer graph run before the failure; the failing node's inputs;
      a node of a loop body: its value in the last iteration the replay ran, which
      ``iteration_of(var)`` names);
    - ``function``: the compiled function that failed (set by the call), else None;
    - ``loops``: ``[(loop node, iteration)]`` around the failing node, outermost first
      (every level of nested scans; ``where`` names them all).

    Every value is computed from the call's arguments by the NumPy evaluator, never a
    test value.
    """

    def __init__(self, arguments: list[tuple[str, np.ndarray]], node: Apply,
                 found: NodeValues | None, other: NodeValues | None,
                 last: NodeValues | None = None, computed: dict[int, tuple] | None = None,
                 in_loops: dict[int, tuple] | None = None) -> None:
        """``found``: the failing evaluation the replay found; ``other``: a node that
        failed in NumPy before it; ``last``: the node's last evaluation, shown when the
        failure was not found; ``computed``: ``{id(variable): (variable, value)}``, every
        value the replay computed (the variable kept: its id stays its own);
        ``in_loops``: ``{id(variable): (variable, value, (evaluation, holder))}``, the
        values of inner graphs' variables, each of the last evaluation the replay ran."""
        self.arguments = arguments
        #: What the values were computed from, as the views say it: a call's arguments,
        #: or, for a graph that failed while it was built, its test values.
        self.values_from = "this call's arguments"
        self.function: Any = None
        #: ``(nodes in execution order, the program's inputs)``: what replays the call
        #: again (another iteration's values, :mod:`symnb.core.loop_values`); None when
        #: the values cannot be replayed again.
        self.program: tuple[list[Apply], list[Variable]] | None = None
        self._computed = dict(computed or {})
        self._in_loops = dict(in_loops or {})
        self.node = node
        self.note = _note(node, found, other)
        found = found if found is not None else last
        self.inputs: list[np.ndarray] | None = found.inputs if found is not None else None
        self.outputs: list[np.ndarray] | None = found.outputs if found is not None else None
        #: The loops around the failing evaluation, outermost first:
        #: ``[(the loop's node, the iteration)]`` (nested scans: one pair per level).
        self.loops: list[tuple[Apply, int]] = loop_levels(found.levels) if found is not None else []
        #: The failing evaluation's levels of inner graphs (loops and others), outermost first.
        self.levels: tuple = found.levels if found is not None else ()
        self.iteration: int | None = self.loops[-1][1] if self.loops else None
        self.where = describe_loops(self.loops)

    def loop_levels(self) -> tuple[LoopLevel, ...]:
        """The loops the failing node ran in, outermost first, with the iteration."""
        return tuple(LoopLevel(h.op.display_name(), i) for h, i in self.loops)

    def record(self, record: ErrorRecord) -> ErrorRecord:
        """``record`` (the error's) with this call's values: the failing node's inputs
        shaped and valued as in this call, its outputs (``computed=False`` where it did
        not produce them), the loops' iterations and what the replay could not tell."""
        inputs = input_records(self.node, self.inputs)
        outputs = tuple(ValueRecord(i, label(v), str(v.dtype) if x is None else str(np.asarray(x).dtype),
                                    tuple(v.type.shape) if x is None else np.shape(x), value=x,
                                    computed=x is not None,
                                    constant=isinstance(v, Constant))
                        for i, (v, x) in enumerate(self.output_values()))
        if self.inputs is not None:
            inputs = tuple(dataclasses.replace(r, value=x) for r, x in zip(inputs, self.inputs))
        return dataclasses.replace(record, inputs=inputs, outputs=outputs, values_from="this call",
                                   loops=self.loop_levels(), call_note=self.note)

    def input_values(self) -> list[tuple[Variable, np.ndarray | None]]:
        """``[(input variable, its value in this call)]`` of the failing node."""
        values = self.inputs or [None] * len(self.node.inputs)
        return list(zip(self.node.inputs, values))

    def output_values(self) -> list[tuple[Variable, np.ndarray | None]]:
        """``[(output variable, its value in this call, or None)]`` of the failing node."""
        values = self.outputs or [None] * len(self.node.outputs)
        return list(zip(self.node.outputs, values))

    def value_of(self, var: Variable) -> np.ndarray | None:
        """``var``'s value in this call, or None where the replay did not compute it
        (a node after the failure, or one the replay could not reach)."""
        for known, value in self.input_values() + self.output_values():
            if known is var and value is not None:
                return value
        if var.owner is self.node:  # the failing evaluation did not compute it: no other one's
            return None
        if isinstance(var, Constant):
            return var.data
        entry = self._computed.get(id(var)) or self._in_loops.get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def iteration_of(self, var: Variable, name_of: Any = None) -> str:
        """For a variable of a loop body whose value :meth:`value_of` gives, the
        iteration it is of (``"iteration 4 of Scan{rnn}"``), or, for an inner input
        that is its outer feed's value itself (a non-sequence, a shared weight), that
        it is that value in every iteration; else ``""``. ``name_of(loop node)``: how
        the loops are called (as :func:`describe_loops`)."""
        name_of = name_of or (lambda holder: holder.op.display_name())
        entry = self._in_loops.get(id(var))
        if entry is None or entry[0] is not var or id(var) in self._computed:
            return ""
        evaluation, holder, *more = entry[2]  # (evaluation, holder[, levels])
        loops = loop_levels(more[0]) if more else []
        feeds = dict(zip(map(id, holder.op.inner_inputs), holder.op.inner_feeds(holder)))
        outer = feeds.get(id(var))
        known = self._computed.get(id(outer)) if outer is not None else None
        if known is not None and known[1] is entry[1]:  # passed in whole: a non-sequence
            return f"{label(outer)}'s value, passed to every run of {name_of(holder)}"
        if not getattr(holder.op, "loops", False):
            return f"in {name_of(holder)}"
        return describe_loops(loops, name_of) if loops else f"iteration {evaluation} of {name_of(holder)}"

    def shapes(self) -> dict[Variable, tuple[str, tuple]]:
        """``{variable: (dtype, shape)}`` of every value the replay computed: what a
        picture of the failed call writes on its edges (as a call's ``last_shapes``)."""
        known = {id(v): (v, x) for v, x in self.input_values() + self.output_values() if x is not None}
        known = {**self._computed, **known}
        return {v: (str(np.asarray(x).dtype), np.shape(x)) for v, x in known.values()}

    def lines(self) -> list[str]:
        """The values as text lines (as the error's message shows them)."""
        node = self.node
        return self.record(ErrorRecord("", node=node, op=node.op.display_name())).call_lines()

    def __repr__(self) -> str:
        return "\n".join(self.lines())


def loop_levels(levels: Sequence[tuple[Apply, int]]) -> list[tuple[Apply, int]]:
    """The loops among ``levels`` (a :class:`NodeValues`' ``levels``): ``[(loop node,
    iteration)]``, outermost first (a fused chain or a condition is no loop)."""
    return [(holder, n) for holder, n in levels if getattr(holder.op, "loops", False)]


def describe_loops(loops: Sequence[tuple[Apply, int]], name_of: Any = None) -> str:
    """``"iteration 3 of Scan{step}"``; nested loops innermost first, every level named:
    ``"iteration 1 of Scan{inner}, in iteration 2 of Scan{outer}"``; ``""`` for none.
    ``name_of(loop node)``: how the loops are called (default: as messages call ops;
    graph views pass their ``scan(step)``)."""
    name_of = name_of or (lambda holder: holder.op.display_name())
    return ", in ".join(f"iteration {n} of {name_of(holder)}" for holder, n in reversed(loops))


def keep_inner(kept: dict[int, tuple], seen: NodeValues) -> None:
    """Keep the values an evaluation inside an inner graph read and made, with its
    evaluation (the iteration, in a loop body): later evaluations replace earlier ones."""
    where = (seen.evaluation, seen.holder, seen.levels)  # levels: every loop around it
    for var, value in zip(seen.node.inputs, seen.inputs):
        kept[id(var)] = (var, value, where)
    for var, value in zip(seen.node.outputs, seen.outputs or ()):
        kept[id(var)] = (var, value, where)


def build_values(holder: Apply, failing: Apply) -> CallValues | None:
    """The values of a loop that failed while its graph was built (its test values
    computed): ``holder``'s graph replayed in NumPy on its roots' test values, up to the
    evaluation of ``failing`` (a node of its body, at any depth) that raised -- what a
    failed call's :class:`CallValues` holds, so that the views show a build-time loop
    failure as they show a call's: the failing node in the open body, the failing
    iteration's inputs, any other iteration on demand. None when a root has no test
    value (nothing to replay from)."""
    nodes = toposort(holder.outputs)
    roots = list({id(v): v for n in nodes for v in n.inputs if v.owner is None}.values())
    arguments = []
    for var in roots:
        value = var.data if isinstance(var, Constant) else var._test_value
        if value is None and hasattr(var, "get_value"):
            value = var.get_value(borrow=True)
        if value is None:
            return None
        arguments.append((label(var), np.asarray(value)))
    env = {id(v): np.array(value, copy=True) for v, (_, value) in zip(roots, arguments)}
    in_loops: dict[int, tuple] = {}
    last: list[NodeValues] = []

    def stop(seen: NodeValues) -> bool:
        if seen.holder is not None:
            keep_inner(in_loops, seen)
        if seen.node is failing:
            last[:] = [seen]
        return seen.node is failing and seen.error is not None

    found, other = replay(nodes, env, stop)
    computed = {id(v): (v, env[id(v)]) for n in nodes for v in n.outputs if id(v) in env}
    computed.update((id(v), (v, env[id(v)])) for v in roots if id(v) in env)
    values = CallValues(arguments, failing, found, other, last[0] if last else None, computed, in_loops)
    values.values_from = "the test values"
    values.program = (nodes, roots)  # replayed again for another iteration
    return values


def failure_values(error: BaseException) -> CallValues | None:
    """The values a view of ``error`` shows: a failed call's (``err.call_values``); for
    an error raised in a loop body while the graph was built (``err.node`` the loop,
    ``err.original.node`` the body's node that failed), the loop replayed on the test
    values (:func:`build_values`), computed once and kept on the error (not as
    ``call_values``: its message and HTML stay a build error's); else None."""
    values = getattr(error, "call_values", None)
    if values is not None:
        return values
    if "_build_values" in vars(error):
        return error._build_values
    holder = getattr(error, "node", None)
    inner = getattr(getattr(error, "original", None), "node", None)
    values = None
    if isinstance(holder, Apply) and isinstance(inner, Apply) and inner is not holder and holder.op.inner_graphs:
        try:
            values = build_values(holder, inner)
        except Exception:  # noqa: BLE001 -- the view falls back to the error alone
            values = None
        values = values if values is not None and values.inputs is not None else None
    error._build_values = values
    return values


def _note(node: Apply, found: NodeValues | None, other: NodeValues | None) -> str:
    if found is not None:
        return ""
    if other is not None:
        return (f"the NumPy replay failed first at {other.node.op.display_name()} "
                f"({type(other.error).__name__}: {other.error}), so the values of "
                f"{node.op.display_name()} are not known")
    return (f"the NumPy replay of this call ran {node.op.display_name()} without the failure: "
            f"the compiled program and the NumPy reference disagree here")
