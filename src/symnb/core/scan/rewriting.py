"""Graph rewrites for loops (registered in the ``specialize`` pass).

``scan_keep_last_step``: when every reader of a recurrent output takes only its last
step (``h[-1]``, as in Theano's ``pow(A, k)`` example), the loop carries that output
instead of stacking every step, so its memory no longer grows with the number of
steps (what Theano's ScanSaveMem did for this case).

``steps_run_last_row``: ``rows[-1]`` of the rows a ``scan_until`` loop ran is the last
row of its buffer (the rows past the steps run repeat the last step), so a function
reading only the final state needs no cut on the host (``symnb.core.scan.rows``).
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.rewriting import node_rewriter
from symnb.core.rewriting.passes import register_rewrite
from symnb.core.scan.op import Scan
from symnb.core.scan.rows import last_row_of_buffer
from symnb.core.tensor.subtensor import Subtensor

__all__ = ["scan_keep_last_step", "steps_run_last_row"]


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
