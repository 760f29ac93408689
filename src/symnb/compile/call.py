"""What a call of a compiled function reads, in one small object both call paths share.

:class:`CallSpec` holds a function's inputs (their checks, keywords and defaults), its
shared variables (and the locks a call holds) and what a call hands back (updates
applied, outputs copied). ``Function._call_in_full`` (every case) and the closure
``fast_path`` makes (the common case) both call it, so neither reaches into the other.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.compile.devices import on_device
from symnb.compile.inputs import ArgumentChecks
from symnb.compile.io import NO_DEFAULT
from symnb.compile.plan import FunctionPlan
from symnb.core.graph.errors import label
from symnb.core.graph.keywords import did_you_mean
from symnb.core.graph import Variable
from symnb.core.tensor.shared import SharedVariable, holding

__all__ = ["CallSpec", "owned"]


def owned(result: Any) -> np.ndarray:
    """``result`` (a JAX array) as a NumPy array the caller owns and may write: NumPy's
    view of a JAX buffer is read-only, and two outputs (or an output and a shared
    value, or a constant) may be the same buffer. (``np.array`` copies once, as
    ``np.asarray(...).copy()`` does, in one call: measured a little faster with
    NumPy 2.4 and JAX 0.10 in bench/bench_calls.py.)"""
    return np.array(result)


class CallSpec:
    """A compiled function's calling convention: arguments in, updates and outputs out,
    made once from its :class:`~symnb.compile.plan.FunctionPlan` and never changed.

    The program takes the checked arguments, then the values of the updated shared
    variables, then those of the shared variables it only reads. It returns its one
    output itself when it has one output and no update (``bare``: see
    ``Program.bare``), else the list of the outputs followed by the updates (the new
    values of the updated shared variables)."""

    def __init__(self, plan: FunctionPlan) -> None:
        self.inputs = plan.inputs
        self.updated = plan.updated_shared
        self.shared = plan.all_shared
        self.n_outputs = len(plan.outputs)
        self.single = plan.single
        #: The program returns its one output bare (see the class's docstring).
        self.bare = len(plan.outputs) == 1 and not plan.updated_shared
        self.title = plan.title  # "function 'f'" or "the compiled function", for messages
        self.locks = holding(list(self.shared))  # None: a call takes no lock
        self.checks = ArgumentChecks(self.inputs, checkers=plan.checkers)
        #: Per input: the keyword it is passed by, and its default (sn.In's value=).
        self.names = plan.names
        self.defaults = plan.defaults

    def bind(self, args: tuple, kwargs: dict, overrides: dict[int, Any] | None = None) -> list[Any]:
        """The arguments in input order, from positions, keywords and defaults
        (``overrides``: defaults replaced for this call, by position: ``f[x] = value``)."""
        n = len(self.inputs)
        if len(args) > n:
            raise TypeError(f"{self.title} takes {n} argument(s) "
                            f"({', '.join(map(label, self.inputs))}), got {len(args)}")
        bound = list(args) + [None] * (n - len(args))
        for key, value in kwargs.items():
            if key not in self.names:
                named = [name for name in self.names if name is not None]
                raise TypeError(f"{self.title} has no input named {key!r}"
                                f"{did_you_mean(key, named)}; inputs: {list(self.names)}")
            position = self.names.index(key)
            if position < len(args):
                raise TypeError(f"{self.title} got multiple values for input {key!r} "
                                f"(argument #{position}, also passed by keyword)")
            bound[position] = value
        overrides = overrides or {}
        bound = [overrides.get(i, d) if b is None and d is not NO_DEFAULT else b
                 for i, (b, d) in enumerate(zip(bound, self.defaults))]
        missing = [label(v) for v, b in zip(self.inputs, bound) if b is None]
        if missing:
            raise TypeError(f"{self.title} is missing argument(s): {', '.join(missing)}")
        return bound

    def shared_values(self) -> list[Any]:
        """The shared variables' values on the device (read with their locks held)."""
        return [on_device(v) for v in self.shared]

    def finish(self, results: Any) -> Any:
        """Apply the updates (the results after the outputs) and return the outputs as
        NumPy arrays the caller owns."""
        if self.bare:
            output = owned(results)
            return output if self.single else [output]
        n = self.n_outputs
        for var, value in zip(self.updated, results[n:]):
            var._set_backend_value(value)
        if self.single:
            return owned(results[0])
        return [owned(r) for r in results[:n]]

    def put_back(self, old_values: Sequence[Any]) -> None:
        """Restore the updated shared variables' values (a program whose checks failed
        returns the old values of what it was donated)."""
        for var, value in zip(self.updated, old_values):
            var._set_backend_value(value)
