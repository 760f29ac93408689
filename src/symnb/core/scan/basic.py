"""``scan``: Theano's loop, traced once into an inner graph held by one ``Scan`` node.

The step function runs once, on placeholder variables holding the first step's
values as test values, so a bug inside it fails on the user's line as the graph is
built (iteration 0). The Scan node's own test value then runs every step with the
NumPy reference (see ``perform.py``).
"""

from __future__ import annotations

import collections
import dataclasses
import contextvars
import inspect
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.config import config
from symnb.core.graph.source import warn_at_user_line
from symnb.core.graph.errors import (MissingInputError, TestValueError, build_error,
                                     error_from_record, label)
from symnb.core.graph.basic import Constant, Variable, graph_inputs
from symnb.core.graph.inner_graph import InnerGraph, close_over, known_test_value, placeholder_like
from symnb.core.scan.updates import carry_default_updates, shared_states
from symnb.core.scan.op import Scan, ScanInfo
from symnb.core.scan.returns import Until, read_step_return
from symnb.core.scan.rows import StepsRun, last_rows_from_buffers
from symnb.core.scan.taps import is_plain_state, seq_window, state_depth
from symnb.core.tensor.shared import SharedVariable, serial_mark
from symnb.core.tensor import math as m
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.tensor.shape_extra import shape_padleft, unbroadcast
from symnb.core.graph.type import describe_shape, is_bool, is_integer
from symnb.core.graph.traceback_filter import api_boundary

__all__ = ["scan", "scan_until", "until", "Until", "steps_run"]


def scan_until(condition: Any) -> Until:
    """Mark ``condition`` (a scalar bool) as the stopping condition of a scan step.

    ``return h, scan_until(h < 1e-6)``: the loop stops after the first step whose
    condition is true (``n_steps`` or the sequences give the most steps it may run).
    """
    return Until(condition)


until = scan_until  # Theano's spelling (theano.scan_module.until)


@api_boundary  # errors show the user's line: core/graph/traceback_filter.py
def scan(fn: Callable[..., Any], sequences: Any = None, outputs_info: Any = None,
         non_sequences: Any = None, n_steps: Any = None, truncate_gradient: int = -1,
         go_backwards: bool = False, mode: Any = None, name: str | None = None,
         profile: Any = False, allow_gc: bool | None = None, strict: bool = False,
         return_list: bool = False) -> tuple[Any, collections.OrderedDict]:
    """Loop ``fn`` over ``sequences``, carrying ``outputs_info``; returns ``(outputs, updates)``.

    - ``sequences``: tensors iterated along axis 0, or ``dict(input=s, taps=[-1, 0, 1])``
      (tap ``k`` gives ``s[t + k]``); the loop runs over the shortest one.
    - ``outputs_info``: per output, its initial state (the output is fed back as the
      ``-1`` tap), ``dict(initial=h0, taps=[-2, -1])`` (``h0`` stacks the 2 previous
      steps along axis 0), or ``None`` for an output that is not fed back.
    - ``non_sequences``: passed to every step as the outer variables themselves (as
      in Theano, so ``T.grad(y[i], x)`` inside the step differentiates the outer
      graph); outer variables that ``fn`` uses without passing them are added
      automatically, unless ``strict=True``: then every shared variable the step reads
      from outside must be a non-sequence or computed from non-sequences only (Theano's
      rule: other outer variables are still added).
    - ``n_steps``: an int or symbolic int scalar bounding the number of steps. A constant
      1 (or -1) builds no loop, as in Theano: ``fn`` runs once on the first slices and
      each output gets a leading axis of length 1.
    - ``go_backwards``: iterate the sequences from their end.
    - ``truncate_gradient``: backpropagate through at most this many steps (-1: all;
      with ``scan_until``, the last steps run).
    - ``mode``, ``profile``, ``allow_gc``: Theano's, accepted and unused: the loop is a
      node of the function's one program, compiled in the function's mode, and
      ``sn.function(..., profile=True)`` times it with the function's other nodes.

    The parameters are Theano 1.0's, in its order.

    ``fn`` receives the sequence taps, then the output taps, then the non-sequences,
    and returns the outputs (one, or a list), optionally the shared-variable updates
    (a dict ``{shared: new_value}`` or a list of pairs) and ``scan_until(cond)``, last:
    Theano's forms (``symnb.core.scan.returns``; anything else is refused, naming what
    it returned). Each output stacks every step along a new axis 0; ``return_list=True``
    returns the outputs as a list even when there is one.

    ``updates`` maps each shared variable the step updates to its value after the
    last step; pass it to ``sn.function(..., updates=updates)`` to apply it. Inside
    the loop, a shared variable the step updates reads its value of the previous
    step. Shared variables the step reads that carry a ``default_update`` are updated
    the same way (Theano does too), unless read only through a non-sequence: a random
    draw passed in ``non_sequences`` is drawn once, the same at every step (a dropout
    mask), one the step reads without passing it is drawn anew at each step. A
    random stream drawn from in the step gets as default update its key after the
    last step: an enclosing scan's step that does not return this scan's updates, or
    a function not given them, still advances it by every draw.

    A loop that returns ``scan_until(cond)`` stops after the first step where ``cond``
    is true, and its outputs hold the rows of the steps run, as in Theano: their
    length is known only at run time (the static type says so), and a compiled
    function runs the loop in XLA up to ``n_steps`` steps, then cuts its rows on the
    host (``symnb.core.scan.rows``; ``symnb.compile.split_program``).
    ``steps_run(output)`` gives the number of steps run.
    """
    updates: collections.OrderedDict = collections.OrderedDict()
    if _fixed_steps(n_steps) in (1, -1):
        outputs = _single_step(fn, sequences, outputs_info, non_sequences, name, updates)
        return (list(outputs) if return_list or len(outputs) != 1 else outputs[0]), updates
    outputs = build_scan(fn, sequences, outputs_info, non_sequences, n_steps, go_backwards,
                         truncate_gradient, strict, name, updates_out=updates)
    outputs = [_rows_run(out) for out in outputs]
    if return_list:
        return list(outputs), updates
    return (outputs[0] if len(outputs) == 1 else outputs), updates


def _rows_run(output: Variable) -> Variable:
    """``output`` of a ``scan_until`` loop cut to the steps run (``StepsRun``); other
    outputs (and a loop's final states) as they are."""
    node = output.owner
    if node is None or not isinstance(node.op, Scan) or not node.op.info.as_while:
        return output
    info = node.op.info
    if info.return_last and info.return_last[output.index]:
        return output
    rows = StepsRun()(output, node.outputs[-1])
    rows.name = output.name
    return rows


def steps_run(output: Variable) -> Variable:
    """The int64 number of steps a ``scan_until`` loop ran, given one of its outputs."""
    node = output.owner
    if node is not None and isinstance(node.op, StepsRun):
        node = node.inputs[0].owner
    if node is None or not isinstance(node.op, Scan) or not node.op.info.as_while:
        raise TypeError(f"{label(output)!r} is not an output of a scan that returns scan_until")
    return node.outputs[-1]


def build_scan(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any,
               n_steps: Any, go_backwards: bool, truncate_gradient: int, strict: bool,
               name: str | None, return_last: bool = False,
               updates_out: dict | None = None) -> list[Variable]:
    """``scan`` returning its outputs as a list; ``return_last`` keeps only the final
    state of the outputs with a recurrence (``reduce``/``foldl``/``foldr``).

    The shared-variable updates the step returns (and the default updates of the
    shared variables it reads) become extra recurrent outputs, of which only the last
    step is kept; ``updates_out`` receives ``shared -> value after the last step``
    (a step that updates shared variables needs it)."""
    name = name or _default_name(fn)
    seqs = _parse_sequences(sequences)
    states = _parse_outputs_info(outputs_info)
    n_var = _number_of_steps(seqs, n_steps)
    n_value = _int_value(n_var)
    seq_args = _sequence_placeholders(seqs, n_value, go_backwards)
    state_args = _state_placeholders(states)
    non_seqs = _non_sequences(non_sequences)
    _name_after_parameters(fn, seq_args + state_args)
    outs, step_updates, condition, mark = _call_step(fn, seq_args + state_args + non_seqs, name)
    outs = _check_outputs(outs, states, name)
    inner_outputs = outs + ([_check_condition(condition)] if condition is not None else [])
    updated, update_args, inner_outputs = shared_states(inner_outputs, step_updates, len(outs), name,
                                                        non_seqs)
    if updated and updates_out is None:
        raise build_error(f"scan {name!r}: the step function updates shared variables, which "
                          f"this loop construct cannot return; use sn.scan", NotImplementedError)
    own_inputs = seq_args + state_args + update_args
    inner_outputs = last_rows_from_buffers(inner_outputs, own_inputs)
    captured, captured_args, inner_outputs = close_over(own_inputs, inner_outputs)
    captured, captured_args = _keep_unread_inputs(non_seqs, captured, captured_args)
    if strict:
        _check_strict(captured, non_seqs, name)
    n_plain = len(states) if states else len(outs)
    out_taps = tuple(taps for _, taps in states) if states else ((),) * len(outs)
    last = tuple(return_last and bool(taps) for taps in out_taps)
    info = ScanInfo(
        seq_taps=tuple(taps for _, taps in seqs),
        out_taps=out_taps + ((-1,),) * len(updated),
        n_non_seqs=len(captured),
        go_backwards=bool(go_backwards), truncate_gradient=int(truncate_gradient),
        as_while=condition is not None,
        return_last=(last + (True,) * len(updated)) if (states or updated) else (),
        name=name)
    op = Scan(InnerGraph(own_inputs + captured_args, inner_outputs), info)
    inits = [init for init, taps in states if taps]
    results = op(n_var, *(s for s, _ in seqs), *inits, *updated, *captured)
    results = results if isinstance(results, list) else [results]
    if updated:
        finals = results[n_plain:n_plain + len(updated)]
        updates_out.update(zip(updated, finals))
        carry_default_updates(updated, finals, mark)
    return results[:len(outs)]


def _fixed_steps(n_steps: Any) -> int | None:
    """``n_steps`` as an int when it is a constant (Theano's ``n_fixed_steps``)."""
    if isinstance(n_steps, (int, float, np.integer, np.floating)) and not isinstance(n_steps, bool):
        return int(n_steps)
    if isinstance(n_steps, Constant) and n_steps.ndim == 0:
        return int(n_steps.data)
    return None


def _single_step(fn: Callable[..., Any], sequences: Any, outputs_info: Any, non_sequences: Any,
                 name: str | None, updates: dict) -> list[Variable]:
    """Theano's ``scan`` with ``n_steps`` fixed to 1 (or -1): no loop; ``fn`` is applied once
    to the first slices themselves (a sequence's row at its tap, as Theano slices it, the
    initial state, or its rows for taps), and each output gets a leading axis of length 1.
    Its updates are the step's; a ``scan_until`` condition is ignored (Theano warns), and
    an output need not keep its state's dtype (there is no next step to feed)."""
    name = name or _default_name(fn)
    args = []
    for var, taps in _parse_sequences(sequences):
        _, starts = seq_window(taps)
        args += [var[start] for start in starts]
    for init, taps in _parse_outputs_info(outputs_info):
        if taps:
            depth = state_depth(taps)
            args += [init] if is_plain_state(taps) else [init[depth + tap] for tap in taps]
    outs, step_updates, condition, _ = _call_step(fn, args + _non_sequences(non_sequences), name)
    if condition is not None:
        warnings.warn(f"scan {name!r}: n_steps is 1, so the stopping condition is ignored "
                      f"(as in Theano)", stacklevel=3)
    updates.update(step_updates)
    return [unbroadcast(shape_padleft(as_tensor_variable(out)), 0) for out in outs]


def _default_name(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__name__", "scan_fn")
    return "scan_fn" if name == "<lambda>" else name


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


# -- parsing the arguments ------------------------------------------------------------------

def _parse_sequences(sequences: Any) -> list[tuple[Variable, tuple[int, ...]]]:
    parsed = []
    for i, item in enumerate(_as_list(sequences)):
        taps: Any = [0]
        if isinstance(item, dict):
            _check_keys(item, {"input", "taps"}, f"sequences[{i}]")
            taps = item.get("taps", [0])
            item = item.get("input")
        var = as_tensor_variable(item)
        if var.ndim == 0:
            raise build_error(f"scan: sequences[{i}] ({label(var)!r}) is a scalar; a sequence "
                               f"is iterated along axis 0", TypeError)
        parsed.append((var, _taps(taps, f"sequences[{i}]", allow_future=True)))
    return parsed


def _parse_outputs_info(outputs_info: Any) -> list[tuple[Variable | None, tuple[int, ...]]]:
    parsed: list[tuple[Variable | None, tuple[int, ...]]] = []
    for j, item in enumerate(_as_list(outputs_info)):
        taps: Any = [-1]
        if isinstance(item, dict):
            # "inplace" was Theano 0.x's hint to reuse a sequence's memory; Theano 1.0
            # ignores it, and so does symnb (XLA decides buffer reuse).
            _check_keys(item, {"initial", "taps", "inplace"}, f"outputs_info[{j}]")
            taps, written = item.get("taps"), "taps" in item
            item = item.get("initial")
            if taps is None and item is not None:
                # Theano's default: an initial state without taps is read at t-1 (it logs
                # a warning where taps=None was written out).
                if written:
                    warn_at_user_line(f"scan: outputs_info[{j}] has an initial state but "
                                      f"taps=None; using taps [-1], as Theano does")
                taps = [-1]
        if item is None:
            parsed.append((None, ()))
            continue
        init = as_tensor_variable(item)
        taps = _taps(taps, f"outputs_info[{j}]", allow_future=False)
        if not is_plain_state(taps) and init.ndim == 0:
            raise build_error(f"scan: outputs_info[{j}] has taps {list(taps)}, so its initial value "
                               f"stacks the {state_depth(taps)} previous steps along axis 0; "
                               f"{label(init)!r} is a scalar", TypeError)
        parsed.append((init, taps))
    return parsed


def _check_keys(item: dict, allowed: set[str], where: str) -> None:
    unknown = set(item) - allowed
    if unknown:
        raise build_error(f"scan: {where} has unknown key(s) {sorted(unknown)}; "
                           f"allowed: {sorted(allowed)}", KeyError)


def _taps(taps: Any, where: str, allow_future: bool) -> tuple[int, ...]:
    taps = [taps] if isinstance(taps, int) else list(taps or [])
    if not taps or not all(isinstance(k, int) and not isinstance(k, bool) for k in taps):
        raise build_error(f"scan: {where} taps must be a non-empty list of ints, got {taps!r}", TypeError)
    if not allow_future and max(taps) >= 0:
        raise build_error(f"scan: {where} taps {taps} must be negative: an output can only read "
                           f"its past steps")
    if not allow_future and len(set(taps)) < len(taps):
        # Theano refuses repeated output taps (a sequence's are merged, as Theano does).
        raise build_error(f"scan: {where} taps {taps} repeat a tap; all the taps of an output "
                           f"must be different")
    return tuple(dict.fromkeys(taps))


def _number_of_steps(seqs: list[tuple[Variable, tuple[int, ...]]], n_steps: Any) -> Variable:
    from symnb.core.tensor.shape import shape_i

    lengths = []
    if n_steps is not None:
        # A Python int is the number of steps itself (int64, as the loop counts), not
        # the int8 constant Theano's rule would make of it and cast.
        n_var = as_tensor_variable(np.int64(n_steps) if type(n_steps) is int else n_steps)
        if n_var.ndim != 0 or not is_integer(n_var.dtype):
            raise build_error(f"scan: n_steps must be an integer scalar, got {label(n_var)!r} "
                               f"of type {n_var.type.short()}", TypeError)
        lengths.append(m.cast(n_var, "int64"))
    for var, taps in seqs:
        span, _ = seq_window(taps)
        length = shape_i(var, 0)
        lengths.append(m.sub(length, span) if span else length)
    if not lengths:
        raise build_error("scan: give sequences or n_steps, so the number of steps is known", TypeError)
    total = lengths[0]
    for length in lengths[1:]:
        total = m.minimum(total, length)
    if total is not n_steps and not isinstance(total, Constant) and total.name is None:
        total.name = "n_steps"  # a variable scan made: name it in messages and printing
    return total


def _int_value(var: Variable) -> int | None:
    value = known_test_value(var) if config.compute_test_value != "off" else None
    return None if value is None else int(value)


# -- the step function's arguments ---------------------------------------------------------

def _sequence_placeholders(seqs: list, n_value: int | None, go_backwards: bool) -> list[Variable]:
    args = []
    for var, taps in seqs:
        value = known_test_value(var) if n_value else None
        _, starts = seq_window(taps)
        position = n_value - 1 if (go_backwards and n_value) else 0
        for tap, start in zip(taps, starts):
            first = value[start + position] if value is not None and len(value) > start + position else None
            args.append(placeholder_like(var, var.type.shape[1:], first, _tap_name(var, tap)))
    return args


def _state_placeholders(states: list) -> list[Variable]:
    args = []
    for j, (init, taps) in enumerate(states):
        if not taps:
            continue
        value = known_test_value(init)
        if is_plain_state(taps):
            args.append(placeholder_like(init, value=value, name=_tap_name(init, -1)))
            continue
        depth = state_depth(taps)
        rows = init.type.shape[0] if value is None else len(value)
        if rows is not None and rows < depth:
            raise build_error(
                f"scan: outputs_info[{j}] has taps {list(taps)}, which need the {depth} previous "
                f"steps stacked along axis 0 of its initial value; {label(init)!r} has shape "
                f"{describe_shape(init.type.shape if value is None else value.shape)}")
        for tap in taps:
            first = value[depth + tap] if value is not None else None
            args.append(placeholder_like(init, init.type.shape[1:], first, _tap_name(init, tap)))
    return args


def _keep_unread_inputs(non_seqs: list[Variable], captured: list[Variable],
                        captured_args: list[Variable]) -> tuple[list[Variable], list[Variable]]:
    """The captured variables and their placeholders, plus each non-sequence that is a
    symbolic input of the graph (no owner, not shared) the step did not read. Theano passes
    every non-sequence to its loop, so such an input is used by the function (no
    ``UnusedInputError``); the ``scan_remove_unused_inputs`` rewrite drops it again.
    Computed non-sequences are not added: nothing would compute them for nothing."""
    kept = {id(v) for v in captured}
    for var in non_seqs:
        if var.owner is None and not isinstance(var, (Constant, SharedVariable)) \
                and id(var) not in kept:
            kept.add(id(var))
            captured = [*captured, var]
            captured_args = [*captured_args, placeholder_like(var, value=known_test_value(var))]
    return captured, captured_args


def _non_sequences(non_sequences: Any) -> list[Variable]:
    """The non-sequences, passed to the step as they are: ``close_over`` later swaps
    what the step used of them (and of any outer variable) for inner inputs."""
    return [as_tensor_variable(item) for item in _as_list(non_sequences)]


def _name_after_parameters(fn: Callable[..., Any], placeholders: list[Variable]) -> None:
    """Mark each of the step's inputs with the name of the parameter of ``fn`` it is
    passed to (``tag.step_parameter``: ``i_t``, what the user reads in their step), and
    name after it those with no name (a state started from an unnamed constant, which
    views otherwise showed as its type)."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or a callable without a signature
        return
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for var, parameter in zip(placeholders, parameters):
        if parameter.kind not in positional:
            break
        var.tag.step_parameter = parameter.name
        if var.name is None:
            var.name = parameter.name


def _tap_name(var: Variable, tap: int) -> str | None:
    """``x[t]``, ``x[t-1]``: the name of what a step reads from ``var``."""
    if var.name is None:
        return None
    return f"{var.name}[t]" if tap == 0 else f"{var.name}[t{tap:+d}]"


# -- tracing the step function -----------------------------------------------------------------

# The serial mark taken when the outermost step being traced began: the shared
# variables made since (random streams' keys) belong to that step or to steps inside it.
_outermost_step_mark: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "scan_outermost_step_mark", default=None)


def _call_step(fn: Callable[..., Any], args: list[Variable], name: str
               ) -> tuple[list[Any], list[tuple[Any, Any]], Variable | None, int]:
    """``(outputs, update pairs, condition, mark)``: what the step returned, and a mark
    below the serial of every shared variable made by the steps being traced (this
    one, or the outermost scan step whose tracing built this scan), whose default
    updates are therefore the loop's to carry (see ``carry_default_updates``)."""
    mark = _outermost_step_mark.get()
    mark = serial_mark() if mark is None else mark
    token = _outermost_step_mark.set(mark)
    try:
        returned = fn(*args)
    except TestValueError as err:
        note = (f"(while tracing the step function of scan {name!r}: its test values are "
                f"those of iteration 0)")
        record = err.record
        error = error_from_record(type(err), dataclasses.replace(record, notes=record.notes + (note,)))
        error.original, error.node = getattr(err, "original", None), getattr(err, "node", None)
        raise error from None
    finally:
        _outermost_step_mark.reset(token)
    return (*read_step_return(returned, name), mark)


def _check_outputs(outs: list[Any], states: list, name: str) -> list[Variable]:
    if states and len(outs) != len(states):
        raise build_error(f"scan: the step function {name!r} returned {len(outs)} output(s), but "
                           f"outputs_info has {len(states)} entries (one per output; None for "
                           f"an output that is not fed back)", TypeError)
    outs = [as_tensor_variable(o) for o in outs]
    for j, (out, (init, taps)) in enumerate(zip(outs, states)):
        if taps:
            _check_recurrence(j, out, init, taps, name)
    return outs


def _check_recurrence(j: int, out: Variable, init: Variable, taps: tuple[int, ...], name: str) -> None:
    state = init.type if is_plain_state(taps) else init.type.clone(shape=init.type.shape[1:])
    built = f" ({out.site.describe()})" if out.owner is not None and out.site else ""
    problem = None
    if out.dtype != state.dtype:
        problem = (f"has dtype {out.dtype}, but its initial state {label(init)!r} has dtype "
                   f"{state.dtype}; a recurrent output keeps its dtype: cast one of them "
                   f"(e.g. .astype('{state.dtype}'))")
    elif out.ndim != state.ndim or any(a is not None and b is not None and a != b
                                       for a, b in zip(out.type.shape, state.shape)):
        problem = (f"has shape {describe_shape(out.type.shape)}, but its state (initial value "
                   f"{label(init)!r}) has shape {describe_shape(state.shape)}; a recurrent "
                   f"output must keep the shape of its state")
    if problem:
        raise build_error(f"scan: output #{j} of the step function {name!r}{built} {problem}", TypeError)


def _check_condition(condition: Variable) -> Variable:
    if condition.ndim != 0:
        raise build_error(f"scan_until: the condition {label(condition)!r} must be a scalar, "
                          f"got {condition.type.short()}", TypeError)
    if not (is_bool(condition.dtype) or is_integer(condition.dtype)):
        # Theano stops on any scalar that is not zero (its loop tests ``cond != 0``).
        return m.neq(condition, 0)
    return condition


def _check_strict(captured: Sequence[Variable], non_seqs: Sequence[Variable], name: str) -> None:
    """``strict=True``: the step reads no shared variable from outside that is not among
    its non-sequences (or computed from them alone). As in Theano, other outer variables
    the step reads (symbolic inputs) are passed to it automatically, strict or not."""
    listed = {id(v) for v in non_seqs}
    unlisted = []
    for var in captured:
        roots = [r for r in graph_inputs([var], blockers=non_seqs) if isinstance(r, SharedVariable)]
        unlisted += [r for r in roots if id(r) not in listed and r not in unlisted]
    if unlisted:
        listing = ", ".join(f"{label(v)!r} ({v.site.describe('created at')})" for v in unlisted)
        # Theano's error for it (a ValueError too).
        raise MissingInputError(f"scan(strict=True): the step function {name!r} uses {listing} "
                                f"without it being passed in non_sequences")
