"""The rewrite pipeline: named passes in a fixed order, and the optimizer levels.

``fast_run`` runs, in this order:

1. ``merge``: one node per distinct computation, one constant per distinct value;
2. ``canonicalize``: algebraic and structural simplification, and constant folding;
3. ``stabilize``: numerically safer equivalents (and constant folding);
4. ``specialize``: cheaper special cases (and constant folding);
5. ``merge`` again (the rewrites may have built equal nodes);
6. ``fusion``: elementwise chains into Composite nodes.

``fast_compile`` runs ``merge`` and ``constant_folding`` (folding alone) only; ``None``
nothing. Each local pass runs its rewrites to a fixpoint. Other modules add rewrites to a pass with
``register_rewrite("canonicalize")`` (they run after the built-in ones).
"""

from __future__ import annotations

from typing import Callable

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.rewriting import algebra, specialize, stabilize, structure
from symnb.core.graph.rewriting import GraphPass, LocalPass, NodeRewriter
from symnb.core.rewriting.folding import constant_folding
from symnb.core.rewriting.fusion import FusionPass
from symnb.core.rewriting.merge import MergePass

__all__ = ["PASSES", "LEVELS", "optimize", "register_rewrite", "passes_for"]

PASSES: dict[str, GraphPass] = {
    "merge": MergePass(),
    "constant_folding": LocalPass("constant_folding", [constant_folding]),
    "canonicalize": LocalPass("canonicalize", algebra.REWRITES + structure.REWRITES + [constant_folding]),
    "stabilize": LocalPass("stabilize", stabilize.REWRITES + [constant_folding]),
    "specialize": LocalPass("specialize", specialize.REWRITES + [constant_folding]),
    "fusion": FusionPass(),
}

LEVELS: dict[str | None, tuple[str, ...]] = {
    "fast_run": ("merge", "canonicalize", "stabilize", "specialize", "merge", "fusion"),
    "fast_compile": ("merge", "constant_folding"),
    None: (),
}


def passes_for(level: str | None) -> tuple[str, ...]:
    """The pass names an optimizer level runs, in order."""
    if level == "None":  # as spelled in SYMNB_FLAGS
        level = None
    key = level.lower() if isinstance(level, str) else level
    if key not in LEVELS:
        raise ValueError(f"unknown optimizer {level!r}; expected 'fast_run', 'fast_compile' or None")
    return LEVELS[key]


def optimize(fgraph: FunctionGraph, level: str | None = "fast_run") -> FunctionGraph:
    """Rewrite ``fgraph`` in place with the passes of ``level``; return it.

    ``level`` is ``'fast_run'``, ``'fast_compile'`` or ``None``. The rewrites applied
    are recorded in ``fgraph.history``.
    """
    for name in passes_for(level):
        PASSES[name].apply(fgraph)
    return fgraph


def register_rewrite(pass_name: str) -> Callable[[NodeRewriter], NodeRewriter]:
    """Decorator: add a :class:`NodeRewriter` to the local pass ``pass_name``."""
    target = PASSES.get(pass_name)
    if not isinstance(target, LocalPass):
        local = sorted(name for name, p in PASSES.items() if isinstance(p, LocalPass))
        raise ValueError(f"no local rewrite pass named {pass_name!r}; passes: {', '.join(local)}")
    return target.register
