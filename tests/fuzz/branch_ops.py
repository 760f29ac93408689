"""Step family: ``sn.ifelse`` on a scalar condition, stacked (a branch reads values
earlier ``ifelse`` steps made) and nested (a branch is itself an ``ifelse``).

The condition is ``T.any(c)`` of a drawn value, drawn only where its truth is decided
(no element within its error bound of 0). The reference is the chosen branch's own
reference, its error bound that branch's. Under :func:`switch_form` the same programs
build ``T.switch`` in place of every ``ifelse`` (both branches computed): the size a
program through ``ifelse`` is compared with.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import numpy as np
from hypothesis import strategies as st

import symnb as sn
import symnb.tensor as T
from tests.fuzz.program import Builder
from tests.fuzz.shapes import pick

__all__ = ["choose", "switch_form", "count_choices"]

_FORM = {"switch": False}


@contextlib.contextmanager
def switch_form() -> Iterator[None]:
    """Build programs with ``T.switch`` where they hold an ``ifelse`` step."""
    _FORM["switch"] = True
    try:
        yield
    finally:
        _FORM["switch"] = False


def _choice(condition, then_value, else_value):
    truth = T.any(condition)
    if _FORM["switch"]:
        return T.switch(truth, then_value, else_value)
    return sn.ifelse(truth, then_value, else_value)


def count_choices(program) -> int:
    """How many ``ifelse`` a program builds (nested ones included)."""
    return sum(step.text.count("sn.ifelse(") for step in program.steps)


def _decided(b: Builder, c: int) -> bool:
    """Whether ``any(c)`` is the same for every value within ``c``'s error bound."""
    value, err = np.asarray(b.ref(c)), np.asarray(b.err(c))
    if value.dtype.kind not in "fc":
        return bool(np.all(err == 0))
    magnitude = np.abs(np.asarray(value, np.float64))
    return bool(np.all((err == 0) | (magnitude > err) | np.isnan(magnitude)))


def _condition(draw, b: Builder) -> int | None:
    return pick(draw, b, lambda i: _decided(b, i))


def _partner(draw, b: Builder, x: int) -> int:
    """A value of ``x``'s dtype and shape (``x`` itself when none other has them)."""
    ref = b.ref(x)
    found = pick(draw, b, lambda i: i != x and b.ref(i).dtype == ref.dtype
                 and b.ref(i).shape == ref.shape)
    return x if found is None else found


def choose(draw, b: Builder) -> int | None:
    """``sn.ifelse(T.any(c), a, y)``, or nested: ``sn.ifelse(T.any(c), sn.ifelse(T.any(d),
    a, a2), y)``."""
    c = _condition(draw, b)
    if c is None:
        return None
    a = pick(draw, b)
    y = _partner(draw, b, a)
    d = _condition(draw, b) if draw(st.integers(0, 2)) == 0 else None
    truth = bool(np.any(b.ref(c)))
    if d is None:
        chosen = a if truth else y
        return b.add_step("sn.ifelse(T.any({}), {}, {})", [c, a, y], _choice,
                          lambda cv, av, yv: (av if np.any(cv) else yv).copy(),
                          b.ref(chosen).copy(), b.err(chosen))
    a2 = _partner(draw, b, a)
    inner = (a if bool(np.any(b.ref(d))) else a2)
    chosen = inner if truth else y
    return b.add_step(
        "sn.ifelse(T.any({}), sn.ifelse(T.any({}), {}, {}), {})", [c, d, a, a2, y],
        lambda cv, dv, av, a2v, yv: _choice(cv, _choice(dv, av, a2v), yv),
        lambda cv, dv, av, a2v, yv: ((av if np.any(dv) else a2v) if np.any(cv) else yv).copy(),
        b.ref(chosen).copy(), b.err(chosen))
