"""Outputs of a loop computed without it (the ``canonicalize`` pass), as Theano's pushout
rewrites did; an output with recurrence always stays in its loop, and a ``scan_until``
loop keeps its outputs (its condition decides how many rows they have).

``scan_invariant_output``: an output without recurrence whose every step is the same
outer value (the step returns a non-sequence, or a constant: symnb's scan already computes
outside the loop what depends on neither the sequences nor the states) is that value
repeated ``n_steps`` times (Theano's ``scanOp_pushout_nonseqs_ops``: ``test_pushout_all``).

``scan_elementwise_output``: an output without recurrence that each step computes
elementwise from its sequences' rows (and non-sequences, constants), through broadcasts
whose lengths are known to agree (what leaves the loop cannot fail), is that computation
on the whole windows the steps read, its nodes keeping the step's lines (Theano's
``scanOp_pushout_seqs_ops``: ``test_while1``).
"""

from __future__ import annotations

from symnb.core.graph.basic import Apply, Constant, Variable, ancestors
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.scan.op import Scan
from symnb.core.rewriting.structure import may_mismatch
from symnb.core.scan.taps import seq_window
from symnb.core.tensor.alloc import alloc
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.shape import DimShuffle, shape_i

__all__ = ["scan_invariant_output", "scan_elementwise_output"]


@register_rewrite("canonicalize")
@node_rewriter([Scan])
def scan_invariant_output(fgraph: FunctionGraph, node: Apply):
    """An output without recurrence that every step copies from a non-sequence (or a
    constant) -> that value broadcast to ``n_steps`` rows. Not for a ``scan_until`` loop,
    whose number of rows its condition decides."""
    op, info = node.op, node.op.info
    if info.as_while:
        return None
    inner = op.inner
    first_non_seq = len(inner.inputs) - info.n_non_seqs
    position = {id(v): i for i, v in enumerate(inner.inputs)}
    non_seqs = op.split(node.inputs)[3]
    replacements: dict[Variable, Variable] = {}
    for j in range(info.n_outs):
        out, outer = inner.outputs[j], node.outputs[j]
        if info.out_taps[j] or not fgraph.clients.get(outer):
            continue
        q = position.get(id(out))
        if isinstance(out, Constant):
            value: Variable = out
        elif q is not None and q >= first_non_seq:
            value = non_seqs[q - first_non_seq]
        else:
            continue
        replacements[outer] = alloc(value, node.inputs[0], *(shape_i(value, d) for d in range(value.ndim)))
    return replacements or None


def _whole_windows(node: Apply) -> dict[int, Variable]:
    """Per sequence tap's inner input (by id): the rows it reads over all the steps,
    ``seq[start:start + n_steps]``, reversed for ``go_backwards``."""
    op, info = node.op, node.op.info
    n_steps, seqs, _, _ = op.split(node.inputs)
    windows, q = {}, 0
    for seq, taps in zip(seqs, info.seq_taps):
        for start in seq_window(taps)[1]:
            rows = seq[start:start + n_steps]
            windows[id(op.inner.inputs[q])] = rows[::-1] if info.go_backwards else rows
            q += 1
    return windows


def _over_steps(var: Variable) -> Variable:
    """A value every step reads alike, with a broadcast leading axis for the steps."""
    return build(DimShuffle(var.ndim, ("x", *range(var.ndim))), var)


def _lifted(out: Variable, inner, windows: dict[int, Variable], invariant: dict[int, Variable]):
    """``out`` computed over all the steps at once (a leading axis of steps), or None when
    it reads a state or goes through an op other than an elementwise op or a dimshuffle."""
    done: dict[int, Variable] = {}

    def value(var: Variable) -> Variable | None:
        if id(var) in done:
            return done[id(var)]
        if id(var) in windows:
            return windows[id(var)]
        if id(var) in invariant:
            return _over_steps(invariant[id(var)])
        if isinstance(var, Constant):
            return _over_steps(var)
        node = var.owner
        if node is None or node.op.has_effects or not isinstance(node.op, (Elemwise, DimShuffle)):
            return None
        # A broadcast that may fail stays in the loop, where its error names the step's
        # node and the iteration; what leaves the loop cannot fail.
        if isinstance(node.op, Elemwise) and may_mismatch(node):
            return None
        inputs = [value(v) for v in node.inputs]
        if any(v is None for v in inputs):
            return None
        if isinstance(node.op, DimShuffle):
            pattern = (0, *("x" if p == "x" else p + 1 for p in node.op.pattern))
            made = DimShuffle(inputs[0].ndim, pattern).make_node(inputs[0])
        else:
            # An operand of fewer dimensions broadcasts from the left in the step; over the
            # steps its axes go after the steps' axis, so it is padded there explicitly.
            ndim = max(v.ndim for v in node.inputs)
            inputs = [lifted if v.ndim == ndim else build(DimShuffle(
                lifted.ndim, (0, *("x",) * (ndim - v.ndim), *range(1, lifted.ndim))), lifted)
                for v, lifted in zip(node.inputs, inputs)]
            made = node.op.make_node(*inputs)
        made.site = node.site  # the step's line, where the user wrote it
        result = made.outputs[node.outputs.index(var)]
        done[id(var)] = result
        return result

    reads_a_sequence = any(id(v) in windows for v in ancestors([out], inner.inputs))
    return value(out) if reads_a_sequence else None


@register_rewrite("canonicalize")
@node_rewriter([Scan])
def scan_elementwise_output(fgraph: FunctionGraph, node: Apply):
    """An output without recurrence computed elementwise from the sequences' rows (and
    non-sequences) -> that computation on the whole windows. Not for a ``scan_until``
    loop, whose number of rows its condition decides."""
    op, info = node.op, node.op.info
    if info.as_while:
        return None
    inner = op.inner
    windows = None
    first_non_seq = len(inner.inputs) - info.n_non_seqs
    non_seqs = op.split(node.inputs)[3]
    invariant = {id(inner.inputs[first_non_seq + i]): v for i, v in enumerate(non_seqs)}
    replacements: dict[Variable, Variable] = {}
    for j in range(info.n_outs):
        if info.out_taps[j] or not fgraph.clients.get(node.outputs[j]):
            continue
        windows = _whole_windows(node) if windows is None else windows
        whole = _lifted(inner.outputs[j], inner, windows, invariant)
        if whole is not None and whole.dtype == node.outputs[j].dtype:
            replacements[node.outputs[j]] = whole
    return replacements or None
