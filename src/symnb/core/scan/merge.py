"""``scan_merge`` (the ``canonicalize`` pass): two loops over the same number of steps (the
same variable), in the same direction, with the same ``truncate_gradient``, neither reading
the other, and for ``scan_until`` loops the same stopping condition of the same inputs, are
one loop computing both bodies (Theano's ``ScanMerge``): one loop less to run."""

from __future__ import annotations

from symnb.core.graph.basic import Apply, ancestors
from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.inner_graph import InnerGraph
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.graph_compare import equal_computations
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.scan.op import Scan

__all__ = ["scan_merge"]


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
