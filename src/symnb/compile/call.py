"""What a call of a compiled function reads, in one small object both call paths share.

:class:`CallSpec` holds a function's inputs (their checks, keywords and defaults), its
shared variables (and the locks a call holds) and what a call hands back (updates
applied, outputs copied). ``Function._call_in_full`` (every case) and the closure
``fast_path`` makes (the common case) both call it, so neither reaches into the other.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.compile.container import default_value
from symnb.compile.devices import device_mismatch, on_device
from symnb.compile.inputs import ArgumentChecks
from symnb.compile.io import NO_DEFAULT, state_names
from symnb.compile.plan import FunctionPlan
from symnb.core.graph.errors import label
from symnb.core.graph.keywords import did_you_mean
from symnb.core.graph import Variable
from symnb.core.tensor.shared import SharedVariable, holding

__all__ = ["CallSpec", "NOT_PASSED", "owned"]


class _NotPassed:
    def __repr__(self) -> str:
        return "NOT_PASSED"


#: An argument not passed in a call (``None`` passed is a value): the one sentinel of
#: every call path (``CallSpec.bind``, and the fast path's parameters' default).
NOT_PASSED = _NotPassed()


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
        #: Per output, how a program's result becomes what the call returns: a sparse
        #: output's dense matrix becomes a SciPy matrix (``SparseType.from_program``).
        self.converters = tuple(getattr(out.type, "from_program", None) for out in plan.outputs)
        #: Whether any output needs a converter (the fast path then is not used).
        self.converts_outputs = any(c is not None for c in self.converters)
        self.locks = holding(list(self.shared))  # None: a call takes no lock
        self.checks = ArgumentChecks(self.inputs, checkers=plan.checkers)
        #: Per input: the keyword it is passed by, and its default (sn.In's value=).
        self.names = plan.names
        self.defaults = plan.defaults
        #: The keywords of the inputs holding state (``sn.In(..., update=...)``): no
        #: arguments, named in the error of a call passing one.
        self.state_names = frozenset(state_names(plan.construction["inputs"]))
        if plan.output_keys is not None:  # outputs given as a dict: a call returns one
            keys, listed = plan.output_keys, self.finish
            self.finish = lambda results: dict(zip(keys, listed(results)))  # type: ignore[method-assign]
            self.converts_outputs = True  # the fast path's own finish would return a list

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any],
             overrides: dict[int, Any] | None = None) -> Sequence[Any]:
        """The arguments in input order: positions first, then keywords by input name;
        an input not passed takes its default (``sn.In``'s ``value=``), or this call's
        override of it (``overrides``, by position: ``f[x] = value``). Every call path
        binds here, with Theano's rule: a value passed is a value, ``None`` included (the
        input's check then refuses it, naming the input); only an argument not passed
        (:data:`NOT_PASSED`) takes its default."""
        n = len(self.inputs)
        if not kwargs and len(args) == n:
            return args
        if len(args) > n:
            raise TypeError(f"{self.title} takes {n} argument(s) "
                            f"({', '.join(self._called(range(n)))}), got {len(args)}")
        bound = [*args, *[NOT_PASSED] * (n - len(args))]
        for key, value in kwargs.items():
            position = self._position(key)
            if position < len(args):
                raise TypeError(f"{self.title} got multiple values for input {key!r} "
                                f"(argument #{position}, also passed by keyword)")
            bound[position] = value
        missing = [i for i, (b, d) in enumerate(zip(bound, self.defaults))
                   if b is NOT_PASSED and d is NO_DEFAULT]
        if missing:
            raise TypeError(f"{self.title} is missing argument(s): "
                            f"{', '.join(self._called(missing))}")
        overrides = overrides or {}
        return [overrides.get(i, default_value(d)) if b is NOT_PASSED else b
                for i, (b, d) in enumerate(zip(bound, self.defaults))]

    def _called(self, positions: Sequence[int]) -> list[str]:
        """How messages name the arguments at ``positions``: by their keyword, else (an
        unnamed input) by their variable's label."""
        return [self.names[i] or label(self.inputs[i]) for i in positions]

    def _position(self, key: str) -> int:
        """The position of the input passed by keyword ``key``, or the error naming it."""
        positions = [i for i, name in enumerate(self.names) if name == key]
        if len(positions) == 1:
            return positions[0]
        if positions:  # which of them was meant cannot be known: Theano refuses it too
            numbers = ", ".join(f"#{i}" for i in positions)
            raise TypeError(f"{self.title} has {len(positions)} inputs named {key!r} (arguments "
                            f"{numbers}): pass them by position, or name them apart with "
                            f"sn.In(variable, name=...)")
        named = [name for name in self.names if name is not None]
        state = f" ({key!r} is internal state: an sn.In with update= is not an argument)" \
            if key in self.state_names else did_you_mean(key, named)
        raise TypeError(f"{self.title} has no input named {key!r}{state}; "
                        f"inputs: {list(self.names)}")

    def shared_values(self) -> list[Any]:
        """The shared variables' values on the device (read with their locks held)."""
        return [on_device(v) for v in self.shared]

    def device_mismatch(self, arrays: Sequence[Any]) -> Exception | None:
        """The error to raise for a call JAX refused with a ``ValueError`` (nothing ran)
        because ``arrays`` (the arguments, then the shared values) are committed to
        different devices, naming each variable and its devices; None when it is not
        that (the refusal is raised as it is). Looked for only once JAX refused: a call
        that runs checks nothing."""
        error = device_mismatch((*self.inputs, *self.shared), arrays, self.title)
        if error is not None:
            error.__suppress_context__ = True  # JAX's message names positions only
        return error

    def finish(self, results: Any) -> Any:
        """Apply the updates (the results after the outputs) and return the outputs as
        NumPy arrays the caller owns."""
        if self.bare:
            output = self._owned(0, results)
            return output if self.single else [output]
        n = self.n_outputs
        for var, value in zip(self.updated, results[n:]):
            var._set_backend_value(value)
        if self.single:
            return self._owned(0, results[0])
        return [self._owned(i, r) for i, r in enumerate(results[:n])]

    def _owned(self, index: int, result: Any) -> Any:
        convert = self.converters[index] if self.converts_outputs else None
        return owned(result) if convert is None else convert(result)

    def put_back(self, old_values: Sequence[Any]) -> None:
        """Restore the updated shared variables' values (a program whose checks failed
        returns the old values of what it was donated)."""
        for var, value in zip(self.updated, old_values):
            var._set_backend_value(value)
