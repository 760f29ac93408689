"""Run-time checks inside the one jitted program.

``Assert``, the index checks of the indexing ops and the linear-algebra ops (a matrix
that cannot be factored) share this mechanism. A rule calls
:func:`require` with the condition:

- a condition known while tracing (NumPy, or a concrete array in the node-by-node
  modes) is decided at once: a false one raises the kind's plain error (``IndexError``,
  ``AssertionError``), which the function reports with the node's line;
- a traced condition becomes part of a small error value the program returns beside
  its outputs, read back with them (a host callback would stop the device in the
  middle of the program on every call): its code inside one output's transfer
  (``check_flag.py``), the value a failed check reports only when one failed.

A program that may check (:func:`has_checks`, which looks inside loop bodies and
branches) returns ``(error, outputs)``; the function calls :func:`raise_failed_check`
after each call. When every check is in the program's own graph (none in a loop body
or a branch), the program computes its error itself (:func:`own_checks`): which check
failed first and the value it reports, a :class:`CheckOutcome` of a few scalars. No
``checkify`` is involved, which would interpret the whole traced program again to
thread its error state through every operation (on the MLP step of
``bench/bench_first_result.py``, checkify and the larger program XLA compiled cost a
fifth of the first call's tracing, lowering and compiling). A program with checks
inside loop bodies or branches is wrapped by :func:`with_checks` (``checkify``), which
carries their errors out of ``lax.scan`` and ``lax.cond``.

A failed call must leave shared variables as they were, yet the program updates them
in place (their buffers are donated). A checked program returns the old value of each
updated variable when a check failed, which the function puts back: one checking its
own graph from its :class:`CheckOutcome` (:func:`own_checks`), one with checks inside
loop bodies or branches from whether ``checkify``'s error holds a failed check, known
in the program (:func:`checkified_outcome`); either's code travels inside an output
(``check_flag.py``). Rules of ops holding inner graphs run their checks through
:func:`checked_inner`, so a check inside a loop body also works when the program
runs node by node, outside ``jax.jit``.

Each check a trace makes is entered in the program's :class:`CheckTable`; a failed
check is known by its index there (a structured id, never parsed out of a message):
the :class:`CheckOutcome`'s code, or the payload of the ``checkify`` error, read back
with ``get_exception()``. A program may serve every equal graph (the compile cache),
so the node a check names is mapped by its position in a walk of the program's graph
(:func:`symnb.core.graph.walk_nodes`) onto the node at the same position of the
function called.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.graph.errors import GraphRuntimeError, error_from_record, node_record
from symnb.core.graph.basic import Apply, Place, node_places, walk_nodes
from symnb.core.graph.static import known_while_tracing
from symnb.core.tensor.assertion import AssertionFailedError
from symnb.lower_xla.interpreter import place_details, place_lines
from symnb.lower_xla.jax_private import checkify_failed

__all__ = ["CheckKind", "register_check_kind", "may_check", "require", "has_checks", "with_checks",
           "checked_inner", "raise_failed_check", "failed_check_error", "checks_in_inner_graphs",
           "runtime_error_class", "own_checks", "CheckOutcome", "CheckifyOutcome", "checkified_outcome", "CheckSite", "CheckTable", "FailedCheck", "failed_check"]


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


def runtime_error_class(error: BaseException) -> type[Exception]:
    """The class of the error a compiled function raises for a node that failed with
    ``error`` while running outside ``jax.jit`` (node by node, where a failed check
    raises its kind's plain error at once): the kind's own error when it is a
    ``GraphRuntimeError`` (an index out of range, a matrix that cannot be factored),
    else ``GraphRuntimeError``."""
    for kind in _KINDS.values():
        if isinstance(error, kind.plain) and issubclass(kind.error, GraphRuntimeError):
            return kind.error
    return GraphRuntimeError


@dataclass(frozen=True)
class CheckSite:
    """One check a trace made: the node (of the program's graph) that checks, the kind
    of check, the integers known while tracing (an input's position, an axis length)
    and the dtype of the value it reports (None: it reports none)."""

    node: Apply
    kind: str
    facts: tuple[tuple[str, int], ...]
    value_dtype: str | None = None


class CheckTable:
    """The program's list of checks: a check's index here is the id its failure carries.

    Append-only (a program traced again for new shapes adds its checks; ids already
    given stay valid) and without repeats (a graph run node by node traces its loops on
    every call)."""

    def __init__(self) -> None:
        self.sites: list[CheckSite] = []
        self._index: dict[CheckSite, int] = {}
        self._lock = threading.Lock()  # two threads may trace one program

    def add(self, site: CheckSite) -> int:
        with self._lock:
            found = self._index.get(site)
            if found is None:
                found = self._index[site] = len(self.sites)
                self.sites.append(site)
            return found

    def restore(self, sites: Sequence[CheckSite]) -> bool:
        """Give ``sites`` the ids they had in the program that made them (an executable
        read back from disk carries those ids): True when this table agrees, i.e. holds
        the same sites at the ids it already gave; False (unchanged) otherwise."""
        with self._lock:
            given = len(self.sites)
            if list(sites[:given]) != self.sites[:len(sites)]:
                return False
            for site in sites[given:]:
                self._index.setdefault(site, len(self.sites))
                self.sites.append(site)
            return True

    def __getitem__(self, index: int) -> CheckSite:
        return self.sites[index]

    def __len__(self) -> int:
        return len(self.sites)


class FailedCheck(Exception):
    """A check failed while a graph ran outside ``jax.jit`` (node by node): the site
    and the reported value, for the function to turn into its error."""

    def __init__(self, site: CheckSite, value: int | None) -> None:
        super().__init__(f"{site.kind} check of {site.node.op.display_name()} failed")
        self.site, self.value = site, value


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


def with_checks(program: Callable[..., Any], table: CheckTable | None = None) -> Callable[..., Any]:
    """``program`` returning ``(error, outputs)``; jit the result. Its checks are entered
    in ``table`` (a new one by default), also kept as the result's ``checks``."""
    table = CheckTable() if table is None else table

    def entering(*args: Any) -> Any:
        with _entering(table):
            return program(*args)

    checked = _checkify().checkify(entering)
    checked.checks = table  # type: ignore[attr-defined]
    return checked


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
    if value is not None:
        value = jnp.asarray(value)
    site = CheckSite(node, kind, tuple((k, int(v)) for k, v in facts.items()),
                     None if value is None else str(value.dtype))
    check = _current_table().add(site)
    outcomes = _outcome_stack()
    if outcomes and outcomes[-1] is not None:  # the program computes its error: own_checks
        outcomes[-1].append((ok, check, value))
        return
    # The message is for a reader of checkify's own error; symnb reads the payload.
    text = f"symnb {kind} check failed in {node.op.display_name()}"
    checkify = _checkify()
    if value is None:
        checkify.check(ok, text, check=jnp.int32(check))
    else:
        checkify.check(ok, text + " (value {value})", check=jnp.int32(check), value=value)


def _checkify() -> Any:
    """``jax.experimental.checkify``, imported when first needed: most programs check
    their own graph only (:func:`own_checks`), and a fresh process need not load it."""
    from jax.experimental import checkify

    return checkify


_local = threading.local()


def _outcome_stack() -> list[list[Any] | None]:
    """Per thread (two threads may trace at once): where traced checks record their
    outcome (``(ok, id, value)``) for :func:`own_checks`; None on top while tracing a
    loop body or a branch, whose outcomes cannot leave it (their checks go through
    ``checkify``)."""
    if not hasattr(_local, "outcomes"):
        _local.outcomes = []
    return _local.outcomes


def _current_table() -> CheckTable:
    tables = getattr(_local, "tables", None)
    if not tables:
        raise RuntimeError("internal error: a run-time check traced outside with_checks or "
                           "checked_inner, where no program keeps its list of checks")
    return tables[-1]


@contextlib.contextmanager
def _entering(table: CheckTable) -> Iterator[CheckTable]:
    """Checks traced inside enter ``table`` (per thread: two threads may trace at once)."""
    if not hasattr(_local, "tables"):
        _local.tables = []
    _local.tables.append(table)
    try:
        yield table
    finally:
        _local.tables.pop()


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


class CheckOutcome(NamedTuple):
    """The error a program checking its own graph returns beside its outputs (see
    :func:`own_checks`): ``code``, the id in the program's :class:`CheckTable` of the
    first check that failed (-1 when all passed), and ``values``, per dtype, the value
    that check reports (its site's ``value_dtype``)."""

    code: Any
    values: dict[str, Any]


def own_checks(run: Callable[..., list[Any]], table: CheckTable,
               old_positions: Sequence[int] = ()) -> Callable[..., tuple[CheckOutcome, list[Any]]]:
    """``run`` returning ``(CheckOutcome, results)``: the checks of its own graph (none
    inside a loop body or a branch: see :func:`checks_in_inner_graphs`) entered in
    ``table``, their outcome computed by the program itself.

    The last ``len(old_positions)`` results (the new values of the arguments at
    ``old_positions``, whose buffers are donated) are those arguments' values whenever
    a check failed; they have the old ones' shapes (the program cache's
    ``keep_shapes`` guards ``run``)."""

    def checked(*args: Any) -> tuple[CheckOutcome, list[Any]]:
        with _entering(table), _recording([]) as outcomes:
            results = list(run(*args))
        # The first failed check's id and value, as a chain of selects on scalars, which
        # XLA fuses into one small kernel (each kernel costs compile time).
        code, values = jnp.int32(-1), {}
        for _, _, value in outcomes:
            if value is not None:
                values.setdefault(str(value.dtype), jnp.zeros((), value.dtype))
        for ok, check, value in reversed(outcomes):
            ok = jnp.asarray(ok, bool)
            code = lax.select(ok, code, jnp.int32(check))
            if value is not None:
                values[str(value.dtype)] = lax.select(ok, values[str(value.dtype)], value)
        passed = code < 0
        start = len(results) - len(old_positions)
        for k, position in enumerate(old_positions):
            results[start + k] = lax.select(passed, results[start + k], args[position])
        return CheckOutcome(code, values), results

    return checked


class CheckifyOutcome(NamedTuple):
    """The error a program with checks inside loop bodies or branches returns beside its
    outputs (see :func:`checkified_outcome`): ``code``, 0 when a check failed and -1
    when all passed (the one value a passing call reads back), and ``error``,
    ``checkify``'s error, read from the device only when one failed."""

    code: Any
    error: Any


def checkified_outcome(error: Any, results: Sequence[Any],
                       old_values: Sequence[Any] = ()) -> tuple[CheckifyOutcome, list[Any]]:
    """(While tracing) ``checkify``'s ``error`` and the program's ``results`` as the
    program returns them: the error as a :class:`CheckifyOutcome`, and the last
    ``len(old_values)`` results (the new values of the donated arguments) replaced by
    ``old_values`` whenever a check failed, as :func:`own_checks` does; they have the
    old ones' shapes (the program cache's ``keep_shapes``)."""
    failed = checkify_failed(error)
    results = list(results)
    start = len(results) - len(old_values)
    for k, old in enumerate(old_values):
        results[start + k] = lax.select(failed, jnp.asarray(old), results[start + k])
    return CheckifyOutcome(jnp.where(failed, 0, -1).astype(jnp.int32), error), results


def checked_inner(run: Callable[..., Any], graphs: Iterable[Any]) -> Callable[..., Any]:
    """``run`` (a rule running inner ``graphs`` through a loop or a condition) with the
    checks of those graphs taken out of the loop and re-raised after it.

    Under the checkified program this composes with the outer ``checkify``; in the
    node-by-node modes (no ``jax.jit``) a failed check raises when ``run`` returns.
    """
    if not has_checks([node for graph in graphs for node in graph.nodes]):
        return run

    # Run node by node (no jax.jit), the checks enter a table of this rule's own, read
    # back here. One for every call: JAX keeps the traced loop body or branch (with the
    # ids its checks were given) from call to call.
    own = CheckTable()

    def with_error(*args: Any) -> Any:
        tables = getattr(_local, "tables", None)
        table = tables[-1] if tables else own  # under the checkified program: the program's
        checkify = _checkify()
        with _recording(None), _entering(table):
            error, result = _checkify_keeping_known(checkify, run, args)
        if any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(error)):
            checkify.check_error(error)  # joins the outer program's error
            return result
        failed = failed_check(error, table)
        if failed is not None:
            raise failed
        return result

    return with_error


def _checkify_keeping_known(checkify: Any, run: Callable[..., Any], args: Sequence[Any]) -> tuple:
    """``checkify(run)(*args)``, the arguments and results known while tracing (NumPy:
    lengths, a loop's values known from its inputs) kept as they are: ``checkify``
    would trace them, and a loop run step by step needs them known inside and after."""
    known = [not isinstance(a, jax.core.Tracer) for a in args]
    held: dict[int, Any] = {}
    layout: list[bool] = []

    def traced_part(*traced: Any) -> list[Any]:
        given = iter(traced)
        result = run(*[a if k else next(given) for a, k in zip(args, known)])
        items = list(result) if isinstance(result, (tuple, list)) else [result]
        layout.append(isinstance(result, (tuple, list)))
        held.update((i, v) for i, v in enumerate(items) if not isinstance(v, jax.core.Tracer))
        return [v for i, v in enumerate(items) if i not in held]

    error, rest = checkify.checkify(traced_part)(*[a for a, k in zip(args, known) if not k])
    items = _merge(held, rest)
    return error, tuple(items) if layout[-1] else items[0]


def _merge(held: dict[int, Any], rest: Any) -> list[Any]:
    """The results in order: ``held`` by position, the others from ``rest``."""
    items, rest = [], list(rest)
    for i in range(len(held) + len(rest)):
        items.append(held[i] if i in held else rest.pop(0))
    return items


def failed_check(error: Any, table: CheckTable) -> Exception | None:
    """The failure a checked program's ``error`` (a :class:`CheckOutcome`, a
    :class:`CheckifyOutcome` or a ``checkify`` error) reports (None when every check passed): a :class:`FailedCheck`
    with the site its id names in ``table``; a check not symnb's (no id) as an
    :class:`AssertionFailedError` with checkify's message."""
    if isinstance(error, CheckOutcome):
        code = int(np.asarray(error.code))  # the one value a passing call reads back
        if code < 0:
            return None
        site = table[code]
        value = None if site.value_dtype is None else int(np.asarray(error.values[site.value_dtype]))
        return FailedCheck(site, value)
    if isinstance(error, CheckifyOutcome):
        if int(np.asarray(error.code)) < 0:  # the one value a passing call reads back
            return None
        error = error.error
    exception = error.get_exception()
    if exception is None:
        return None
    payload = getattr(exception, "kwargs", {})
    if "check" not in payload:
        return AssertionFailedError(str(exception))
    value = payload.get("value")
    return FailedCheck(table[int(np.asarray(payload["check"]))],
                       None if value is None else int(np.asarray(value)))


def failed_check_error(failed: FailedCheck, program_nodes: Sequence[Apply], nodes: Sequence[Apply],
                       title: str = "the compiled function") -> Exception:
    """The error for a failed check: the kind's error, naming the node of *this*
    function (``nodes``) at the checking node's position in the program (built from
    ``program_nodes``) and its line."""
    site = failed.site
    kind = _KINDS[site.kind]
    facts = dict(site.facts)
    if failed.value is not None:
        facts["value"] = failed.value
    place = _same_place(site.node, program_nodes, nodes)
    node = place.node
    record = node_record(node, kind.message(node, facts), kind.plain.__name__, f" while running {title}",
                         notes=place_lines(place), details=place_details(place))
    error = error_from_record(kind.error, record)
    error.node = node
    error.place = place
    return error


def raise_failed_check(error: Any, table: CheckTable, program_nodes: Sequence[Apply],
                       nodes: Sequence[Apply], title: str = "the compiled function") -> None:
    """Raise the error of a failed check, if one failed (see :func:`failed_check_error`)."""
    failed = failed_check(error, table)
    if failed is None:
        return
    if not isinstance(failed, FailedCheck):
        raise failed  # a check not symnb's
    raise failed_check_error(failed, program_nodes, nodes, title)


def _same_place(checking: Apply, program_nodes: Sequence[Apply], nodes: Sequence[Apply]) -> Place:
    position = next(i for i, n in enumerate(walk_nodes(program_nodes)) if n is checking)
    for i, place in enumerate(node_places(nodes)):
        if i == position:
            return place
    raise AssertionError("internal error: the program's graph and the function's differ")
