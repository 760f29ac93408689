"""Scan -> ``jax.lax.scan`` (``lax.while_loop`` for ``scan_until``), or the steps one
after the other when their lengths depend on what the loop passes them.

The inner graph is lowered by the same registry (``build_program``). Recurrent
states travel in the loop carry (one array per past step an output's taps read);
only the outputs that keep every step are stacked, so memory grows with the
sequence only for them. The number of steps must be known when the program is
traced (XLA shapes are static): it is, when it comes from constants or shapes.

A step whose lengths are computed from the values the loop passes it (``x[:n]`` with
``n`` an element of a sequence, a state, or a non-sequence; Theano allowed a length
per step) declares the outer inputs those values come from (``static_inputs``): the
function specializes on the arguments they are computed from, so they are NumPy
values while tracing. A loop that needs a sequence's or a state's values is then
unrolled while tracing (``_unrolled_loop``): each step traced with the lengths of its
own values, NumPy running what depends on known values only, so every length is exact.
The program grows with the number of steps: this is for the short loops of such
graphs (Keras's CTC loss: labels and lengths), not for long sequences.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply
from symnb.core.scan.op import Scan
from symnb.core.scan.rows import PadRows
from symnb.core.scan.taps import is_plain_state, seq_window, state_depth
from symnb.core.graph.type import describe_shape
from symnb.lower_xla.checks import checked_inner
from symnb.lower_xla.interpreter import build_program
from symnb.lower_xla.registry import known_on_host, lower, passed_as_is, static_inputs
from symnb.lower_xla.rules.shape import input_name, static_argument


@lower.register(Scan)
def _scan(op: Scan, node: Apply) -> Callable[..., Any]:
    step = build_program(op.inner.inputs, op.inner.outputs, op.inner.nodes)
    needed = sorted(_step_needs(op))
    unrolled = any(0 < p <= op.info.n_seqs + len(op.info.recurrent) for p in needed)
    loop = _unrolled_loop if unrolled else _while_loop if op.info.as_while else _for_loop

    def run(n_steps: Any, *args: Any) -> tuple:
        n = _static_steps(op, node, n_steps)
        args = _known_on_host(op, node, needed, [n_steps, *args])[1:]
        _, seqs, inits, non_seqs = op.split([n_steps, *args])
        windows = _windows(op, node, seqs, n, on_host=unrolled)
        carry = tuple(_initial_buffer(op, j, init, unrolled) for j, init in zip(op.info.recurrent, inits))
        return loop(op, node, step, n, windows, carry, non_seqs)

    return checked_inner(run, op.inner_graphs)


@static_inputs.register(Scan)
def _number_of_steps(op: Scan, node: Apply) -> dict[int, str]:
    """The number of steps, and the outer inputs the step's lengths are computed from."""
    return {0: "the number of steps", **{p: "a loop body's length" for p in _step_needs(op)}}


def _step_needs(op: Scan) -> set[int]:
    """Positions of the outer inputs whose values the step's lengths (what its nodes
    need while tracing, ``static_inputs``) are computed from, over all the steps; a
    ``scan_until`` loop that must run step by step needs its condition too."""
    memo = op.__dict__.get("_step_needs")  # ops are immutable: decided once
    if memo is None:
        lengths = [n.inputs[p] for n in op.inner.nodes for p in static_inputs(n.op, n)]
        sources = op.inner_sources(lengths) if lengths else set()
        memo = {op.outer_position(q) for q in sources}
        if op.info.as_while and any(p <= op.info.n_seqs + len(op.info.recurrent) for p in memo):
            condition = op.inner_sources([op.inner.outputs[op.info.n_outs]])
            memo |= {op.outer_position(q) for q in condition}
        op.__dict__["_step_needs"] = memo
    return memo


def _known_on_host(op: Scan, node: Apply, needed: Sequence[int], args: Sequence[Any]) -> list[Any]:
    """``args`` with the needed outer inputs as NumPy values (``registry.known_on_host``)."""
    def message(traced: tuple[int, ...]) -> str:
        names = ", ".join(input_name(p) for p in traced)  # the program may serve an equal graph
        return (f"{op.describe()}: lengths in its step are computed from the values of {names}, "
                f"known only at run time; XLA needs static shapes")

    return known_on_host(args, needed, message)


@passed_as_is.register(Scan)
def _non_sequences(op: Scan, node: Apply) -> dict[int, int]:
    """The loop body closes over the non-sequences (``_for_loop``, ``_while_loop``): a
    size computed outside from shapes (``W[1].shape`` in a step) stays static inside."""
    n = op.info.n_non_seqs
    inner, outer = len(op.inner.inputs), len(node.inputs)
    return {inner - n + k: outer - n + k for k in range(n)}


def _static_steps(op: Scan, node: Apply, n_steps: Any) -> int:
    n = int(static_argument(n_steps, node, 0, "number of steps (n_steps)"))
    if n < 0:
        raise ValueError(f"{op.describe()}: the number of steps is {n}; it must be >= 0")
    return n


def _windows(op: Scan, node: Apply, seqs: Sequence[Any], n: int, on_host: bool = False) -> list[Any]:
    """Per sequence tap, the ``n`` rows the steps read, in the order they read them
    (``on_host``: a NumPy sequence gives NumPy windows, for a loop run step by step)."""
    windows = []
    for i, (taps, seq) in enumerate(zip(op.info.seq_taps, seqs)):
        span, starts = seq_window(taps)
        if seq.shape[0] < n + span:
            raise ValueError(f"{op.describe()}: sequence {label(node.inputs[1 + i])!r} has length "
                             f"{seq.shape[0]}; {n} steps with taps {list(taps)} need {n + span}")
        for start in starts:
            if on_host and isinstance(seq, np.ndarray):
                window = seq[start:start + n]
                windows.append(window[::-1] if op.info.go_backwards else window)
                continue
            window = lax.slice_in_dim(jnp.asarray(seq), start, start + n, axis=0)
            windows.append(jnp.flip(window, 0) if op.info.go_backwards else window)
    return windows


def _initial_buffer(op: Scan, j: int, init: Any, on_host: bool = False) -> tuple:
    """The past steps an output's taps read, oldest first (``on_host``: a NumPy initial
    value stays NumPy)."""
    if not (on_host and isinstance(init, np.ndarray)):
        init = jnp.asarray(init)
    taps = op.info.out_taps[j]
    if is_plain_state(taps):
        return (init,)
    return tuple(init[i] for i in range(state_depth(taps)))


def _step_arguments(op: Scan, xs: Sequence[Any], carry: tuple, non_seqs: Sequence[Any]) -> list[Any]:
    args = list(xs)
    for j, buffer in zip(op.info.recurrent, carry):
        args.extend(buffer[len(buffer) + k] for k in op.info.out_taps[j])
    args.extend(non_seqs)
    return args


def _advance(op: Scan, node: Apply, carry: tuple, outs: Sequence[Any]) -> tuple:
    """The carry after a step: each buffer drops its oldest state and takes the new one
    (a NumPy state stays NumPy: a loop run step by step keeps known values known)."""
    new = []
    for j, buffer in zip(op.info.recurrent, carry):
        value = outs[j] if isinstance(outs[j], np.ndarray) else jnp.asarray(outs[j])
        if value.shape != buffer[-1].shape:
            out = op.inner.outputs[j]
            where = f" ({out.site.describe()})" if out.owner is not None and out.site else ""
            raise ValueError(
                f"{op.describe()}: output #{j} of the step function{where} has shape "
                f"{describe_shape(value.shape)}, but its state has shape "
                f"{describe_shape(buffer[-1].shape)}; a recurrent output must keep the shape "
                f"of its initial value")
        new.append(buffer[1:] + (value.astype(buffer[-1].dtype),))
    return tuple(new)


def _kept(op: Scan) -> list[int]:
    """Outputs whose every step is returned (the others return their final state)."""
    last = op.info.return_last
    return [j for j in range(op.info.n_outs) if not (last and last[j])]


def _results(op: Scan, carry: tuple, stacked: Sequence[Any]) -> list[Any]:
    finals = dict(zip(op.info.recurrent, carry))
    rows = dict(zip(_kept(op), stacked))
    return [rows[j] if j in rows else finals[j][-1] for j in range(op.info.n_outs)]


def _for_loop(op: Scan, node: Apply, step: Callable, n: int, windows: list[Any], carry: tuple,
              non_seqs: Sequence[Any]) -> tuple:
    kept = _kept(op)

    def body(carry: tuple, xs: tuple) -> tuple:
        outs = step(*_step_arguments(op, xs, carry, non_seqs))
        return _advance(op, node, carry, outs), tuple(jnp.asarray(outs[j]) for j in kept)

    final, stacked = lax.scan(body, carry, tuple(windows), length=n)
    return tuple(_results(op, final, stacked))


def _while_loop(op: Scan, node: Apply, step: Callable, n: int, windows: list[Any], carry: tuple,
                non_seqs: Sequence[Any]) -> tuple:
    """A loop that stops after the first step whose condition is true. Kept outputs
    have ``n`` rows; rows past the last step run repeat that step's value."""
    kept = _kept(op)

    def step_at(t: Any, carry: tuple) -> list[Any]:
        xs = [lax.dynamic_index_in_dim(w, t, 0, keepdims=False) for w in windows]
        return step(*_step_arguments(op, xs, carry, non_seqs))

    rows = _row_types(op, step, windows, carry, non_seqs)
    buffers = tuple(jnp.zeros((n, *rows[j].shape), rows[j].dtype) for j in kept)

    def cond(state: tuple) -> Any:
        t, _, _, done = state
        return jnp.logical_and(t < n, jnp.logical_not(done))

    def body(state: tuple) -> tuple:
        t, carry, buffers, _ = state
        outs = step_at(t, carry)
        buffers = tuple(lax.dynamic_update_index_in_dim(b, jnp.asarray(outs[j], b.dtype), t, 0)
                        for b, j in zip(buffers, kept))
        done = jnp.asarray(outs[op.info.n_outs]).astype(bool)
        return t + 1, _advance(op, node, carry, outs), buffers, done

    start = (jnp.asarray(0, jnp.int32), carry, buffers, jnp.asarray(False))
    if n == 0:  # no step: a body writing a row into no row would not trace
        count, final = start[0], carry
    else:
        count, final, buffers, _ = lax.while_loop(cond, body, start)
    stacked = [_repeat_last(b, count) for b in buffers]
    return (*_results(op, final, stacked), count.astype(node.outputs[-1].dtype))


def _repeat_last(buffer: Any, count: Any) -> Any:
    """Rows from ``count`` on replaced by row ``count - 1`` (the final state)."""
    if buffer.shape[0] == 0:
        return buffer
    last = lax.dynamic_index_in_dim(buffer, jnp.maximum(count - 1, 0), 0, keepdims=True)
    ran = (jnp.arange(buffer.shape[0]) < count).reshape((-1,) + (1,) * (buffer.ndim - 1))
    return jnp.where(ran, buffer, last)


def _row_types(op: Scan, step: Callable, windows: list[Any], carry: tuple,
               non_seqs: Sequence[Any]) -> list[Any]:
    """Shapes and dtypes of one step's outputs (traced abstractly, so even for 0 steps)."""
    rows = [jax.ShapeDtypeStruct(w.shape[1:], w.dtype) for w in windows]
    return jax.eval_shape(lambda xs, c: step(*_step_arguments(op, xs, c, non_seqs)), rows, carry)


def _unrolled_loop(op: Scan, node: Apply, step: Callable, n: int, windows: list[Any], carry: tuple,
                   non_seqs: Sequence[Any]) -> tuple:
    """The loop run step by step while tracing: each step is traced with its own values,
    so a length computed from a sequence's element or a state is that step's. A
    ``scan_until`` loop stops after the first step whose condition is true (known while
    tracing: the loop needs it, ``_step_needs``); its kept outputs repeat that step's
    value up to ``n`` rows, as ``_while_loop``'s do."""
    kept = _kept(op)
    rows: dict[int, list[Any]] = {j: [] for j in kept}
    steps = 0
    for t in range(n):
        outs = step(*_step_arguments(op, [w[t] for w in windows], carry, non_seqs))
        carry = _advance(op, node, carry, outs)
        for j in kept:
            rows[j].append(outs[j])
        steps = t + 1
        if op.info.as_while and bool(np.asarray(outs[op.info.n_outs])):
            break
    for j in kept:
        rows[j] += rows[j][-1:] * (n - steps)
    results = _results(op, carry, [_stack(op, node, j, rows[j]) for j in kept])
    if op.info.as_while:
        results.append(np.asarray(steps, node.outputs[-1].dtype))
    return tuple(results)


def _stack(op: Scan, node: Apply, j: int, rows: list[Any]) -> Any:
    """Output ``j``'s rows, one per step, stacked: NumPy when they all are (known to the
    nodes after the loop, e.g. a length computed from a state)."""
    dtype = node.outputs[j].type.dtype
    if not rows:
        row = op.inner.outputs[j].type.shape
        if None in row:
            raise ValueError(f"{op.describe()}: a loop of 0 steps run step by step cannot tell the "
                             f"shape of output #{j}'s rows ({describe_shape(row)})")
        return np.zeros((0, *row), dtype)
    shapes = {tuple(np.shape(r)) for r in rows}
    if len(shapes) > 1:
        raise ValueError(f"{op.describe()}: output #{j} of the step function has rows of shapes "
                         f"{sorted(shapes)} at different steps; the rows of an output must all "
                         f"have the same shape")
    if all(isinstance(r, np.ndarray) for r in rows):
        return np.stack(rows).astype(dtype)
    return jnp.stack([jnp.asarray(r) for r in rows]).astype(dtype)


@lower.register(PadRows)
def _pad_rows(op: PadRows, node: Apply) -> Callable[..., Any]:
    """Rows ``i < count`` of ``rows`` (clipped to its length), zeros elsewhere, in the
    shape of ``like``: no slice of a run-time length, so padded rows (a length bucket)
    fit the same program."""

    def run(rows: Any, like: Any, count: Any = None) -> Any:
        n, available = like.shape[0], rows.shape[0]
        if available == 0 or n == 0:
            return jnp.zeros_like(like)
        limit = available if count is None else jnp.minimum(count, available)
        index = jnp.arange(n)
        taken = rows[jnp.minimum(index, available - 1)]
        keep = (index < limit).reshape((-1,) + (1,) * (like.ndim - 1))
        return jnp.where(keep, taken, jnp.zeros((), like.dtype)).astype(like.dtype)

    return run
