"""The one NumPy evaluator: a graph run node by node with each op's ``perform``.

Everything in the core that computes values without compiling uses it: test values
(``symnb.core.graph.test_value``), inner graphs (loop bodies, branches, fused chains),
:func:`evaluate_graph`, static values (``symnb.core.graph.static``) and constant folding.
It is one loop (:func:`evaluate`) around one per-node step (:func:`run_node`: the op's
``perform``, whose outputs are checked to have exactly the declared dtypes), and an
*error policy* saying what a node that fails means to the caller:

- :data:`RAISE`: the error propagates as is (a compiled function's reference run);
- :data:`NOT_KNOWN`: the values are not known, the loop stops and returns False
  (static values and folding: the graph's own error is reported when it runs);
- :func:`at_line`: an :class:`InnerNodeError` naming the failing node's line and which
  evaluation it was (``iteration 3 of scan 'step'``);
- any callable ``policy(node, inputs, error)``: it raises, or returns to stop the loop
  (the test values' report, by ``config.compute_test_value``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

import numpy as np

from symnb.core.graph.error_record import LoopLevel
from symnb.core.graph.errors import InnerNodeError, MissingTestValueError, error_from_record, label, node_record
from symnb.core.graph.basic import Apply, Constant, Variable, graph_inputs, toposort
from symnb.core.graph.type import describe_shape

__all__ = ["run_node", "evaluate", "evaluate_graph", "RAISE", "NOT_KNOWN", "at_line",
           "PerformContractError", "stepping"]


class PerformContractError(AssertionError):
    """Internal error: a ``perform`` returned a value of another dtype or number of
    dimensions than the node declares. A bug in symnb, never hidden by a policy."""


def run_node(node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The per-node step: ``node``'s outputs from its input values, by the op's ``perform``.

    Every NumPy evaluation goes through this check: a perform must return exactly the
    output dtypes (what the compiled program computes too), never "close enough".
    """
    outputs = node.op.perform(node, inputs)
    for var, value in zip(node.outputs, outputs):
        if value.dtype != var.type.numpy_dtype or value.ndim != var.type.ndim:
            raise PerformContractError(
                f"internal error: {node.op.display_name()}.perform returned {value.dtype} "
                f"{describe_shape(value.shape)} for an output of type {var.type!r}")
    return outputs


#: What a failing node means (see the module docstring).
ErrorPolicy = Union[str, Callable[[Apply, list, Exception], None]]
RAISE = "raise"
NOT_KNOWN = "not known"
#: The per-node step's signature.
Step = Callable[[Apply, Sequence[np.ndarray]], Sequence[np.ndarray]]


_steps = threading.local()  # the step of evaluations that name none (see ``stepping``)


@contextlib.contextmanager
def stepping(step: Step) -> Iterator[Step]:
    """Within the block (this thread), evaluations that name no step use ``step``: the
    inner graphs that ops run from their ``perform`` (loop bodies, branches, fused
    chains) then go through it too. A failed call's replay watches every node so."""
    previous = getattr(_steps, "step", None)
    _steps.step = step
    try:
        yield step
    finally:
        _steps.step = previous


def evaluate(nodes: Sequence[Apply], env: dict[int, Any], on_error: ErrorPolicy = RAISE,
             step: Step | None = None, keep_only: Iterable[Variable] | None = None) -> bool:
    """Run ``nodes`` (in execution order) with ``step`` (by default :func:`run_node`, or
    the step :func:`stepping` installed), reading each input from ``env``
    (``id(variable) -> value``, seeded with the graph's inputs; constants are read from
    their data) and writing each output into it.

    ``keep_only``: when given, ``env`` ends with the values of these variables only,
    each other value leaving it after the last node that reads it, so that a long
    graph over large values holds only those still to be read.

    Returns True when every node ran, False when the policy stopped the loop.
    """
    if step is None:
        step = getattr(_steps, "step", None) or run_node
    releases = None if keep_only is None else _releases(nodes, keep_only)
    if on_error == NOT_KNOWN:
        # The values decide something (is this shape static? may this node fold?); they
        # are not shown: NumPy's warnings about them would only be noise.
        with np.errstate(all="ignore"):
            return _loop(nodes, env, step, _stop, releases)
    return _loop(nodes, env, step, None if on_error == RAISE else on_error, releases)


def _releases(nodes: Sequence[Apply], keep_only: Iterable[Variable]) -> list[list[int]]:
    """For each node, the ids of the values no node after it reads (those of
    ``keep_only`` excepted): the values to leave ``env`` once it ran."""
    last: dict[int, int] = {}
    for position, node in enumerate(nodes):
        for var in node.inputs:
            last[id(var)] = position
        for var in node.outputs:
            last[id(var)] = position
    kept = {id(var) for var in keep_only}
    releases: list[list[int]] = [[] for _ in nodes]
    for key, position in last.items():
        if key not in kept:
            releases[position].append(key)
    return releases


def _stop(node: Apply, inputs: list, error: Exception) -> None:
    return None


def _loop(nodes: Sequence[Apply], env: dict[int, Any], step: Step,
          policy: Callable[[Apply, list, Exception], None] | None,
          releases: list[list[int]] | None = None) -> bool:
    for position, node in enumerate(nodes):
        args = [var.data if isinstance(var, Constant) else env[id(var)] for var in node.inputs]
        try:
            outputs = step(node, args)
        except PerformContractError:
            raise
        except Exception as error:  # the graph fails on these values: the policy decides
            if policy is None:
                raise
            policy(node, args, error)
            return False
        for var, value in zip(node.outputs, outputs):
            env[id(var)] = value
        if releases is not None:
            del args, outputs  # the run's own references too
            for key in releases[position]:
                env.pop(key, None)
    return True


def at_line(where: str, loop: LoopLevel | None = None) -> Callable[[Apply, list, Exception], None]:
    """The policy of inner graphs: raise an :class:`InnerNodeError` in the layout of every
    node failure (the node's line, its inputs), saying ``where`` it ran (e.g. ``"iteration
    3 of scan 'step'"``; ``loop``, that loop level, entered in the record). An inner
    graph's own InnerNodeError passes through, its record given this ``loop`` as the
    level outside its own."""

    def wrap(node: Apply, inputs: list, error: Exception) -> None:
        if isinstance(error, InnerNodeError):
            if loop is not None and error._record is not None:
                error.record = dataclasses.replace(error.record, loops=(loop, *error.record.loops))
            raise error
        record = node_record(node, error, context=f" at {where}", values=inputs)
        if loop is not None:
            record = dataclasses.replace(record, loops=(loop,))
        wrapped = error_from_record(InnerNodeError, record)
        wrapped.node, wrapped.original = node, error
        raise wrapped from None

    return wrap


def evaluate_graph(outputs: Sequence[Variable], givens: Mapping[Variable, Any]) -> list[np.ndarray]:
    """Values of ``outputs`` given values for the variables in ``givens``.

    Root variables not in ``givens`` use their constant data (constants) or current
    value (shared variables); any other root is an error.
    """
    env: dict[int, Any] = {id(v): np.asarray(value, dtype=v.dtype) for v, value in givens.items()}
    for root in graph_inputs(outputs, list(givens)):
        if id(root) not in env:
            env[id(root)] = _root_value(root)
    evaluate(toposort(outputs, list(givens)), env)
    return [env[id(v)] for v in outputs]


def _root_value(var: Variable) -> np.ndarray:
    if isinstance(var, Constant):
        return var.data
    if hasattr(var, "get_value"):
        return var.get_value(borrow=True)
    raise MissingTestValueError(f"evaluate_graph: no value given for {label(var)!r}")
