"""How much memory a compiled program holds: what the program cache's bound in bytes
(``config.program_cache_mb``) counts.

A cached program keeps alive, once, the graph it was built from, and, for each argument
signature it was traced for, what JAX keeps of that compile for as long as its
``jax.jit`` function lives: the traced jaxpr, the lowered StableHLO module (which owns its
own MLIR context) and the compiled executable. The graph's arrays (its constants and
test values) are counted exactly. The rest lives in JAX's and XLA's native memory, which
Python cannot measure (``tracemalloc`` sees about 50 KB of a tiny program's 1.5 MB), so
it is estimated from the size of the graph, with figures measured on CPU (jax 0.10.2:
resident memory per cached program, the freed memory handed back to the system first;
MB of 2**20 bytes; ``python bench/bench_session_memory.py --calibrate``, 2026-11-28):

========================================  ================  ==========
program                                   measured          estimate
========================================  ================  ==========
``x * c + y``                             1.59 MB           1.48 MB
a 50-step elementwise chain               1.87 MB           1.91 MB
a 500-step chain                          5.95 MB           5.77 MB
a 2,000-step chain                        17.99 MB          18.66 MB
an MLP's loss and gradients (14 nodes)    1.68 MB           1.99 MB
a scan (2 nodes)                          1.45 MB           1.52 MB
``x * c + w``, ``w`` a 1 MB constant      4.63 MB           4.34 MB
``x * c + y`` read back from disk         0.12 MB           0.11 MB
========================================  ================  ==========

Each trace: :data:`TRACE_BYTES` (a tiny program's MLIR module and context, about
1.2 MB, its executable, about 0.25 MB, and its jaxpr), :data:`NODE_BYTES` per node of
the program's own graph (each an XLA operation with its own lowering), and
:data:`INNER_NODE_BYTES` per node of its inner graphs (fused elementwise chains, loop
bodies: a few instructions each), and twice the bytes of its constants (a copy in the
lowered module, one in the executable). An executable read back from disk
(``executable_cache.py``: no trace, no lowering): :data:`LOADED_BYTES` and its file's
bytes. Other backends' executables differ in size: the estimate is a scale for the
bound, not an accounting.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from symnb.core.graph.basic import Apply, Constant, walk_nodes

__all__ = ["TRACE_BYTES", "NODE_BYTES", "INNER_NODE_BYTES", "LOADED_BYTES", "graph_bytes",
           "trace_bytes", "loaded_bytes"]

#: What JAX keeps per trace of any program, however small (see the module's table).
TRACE_BYTES = 1_500_000
#: Per node of the program's own graph, per trace.
NODE_BYTES = 40_000
#: Per node of an inner graph (a fused chain, a loop body), per trace.
INNER_NODE_BYTES = 6_000
#: What JAX keeps of an executable read back from disk (``executable_cache.py``: no
#: trace, no lowering), besides the bytes of its file.
LOADED_BYTES = 110_000


def graph_bytes(nodes: Sequence[Apply]) -> int:
    """The bytes of the distinct arrays held by the graph of ``nodes`` (inner graphs
    included): constants and the test values of its variables (a constant's test value
    is its data)."""
    arrays: dict[int, int] = {}
    for node in walk_nodes(nodes):
        for var in (*node.inputs, *node.outputs):
            value = var._test_value  # read, never computed: a pending value holds nothing
            if value is not None:
                arrays[id(value)] = np.asarray(value).nbytes
    return sum(arrays.values())


def trace_bytes(nodes: Sequence[Apply]) -> int:
    """The estimated bytes JAX keeps for one trace of a program over ``nodes`` (see the
    module's docstring)."""
    every = 0
    constants: dict[int, int] = {}
    for node in walk_nodes(nodes):
        every += 1
        for var in node.inputs:
            if isinstance(var, Constant):
                constants[id(var.data)] = np.asarray(var.data).nbytes
    return (TRACE_BYTES + NODE_BYTES * len(nodes) + INNER_NODE_BYTES * (every - len(nodes))
            + 2 * sum(constants.values()))


def loaded_bytes(file_bytes: int) -> int:
    """The estimated bytes JAX keeps of an executable read back from a file of
    ``file_bytes`` bytes (measured: 0.12 MB for a small program's 8.6 kB file)."""
    return LOADED_BYTES + file_bytes
