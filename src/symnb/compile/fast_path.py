"""The call path of a compiled function in the common case, as one closure.

A call of a tiny function costs little more than JAX's own dispatch, so what Python
does around it shows: each attribute lookup, method layer and check. ``fast_path``
makes, when a function's program is (re)built, a closure over what a call reads, for
calls with positional arguments and a program with nothing to check, specialize or
scope, no profile and no mode hook. It behaves exactly as the full path
(``Function._call_in_full``): the same :class:`~symnb.compile.call.CallSpec` checks the
arguments, holds the locks, applies the updates and copies the outputs; anything else
goes to the full path. The most common case, one output and no shared variable, has
its checks and copy written out in the closure (``_one_output``), and its program
returns that output bare (``Program.bare``): see bench/bench_calls.py.

A failure while tracing (nothing ran) is handled once, where it is caught: by
``recover_and_run`` (``Function._recover_and_run``), which specializes the program, or
stops donating, and runs the call again, or raises the call's error.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np

from symnb.compile.call import CallSpec
from symnb.core.graph.traceback_filter import hide_library_frames
from symnb.lower_xla.cache import ChangedShape, Program
from symnb.lower_xla.interpreter import NodeFailure

__all__ = ["fast_path"]


def fast_path(spec: CallSpec, program: Program, full: Callable[..., Any],
              recover_and_run: Callable[[Program, Exception, list[Any]], Any],
              execution_error: Callable[[Exception, Program, list[Any]], Exception]
              ) -> Callable[..., Any]:
    """The call running ``program`` (a plain one: ``program.plain``) with ``spec``'s
    arguments; ``full`` takes calls with keywords or a wrong number of arguments.
    A failure while tracing goes to ``recover_and_run(program, failure, arrays)``, which
    returns the program's results; one while running to ``execution_error``."""
    check_all, call, n_inputs = spec.checks.check_all, program.call, len(spec.inputs)
    locks, shared_values, finish = spec.locks, spec.shared_values, spec.finish

    def run(arrays: Any) -> Any:
        try:
            return call(*arrays)
        except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
            return recover_and_run(program, failure, list(arrays))
        except jax.errors.JaxRuntimeError as error:
            raise execution_error(error, program, list(arrays)) from None

    if spec.bare and spec.single and locks is None:
        return _one_output(spec, program, full, recover_and_run, execution_error)

    def positional(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != n_inputs:
            return full(*args, **kwargs)
        try:  # free unless it raises: errors leave without symnb's frames
            args = check_all(args)
            if locks is None:
                return finish(run(args))
            with locks:  # shared values read, donated and replaced with their locks held
                return finish(run([*args, *shared_values()]))
        except Exception as err:
            hide_library_frames(err)
            raise

    return positional


def _one_output(spec: CallSpec, program: Program, full: Callable[..., Any],
                recover_and_run: Callable[[Program, Exception, list[Any]], Any],
                execution_error: Callable[[Exception, Program, list[Any]], Exception]
                ) -> Callable[..., Any]:
    """The most common case: one output, no shared variable, a bare program (its
    ``run`` returns the output itself). ``fast_path``'s checks, run and ``finish``
    written out in the closure: a Python frame or loop is a measurable part of a tiny
    function's call."""
    check_all, exact, n_inputs = spec.checks.check_all, spec.checks.exact, len(spec.inputs)
    run, ndarray, asarray, missing = program.run, np.ndarray, np.asarray, _MISSING

    if n_inputs == 1:
        (dtype, ndim), = exact

        # One positional parameter (not ``*args``): the call builds no tuple of arguments.
        def one_in_one_out(value: Any = missing, /, *more: Any, **kwargs: Any) -> Any:
            if kwargs or more or value is missing:
                return full(*(() if value is missing else (value,)), *more, **kwargs)
            try:  # free unless it raises: errors leave without symnb's frames
                if type(value) is not ndarray or value.dtype is not dtype or value.ndim != ndim:
                    (value,) = check_all((value,))
                try:
                    output = run(value)
                except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
                    output = recover_and_run(program, failure, [value])
                except jax.errors.JaxRuntimeError as error:
                    raise execution_error(error, program, [value]) from None
            except Exception as err:
                hide_library_frames(err)
                raise
            return asarray(output).copy()  # as CallSpec.finish: see call.owned

        return one_in_one_out

    def single_output(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != n_inputs:
            return full(*args, **kwargs)
        try:  # free unless it raises: errors leave without symnb's frames
            for value, (dtype, ndim) in zip(args, exact):  # check_all's test, written out
                if type(value) is not ndarray or value.dtype is not dtype or value.ndim != ndim:
                    args = check_all(args)
                    break
            try:
                output = run(*args)
            except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
                output = recover_and_run(program, failure, list(args))
            except jax.errors.JaxRuntimeError as error:
                raise execution_error(error, program, list(args)) from None
        except Exception as err:
            hide_library_frames(err)
            raise
        return asarray(output).copy()  # as CallSpec.finish: see call.owned

    return single_output


#: No argument given (``None`` may be one).
_MISSING = object()
