"""How a loop reads its sequences and keeps its states (taps), and its own errors:
shared by the op, its NumPy loop (perform.py), its gradient and its lowering."""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.graph.errors import InnerNodeError
from symnb.core.graph.type import describe_shape

__all__ = ["seq_window", "state_depth", "is_plain_state", "step_error", "shape_text"]


def seq_window(taps: Sequence[int]) -> tuple[int, list[int]]:
    """``(span, starts)``: positions a sequence needs beyond the steps, and where the
    window of each tap starts (Theano's slicing: the window always covers tap 0)."""
    lo, hi = min(min(taps), 0), max(max(taps), 0)
    return hi - lo, [k - lo for k in taps]


def state_depth(taps: Sequence[int]) -> int:
    """How many past steps an output with these (negative) taps keeps."""
    return -min(taps)


def is_plain_state(taps: Sequence[int]) -> bool:
    """True when the initial value is the state itself (taps ``(-1,)``), not a stack."""
    return tuple(taps) == (-1,)


def step_error(op: Any, message: str) -> InnerNodeError:
    """An error about the loop itself (not one inner node), naming the scan."""
    return InnerNodeError(f"{op.describe()}: {message}")


def shape_text(shape: Sequence[int | None]) -> str:
    return describe_shape(shape)
