"""Scan -> ``jax.lax.scan`` (``lax.while_loop`` for ``scan_until``).

The inner graph is lowered by the same registry (``build_program``). Recurrent
states travel in the loop carry (one array per past step an output's taps read);
only the outputs that keep every step are stacked, so memory grows with the
sequence only for them. The number of steps must be known when the program is
traced (XLA shapes are static): it is, when it comes from constants or shapes.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
from jax import lax

from symnb.core.graph.errors import label
from symnb.core.graph.basic import Apply
from symnb.core.scan.op import Scan
from symnb.core.scan.taps import is_plain_state, seq_window, state_depth
from symnb.core.graph.type import describe_shape
from symnb.lower_xla.checks import checked_inner
from symnb.lower_xla.interpreter import build_program
from symnb.lower_xla.registry import lower, passed_as_is, static_inputs
from symnb.lower_xla.rules.shape import static_argument


@lower.register(Scan)
def _scan(op: Scan, node: Apply) -> Callable[..., Any]:
    step = build_program(op.inner.inputs, op.inner.outputs, op.inner.nodes)
    loop = _while_loop if op.info.as_while else _for_loop

    def run(n_steps: Any, *args: Any) -> tuple:
        n = _static_steps(op, node, n_steps)
        _, seqs, inits, non_seqs = op.split([n_steps, *args])
        windows = _windows(op, node, seqs, n)
        carry = tuple(_initial_buffer(op, j, init) for j, init in zip(op.info.recurrent, inits))
        return loop(op, node, step, n, windows, carry, non_seqs)

    return checked_inner(run, op.inner_graphs)


@static_inputs.register(Scan)
def _number_of_steps(op: Scan, node: Apply) -> dict[int, str]:
    return {0: "the number of steps"}


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


def _windows(op: Scan, node: Apply, seqs: Sequence[Any], n: int) -> list[Any]:
    """Per sequence tap, the ``n`` rows the steps read, in the order they read them."""
    windows = []
    for i, (taps, seq) in enumerate(zip(op.info.seq_taps, seqs)):
        span, starts = seq_window(taps)
        if seq.shape[0] < n + span:
            raise ValueError(f"{op.describe()}: sequence {label(node.inputs[1 + i])!r} has length "
                             f"{seq.shape[0]}; {n} steps with taps {list(taps)} need {n + span}")
        for start in starts:
            window = lax.slice_in_dim(jnp.asarray(seq), start, start + n, axis=0)
            windows.append(jnp.flip(window, 0) if op.info.go_backwards else window)
    return windows


def _initial_buffer(op: Scan, j: int, init: Any) -> tuple:
    """The past steps an output's taps read, oldest first."""
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
    """The carry after a step: each buffer drops its oldest state and takes the new one."""
    new = []
    for j, buffer in zip(op.info.recurrent, carry):
        value = jnp.asarray(outs[j])
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
