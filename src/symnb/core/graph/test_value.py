"""Always-on test values: the one place they are computed.

``compute_node`` runs when a node is built (from ``Op.__call__``): it evaluates the
node's ``perform`` on its inputs' test values (the evaluator's per-node step, called
directly: it runs for every node built). When an input has no value yet, the node's
values are left pending and computed on first access (``compute_missing``, through the
evaluator's loop), after the user sets the missing input value. Large values are kept
within a memory budget (``test_value_memory``): one dropped is computed again, the same,
by ``compute_missing`` too, when a node or the user reads it. A failure is reported
by ``config.compute_test_value`` in the layout of every build error
(``symnb.core.graph.errors``). No Op reads or writes test values.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import os
import warnings
import zlib
from typing import Any, Sequence

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.error_record import ErrorRecord
from symnb.core.graph.errors import (
    InnerNodeError, MissingTestValueError, PerformNotDefined, build_error_class, error_from_record, label, message_of,
    node_record,
)
from symnb.core.graph.evaluate import PerformContractError, evaluate, run_node
from symnb.core.graph.basic import Apply, Constant, Variable, install_test_values, toposort
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph import test_value_memory as memory

__all__ = ["compute_node", "compute_missing", "set_test_value", "generated_test_value",
           "NonFiniteTestValueWarning"]


def compute_node(node: Apply) -> None:
    """Compute the test values of ``node``'s outputs, if its inputs all have one."""
    mode = config.compute_test_value
    if mode == "off":
        return
    values = []
    for inp in node.inputs:
        value = inp._test_value
        if value is None:
            if not memory.is_dropped(inp):
                return  # pending: computed when first asked for
            value = compute_missing(inp)  # dropped to save memory: computed again
        values.append(value)
    try:
        outputs = _watched(node, values)
    except PerformContractError:
        raise
    except Exception as err:  # any failure of the user's graph on these values
        if _has_no_perform(node, err):
            return  # pending: no value until asked for (where the error is then raised)
        _report(node, values, err, mode)
        return
    _store(node, values, outputs)


def _has_no_perform(node: Apply, err: Exception) -> bool:
    """Whether ``err`` says only that the op has no ``perform`` (a user's op whose graph
    is built to be differentiated or rewritten, as Theano's tests build them): Theano
    computed no value while building, so that is no error yet."""
    return isinstance(err, PerformNotDefined) and err.op is node.op


def _store(node: Apply, values: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> None:
    """Keep ``outputs`` (computed from ``values``) as the test values of ``node``'s
    outputs, the large ones counted against the memory budget."""
    if memory.kept or memory.checkpoints:
        memory.touch(node.inputs, values)
    for var, value in zip(node.outputs, outputs):
        var._test_value = value
        # memory.tracked_bytes(), inlined: this runs for every node built.
        # A SciPy sparse value (symnb.sparse) has no nbytes: it is never dropped.
        nbytes = getattr(value, "nbytes", 0)
        if nbytes >= memory.LARGE_BYTES or nbytes >= config.test_value_memory_mb * memory.MB:
            memory.keep(var, value, node, values)


def _computed(node: Apply, values: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The evaluator's step for values not held: a pending node computed for the first
    time, or a node whose value was dropped computed again, on the inputs it ran on
    then (a root's value may have changed since: ``test_value_memory.roots_used``)."""
    used = memory.roots_used(node)
    if used is None:
        outputs = _watched(node, values)
        _store(node, values, outputs)
        return outputs
    values = [then if then is not None else now for then, now in zip(used, values)]
    outputs = _watched(node, values, warn=False)  # it warned the first time, if at all
    for var, value in zip(node.outputs, outputs):
        if var._test_value is None:  # those still held stay as they are
            var._test_value = value
            if value.nbytes >= memory.tracked_bytes():
                memory.keep(var, value, node, values)
    return outputs


# -- early warning: a test value that becomes NaN or Inf ---------------------------------
# NumPy's own RuntimeWarning ("invalid value encountered in log") would point at the
# op's perform inside symnb: the perform runs with NumPy's floating-point warnings
# noted (errstate's "call"), and one warning at the user's line names the node, how many
# entries are bad and what NumPy said. The outputs are checked entry by entry only where
# a NaN or Inf may have appeared: an op whose perform is a ufunc raises a flag when it
# makes one (``Op.nonfinite_raises_flag``); any other op's outputs are always checked.


class NonFiniteTestValueWarning(RuntimeWarning):
    """A test value became NaN or Inf while the graph was built
    (``sn.config.warn_nonfinite_test_values``)."""


#: What NumPy said ("divide by zero", "invalid value") during the runs in progress; each
#: run takes its own notes off the end (a perform may run inner graphs, noted in turn).
_noted: list[str] = []


def _note(kind: str, flag: int) -> None:
    _noted.append(kind)


def _noting(run):
    """``run`` with NumPy's floating-point errors noted in ``_noted`` instead of shown."""
    state = dict(call=_note, under="ignore", divide="call", over="call", invalid="call")
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        # NumPy 2's errstate decorates reentrantly (a token per call), for less than a `with`.
        return np.errstate(**state)(run)

    def run_noting(*args):
        with np.errstate(**state):  # NumPy 1's decorator would share one saved state
            return run(*args)
    return run_noting


@_noting
def _run_noting(node: Apply, values: Sequence[np.ndarray]) -> list[np.ndarray]:
    return memory.into_spare(node, values) or run_node(node, values)


def _watched(node: Apply, values: Sequence[np.ndarray], warn: bool = True) -> list[np.ndarray]:
    """``run_node`` with NumPy's floating-point warnings noted instead of shown, warning
    instead (unless ``warn`` is False) when an output becomes NaN or Inf from finite
    inputs."""
    start = len(_noted)
    try:
        outputs = _run_noting(node, values)
    finally:
        noted = _noted[start:]
        del _noted[start:]
    if not warn or not config.warn_nonfinite_test_values or \
            (not noted and node.op.nonfinite_raises_flag):
        return outputs  # the common case: no flag raised, where one would be (no check)
    if noted and _silenced_by_errstate(noted):
        return outputs
    for var, value in _first_nonfinite(node, values, outputs):
        warn_at_user_line(_nonfinite_message(node, var, value, noted), NonFiniteTestValueWarning)
    return outputs


#: NumPy's names of its floating-point errors (what errcall receives), by errstate's keys.
_ERRSTATE_KEYS = {"divide by zero": "divide", "overflow": "over", "invalid value": "invalid",
                  "underflow": "under"}


def _silenced_by_errstate(noted: list[str]) -> bool:
    """Whether the user's NumPy error state (``np.errstate(divide="ignore")`` around the
    line) ignores every error NumPy raised: NumPy itself would then say nothing, and
    neither does symnb."""
    state = np.geterr()  # the user's: the perform's own errstate has been left
    return all(state.get(_ERRSTATE_KEYS.get(kind, ""), "warn") == "ignore" for kind in noted)


def _first_nonfinite(node: Apply, values: Sequence[np.ndarray], outputs: list[np.ndarray]
                     ) -> list[tuple[Variable, np.ndarray]]:
    """The outputs of ``node`` that have a NaN or Inf while its inputs have none."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # the checks' own
        if all(_finite(value) for value in outputs) or not _all_finite(values):
            return []  # the common case (one cheap test per output), or not where they first appear
        return [(var, value) for var, value in zip(node.outputs, outputs) if not _finite(value)]


def _finite(value: np.ndarray) -> bool:
    """No NaN nor Inf in ``value``. Runs for many nodes: the sum of squares first
    (a NaN or Inf makes it non-finite; finite values rarely overflow it), each entry only
    when it is not."""
    if not isinstance(value, np.ndarray) and hasattr(value, "tocoo"):
        value = value.data  # a SciPy sparse matrix (symnb.sparse): its stored entries
    kind = value.dtype.kind
    if kind == "f" and math.isfinite(np.vdot(value, value)):
        return True
    return kind not in "fc" or bool(np.isfinite(value).all())


def _all_finite(values: Sequence[np.ndarray]) -> bool:
    return all(_finite(v if hasattr(v, "tocoo") else np.asarray(v)) for v in values)


def _nonfinite_message(node: Apply, var: Variable, value: np.ndarray, noted: list[str]) -> str:
    nan, posinf, neginf = (int(np.isnan(value).sum()), int(np.isposinf(value).sum()),
                           int(np.isneginf(value).sum()))
    counts = ", ".join(f"{n} {name}" for n, name in ((nan, "NaN"), (posinf, "+inf"), (neginf, "-inf")) if n)
    numpy_said = f" (NumPy: {' and '.join(dict.fromkeys(noted))} encountered)" if noted else ""
    where = node.site.describe()
    return (f"the test value of {label(var)!r} ({node.op.display_name()}) has {counts} of its "
            f"{value.size} entries{numpy_said}; its inputs' test values are finite, so this "
            f"node is where they first appear ({where}). A compiled function gives the same on "
            f"such values (NanGuardMode stops at them). "
            f"sn.config.warn_nonfinite_test_values=False turns this warning off.")


def _report(node: Apply, values: list[np.ndarray], err: Exception, mode: str) -> None:
    if mode == "ignore":
        return
    hint = ("Test values are computed as the graph is built "
            f"(sn.config.compute_test_value={mode!r}); the line above is where it failed.")
    record = _record_of(node, values, err, hint)
    message = message_of(record)
    if mode == "warn":
        frame = node.site.frame
        if frame is not None:
            warnings.warn_explicit(message, TestValueWarning, frame.filename, frame.lineno)
        else:
            warn_at_user_line(message, TestValueWarning)
        return
    error = error_from_record(build_error_class(type(err), from_test_value=True), record)
    error.original = err
    error.node = node
    if mode == "pdb":
        import pdb

        pdb.post_mortem(err.__traceback__)
    raise error from None


def _record_of(node: Apply, values: list[np.ndarray], err: Exception, hint: str) -> ErrorRecord:
    """The record of ``node``'s failure on its test values; for a node holding loops or
    branches whose inner node failed (an :class:`InnerNodeError`), that inner node's
    record, its headline saying every loop level it ran in, and where ``node`` was built."""
    inner = getattr(err, "_record", None)
    if not isinstance(err, InnerNodeError) or inner is None or inner.node is None:
        return node_record(node, err, values=values, notes=[hint])
    context = f" at {inner.where}" if inner.loops else inner.context
    inside = f"Inside {node.op.display_name()} {node.site.describe()}"
    return dataclasses.replace(inner, context=context, notes=(*inner.notes, inside, hint))


class TestValueWarning(UserWarning):
    """A test value could not be computed (``compute_test_value='warn'``)."""

    __test__ = False


def compute_missing(var: Variable) -> np.ndarray:
    """``var``'s test value, not held: computed now if it was pending (with those it
    needs), or again if it was dropped to save memory. Explains what is missing when a
    pending value's inputs have none."""
    missing_roots, known = _pending_frontier(var)
    if missing_roots:
        names = ", ".join(repr(label(v)) for v in missing_roots)
        first = missing_roots[0]
        where = f" ({first.site.describe('created at')})" if first.site else ""
        subject = "has" if var in missing_roots else f"needs {names}, which has"
        raise MissingTestValueError(
            f"{label(var)!r} {subject} no test value{where}. "
            f"Set one with `{label(first)}.tag.test_value = numpy_array`, "
            f"or give a fully known shape so symnb can generate one.")
    mode = config.compute_test_value
    # 'off' only stops eager computation: a value asked for by name is still computed.
    mode = "raise" if mode in ("off", "ignore", "warn") else mode
    env = {id(v): v._test_value for v in known}

    def report(node: Apply, values: list, err: Exception) -> None:
        _report(node, values, err, mode)

    # The value is returned, not read back from ``var``: storing the values computed
    # may drop it again at once (a node whose outputs together exceed the budget), and
    # the run keeps only the values still to be read (a long chain dropped whole).
    if memory.kept or memory.checkpoints:
        memory.touch(known, [env[id(v)] for v in known])  # read now: where the walk stops
    nodes = toposort([var], known)
    dropped = memory.is_dropped(var)
    evaluate(nodes, env, on_error=report, step=_computed, keep_only=[var])
    value = env[id(var)]
    if dropped and len(nodes) > memory.CHECKPOINT_AFTER:
        # A long walk: the next reader of a value built after ``var`` stops here.
        memory.checkpoint(var, value)
    return value


def _pending_frontier(var: Variable) -> tuple[list[Variable], list[Variable]]:
    """``(missing roots, known)``: the root variables without a test value that
    ``var``'s pending value depends on, and the variables with one where the walk up
    from ``var`` stops (the pending part of the graph is computed from those)."""
    roots, known, seen, stack = [], [], set(), [var]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v._test_value is not None:
            known.append(v)
        elif v.owner is None:
            roots.append(v)
        else:
            stack.extend(v.owner.inputs)
    return roots, known


def set_test_value(var: Variable, value: Any) -> None:
    """Validate ``value`` against ``var``'s type and store it."""
    if isinstance(var, Constant):
        # Theano let a constant's tag.test_value be set (its own value: Theano's test
        # of nested scans does), and read the constant's data anyway. The same value
        # is accepted here; a different one is refused, since the constant's is used.
        given = coerce_test_value(var, value)
        data = np.asarray(var.data)
        if given.shape != data.shape or not np.array_equal(given, data, equal_nan=data.dtype.kind in "fc"):
            raise TypeError(f"constant {label(var)} has a fixed value; its test value cannot be "
                            f"set to a different one")
        return
    if var.owner is not None:
        # Theano let a computed variable's test value be set (PyMC3 sets the output of a
        # view of its data to the data's value). Here it must be the value the inputs
        # compute, which it then is already: a different one would make the test value
        # and the compiled result disagree.
        if config.compute_test_value in ("off", "ignore"):
            # Theano computed and checked no test value under these flags, and stored the
            # one given after its type's filter (dtype and rank: its types had no static
            # shapes); libraries set a stand-in there (PyMC3's variational code: a random
            # draw, or the replaced variable's value, on a sampled node). The computed
            # value stays: the one the compiled function gives.
            array = _of_kind(var, np.asarray(value))
            if array.ndim != var.type.ndim:
                raise ValueError(f"test value for {label(var)!r} has {array.ndim} dimensions, "
                                 f"{var.type!r} {var.type.ndim}")
            return
        given = coerce_test_value(var, value)
        computed = var.test_value
        if computed.shape != given.shape or not np.array_equal(computed, given, equal_nan=computed.dtype.kind in "fc"):
            raise TypeError(
                f"{label(var)!r} is computed by {var.owner.op.display_name()}; its test value "
                "follows from its inputs' test values, and the value given differs from it "
                f"(shape {given.shape} given, {computed.shape} computed). Set the inputs' "
                "values instead.")
        return
    # As in Theano, nodes built earlier keep the values they computed then; nodes
    # whose values were pending compute theirs from this value when asked.
    var._test_value = coerce_test_value(var, value)


def coerce_test_value(var: Variable, value: Any) -> np.ndarray:
    """``value`` as an array of ``var``'s dtype, or a clear error if it does not fit (a
    sparse variable's: a SciPy matrix of its type, its type's ``filter``)."""
    if getattr(var.type, "is_sparse", False):
        return var.type.filter(value).copy()
    array = np.asarray(value)
    dtype = np.dtype(var.type.dtype)
    _of_kind(var, array)
    mismatch = var.type.mismatch(array.astype(dtype, copy=False))
    if mismatch is not None:
        raise ValueError(f"test value for {label(var)!r} does not fit {var.type!r}: {mismatch}")
    array = np.array(array, dtype=dtype, copy=True)
    array.flags.writeable = False
    return array


def _of_kind(var: Variable, array: np.ndarray) -> np.ndarray:
    """``array`` when its dtype fits ``var``'s (the same kind, or one that casts to it);
    a TypeError naming both otherwise."""
    dtype = np.dtype(var.type.dtype)
    if array.dtype != dtype and not np.can_cast(array.dtype, dtype, casting="same_kind"):
        raise TypeError(
            f"test value for {label(var)!r} has dtype {array.dtype}, which does not fit "
            f"{var.type!r} (a {array.dtype.kind!r}-kind value for a {dtype.kind!r}-kind variable). "
            f"Pass an array of dtype {dtype}.")
    return array


def generated_test_value(var: Variable) -> np.ndarray:
    """A value for an input whose static shape is fully known: reproducible, and
    different for each variable.

    The random generator is seeded from the variable's type, name and creation site
    (file name, line and position in the line), and from how many values this process
    generated for that same key before: the same program gives the same values in
    every process, whatever ran before it, and two inputs of one type get different
    values (``a < b`` is not always False), even when built in a loop.

    Floats are drawn from (0.1, 0.9) so that log, sqrt and division behave; booleans
    are random. Integers are 1: an integer input is most often an index, a length or a
    divisor, and 1 is the only value valid as an index into every axis of length two
    or more, as a non-empty length and as a divisor; distinct integers would make
    correct graphs fail as they are built (``x[i]`` with ``i = 2`` on an axis of 2).
    """
    rng = np.random.default_rng(_seed_for(var))
    shape, dtype = var.type.shape, np.dtype(var.type.dtype)
    if dtype.kind == "b":
        data = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        data = np.ones(shape, dtype=dtype)
    else:
        data = rng.uniform(0.1, 0.9, size=shape)
    array = np.asarray(data, dtype=dtype)
    array.flags.writeable = False
    return array


#: How many values were generated for each (type, name, site) key in this process.
_generated_counts: collections.Counter = collections.Counter()


def _seed_for(var: Variable) -> int:
    """A seed stable across processes (``hash()`` of a str is not) and distinct per
    variable: from its type, name, creation site and occurrence of that key."""
    frame = var.site.frame
    where = ""
    if frame is not None:
        code, lasti = var.site[0], var.site[1]
        where = f"{os.path.basename(frame.filename)}:{frame.lineno}:{code.co_name}:{lasti}"
    key = f"{var.type!r}|{var.name}|{where}"
    occurrence = _generated_counts[key]
    _generated_counts[key] += 1
    return zlib.crc32(f"{key}|{occurrence}".encode())


# what var.test_value and var.has_test_value call (basic.py)
install_test_values(compute_missing, set_test_value, memory.is_dropped)
