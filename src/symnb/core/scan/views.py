"""``map``, ``reduce``, ``foldl`` and ``foldr``: the common loops, built on ``scan``."""

from __future__ import annotations

import collections
from typing import Any, Callable

from symnb.core.graph.traceback_filter import api_boundary
from symnb.core.scan.basic import build_scan, scan
from symnb.core.scan.op import Scan

__all__ = ["map", "reduce", "foldl", "foldr"]


def map(fn: Callable[..., Any], sequences: Any, non_sequences: Any = None,
        truncate_gradient: int = -1, go_backwards: bool = False, name: str | None = None
        ) -> tuple[Any, collections.OrderedDict]:
    """``fn`` applied to each step of ``sequences``: ``(outputs, updates)`` as in ``scan``."""
    return scan(fn, sequences=sequences, outputs_info=None, non_sequences=non_sequences,
                truncate_gradient=truncate_gradient, go_backwards=go_backwards, name=name)


@api_boundary  # errors show the user's line, as sn.scan's do
def reduce(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
           go_backwards: bool = False, name: str | None = None
           ) -> tuple[Any, collections.OrderedDict]:
    """The final state of a ``scan``: ``fn(x_t, acc) -> acc`` folded over ``sequences``.

    Only the last step is kept (outputs with an initial state are carried, not stacked),
    so memory does not grow with the sequence. Outputs without an initial state
    (``None`` in ``outputs_info``) give their last step. ``updates`` are the step's
    shared-variable updates (random draws' keys), as ``scan`` returns them.
    """
    updates: collections.OrderedDict = collections.OrderedDict()
    outputs = build_scan(fn, sequences, outputs_info, non_sequences, None, go_backwards, -1,
                         False, name, return_last=True, updates_out=updates)
    node = outputs[0].owner
    last = node.op.info.return_last if isinstance(node.op, Scan) else ()
    finals = [out if (last and last[j]) else out[-1] for j, out in enumerate(outputs)]
    return (finals[0] if len(finals) == 1 else finals), updates


def foldl(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          name: str | None = None) -> tuple[Any, collections.OrderedDict]:
    """``reduce`` from the first step to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=False, name=name)


def foldr(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any = None,
          name: str | None = None) -> tuple[Any, collections.OrderedDict]:
    """``reduce`` from the last step to the first."""
    return reduce(fn, sequences, outputs_info, non_sequences, go_backwards=True, name=name)
