"""The NumPy reference of ``Scan``: the inner graph run step by step with ``perform``.

Nothing is compiled: each iteration evaluates the inner nodes in order, so the test
value of a scan output holds every step, and a failure at iteration ``k`` names ``k``
and the line inside the step function that built the failing node.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from symnb.core.graph.error_record import LoopLevel
from symnb.core.graph.errors import InnerNodeError, label
from symnb.core.graph.basic import Apply
from symnb.core.scan.taps import is_plain_state, seq_window, shape_text, state_depth, step_error


__all__ = ["run_loop"]


def run_loop(op: Any, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """All outputs of ``node`` for the outer input values ``inputs``."""
    info = op.info
    n_value, seqs, inits, non_seqs = op.split(inputs)
    n = int(n_value)
    if n < 0:
        raise step_error(op, f"the number of steps is {n}; it must be >= 0 (n_steps={n})")
    windows = _windows(op, node, seqs, n)
    histories = _histories(op, node, inits)
    rows: list[list[np.ndarray]] = [[] for _ in range(info.n_outs)]
    steps_run = 0
    for t in range(n):
        position = n - 1 - t if info.go_backwards else t
        args = [window[position] for window in windows]
        for j in info.recurrent:
            args.extend(histories[j][k] for k in info.out_taps[j])
        args.extend(non_seqs)
        values = op.inner.run(args, where=f"iteration {t} of {op.describe()}",
                              loop=LoopLevel(op.describe(), t))
        _store(op, node, values, rows, histories, t)
        steps_run = t + 1
        if info.as_while and bool(values[info.n_outs]):
            break
    results = _assemble(op, node, rows, histories, inputs, n)
    if info.as_while:
        results.append(np.array(steps_run, dtype=np.int64))
    return results


def _windows(op: Any, node: Apply, seqs: Sequence[np.ndarray], n: int) -> list[np.ndarray]:
    """One array per sequence tap whose row ``i`` is what position ``i`` reads."""
    windows = []
    for i, (taps, seq) in enumerate(zip(op.info.seq_taps, seqs)):
        span, starts = seq_window(taps)
        if seq.ndim == 0 or seq.shape[0] < n + span:
            var = node.inputs[1 + i]
            length = "a scalar" if seq.ndim == 0 else f"length {seq.shape[0]}"
            raise step_error(op, f"sequence {label(var)!r} has {length}; {n} steps with taps "
                                 f"{list(taps)} need at least {n + span}")
        windows.extend(seq[start:start + n] for start in starts)
    return windows


def _histories(op: Any, node: Apply, inits: Sequence[np.ndarray]) -> dict[int, list[np.ndarray]]:
    """Per recurrent output, the states so far (initial ones first): tap ``k`` reads
    ``history[k]`` (Python's negative indexing)."""
    histories = {}
    for j, init in zip(op.info.recurrent, inits):
        taps = op.info.out_taps[j]
        if is_plain_state(taps):
            histories[j] = [init]
            continue
        depth = state_depth(taps)
        if init.ndim == 0 or init.shape[0] < depth:
            var = node.inputs[1 + op.info.n_seqs + op.info.recurrent.index(j)]
            raise step_error(op, f"the initial value {label(var)!r} of output #{j} has shape "
                                 f"{shape_text(init.shape)}; taps {list(taps)} need the {depth} "
                                 f"previous steps stacked along axis 0")
        histories[j] = [init[i] for i in range(depth)]
    return histories


def _store(op: Any, node: Apply, values: list[np.ndarray], rows: list[list[np.ndarray]],
           histories: dict[int, list[np.ndarray]], t: int) -> None:
    for j in range(op.info.n_outs):
        value = np.asarray(values[j])
        expected = histories[j][-1].shape if j in histories else (rows[j][0].shape if rows[j] else None)
        if expected is not None and value.shape != expected:
            raise _shape_change_error(op, j, value.shape, expected, t, j in histories)
        rows[j].append(value)
        if j in histories:
            histories[j].append(value)


def _shape_change_error(op: Any, j: int, shape: tuple, expected: tuple, t: int,
                        recurrent: bool) -> InnerNodeError:
    out = op.inner.outputs[j]
    where = f" ({out.site.describe()})" if out.owner is not None and out.site else ""
    if recurrent:
        why = (f"its state has shape {shape_text(expected)} (the initial value or the previous "
               f"step); a recurrent output must keep the shape of its initial value")
    else:
        why = f"it had shape {shape_text(expected)} at iteration 0; every step must give the same shape"
    return step_error(op, f"at iteration {t}, output #{j} of the step function{where} has shape "
                          f"{shape_text(shape)}, but {why}")


def _assemble(op: Any, node: Apply, rows: list[list[np.ndarray]],
              histories: dict[int, list[np.ndarray]], inputs: Sequence[np.ndarray],
              n: int) -> list[np.ndarray]:
    info = op.info
    results = []
    for j, out in enumerate(node.outputs[:info.n_outs]):
        dtype = out.type.numpy_dtype
        if info.return_last and info.return_last[j]:
            results.append(np.asarray(histories[j][-1], dtype=dtype))
            continue
        steps = rows[j]
        if steps and len(steps) < n:  # a scan_until loop that stopped early
            steps = steps + [steps[-1]] * (n - len(steps))
        if steps:
            results.append(np.stack(steps).astype(dtype, copy=False))
        else:
            results.append(np.zeros((0, *_row_shape(op, node, j, histories, inputs)), dtype=dtype))
    return results


def _row_shape(op: Any, node: Apply, j: int, histories: dict[int, list[np.ndarray]],
               inputs: Sequence[np.ndarray]) -> tuple[int, ...]:
    """The shape of one step of output ``j`` when the loop ran no step."""
    if j in histories:
        return histories[j][-1].shape
    trial = _dry_run(op, inputs)
    if trial is not None:
        return np.shape(trial[j])
    return tuple(0 if s is None else s for s in op.inner.outputs[j].type.shape)


def _dry_run(op: Any, inputs: Sequence[np.ndarray]) -> list[Any] | None:
    """The inner graph on zeros shaped like one step: only the shapes are used."""
    info = op.info
    _, seqs, inits, non_seqs = op.split(inputs)
    args = []
    for taps, seq in zip(info.seq_taps, seqs):
        args.extend(np.zeros(seq.shape[1:], seq.dtype) for _ in taps)
    for j, init in zip(info.recurrent, inits):
        taps = info.out_taps[j]
        row = init if is_plain_state(taps) else init[0] if init.ndim and len(init) else None
        if row is None:
            return None
        args.extend(np.zeros_like(row) for _ in taps)
    args.extend(non_seqs)
    try:
        with np.errstate(all="ignore"):
            return op.inner.run(args, where="a shape probe")
    except InnerNodeError:
        return None

