"""The call path of a compiled function in the common case, as one closure.

A call of a tiny function costs little more than JAX's own dispatch, so what Python
does around it shows: each attribute lookup, method layer and check. ``fast_path``
makes, when a function's program is (re)built, a closure over what a call reads, for
calls with positional arguments and a program with nothing to check, specialize or
scope (but 64-bit types: see ``_in_x64``), no profile and no mode hook. It behaves
exactly as the full path (``Function._call_in_full``): the same
:class:`~symnb.compile.call.CallSpec` checks the arguments, holds the locks, applies
the updates and copies the outputs; anything else goes to the full path. The most
common case, one output and no shared variable, has its checks and copy written out
in the closure (``_one_output``), and its program returns that output bare
(``Program.bare``): see bench/bench_calls.py.

A failure while tracing (nothing ran) is handled once, where it is caught: by
``recover_and_run`` (``Function._recover_and_run``), which specializes the program, or
stops donating, and runs the call again, or raises the call's error.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np

from symnb.compile.call import NOT_PASSED, CallSpec
from symnb.core.graph.traceback_filter import hide_library_frames
from symnb.lower_xla.cache import ChangedShape, Program
from symnb.lower_xla.interpreter import NodeFailure

__all__ = ["fast_path"]


def fast_path(spec: CallSpec, program: Program, full: Callable[..., Any],
              recover_and_run: Callable[[Program, Exception, list[Any]], Any],
              execution_error: Callable[[Exception, Program, list[Any]], Exception],
              x64: bool = False) -> Callable[..., Any]:
    """The call running ``program`` (a plain one: ``program.plain``) with ``spec``'s
    arguments; ``full`` takes calls with keywords or a wrong number of arguments.
    A failure while tracing goes to ``recover_and_run(program, failure, arrays)``, which
    returns the program's results; one while running to ``execution_error``. ``x64``:
    the program runs with 64-bit types enabled (``_in_x64``)."""
    check_all, n_inputs = spec.checks.check_all, len(spec.inputs)
    call = _in_x64(program.call) if x64 else program.call
    locks, shared_values, finish = spec.locks, spec.shared_values, spec.finish
    device_mismatch = spec.device_mismatch

    def run(arrays: Any) -> Any:
        try:
            return call(*arrays)
        except (NodeFailure, ChangedShape) as failure:  # raised while tracing: nothing ran
            return recover_and_run(program, failure, list(arrays))
        except jax.errors.JaxRuntimeError as error:
            raise execution_error(error, program, list(arrays)) from None
        except ValueError:  # refused before running: values on different devices?
            mismatch = device_mismatch(arrays)
            if mismatch is None:
                raise
            raise mismatch from None

    if spec.bare and spec.single and locks is None and n_inputs:
        return _one_output(spec, program, full, recover_and_run, execution_error, x64)

    def positional(*args: Any, **kwargs: Any) -> Any:
        # The user calls this frame: it must be the one that removes symnb's frames, the
        # full path's included (core/graph/traceback_filter.py).
        try:  # free unless it raises: errors leave without symnb's frames
            if kwargs or len(args) != n_inputs:
                return full(*args, **kwargs)
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
                execution_error: Callable[[Exception, Program, list[Any]], Exception],
                x64: bool = False) -> Callable[..., Any]:
    """The most common case: one output, no shared variable, a bare program (its
    ``run`` returns the output itself). ``fast_path``'s checks, run and ``finish``
    written out for this function's number of inputs (:data:`_ONE_OUTPUT`): one
    positional parameter per input (the call builds no tuple of arguments) and one test
    per input, no loop; a Python frame, tuple or loop is a measurable part of a tiny
    function's call (bench/bench_calls.py)."""
    n = len(spec.inputs)
    names = [f"a{i}" for i in range(n)]
    # Per input: passed as it is when a NumPy array of exactly its dtype and number of
    # dimensions (an input with static lengths has no such dtype: always checked).
    inexact = " or ".join(
        "True" if dtype is None else
        f"type({a}) is not ndarray or {a}.dtype is not dtype{i} or {a}.ndim != {ndim}"
        for i, (a, (dtype, ndim)) in enumerate(zip(names, spec.checks.exact)))
    source = _ONE_OUTPUT.format(params="".join(f"{a}=missing, " for a in names),
                                args=", ".join(names), last=names[-1], inexact=inexact,
                                unpacked="".join(f"{a}, " for a in names))
    run = _in_x64(program.run) if x64 else program.run
    scope = dict(__name__=__name__, full=full, check_all=spec.checks.check_all, run=run,
                 program=program,
                 recover_and_run=recover_and_run, execution_error=execution_error,
                 hide_library_frames=hide_library_frames, ndarray=np.ndarray, array=np.array,
                 missing=NOT_PASSED,  # a parameter not passed (a None passed is a value)
                 retraced=(NodeFailure, ChangedShape),
                 runtime_error=jax.errors.JaxRuntimeError,
                 **{f"dtype{i}": dtype for i, (dtype, _) in enumerate(spec.checks.exact)})
    scope["device_mismatch"] = spec.device_mismatch  # a call JAX refused: on different devices?
    # Compiled as this file's code (its template is): its frame is symnb's, removed
    # from the tracebacks users see (core/graph/traceback_filter.py).
    exec(compile(source, __file__, "exec"), scope)
    # Taken out of its globals: a function in its own globals is a reference cycle,
    # which would keep the program (its executables) until a full collection.
    return scope.pop("one_output")


def _in_x64(run: Callable[..., Any]) -> Callable[..., Any]:
    """``run`` with 64-bit types enabled, as the full path runs a float64 program
    (``devices.x64_scope``), but entering ``jax.enable_x64`` only when they are off
    where it is called: JAX's dispatch is measurably slower inside the scope than
    without one (about 2 us a call with JAX 0.10 on CPU), and a user who enabled them
    globally (as JAX's float64 users do) then pays nothing. The program is traced
    once per setting, its results the same."""
    def in_x64(*arrays: Any) -> Any:
        if jax.config.jax_enable_x64:
            return run(*arrays)
        with jax.enable_x64(True):
            return run(*arrays)

    return in_x64


#: The one-output call, for inputs ``a0, a1, ...`` (see ``_one_output``). Fewer
#: arguments, more, or keywords go to the full path (which reports what is wrong).
_ONE_OUTPUT = """
def one_output({params}/, *more, **kwargs):
    try:  # free unless it raises: errors leave without symnb's frames (the full path's too)
        if kwargs or more or {last} is missing:
            return full(*[a for a in ({args},) if a is not missing], *more, **kwargs)
        if {inexact}:
            {unpacked}= check_all(({args},))
        try:
            output = run({args})
        except retraced as failure:  # raised while tracing: nothing ran
            output = recover_and_run(program, failure, [{args}])
        except runtime_error as error:
            raise execution_error(error, program, [{args}]) from None
        except ValueError:  # refused before running: values on different devices?
            mismatch = device_mismatch([{args}])
            if mismatch is None:
                raise
            raise mismatch from None
    except Exception as err:
        hide_library_frames(err)
        raise
    return array(output)  # a copy the caller owns, as CallSpec.finish (call.owned)
"""
