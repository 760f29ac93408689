"""Graph rewrites for loops (registered in the ``specialize`` pass).

``scan_keep_last_step``: when every reader of a recurrent output takes only its last
step (``h[-1]``, as in Theano's ``pow(A, k)`` example), the loop carries that output
instead of stacking every step, so its memory no longer grows with the number of
steps (what Theano's ScanSaveMem did for this case).

``scan_remove_unused_inputs``: a sequence or non-sequence that the step function never
reads is no longer an input of the loop, and one passed twice (the same variable, the same
taps) is passed once (Theano's ``remove_constants_and_unused_inputs_scan``).

``scan_invariant_output``: an output without recurrence whose every step is the same
outer value (the step returns a non-sequence, or a constant: symnb's scan already computes
outside the loop what depends on neither the sequences nor the states) is that value
repeated ``n_steps`` times, without the loop (Theano's ``scanOp_pushout_nonseqs_ops``
result: ``test_pushout_all``).

``scan_elementwise_output``: an output without recurrence that each step computes
elementwise from its sequences' rows (and non-sequences, constants) is that computation on
the whole windows the steps read, without the loop (Theano's ``scanOp_pushout_seqs_ops``:
``test_while1``).

``scan_merge``: two loops over the same number of steps (the same variable), in the same
direction, with the same ``truncate_gradient``, neither reading the other, and for
``scan_until`` loops the same stopping condition, are one loop computing both bodies
(Theano's ``ScanMerge``).

``steps_run_last_row``: ``rows[-1]`` of the rows a ``scan_until`` loop ran is the last
row of its buffer (the rows past the steps run repeat the last step), so a function
reading only the final state needs no cut on the host (``symnb.core.scan.rows``).
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Constant, Variable, ancestors, clone_replace
from symnb.core.graph_compare import equal_computations
from symnb.core.graph.inner_graph import InnerGraph
from symnb.core.graph.rewriting import build, node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.scan.op import Scan
from symnb.core.scan.rows import last_row_of_buffer
from symnb.core.tensor.alloc import alloc
from symnb.core.scan.taps import seq_window
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.shape import DimShuffle, shape_i
from symnb.core.tensor.subtensor import Subtensor

__all__ = ["scan_keep_last_step", "scan_remove_unused_inputs", "scan_invariant_output",
           "scan_elementwise_output", "scan_merge", "steps_run_last_row"]


def _last_step_readers(fgraph: FunctionGraph, var: Variable) -> list[Variable] | None:
    """The ``var[-1]`` results, when they are all that reads ``var``; else None."""
    readers = []
    for client, _ in fgraph.clients.get(var, {}):
        if client == "output" or not isinstance(client.op, Subtensor) or client.op.idx_list != (-1,):
            return None
        readers.append(client.outputs[0])
    return readers or None


@register_rewrite("specialize")
@node_rewriter([Scan], exact="where the loop runs at least one step (with none, out[-1] is an "
                             "IndexError; the final state is the initial value)")
def scan_keep_last_step(fgraph: FunctionGraph, node: Apply):
    """A recurrent output read only as ``out[-1]`` -> the loop's final state."""
    info = node.op.info
    last = list(info.return_last) if info.return_last else [False] * info.n_outs
    found = {j: _last_step_readers(fgraph, node.outputs[j])
             for j in info.recurrent if not last[j]}
    found = {j: readers for j, readers in found.items() if readers}
    if not found:
        return None
    for j in found:
        last[j] = True
    new_node = Scan(node.op.inner, info._replace(return_last=tuple(last))).make_node(*node.inputs)
    new_node.site = node.site
    replacements: dict[Variable, Variable] = {}
    for j, (old, new) in enumerate(zip(node.outputs, new_node.outputs)):
        for reader in found.get(j, ()):
            replacements[reader] = new
        if j not in found:
            replacements[old] = new
    return replacements


@register_rewrite("canonicalize")
@node_rewriter([Subtensor], exact="always: with no step run, both rows are empty and [-1] "
                                  "is an IndexError")
def steps_run_last_row(fgraph: FunctionGraph, node: Apply):
    """``StepsRun(buffer, count)[-1]`` -> ``buffer[-1]``."""
    row = last_row_of_buffer(node)
    return None if row is None else [row]


@register_rewrite("canonicalize")
@node_rewriter([Scan])
def scan_remove_unused_inputs(fgraph: FunctionGraph, node: Apply):
    """Drop the sequences and non-sequences the step never reads; pass a repeated one once.

    A sequence's taps go or stay together (its taps set the window every step reads). The
    number of steps is an input of its own, computed from the sequences' lengths before
    the loop, so dropping a sequence keeps it. Exact: the step computes the same from the
    inputs it keeps."""
    op, info = node.op, node.op.info
    inner = op.inner
    read = {id(v) for n in inner.nodes for v in n.inputs} | {id(v) for v in inner.outputs}
    n_steps, seqs, inits, non_seqs = op.split(node.inputs)
    same: dict[Variable, Variable] = {}  # inner input -> the one it duplicates

    def keep(groups: list[tuple[Variable, tuple, list[Variable]]]) -> list:
        kept, first = [], {}
        for outer, taps, inner_vars in groups:
            if not any(id(v) in read for v in inner_vars):
                continue
            twin = first.get((outer, taps))
            if twin is not None and all(a.type == b.type for a, b in zip(twin, inner_vars)):
                same.update(zip(inner_vars, twin))
                continue
            first[(outer, taps)] = inner_vars
            kept.append((outer, taps, inner_vars))
        return kept

    n_seq_inner = sum(len(taps) for taps in info.seq_taps)
    seq_groups, q = [], 0
    for seq, taps in zip(seqs, info.seq_taps):
        seq_groups.append((seq, taps, inner.inputs[q:q + len(taps)]))
        q += len(taps)
    first_non_seq = len(inner.inputs) - info.n_non_seqs
    non_seq_groups = [(v, (), [inner.inputs[first_non_seq + i]]) for i, v in enumerate(non_seqs)]
    kept_seqs, kept_non_seqs = keep(seq_groups), keep(non_seq_groups)
    if len(kept_seqs) == len(seqs) and len(kept_non_seqs) == len(non_seqs):
        return None
    outputs = clone_replace(inner.outputs, same) if same else inner.outputs
    new_inner = InnerGraph([v for _, _, vs in kept_seqs for v in vs]
                           + inner.inputs[n_seq_inner:first_non_seq]
                           + [v for _, _, vs in kept_non_seqs for v in vs],
                           outputs, role=inner.role)
    new_info = info._replace(seq_taps=tuple(taps for _, taps, _ in kept_seqs),
                             n_non_seqs=len(kept_non_seqs))
    new_node = Scan(new_inner, new_info).make_node(
        n_steps, *[v for v, _, _ in kept_seqs], *inits, *[v for v, _, _ in kept_non_seqs])
    new_node.site = node.site
    return dict(zip(node.outputs, new_node.outputs))


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


def _outer_keys(node: Apply) -> list[tuple | None]:
    """Per inner input, what it reads at every step: ``(outer sequence, tap)`` or
    ``(outer non-sequence,)``; None for a state (its value is the loop's own)."""
    op, info = node.op, node.op.info
    _, seqs, _, non_seqs = op.split(node.inputs)
    keys: list[tuple | None] = [(id(seq), tap) for seq, taps in zip(seqs, info.seq_taps) for tap in taps]
    keys += [None] * sum(len(info.out_taps[j]) for j in info.recurrent)
    return keys + [(id(v),) for v in non_seqs]


def _same_condition(a: Apply, b: Apply) -> bool:
    """Whether two ``scan_until`` loops stop on the same condition of the same inputs."""
    keys_a, keys_b = _outer_keys(a), _outer_keys(b)
    by_key = {k: v for k, v in zip(keys_b, b.op.inner.inputs) if k is not None}
    in_a, in_b = [], []
    for key, var in zip(keys_a, a.op.inner.inputs):
        if key in by_key:
            in_a.append(var)
            in_b.append(by_key[key])
    return equal_computations([a.op.inner.outputs[-1]], [b.op.inner.outputs[-1]], in_a, in_b)


def _mergeable(a: Apply, b: Apply) -> bool:
    ia, ib = a.op.info, b.op.info
    if a.inputs[0] is not b.inputs[0] or (ia.go_backwards, ia.truncate_gradient, ia.as_while) \
            != (ib.go_backwards, ib.truncate_gradient, ib.as_while):
        return False
    if a in _owners(ancestors(b.inputs)) or b in _owners(ancestors(a.inputs)):
        return False
    return not ia.as_while or _same_condition(a, b)


def _owners(variables) -> set[Apply]:
    return {v.owner for v in variables if v.owner is not None}


@register_rewrite("canonicalize")
@node_rewriter([Scan])
def scan_merge(fgraph: FunctionGraph, node: Apply):
    """This loop and a later one it can run beside -> one loop: the first's sequences,
    states, non-sequences and outputs, then the second's (a ``scan_until`` loop keeps one
    condition and one count of the steps run)."""
    other = next((n for n in fgraph.toposort() if n is not node and isinstance(n.op, Scan)
                  and _mergeable(node, n)), None)
    if other is None:
        return None
    a, b = node.op, other.op
    ia, ib = a.info, b.info
    _, seqs_a, inits_a, non_seqs_a = a.split(node.inputs)
    _, seqs_b, inits_b, non_seqs_b = b.split(other.inputs)

    def parts(op):
        info, inputs = op.info, op.inner.inputs
        n_seq = sum(len(taps) for taps in info.seq_taps)
        n_state = sum(len(info.out_taps[j]) for j in info.recurrent)
        return inputs[:n_seq], inputs[n_seq:n_seq + n_state], inputs[n_seq + n_state:]

    (sa, ta, na), (sb, tb, nb) = parts(a), parts(b)
    outs_a, outs_b = a.inner.outputs[:ia.n_outs], b.inner.outputs[:ib.n_outs]
    condition = a.inner.outputs[ia.n_outs:]  # the kept condition (b's is the same)
    inner = InnerGraph(sa + sb + ta + tb + na + nb, outs_a + outs_b + condition)
    last_a = ia.return_last or (False,) * ia.n_outs
    last_b = ib.return_last or (False,) * ib.n_outs
    info = ia._replace(seq_taps=ia.seq_taps + ib.seq_taps, out_taps=ia.out_taps + ib.out_taps,
                       n_non_seqs=ia.n_non_seqs + ib.n_non_seqs,
                       return_last=last_a + last_b if any(last_a + last_b) else (),
                       name=ia.name if ia.name == ib.name else f"{ia.name}&{ib.name}")
    merged = Scan(inner, info).make_node(node.inputs[0], *seqs_a, *seqs_b, *inits_a, *inits_b,
                                         *non_seqs_a, *non_seqs_b)
    merged.site = node.site
    new = merged.outputs
    replacements = dict(zip(node.outputs[:ia.n_outs], new[:ia.n_outs]))
    replacements.update(zip(other.outputs[:ib.n_outs], new[ia.n_outs:ia.n_outs + ib.n_outs]))
    if ia.as_while:  # both counts of steps run are the merged loop's
        replacements[node.outputs[-1]] = new[-1]
        replacements[other.outputs[-1]] = new[-1]
    return replacements


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
        inputs = [value(v) for v in node.inputs]
        if any(v is None for v in inputs):
            return None
        if isinstance(node.op, DimShuffle):
            pattern = (0, *("x" if p == "x" else p + 1 for p in node.op.pattern))
            result = build(DimShuffle(inputs[0].ndim, pattern), inputs[0])
        else:
            # An operand of fewer dimensions broadcasts from the left in the step; over the
            # steps its axes go after the steps' axis, so it is padded there explicitly.
            ndim = max(v.ndim for v in node.inputs)
            inputs = [lifted if v.ndim == ndim else build(DimShuffle(
                lifted.ndim, (0, *("x",) * (ndim - v.ndim), *range(1, lifted.ndim))), lifted)
                for v, lifted in zip(node.inputs, inputs)]
            result = node.op.make_node(*inputs).outputs[node.outputs.index(var)]
        done[id(var)] = result
        return result

    reads_a_sequence = any(id(v) in windows for v in ancestors([out], inner.inputs))
    return value(out) if reads_a_sequence else None


@register_rewrite("canonicalize")
@node_rewriter([Scan], exact="elementwise ops compute each element alike, in the loop or on "
                             "the whole rows; a step that would fail fails on the whole rows")
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
