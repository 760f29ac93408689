"""Graph rewrites for loops (each registered in the pass its docstring names); the
outputs computed without a loop are in ``pushout.py``, the merge of loops in ``merge.py``.

``scan_keep_last_step``: when every reader of a recurrent output takes only its last
step (``h[-1]``, as in Theano's ``pow(A, k)`` example), the loop carries that output
instead of stacking every step, so its memory no longer grows with the number of
steps (what Theano's ScanSaveMem did for this case).

``scan_remove_unused_inputs``: a sequence or non-sequence that the step function never
reads is no longer an input of the loop, and one passed twice (the same variable, the same
taps) is passed once (Theano's ``remove_constants_and_unused_inputs_scan``).

``steps_run_last_row``: ``rows[-1]`` of the rows a ``scan_until`` loop ran is the last
row of its buffer (the rows past the steps run repeat the last step), so a function
reading only the final state needs no cut on the host (``symnb.core.scan.rows``).
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Variable, clone_replace
from symnb.core.graph.inner_graph import InnerGraph
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.scan.op import Scan
from symnb.core.scan.rows import last_row_of_buffer
from symnb.core.tensor.subtensor import Subtensor

__all__ = ["scan_keep_last_step", "scan_remove_unused_inputs", "steps_run_last_row"]


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
