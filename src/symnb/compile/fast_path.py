"""The call path of a compiled function in the common case, as one closure.

A call of a tiny function costs little more than JAX's own dispatch, so what Python
does around it shows: each attribute lookup, method layer and check. ``fast_path``
makes, when a function's program is (re)built, a closure over what a call reads, for
calls with positional arguments and a program with nothing to check, specialize or
scope, no profile and no mode hook. It behaves exactly as ``Function._call_in_full``
(same argument checks, locks, updates and owned output copies); anything else goes
there.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np

from symnb.compile.devices import on_device
from symnb.compile.inputs import taken_as_is
from symnb.core.graph.traceback_filter import hide_library_frames
from symnb.lower_xla.cache import ChangedShape, Program
from symnb.lower_xla.interpreter import NodeFailure

__all__ = ["fast_path"]


def fast_path(function: Any, program: Program) -> Callable[..., Any] | None:
    """The call of ``function`` running ``program``, or None when calls need the full path."""
    if not program.plain or function._context is not None or function._after_call is not None \
            or function.profile is not None:
        return None
    if function._locks is None and function._single and len(function.inputs) == 1 \
            and taken_as_is(function.inputs[0]) is not None:
        return _one_in_one_out(function, program)
    return _positional(function, program)


def _one_in_one_out(function: Any, program: Program) -> Callable[..., Any]:
    """One argument, one output, no shared variable: the common case, written out."""
    dtype, ndim = taken_as_is(function.inputs[0])
    (check,) = function._checkers
    full, call, ndarray, copy = function._call_in_full, program.call, np.ndarray, np.array

    def one_in_one_out(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != 1:
            return full(*args, **kwargs)
        (value,) = args
        try:  # free unless it raises: errors leave without symnb's frames
            if type(value) is not ndarray or value.dtype != dtype or value.ndim != ndim:
                value = check(value)
            try:
                results = call(value)
            except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
                results = function._run([value], failure)
            except jax.errors.JaxRuntimeError as error:
                raise function._execution_error(error, program, [value]) from None
        except Exception as err:
            hide_library_frames(err)
            raise
        return copy(results[0])

    return one_in_one_out


def _positional(function: Any, program: Program) -> Callable[..., Any]:
    """Positional arguments; shared variables read and updated with their locks held."""
    full, run, finish = function._call_in_full, function._run_plain, function._finish
    checkers, n_inputs = tuple(function._checkers), len(function.inputs)
    locks, shared = function._locks, tuple(function._all_shared)

    def positional(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != n_inputs:
            return full(*args, **kwargs)
        try:  # free unless it raises: errors leave without symnb's frames
            arrays = [check(a) for check, a in zip(checkers, args)]
            if locks is None:
                return finish(run(program, arrays))
            with locks:  # as in Function._call_in_full
                return finish(run(program, arrays + [on_device(v) for v in shared]))
        except Exception as err:
            hide_library_frames(err)
            raise

    return positional
