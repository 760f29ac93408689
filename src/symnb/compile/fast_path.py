"""The call path of a compiled function in the common case, as one closure.

A call of a tiny function costs little more than JAX's own dispatch, so what Python
does around it shows: each attribute lookup, method layer and check. ``fast_path``
makes, when a function's program is (re)built, a closure over what a call reads, for
calls with positional arguments and a program with nothing to check, specialize or
scope, no profile and no mode hook. It behaves exactly as the full path
(``Function._call_in_full``): the same :class:`~symnb.compile.call.CallSpec` checks the
arguments, holds the locks, applies the updates and copies the outputs; anything else
goes to the full path. Its cost does not grow with the number of inputs beyond JAX's
own (``ArgumentChecks`` tests them all at once; see bench/bench_calls.py).
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
              retry: Callable[[list[Any], Exception], Any],
              execution_error: Callable[[Exception, Program, list[Any]], Exception]
              ) -> Callable[..., Any]:
    """The call running ``program`` (a plain one: ``program.plain``) with ``spec``'s
    arguments; ``full`` takes calls with keywords or a wrong number of arguments.
    A failure while tracing (nothing ran) goes to ``retry(arrays, failure)`` (the full run,
    which specializes or reports it); one while running to ``execution_error``."""
    check_all, exact = spec.checks.check_all, spec.checks.exact
    call, n_inputs, ndarray = program.call, len(spec.inputs), np.ndarray
    locks, shared_values, finish, asarray = spec.locks, spec.shared_values, spec.finish, np.asarray

    def run(arrays: Any) -> Any:
        try:
            return call(*arrays)
        except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
            return retry(list(arrays), failure)
        except jax.errors.JaxRuntimeError as error:
            raise execution_error(error, program, list(arrays)) from None

    if locks is None and spec.single and n_inputs == 1:
        (dtype, ndim), = exact

        def one_in_one_out(*args: Any, **kwargs: Any) -> Any:
            """As ``single_output`` below, for one argument: no loop over arguments."""
            if kwargs or len(args) != 1:
                return full(*args, **kwargs)
            (value,) = args
            try:  # free unless it raises: errors leave without symnb's frames
                if type(value) is not ndarray or value.dtype is not dtype or value.ndim != ndim:
                    (value,) = check_all(args)
                try:
                    results = call(value)
                except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
                    results = retry([value], failure)
                except jax.errors.JaxRuntimeError as error:
                    raise execution_error(error, program, [value]) from None
            except Exception as err:
                hide_library_frames(err)
                raise
            return asarray(results[0]).copy()

        return one_in_one_out

    if locks is None and spec.single:
        # The most common case, with ``check_all``'s test, ``run`` and ``finish`` written
        # out: a Python frame is a measurable part of a tiny function's call.
        def single_output(*args: Any, **kwargs: Any) -> Any:
            if kwargs or len(args) != n_inputs:
                return full(*args, **kwargs)
            try:  # free unless it raises: errors leave without symnb's frames
                for value, (dtype, ndim) in zip(args, exact):
                    if type(value) is not ndarray or value.dtype is not dtype or value.ndim != ndim:
                        args = check_all(args)
                        break
                try:
                    results = call(*args)
                except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
                    results = retry(list(args), failure)
                except jax.errors.JaxRuntimeError as error:
                    raise execution_error(error, program, list(args)) from None
            except Exception as err:
                hide_library_frames(err)
                raise
            return asarray(results[0]).copy()  # as CallSpec.finish: see call.owned

        return single_output

    def positional(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != n_inputs:
            return full(*args, **kwargs)
        try:  # free unless it raises: errors leave without symnb's frames
            for value, (dtype, ndim) in zip(args, exact):  # check_all's test, written out
                if type(value) is not ndarray or value.dtype is not dtype or value.ndim != ndim:
                    args = check_all(args)
                    break
            if locks is None:
                return finish(run(args))
            with locks:  # shared values read, donated and replaced with their locks held
                return finish(run([*args, *shared_values()]))
        except Exception as err:
            hide_library_frames(err)
            raise

    return positional
