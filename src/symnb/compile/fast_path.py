"""The call path of a compiled function in the common case, as one closure.

A call of a tiny function costs little more than JAX's own dispatch, so what Python
does around it shows: each attribute lookup, method layer and check. ``fast_path``
makes, when a function's program is (re)built, a closure over what a call reads, for
calls with positional arguments and a program with nothing to check, specialize or
scope (but 64-bit types: see ``_in_x64``), no profile and no mode hook. It behaves
exactly as the full path (``Function._call_in_full``): the same
:class:`~symnb.compile.call.CallSpec` checks the arguments, holds the locks, applies
the updates and copies the outputs; anything else goes to the full path. The most
common cases, outputs and no shared variable, have their checks, 64-bit scope and
copies written out in the closure (``_written_out``), and a program of one output
returns it bare (``Program.bare``): see bench/bench_calls.py and bench/bench_pymc3.py.

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
    packed = program.packed  # several small outputs in one buffer (no update: not donated)
    call = program.call if packed is None else packed.run
    call = _in_x64(call) if x64 else call
    locks, shared_values, finish = spec.locks, spec.shared_values, spec.finish
    if packed is not None:
        finish = _finish_packed(finish, packed.layout.split)
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

    if locks is None and n_inputs and spec.n_outputs:  # no shared variable: no update
        return _written_out(spec, program, full, recover_and_run, execution_error, x64)

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


def _finish_packed(finish: Callable[[Any], Any],
                   split: Callable[[np.ndarray], list]) -> Callable[[Any], Any]:
    """``finish`` (``CallSpec.finish``) of a packed program's results: the outputs,
    views of one host copy of its buffer (``lower_xla/packed_outputs.py``), or the list
    of them (a trace that did not pack them, or the full path's run after a retrace)."""
    array = np.array

    def finish_packed(results: Any) -> Any:
        if type(results) is list:
            return finish(results)
        return split(array(results))

    return finish_packed


def _written_out(spec: CallSpec, program: Program, full: Callable[..., Any],
                 recover_and_run: Callable[[Program, Exception, list[Any]], Any],
                 execution_error: Callable[[Exception, Program, list[Any]], Exception],
                 x64: bool = False) -> Callable[..., Any]:
    """The most common cases: outputs and no shared variable (a bare program returns
    its one output itself, else the list of its outputs). ``fast_path``'s checks, run
    and ``finish`` written out for this function's numbers of inputs and outputs
    (:data:`_WRITTEN_OUT`): one positional parameter per input (the call builds no
    tuple of arguments), one test per input and one copy per output, no loop, and the
    64-bit scope (``_in_x64``) tested in place; a Python frame, tuple or loop is a
    measurable part of a tiny function's call (bench/bench_calls.py), and of a PyMC3
    model's gradient (bench/bench_pymc3.py)."""
    n = len(spec.inputs)
    names = [f"a{i}" for i in range(n)]
    # Per input: passed as it is when a NumPy array of exactly its dtype and number of
    # dimensions (an input with static lengths has no such dtype: always checked).
    inexact = " or ".join(
        "True" if dtype is None else
        f"type({a}) is not ndarray or {a}.dtype is not dtype{i} or {a}.ndim != {ndim}"
        for i, (a, (dtype, ndim)) in enumerate(zip(names, spec.checks.exact)))
    args = ", ".join(names)
    # Copies the caller owns, as CallSpec.finish (call.owned).
    copied = "[" + ", ".join(f"array(output[{i}])" for i in range(spec.n_outputs)) + "]"
    packed = program.packed
    if spec.bare:
        returned = "return array(output)" if spec.single else "return [array(output)]"
    elif packed is None:
        returned = f"return {copied}"
    else:  # one buffer copied, the outputs its views (lower_xla/packed_outputs.py)
        returned = _PACKED_RETURN.format(copied=copied,
                                         split=packed.layout.split_source("buffer"))
    run = _X64_RUN if x64 else "output = run({args})"
    source = _WRITTEN_OUT.format(run=run.format(args=args)).format(
        params="".join(f"{a}=missing, " for a in names), args=args, last=names[-1],
        inexact=inexact, unpacked="".join(f"{a}, " for a in names), returned=returned)
    scope = dict(__name__=__name__, full=full, check_all=spec.checks.check_all,
                 run=program.run if packed is None else packed.run, program=program,
                 config=jax.config,
                 enable_x64=jax.enable_x64,
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
    return scope.pop("written_out")


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


#: The call of a function of outputs and no shared variable, for inputs ``a0, a1,
#: ...`` (see ``_written_out``); ``{run}`` runs the program (``_X64_RUN``: with 64-bit
#: types enabled). Fewer arguments, more, or keywords go to the full path (which
#: reports what is wrong).
_WRITTEN_OUT = """
def written_out({{params}}/, *more, **kwargs):
    try:  # free unless it raises: errors leave without symnb's frames (the full path's too)
        if kwargs or more or {{last}} is missing:
            return full(*[a for a in ({{args}},) if a is not missing], *more, **kwargs)
        if {{inexact}}:
            {{unpacked}}= check_all(({{args}},))
        try:
            {run}
        except retraced as failure:  # raised while tracing: nothing ran
            output = recover_and_run(program, failure, [{{args}}])
        except runtime_error as error:
            raise execution_error(error, program, [{{args}}]) from None
        except ValueError:  # refused before running: values on different devices?
            mismatch = device_mismatch([{{args}}])
            if mismatch is None:
                raise
            raise mismatch from None
    except Exception as err:
        hide_library_frames(err)
        raise
    {{returned}}
"""

#: The end of the written-out call of a packed program: the list of the outputs (a
#: trace that did not pack them, or the full path's run after a retrace), else one
#: copy of the buffer, and views of it.
_PACKED_RETURN = """if type(output) is list:
        return {copied}
    buffer = array(output)
    return {split}"""

#: ``_in_x64`` written out in the call (no frame of its own).
_X64_RUN = """if config.jax_enable_x64:
                output = run({args})
            else:
                with enable_x64(True):
                    output = run({args})"""
