"""``DebugMode``: every node computed twice — NumPy reference and XLA — and compared.

Slow by design. It also checks that the rewrites kept the graph's values: the
optimized graph's outputs are compared with the unoptimized graph's, computed with
the NumPy reference, on the same inputs.

A rewrite declared exact that changes a value is an error (a bug in the rewrite). A
rewrite that declared where it is exact (Theano's ``x / x -> 1``, the stabilizations)
and changes a value outside that domain is a *note*: a :class:`DebugModeNote` warning
naming it and its domain, also listed in ``f.maker.notes``; the function returns the
optimized program's values.

``check_isfinite`` (default: ``config.DebugMode.check_finite``, True, as in Theano)
also refuses NaN and Inf: in an argument, a shared variable or a value made by a node,
an :class:`InvalidValueError` names the first such node and the user's line.
``DebugMode(check_isfinite=False)`` allows them. Constants are not checked (Theano
checked them): a rewrite may build one (``exp(log(x))`` becomes ``switch(x >= 0,
abs(x), nan)``), and a constant's NaN or Inf that reaches a value is reported there.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from symnb.compile.linkers import Linker, WrapLinker
from symnb.compile.mode import Mode, register_mode_name
from symnb.compile.nanguard import NanGuardLinker
from symnb.core.graph.config import config
from symnb.core.rewriting.lazy_branches import RESTORES_LAZINESS
from symnb.core.graph.errors import SymnbError, label, node_error
from symnb.core.graph.basic import Apply
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["DebugMode", "DebugModeError", "InvalidValueError", "DebugModeNote", "TOLERANCES",
           "check_rewrites"]

#: (rtol, atol) by dtype: float32 programs may differ from NumPy by rounding.
TOLERANCES = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-10, 1e-12),
              "complex64": (1e-4, 1e-5), "complex128": (1e-10, 1e-12)}


class DebugModeError(SymnbError, AssertionError):
    """The XLA lowering of a node, or a rewrite, disagrees with the NumPy reference."""


class InvalidValueError(DebugModeError):
    """A NaN or Inf under DebugMode's ``check_isfinite`` (Theano's name)."""


class DebugModeNote(UserWarning):
    """A rewrite declared inexact changed a value outside the domain where it is exact."""


def values_differ(reference: np.ndarray, actual: np.ndarray) -> str | None:
    """Why ``actual`` is not ``reference`` (dtype-aware), or None when they agree."""
    actual = np.asarray(actual)
    if actual.dtype != reference.dtype:
        return f"dtype {actual.dtype}, reference {reference.dtype}"
    if actual.shape != reference.shape:
        return f"shape {actual.shape}, reference {reference.shape}"
    if reference.dtype.kind in "fc":
        rtol, atol = TOLERANCES[str(reference.dtype)]
        close = np.isclose(actual, reference, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = actual == reference
    if close.all():
        return None
    bad = np.argwhere(~close)[0]
    where = tuple(int(i) for i in bad)
    return (f"{int((~close).sum())} of {close.size} values differ; first at index {where}: "
            f"{actual[where]!r}, reference {reference[where]!r}")


class _CompareLinker(Linker):
    def hook(self, index: int, node: Apply, thunk: Any) -> None:
        inputs = [np.asarray(v) for v in thunk.inputs]
        thunk()
        reference = node.op.perform(node, inputs)
        for position, (var, ref, got) in enumerate(zip(node.outputs, reference, thunk.outputs)):
            problem = values_differ(np.asarray(ref), got)
            if problem is not None:
                headline = (f"DebugMode: the XLA lowering of {node.op.display_name()} disagrees "
                            f"with its NumPy perform on output #{position} ({label(var)!r}): {problem}")
                raise node_error(DebugModeError, node, headline, inputs)


class DebugMode(Mode):
    """Check every node's XLA lowering against its NumPy reference, and the rewrites."""

    @api_boundary  # the user calls it: errors show the user's line
    def __init__(self, optimizer: Any = "default", stability_patience: int | None = None,
                 check_c_code: bool | None = None, check_py_code: bool | None = None,
                 check_isfinite: bool | None = None, check_preallocated_output: Any = None,
                 require_matching_strides: Any = None, linker: Any = None) -> None:
        """Theano's signature. ``check_isfinite``: refuse NaN and Inf (default: the config
        flag). Each node's compiled code is compared with its Python ``perform`` (Theano's
        C against Python) unless ``check_c_code`` or ``check_py_code`` is False.
        ``stability_patience``, ``check_preallocated_output`` and
        ``require_matching_strides`` concern Theano's optimizer loop and C memory, which
        symnb has not (XLA allocates); ``linker`` is not used, as in Theano."""
        self.check_isfinite = bool(config.DebugMode__check_finite if check_isfinite is None
                                   else check_isfinite)
        self.compares_code = check_c_code is not False and check_py_code is not False
        hooks = []
        if self.check_isfinite:
            hooks.append(NanGuardLinker(True, True, False, InvalidValueError, "DebugMode (check_isfinite)",
                                        check_constants=False).hook)
        if self.compares_code:
            hooks.append(_CompareLinker().hook)
        # Nothing to check node by node: the program runs whole (the rewrites are checked
        # after each call all the same).
        chosen: Linker | None = WrapLinker(hooks) if hooks else None
        super().__init__(linker=chosen, optimizer=optimizer)

    def after_call(self, function: Any, arrays: Sequence[Any], results: Sequence[Any]) -> None:
        """Compare the optimized program's results with the graph as written (see
        :func:`check_rewrites`); the notes go to ``function.maker.notes``."""
        maker = function.maker
        check_rewrites(maker.fgraph, maker.outputs, maker.inputs, arrays, results, notes=maker.notes)


def check_rewrites(fgraph: Any, original_outputs: Sequence, inputs: Sequence,
                   arrays: Sequence[Any], results: Sequence[Any], notes: list[str] | None = None
                   ) -> list[str]:
    """Check the rewrites kept the graph's values on these inputs (NumPy reference).

    Each recorded rewrite's replaced and replacing values are compared: the first exact
    rewrite that changed a value raises :class:`DebugModeError` with the line of the node
    it replaced; an inexact one gives a note (a :class:`DebugModeNote` warning at that
    line, added to ``notes`` unless that rewrite already has a note there). Then the
    optimized program's results are compared with the unoptimized graph's: a difference
    is an error, unless an inexact rewrite changed a value on these inputs (the
    difference is then that rewrite's). Returns the notes of this call.
    """
    from symnb.core.graph.evaluate import evaluate_graph

    givens = {var: np.asarray(value) for var, value in zip(inputs, arrays)}
    with np.errstate(all="ignore"):  # NaN and inf are values to compare here, not news
        changes = _changes(fgraph.history, givens)
    changed_by_inexact = []
    for record, problem in changes:
        if record.exact:
            headline = (f"DebugMode: rewrite {record.name!r} changed the value of "
                        f"{label(record.old)!r}: {problem}")
            raise node_error(DebugModeError, record.before, headline)
        changed_by_inexact.append((record, problem))
    try:
        with np.errstate(all="ignore"):
            reference = evaluate_graph(original_outputs, givens)
    except Exception as err:
        if not changed_by_inexact:
            raise DebugModeError(f"DebugMode: the optimized program computed values where the "
                                 f"unoptimized graph raises {type(err).__name__}: {err}") from err
        reference = []  # the unoptimized graph raises: an inexact rewrite's note says why
    for position, (ref, got) in enumerate(zip(reference, results)):
        problem = values_differ(np.asarray(ref), np.asarray(got))
        if problem is not None and not changed_by_inexact:
            raise DebugModeError(f"DebugMode: output #{position} of the optimized program differs "
                                 f"from the unoptimized graph's NumPy reference: {problem}")
    return [_note(record, problem, notes) for record, problem in changed_by_inexact]


def _changes(history: Sequence, givens: dict) -> list[tuple[Any, str]]:
    """The rewrites that changed a value on these inputs, in order, with how.

    A rewrite's replaced value is computed by the graph as it was then (its node left
    the graph), the replacing value by the graph as it is now: later rewrites edited
    the nodes it reads. Both are computed with the variables replaced later fixed to
    their final replacements' values, so each rewrite is judged alone (an inexact
    rewrite after it would otherwise be blamed on it). Walking the history backwards
    grows that set of fixed values one record at a time.
    """
    from symnb.core.graph.evaluate import evaluate_graph

    successor = {id(r.old): r.new for r in history}

    def final(var: Any) -> Any:
        while id(var) in successor:
            var = successor[id(var)]
        return var

    finals = [final(r.old) for r in history]
    final_values = evaluate_graph(finals, givens) if finals else []
    fixed = dict(givens)
    changes = []
    for record, value in zip(reversed(history), reversed(final_values)):
        if record.before is not None:
            problem = _difference(record, fixed)
            if problem is not None:
                changes.append((record, problem))
        fixed[record.old] = value
    changes.reverse()
    return changes


def _difference(record: Any, values: dict) -> str | None:
    """How the rewrite's replacing value differs from the replaced one (None: it does
    not), the replaced one raising included (``out[-1]`` of a loop of no steps)."""
    from symnb.core.graph.evaluate import evaluate_graph

    (new,) = evaluate_graph([record.new], values)
    try:
        (old,) = evaluate_graph([record.old], values)
    except Exception as err:  # the user's graph fails on these values; the rewrite's does not
        if record.name in RESTORES_LAZINESS:  # the replaced form computed an untaken branch
            return None
        return f"the replaced value raises {type(err).__name__} ({err}), the new one is {new!r}"
    return values_differ(np.asarray(old), np.asarray(new).astype(old.dtype))


def _note(record: Any, problem: str, notes: list[str] | None) -> str:
    """The note for an inexact rewrite that changed a value (its name, its domain, the
    difference, the user's line that built the replaced node), warned and added to
    ``notes`` the first time for this rewrite and node."""
    site = record.before.site
    line = f" ({site.describe()})" if site else ""
    subject = (f"DebugMode note: rewrite {record.name!r}, exact only {record.domain}, changed "
               f"the value of {label(record.old)!r}{line}")
    note = f"{subject} on these inputs: {problem}"
    if notes is not None and any(n.startswith(subject) for n in notes):
        return note
    if notes is not None:
        notes.append(note)
    frame = site.frame if site else None
    if frame is not None:
        warnings.warn_explicit(note, DebugModeNote, frame.filename, frame.lineno)
    else:
        warn_at_user_line(note, DebugModeNote)
    return note


register_mode_name(("DEBUGMODE", "DEBUG_MODE"), DebugMode)  # sn.function(mode='DebugMode')
