"""What a scan step function returned, read as outputs, updates and a stopping condition.

Theano's forms (``scan_utils.get_updates_and_outputs``), in this order:

- ``outputs``: one output, or a list (or tuple) of them;
- ``updates``: a dict (an ``OrderedDict``) ``{shared: new_value}``, or a list of pairs
  ``[(shared, new_value), ...]``;
- ``outputs, updates``, ``outputs, scan_until(c)``, ``updates, scan_until(c)`` and
  ``outputs, updates, scan_until(c)``.

symnb also reads what Theano refused but means one thing only: the outputs listed
flat before the updates or the condition (``return h, y, scan_until(c)``), the updates
before the outputs, and ``scan_until(c)`` alone. Anything else (updates inside the
outputs' list, ``((outs, updates), scan_until(c))``, ``None``, a string...) is refused
on the user's ``scan(...)`` line with the structure it returned and these forms.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from symnb.core.graph.basic import Variable
from symnb.core.graph.errors import build_error, label
from symnb.core.tensor.basic import as_tensor_variable

__all__ = ["Until", "StepReturn", "read_step_return"]


class Until:
    """The stopping condition returned by a step function (see ``scan_until``)."""

    def __init__(self, condition: Any) -> None:
        self.condition = as_tensor_variable(condition)


class StepReturn(NamedTuple):
    """A step's return read: its outputs (not yet tensors), its update pairs and its
    stopping condition (None: none)."""

    outputs: list[Any]
    updates: list[tuple[Any, Any]]
    condition: Variable | None


#: The accepted forms, for the message.
FORMS = ("The step function returns one of (as in Theano):\n"
         "  outputs                            h   or   [h, y]\n"
         "  outputs, updates                   updates: {W: new_W} (a dict or OrderedDict) "
         "or [(W, new_W)]\n"
         "  outputs, scan_until(c)\n"
         "  updates, scan_until(c)\n"
         "  outputs, updates, scan_until(c)")


def read_step_return(returned: Any, name: str) -> StepReturn:
    """``returned`` (what the step function ``name`` returned) as a :class:`StepReturn`;
    a ``TypeError`` on the user's line when it is none of the accepted forms."""
    kind = _kind(returned)
    if kind == "output":
        return StepReturn([returned], [], None)
    if kind == "outputs":
        return StepReturn(list(returned), [], None)
    if kind == "updates":
        return StepReturn([], _pairs(returned), None)
    if kind == "until":
        return StepReturn([], [], returned.condition)
    if not isinstance(returned, (list, tuple)):
        _refuse(returned, name, f"{_structure(returned)} is neither an output nor updates")
    return _read_parts(returned, name)


def _read_parts(returned: list | tuple, name: str) -> StepReturn:
    """A list or tuple of parts: outputs (listed flat, or as one list), updates, and
    ``scan_until(c)`` last."""
    # An empty list after the first part is no updates (Theano reads ``return h, []`` so).
    kinds = ["updates" if i and isinstance(part, (list, tuple)) and not part else _kind(part)
             for i, part in enumerate(returned)]
    for i, (part, kind) in enumerate(zip(returned, kinds)):
        if kind is None:
            _refuse(returned, name, f"its item #{i}, {_structure(part)}, is neither an output, "
                                    f"a list of outputs, updates nor scan_until(c)"
                                    + _nested_hint(part))
    if kinds.count("until") > 1 or ("until" in kinds and kinds[-1] != "until"):
        _refuse(returned, name, "scan_until(c) must come last, once")
    if kinds.count("updates") > 1:
        _refuse(returned, name, "it holds several updates; return them as one dict")
    if "outputs" in kinds and (kinds.count("outputs") > 1 or "output" in kinds):
        _refuse(returned, name, "its outputs are not in one place: list them flat "
                                "(h, y, ...) or as one list ([h, y], ...)")
    outputs: list[Any] = []
    updates: list[tuple[Any, Any]] = []
    condition = None
    for part, kind in zip(returned, kinds):
        if kind == "output":
            outputs.append(part)
        elif kind == "outputs":
            outputs = list(part)
        elif kind == "updates":
            updates = _pairs(part)
        else:
            condition = part.condition
    return StepReturn(outputs, updates, condition)


def _kind(value: Any) -> str | None:
    """``"output"``, ``"outputs"`` (a list of them), ``"updates"``, ``"until"``, or None
    (none of these). A list of pairs is updates (as in Theano); a pair of outputs is
    a list of outputs."""
    if isinstance(value, Until):
        return "until"
    if isinstance(value, dict):
        return "updates"
    if _is_output(value):
        return "output"
    if isinstance(value, (list, tuple)):
        if all(_is_output(v) for v in value):
            return "outputs"
        if all(isinstance(v, (list, tuple)) and len(v) == 2 for v in value):
            return "updates"
    return None


def _is_output(value: Any) -> bool:
    """A variable, or a number or array symnb makes a constant of."""
    return isinstance(value, (Variable, numbers.Number, np.ndarray, np.generic))


def _nested_hint(part: Any) -> str:
    """Why a part is unreadable, when it holds updates or the condition: those are
    returned beside the outputs, never inside their list."""
    if isinstance(part, (list, tuple)) and any(isinstance(v, (dict, Until)) for v in part):
        return " (the updates and scan_until(c) go beside the outputs, not inside their list)"
    return ""


def _pairs(updates: Any) -> list[tuple[Any, Any]]:
    return list(updates.items()) if isinstance(updates, dict) else [tuple(p) for p in updates]


def _refuse(returned: Any, name: str, why: str) -> None:
    raise build_error(f"scan {name!r}: the step function returned {_structure(returned)}, "
                      f"which scan cannot read: {why}.\n{FORMS}", TypeError)


def _structure(value: Any, depth: int = 0) -> str:
    """What ``value`` is, briefly: ``((h, {W: ...}), scan_until(...))``."""
    if isinstance(value, Variable):
        return label(value)
    if isinstance(value, Until):
        return f"scan_until({label(value.condition)})"
    if isinstance(value, dict):
        keys = [label(k) if isinstance(k, Variable) else type(k).__name__ for k in value]
        return "{" + ", ".join(f"{k}: ..." for k in keys[:3]) + (", ...}" if len(keys) > 3 else "}")
    if isinstance(value, (list, tuple)):
        if depth >= 3:
            return "[...]" if isinstance(value, list) else "(...)"
        items = [_structure(v, depth + 1) for v in value[:6]] + (["..."] if len(value) > 6 else [])
        text = ", ".join(items) + ("," if isinstance(value, tuple) and len(value) == 1 else "")
        return f"[{text}]" if isinstance(value, list) else f"({text})"
    if isinstance(value, (numbers.Number, np.generic)):
        return repr(value)
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    return "None" if value is None else f"a {type(value).__name__}"
