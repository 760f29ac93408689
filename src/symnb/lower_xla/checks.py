"""Run-time checks inside the one jitted program (``jax.experimental.checkify``).

``Assert`` and the index checks of the indexing ops share this mechanism. A rule calls
:func:`require` with the condition:

- a condition known while tracing (NumPy, or a concrete array in the node-by-node
  modes) is decided at once: a false one raises the kind's plain error (``IndexError``,
  ``AssertionError``), which the function reports with the node's line;
- a traced condition becomes a ``checkify.check``: the program returns a small error
  value beside its outputs, read back with them (a host callback would stop the
  device in the middle of the program on every call).

The compiler wraps a program that may check (:func:`has_checks`, which looks inside
loop bodies and branches) with :func:`with_checks` and calls :func:`raise_failed_check`
after each call. A failed call must leave shared variables as they were, yet the
program updates them in place (their buffers are donated). When every check is in
the program's own graph, the program computes whether all passed and returns the old
value of each updated variable when one failed (:func:`keep_old_values`), which the
function puts back; a program with checks inside loop bodies or branches donates
nothing. Rules of ops holding inner graphs run their checks through
:func:`checked_inner`, so a check inside a loop body also works when the program
runs node by node, outside ``jax.jit``.

A program may serve every equal graph (the compile cache), so a check names its node
by its position in a walk of the program's graph (:func:`symnb.core.graph.walk_nodes`),
and the error is reported with the node at the same position of the function called.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import checkify

from symnb.core.graph.errors import format_node_error
from symnb.core.graph.basic import Apply, Place, node_places, walk_nodes
from symnb.core.graph.static import known_while_tracing
from symnb.core.tensor.assertion import AssertionFailedError
from symnb.lower_xla.interpreter import place_lines

__all__ = ["CheckKind", "register_check_kind", "may_check", "require", "has_checks", "with_checks",
           "checked_inner", "raise_failed_check", "failed_check_error", "checks_in_inner_graphs",
           "keep_old_values"]

_MARK = re.compile(r"symnb check (\w+) node (\d+)((?: \w+=-?\d+)*)")
_FACT = re.compile(r"(\w+)=(-?\d+)")


@dataclass(frozen=True)
class CheckKind:
    """What a failed check of one kind raises.

    ``message(node, facts)`` says what failed (``facts``: the integers the rule passed
    to :func:`require`, and ``value``); ``plain`` is raised while the node runs (the
    function adds the node's line), ``error`` by a call whose program checked.
    """

    message: Callable[[Apply, dict[str, int]], str]
    plain: type[Exception]
    error: type[Exception]


_KINDS: dict[str, CheckKind] = {}


def register_check_kind(name: str, kind: CheckKind) -> None:
    """Declare a kind of check (``"assert"``, ``"index"``) and the errors it raises."""
    _KINDS[name] = kind


@functools.singledispatch
def may_check(op: Any, node: Apply, known: set[int]) -> bool:
    """True when ``node`` may check a value at run time (``known``: ids of the variables
    known while tracing). Rules of ops that check register an implementation."""
    return False


def has_checks(nodes: Sequence[Apply]) -> bool:
    """True when the program, or a graph it holds, may check a value at run time: it
    must then be wrapped by :func:`with_checks`."""
    default = may_check.dispatch(object)
    every = list(walk_nodes(nodes))
    if all(may_check.dispatch(type(node.op)) is default for node in every):
        return False  # no op that may check: no need to know what is known
    known = known_while_tracing(every)
    return any(may_check(node.op, node, known) for node in every)


def with_checks(program: Callable[..., Any]) -> Callable[..., Any]:
    """``program`` returning ``(error, outputs)``; jit the result."""
    return checkify.checkify(program)


def require(ok: Any, node: Apply, kind: str, value: Any = None, **facts: int) -> None:
    """Check that ``ok`` (a boolean scalar) holds when ``node`` runs.

    ``facts`` are integers known while tracing (an input's position, an axis length);
    ``value`` is an integer scalar the error reports (the offending index), known or not.
    """
    if not isinstance(ok, jax.core.Tracer):
        if not bool(np.asarray(ok)):
            if value is not None:
                facts["value"] = int(np.asarray(value))
            raise _KINDS[kind].plain(_KINDS[kind].message(node, facts))
        return
    text = f"symnb check {kind} node {id(node)}" + "".join(f" {k}={int(v)}" for k, v in facts.items())
    if value is None:
        checkify.check(ok, text)
    else:
        checkify.check(ok, text + " value={value}", value=value)
    outcomes = _outcome_stack()
    if outcomes and outcomes[-1] is not None:
        outcomes[-1].append(ok)


_local = threading.local()


def _outcome_stack() -> list[list[Any] | None]:
    """Per thread (two threads may trace at once): where traced checks record their
    outcome; None on top while tracing a loop body or a branch, whose outcomes cannot
    leave it."""
    if not hasattr(_local, "outcomes"):
        _local.outcomes = []
    return _local.outcomes


@contextlib.contextmanager
def _recording(frame: list[Any] | None) -> Iterator[list[Any] | None]:
    stack = _outcome_stack()
    stack.append(frame)
    try:
        yield frame
    finally:
        stack.pop()


def checks_in_inner_graphs(nodes: Sequence[Apply]) -> bool:
    """True when a graph held by ``nodes`` (a loop body, a branch) may check a value."""
    return has_checks([inner for node in nodes for graph in node.op.inner_graphs
                       for inner in graph.nodes])


def keep_old_values(run: Callable[..., list[Any]], old_positions: Sequence[int]) -> Callable[..., list[Any]]:
    """``run`` whose last ``len(old_positions)`` results (the new values of the arguments
    at ``old_positions``, whose buffers are donated) are those arguments' values
    whenever a check of ``run``'s own graph failed. Checks inside loop bodies or
    branches are not seen: see :func:`checks_in_inner_graphs`. The new values have the
    old ones' shapes (the program cache's ``keep_shapes`` guards ``run``)."""

    def guarded(*args: Any) -> list[Any]:
        with _recording([]) as outcomes:
            results = list(run(*args))
        if not outcomes:
            return results
        passed = jnp.all(jnp.stack([jnp.asarray(ok, bool) for ok in outcomes]))
        first = len(results) - len(old_positions)
        for k, position in enumerate(old_positions):
            results[first + k] = jnp.where(passed, results[first + k], args[position])
        return results

    return guarded


def checked_inner(run: Callable[..., Any], graphs: Iterable[Any]) -> Callable[..., Any]:
    """``run`` (a rule running inner ``graphs`` through a loop or a condition) with the
    checks of those graphs taken out of the loop and re-raised after it.

    Under the checkified program this composes with the outer ``checkify``; in the
    node-by-node modes (no ``jax.jit``) a failed check raises when ``run`` returns.
    """
    if not has_checks([node for graph in graphs for node in graph.nodes]):
        return run

    def with_error(*args: Any) -> Any:
        with _recording(None):
            error, result = checkify.checkify(run)(*args)
        checkify.check_error(error)
        return result

    return with_error


def failed_check_error(text: str | None, program_nodes: Sequence[Apply], nodes: Sequence[Apply],
                       title: str = "the compiled function") -> Exception | None:
    """The error for a failed check's message ``text`` (None when ``text`` is not one):
    the kind's error, naming the node of *this* function (``nodes``) at the checking
    node's position in the program (built from ``program_nodes``) and its line."""
    mark = _MARK.search(text) if text else None
    if mark is None:
        return None
    kind = _KINDS[mark[1]]
    facts = {key: int(number) for key, number in _FACT.findall(mark[3])}
    place = _same_place(int(mark[2]), program_nodes, nodes)
    node = place.node
    headline = (f"{kind.plain.__name__} in {node.op.display_name()} while running {title}: "
                f"{kind.message(node, facts)}")
    error = kind.error(format_node_error(node, headline, extra=place_lines(place)))
    error.node = node
    return error


def raise_failed_check(error: Any, program_nodes: Sequence[Apply], nodes: Sequence[Apply],
                       title: str = "the compiled function") -> None:
    """Raise the error of a failed check, if one failed (see :func:`failed_check_error`)."""
    text = error.get()
    if text is None:
        return
    raised = failed_check_error(text, program_nodes, nodes, title)
    raise raised if raised is not None else AssertionFailedError(text)  # a check not symnb's


def _same_place(node_id: int, program_nodes: Sequence[Apply], nodes: Sequence[Apply]) -> Place:
    position = next(i for i, n in enumerate(walk_nodes(program_nodes)) if id(n) == node_id)
    for i, place in enumerate(node_places(nodes)):
        if i == position:
            return place
    raise AssertionError("internal error: the program's graph and the function's differ")
