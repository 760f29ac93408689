"""The structured record every symnb error carries (``err.record``).

An error about a node is known first as facts: the node and its op, each input's name,
dtype, shape and the line that built it (and, for a failed call, its value in that
call), the iterations of the loops it ran in, the user's line. :class:`ErrorRecord`
holds them; the text message (``str(err)``, :meth:`ErrorRecord.text`) and the HTML view
(``symnb.printing.failure``) are both drawn from it, never from each other. When a
failed call's values become known (the NumPy replay), the error gets a new record with
them and its message is drawn again from that record.

Only user-facing names go into the text below ``exception_verbosity='high'``: the
op's display name, the variables' labels, the user's lines. Where a failing node sits
in the toposort, and the sections higher layers add (a debugprint), are ``details``,
shown under ``'high'`` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from symnb.core.graph.type import describe_shape

__all__ = ["ErrorRecord", "ValueRecord", "LoopLevel", "value_lines", "short_summary", "bad_entries"]


@dataclass(frozen=True)
class ValueRecord:
    """One input (or output) of the failing node.

    ``shape``: the shape in the failed call or test value where known, else the static
    one (``None`` for an unknown length); ``built``: where it was built (``built at
    model.py:12: h = ...``, ``constant``, or ``''``); ``value``: its value in the failed
    call (a NumPy array) where the replay computed it; ``computed``: False for an output
    the node did not produce (the failure)."""

    position: int
    name: str
    dtype: str
    shape: tuple
    built: str = ""
    value: Any = None
    computed: bool = True
    constant: bool = False

    @property
    def quoted(self) -> str:
        """The name as a call's values list it: ``'x'``, or ``constant 2.0``."""
        if not self.constant:
            return repr(self.name)
        return self.name if self.name.startswith("constant ") else f"constant {self.name}"


@dataclass(frozen=True)
class LoopLevel:
    """A loop the failing node ran in, and the iteration that failed (outermost first,
    one per level of a nested loop)."""

    loop: str
    iteration: int

    def text(self) -> str:
        return f"iteration {self.iteration} of {self.loop}"


@dataclass(frozen=True)
class ErrorRecord:
    """What an error says, as data (``err.record``).

    - ``kind``: the built-in kind of the failure (``"ValueError"``), or ``""`` for a
      message not about one node;
    - ``problem``: what went wrong, naming inputs by their labels;
    - ``node``: the failing node (an ``Apply``, or the op and inputs of one not built:
      ``UnbuiltNode``), None when the error is not about one; ``op``: its op's name as
      users see it;
    - ``context``: where it ran (``" while running function 'f'"``, ``" at iteration 3
      of scan 'step'"``);
    - ``inputs`` / ``outputs``: :class:`ValueRecord` per input (and, for a failed call,
      per output); ``values_from``: what their shapes and values are (``"static"``,
      ``"test values"``, ``"this call"``);
    - ``loops``: the iterations it failed at, one :class:`LoopLevel` per loop level;
    - ``site``: the user's line (a ``Site``), None when unknown;
    - ``notes``: more lines for the reader (hints, the call's arguments);
    - ``details``: lines shown under ``exception_verbosity='high'`` only (toposort
      positions, a debugprint);
    - ``call_note``: what the replay of a failed call could not establish.
    """

    problem: str
    kind: str = ""
    node: Any = None
    op: str = ""
    context: str = ""
    inputs: tuple[ValueRecord, ...] = ()
    outputs: tuple[ValueRecord, ...] = ()
    values_from: str = "static"
    loops: tuple[LoopLevel, ...] = ()
    site: Any = None
    notes: tuple[str, ...] = ()
    details: tuple[str, ...] = field(default=(), repr=False)
    call_note: str = ""

    @property
    def headline(self) -> str:
        """``ValueError in dot: <problem>`` for a node's failure, else the problem."""
        if not self.op or not self.kind:  # not one node's failure, or a headline made whole
            return self.problem
        return f"{self.kind} in {self.op}{self.context}: {self.problem}"

    @property
    def in_call(self) -> bool:
        """True when the record holds the values of a failed call."""
        return self.values_from == "this call"

    @property
    def where(self) -> str:
        """``iteration 3 of Scan{step}`` (innermost first, every level), or ``''``."""
        return ", in ".join(level.text() for level in reversed(self.loops))

    def text(self, verbosity: str = "medium", frames: int = 1, values: bool = True) -> str:
        """The message: the headline, the user's line (``frames`` of its frames), then,
        unless ``verbosity`` is ``'low'``, the inputs, the notes and (unless ``values`` is
        False: a view showing them its own way) the call's values; the details under
        ``'high'``."""
        headline = self.headline
        if self.node is not None and not self.site:
            headline += "\n  (the node was built by symnb itself, not on a user's line)"
        lines = [headline]
        if self.site:
            lines.append(self.site.format(limit=frames))
        if verbosity == "low" or self.node is None:
            return "\n".join(lines + (list(self.notes) if self.node is None else []))
        valued = self.in_call and any(v.value is not None for v in self.inputs)
        shapes = " (shapes in this call)" if valued else ""
        lines.append(f"Inputs of {self.op}{shapes}:")
        lines += value_lines(self.inputs)
        lines += self.notes
        if verbosity == "high":
            lines += self.details
        if self.in_call and values:
            lines += self.call_lines()
        return "\n".join(lines)

    def call_lines(self) -> list[str]:
        """The failing node's values in the failed call, one line each."""
        where = f" at {self.where}" if self.where else ""
        lines = [f"Values of this call at {self.op}{where} "
                 f"(err.call_values; the graph replayed in NumPy with the call's arguments):"]
        lines += [f"  input #{v.position} {v.quoted}: {_summary(v)}" for v in self.inputs]
        lines += [f"  output #{v.position} {v.quoted}: {_summary(v)}" for v in self.outputs]
        if self.call_note:
            lines.append(f"  ({self.call_note})")
        return lines


def value_lines(values: tuple[ValueRecord, ...]) -> list[str]:
    """The inputs' lines of a message: ``  #0 x  float32 (7, 2)     built at ...``, the names in one column."""
    width = max((len(v.name) for v in values), default=0)
    return [f"  #{v.position} {v.name:<{width}}  {v.dtype + ' ' + describe_shape(v.shape):<18} {v.built}"
            for v in values]


def _summary(value: ValueRecord) -> str:
    return short_summary(value.value) if value.computed else "not computed"


def bad_entries(value: Any) -> tuple[int, int]:
    """``(NaN count, Inf count)`` of a value (zeros for a non-float value)."""
    array = np.asarray(value)
    if array.dtype.kind not in "fc" or array.size == 0:
        return 0, 0
    return int(np.isnan(array).sum()), int(np.isinf(array).sum())


def short_summary(value: Any) -> str:
    """``float32 (3,) min=0 max=1 NaN=1`` (the error message's line for a value)."""
    if value is None:
        return "not computed"
    array = np.asarray(value)
    parts = [f"{array.dtype} {describe_shape(array.shape)}"]
    if array.size and array.dtype.kind in "biuf":
        numbers = array[np.isfinite(array)] if array.dtype.kind == "f" else array
        if array.size <= 6:
            parts.append(" ".join(np.array2string(array, separator=", ").split()))
        elif numbers.size:
            parts.append(f"min={numbers.min():.4g} max={numbers.max():.4g}")
        nan, inf = bad_entries(array)
        if nan or inf:
            parts.append(f"NaN={nan} inf={inf}")
    return " ".join(parts)
