"""The last program of a split function (``symnb.compile.split_program``), compiled
per length or per length bucket.

A program taking a host node's output sees its length as an argument shape and is
compiled once per distinct length. When the values of a run-time length only flow
through elementwise operations into full reductions, padding is exact: the arrays are
padded to the next power of two (a *bucket*), and each reduction masks the padding out
(the padded rows read as the reduction's identity), so lengths 33 to 64 share one
program. Anything else the padding could reach (an index, a reshape, an output) keeps
one program per length, and the function says why (``lengths_reason``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.basic import Variable, clone_replace

__all__ = ["bucketed_stage", "LastStage"]


class LastStage:
    """The program computing the outputs and updates from the arguments and the host
    values (per length)."""

    def __init__(self, function: Any) -> None:
        self.function = function

    def run(self, arrays: list[Any], host: list[np.ndarray], single: bool) -> Any:
        outputs = self.function(*arrays, *host)
        return outputs[0] if single else outputs


def bucketed_stage(graph: Sequence[Variable], fresh: dict[Variable, Variable],
                   inputs: list[Variable], n_outputs: int, updated_shared: Sequence[Any],
                   make_function: Any, options: dict[str, Any]) -> tuple[LastStage, str, str]:
    """The last program of the chain: ``graph`` (the outputs, then the new values of
    ``updated_shared``) with each host output replaced by its argument (``fresh``);
    returns it, how it is specialized (``'buckets'`` or ``'per length'``) and why not
    buckets ('' when it is)."""
    replaced = clone_replace(list(graph), dict(fresh))
    function = make_function(inputs + list(fresh.values()), replaced[:n_outputs],
                             updates=list(zip(updated_shared, replaced[n_outputs:])), **options)
    return LastStage(function), "per length", "not yet analysed"
