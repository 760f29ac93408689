"""Reverse mode through a loop: the gradient of a Scan is another (backward) Scan.

The step's vector-Jacobian product is built once, symbolically, by ``grad`` on the
inner graph (cotangents of the step's outputs in, gradients of its inputs out). The
backward loop visits the forward steps last to first, reading per-step arrays (what
each forward step read, the forward outputs, the output gradients) and carrying:

- per recurrent output, ``-min(taps)`` pending gradients: ``pending[i]`` is the part of
  the gradient of the output ``i`` steps before the current one that later steps'
  taps already contributed;
- per non-sequence, the gradient summed over the steps.

Forward outputs are read back instead of recomputed, so e.g. ``tanh``'s gradient
uses the stored states. Intermediate values inside the step are recomputed.
``truncate_gradient`` limits the backward loop to the last steps; earlier steps
and the initial states then get no gradient (in a ``scan_until`` loop, the last steps
run: the earlier ones are masked out as the steps not run are).

A ``scan_until`` loop's rows are buffered up to ``n_steps`` (``symnb.core.scan.rows``):
the backward loop runs over all of them and a step the loop did not run (its index at
least the steps run) passes the pending gradients on unchanged and adds nothing, as
Theano's backward loop of the steps run only.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.core.gradient import grad, register_gradient
from symnb.core.gradient_types import is_disconnected
from symnb.core.graph.basic import Constant, Variable, clone_replace, graph_inputs
from symnb.core.graph.inner_graph import placeholder_like
from symnb.core.scan.basic import build_scan
from symnb.core.scan.op import Scan
from symnb.core.scan.taps import is_plain_state, seq_window, state_depth
from symnb.core.tensor import math as m
from symnb.core.tensor.alloc import arange, zeros_like
from symnb.core.tensor.join import concatenate, stack
from symnb.core.tensor.shape import expand_dims
from symnb.core.tensor.subtensor import inc_subtensor
from symnb.core.graph.type import is_float

__all__ = ["scan_grad"]


def scan_grad(op: Scan, inputs: Sequence[Variable], outputs: Sequence[Variable],
              output_grads: Sequence[Variable | None]) -> list[Variable | None]:
    """Gradients of the Scan node's inputs (``L_op``)."""
    info = op.info
    step = _StepGradient(op, output_grads)
    if not step.grads:
        return [None] * len(inputs)
    grads = _BackwardLoop(op, step, inputs, outputs, output_grads).input_grads()
    # An input no output with a gradient depends on is disconnected (None), not a zero
    # gradient, so sn.grad raises for it as Theano does (its connection_pattern).
    pattern = op.connection_pattern(outputs[0].owner)
    given = [j for j, g in enumerate(output_grads) if g is not None and not is_disconnected(g)]
    return [g if any(pattern[i][j] for j in given) else None for i, g in enumerate(grads)]


register_gradient(Scan, scan_grad)  # sn.grad through a loop (Scan.L_op asks for it too)


class _StepGradient:
    """The vector-Jacobian product of one step, as a graph over placeholders."""

    def __init__(self, op: Scan, output_grads: Sequence[Variable | None]) -> None:
        info = op.info
        inner_outs = op.inner.outputs[:info.n_outs]
        full = [not (info.return_last and info.return_last[j]) for j in range(info.n_outs)]
        # A recurrent output always has a cotangent (later steps read it); another
        # output only when its gradient is given.
        self.with_cotangent = [
            is_float(out.dtype) and (j in info.recurrent or (full[j] and output_grads[j] is not None))
            for j, out in enumerate(inner_outs)]
        self.cotangents = {j: placeholder_like(inner_outs[j], name=f"d_out{j}")
                           for j, used in enumerate(self.with_cotangent) if used}
        known: dict[Variable, Variable] = {}
        for j, ct in self.cotangents.items():
            out = inner_outs[j]
            known[out] = m.add(known[out], ct) if out in known else ct
        wrt = [(q, v) for q, v in enumerate(op.inner.inputs) if is_float(v.dtype)]
        self.grads: dict[int, Variable] = {}
        self.stored: dict[int, Variable] = {}
        self.uses: set[int] = set()
        if known and wrt:
            self._differentiate(known, wrt, inner_outs)

    def _differentiate(self, known: dict, wrt: list, inner_outs: list[Variable]) -> None:
        sources = [out for out in known if not isinstance(out, Constant)]
        if not sources:
            return
        grads = grad(None, [v for _, v in wrt], known_grads={o: known[o] for o in sources},
                     disconnected_inputs="ignore", return_disconnected="none")
        found = [(q, g) for (q, _), g in zip(wrt, grads) if g is not None]
        # Read the forward outputs back instead of recomputing them.
        self.stored = {j: placeholder_like(out, name=f"out{j}")
                       for j, out in enumerate(inner_outs) if out.owner is not None}
        replaced = clone_replace([g for _, g in found],
                                 {inner_outs[j]: ph for j, ph in self.stored.items()})
        self.grads = {q: g for (q, _), g in zip(found, replaced)}
        self.uses = {id(v) for v in graph_inputs(list(self.grads.values()))}


class _BackwardLoop:
    """Builds the backward Scan and turns its results into input gradients."""

    def __init__(self, op: Scan, step: _StepGradient, inputs: Sequence[Variable],
                 outputs: Sequence[Variable], output_grads: Sequence[Variable | None]) -> None:
        self.op, self.info, self.step = op, op.info, step
        self.n, self.seqs, self.inits, self.non_seqs = op.split(list(inputs))
        self.inputs = list(inputs)
        self.output_grads = list(output_grads)
        self.ys = _full_outputs(op, inputs, outputs)
        trunc = self.info.truncate_gradient
        # A scan_until loop ran its first ``count`` steps of ``n``: the backward loop runs
        # over all ``n`` (its rows are buffered so) and the steps not run change nothing.
        # Truncated, it keeps the last ``trunc`` steps run (Theano's), known at run time:
        # the steps before them are masked out as well, instead of sliced off.
        self.truncated = trunc >= 0 and not self.info.as_while
        self.steps = m.minimum(self.n, trunc) if self.truncated else self.n
        self.offset = m.sub(self.n, self.steps) if self.truncated else None
        self.active = self.cut_before = None
        if self.info.as_while:
            count = outputs[-1]
            self.active = m.lt(arange(self.n), count)
            if trunc >= 0:
                self.cut_before = m.gt(count, trunc)
                self.active = m.and_(self.active, m.ge(arange(self.n), m.sub(count, trunc)))

    # -- where each forward step's inputs come from ---------------------------------------------
    def _tap_inputs(self) -> list[tuple[int, Any]]:
        """``(inner input index, per-step array)`` for the sequence and state taps."""
        info, n = self.info, self.n
        pairs, q = [], 0
        for taps, seq in zip(info.seq_taps, self.seqs):
            _, starts = seq_window(taps)
            for start in starts:
                window = seq[start:start + n]
                pairs.append((q, window[::-1] if info.go_backwards else window))
                q += 1
        for j, init in zip(info.recurrent, self.inits):
            taps = info.out_taps[j]
            depth = state_depth(taps)
            rows = expand_dims(init, 0) if is_plain_state(taps) else init[:depth]
            history = concatenate([rows, self.ys[j]])
            for k in taps:
                pairs.append((q, history[depth + k:depth + k + n]))
                q += 1
        return pairs

    def _from_step(self, array: Variable) -> Variable:
        return array[self.offset:] if self.truncated else array

    # -- the backward loop -------------------------------------------------------------------------
    def input_grads(self) -> list[Variable | None]:
        step, info = self.step, self.info
        uses = step.uses
        sequences, roles = [], []
        for q, array in self._tap_inputs():
            if id(self.op.inner.inputs[q]) in uses:
                sequences.append(self._from_step(array))
                roles.append(("input", q))
        for j, ph in step.stored.items():
            if id(ph) in uses:
                sequences.append(self._from_step(self.ys[j]))
                roles.append(("stored", j))
        for j in step.cotangents:
            if self._given_grad(j) is not None:
                sequences.append(self._from_step(self._given_grad(j)))
                roles.append(("given", j))
        if self.active is not None:
            sequences.append(self.active)
            roles.append(("active", None))
        n_taps = len(self.op.inner.inputs) - info.n_non_seqs
        non_seq_qs = [q for q in range(n_taps, len(self.op.inner.inputs))
                      if id(self.op.inner.inputs[q]) in uses]
        pending_states = self._pending_states()
        accumulated = [q for q in range(n_taps, len(self.op.inner.inputs)) if q in step.grads]
        seq_grads = [q for q in range(self._n_seq_taps()) if q in step.grads]
        outputs_info = [init for _, _, init in pending_states]
        outputs_info += [zeros_like(self.non_seqs[q - n_taps]) for q in accumulated]
        outputs_info += [None] * len(seq_grads)

        def backward_step(*args: Variable) -> list[Variable]:
            return self._step(args, roles, non_seq_qs, pending_states, accumulated, seq_grads)

        results = build_scan(backward_step, sequences, outputs_info,
                             [self.non_seqs[q - n_taps] for q in non_seq_qs], self.steps,
                             go_backwards=True, truncate_gradient=-1, strict=False,
                             name=f"grad_of_{info.name}", return_last=True)
        return self._assemble(results, pending_states, accumulated, seq_grads, n_taps)

    def _n_seq_taps(self) -> int:
        return sum(len(t) for t in self.info.seq_taps)

    def _given_grad(self, j: int) -> Variable | None:
        last = self.info.return_last and self.info.return_last[j]
        return None if last else self.output_grads[j]

    def _pending_states(self) -> list[tuple[int, int, Variable]]:
        """``(output j, i, initial value)`` of the pending gradients, ``i`` steps back."""
        states = []
        for j, init in zip(self.info.recurrent, self.inits):
            if not self.step.with_cotangent[j]:
                continue
            taps = self.info.out_taps[j]
            row = init if is_plain_state(taps) else init[0]
            for i in range(state_depth(taps)):
                given = self.output_grads[j] if (i == 0 and self._is_last(j)) else None
                states.append((j, i, given if given is not None else zeros_like(row)))
        return states

    def _is_last(self, j: int) -> bool:
        return bool(self.info.return_last) and self.info.return_last[j]

    def _step(self, args: Sequence[Variable], roles: list, non_seq_qs: list[int],
              pending_states: list, accumulated: list[int], seq_grads: list[int]) -> list[Variable]:
        step, inner_inputs = self.step, self.op.inner.inputs
        it = iter(args)
        mapping: dict[Variable, Variable] = {}
        given: dict[int, Variable] = {}
        active = None
        for (kind, index), arg in zip(roles, it):
            if kind == "active":
                active = arg
            elif kind == "input":
                mapping[inner_inputs[index]] = arg
            elif kind == "stored":
                mapping[step.stored[index]] = arg
            else:
                given[index] = arg
        pending = {(j, i): next(it) for j, i, _ in pending_states}
        sums = {q: next(it) for q in accumulated}
        for q, arg in zip(non_seq_qs, it):
            mapping[inner_inputs[q]] = arg
        for j, ct in step.cotangents.items():
            parts = [p for p in (given.get(j), pending.get((j, 0))) if p is not None]
            mapping[ct] = parts[0] if len(parts) == 1 else m.add(*parts) if parts else zeros_like(ct)
        qs = list(step.grads)
        grads = dict(zip(qs, clone_replace([step.grads[q] for q in qs], mapping)))
        if active is not None:  # a step the scan_until loop did not run: nothing flows
            grads = {q: m.switch(active, g, zeros_like(g)) for q, g in grads.items()}
        new_pending = [self._new_pending(j, i, pending, grads) for j, i, _ in pending_states]
        if active is not None:
            new_pending = [m.switch(active, new, pending[(j, i)])
                           for new, (j, i, _) in zip(new_pending, pending_states)]
        new_sums = [m.add(sums[q], grads[q]) for q in accumulated]
        return new_pending + new_sums + [grads[q] for q in seq_grads]

    def _new_pending(self, j: int, i: int, pending: dict, grads: dict[int, Variable]) -> Variable:
        parts = []
        if (j, i + 1) in pending:
            parts.append(pending[(j, i + 1)])
        q = self._state_tap_index(j, -(i + 1))
        if q is not None and q in grads:
            parts.append(grads[q])
        if not parts:
            return zeros_like(pending[(j, i)])
        return parts[0] if len(parts) == 1 else m.add(*parts)

    def _state_tap_index(self, j: int, tap: int) -> int | None:
        q = self._n_seq_taps()
        for jj in self.info.recurrent:
            taps = self.info.out_taps[jj]
            if jj == j:
                return q + taps.index(tap) if tap in taps else None
            q += len(taps)
        return None

    # -- from the backward loop's results to input gradients -------------------------------------
    def _assemble(self, results: list[Variable], pending_states: list, accumulated: list[int],
                  seq_grads: list[int], n_taps: int) -> list[Variable | None]:
        info = self.info
        grads: list[Variable | None] = [None] * len(self.inputs)
        it = iter(results)
        finals = {(j, i): next(it) for j, i, _ in pending_states}
        sums = {q: next(it) for q in accumulated}
        stacks = {q: next(it) for q in seq_grads}
        base = 1 + info.n_seqs
        for j, init in zip(info.recurrent, self.inits):
            if (j, 0) in finals and is_float(init.dtype):
                grads[base + info.recurrent.index(j)] = self._init_grad(j, init, finals)
        base += len(info.recurrent)
        for q, total in sums.items():
            grads[base + q - n_taps] = total
        for i, seq in enumerate(self.seqs):
            grads[1 + i] = self._seq_grad(i, seq, stacks) if is_float(seq.dtype) else None
        return grads

    def _init_grad(self, j: int, init: Variable, finals: dict) -> Variable:
        taps = self.info.out_taps[j]
        if is_plain_state(taps):
            value = finals[(j, 0)]
        else:
            depth = state_depth(taps)
            rows = stack([finals[(j, depth - 1 - r)] for r in range(depth)])
            value = inc_subtensor(zeros_like(init)[:depth], rows)
        if self.truncated:  # the backward loop stopped before reaching the initial states
            value = m.switch(m.lt(self.steps, self.n), zeros_like(value), value)
        if self.cut_before is not None:  # the same, for the steps a scan_until loop ran
            value = m.switch(self.cut_before, zeros_like(value), value)
        return value

    def _seq_grad(self, i: int, seq: Variable, stacks: dict[int, Variable]) -> Variable | None:
        first = sum(len(t) for t in self.info.seq_taps[:i])
        _, starts = seq_window(self.info.seq_taps[i])
        total = None
        for q, start in zip(range(first, first + len(starts)), starts):
            if q not in stacks:
                continue
            per_step = stacks[q][::-1]  # the backward loop ran last step first
            window = seq[start:start + self.n]
            if self.truncated:
                per_step = concatenate([zeros_like(window[:self.offset]), per_step])
            if self.info.go_backwards:
                per_step = per_step[::-1]
            total = inc_subtensor((zeros_like(seq) if total is None else total)[start:start + self.n],
                                  per_step)
        return total


def _full_outputs(op: Scan, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> list[Variable]:
    """Every step of every output: the node's own outputs, or a loop keeping them all."""
    if not any(op.info.return_last):
        return list(outputs)
    full = Scan(op.inner, op.info._replace(return_last=()))(*inputs)
    return full if isinstance(full, list) else [full]
