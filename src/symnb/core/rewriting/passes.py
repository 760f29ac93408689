"""The rewrite pipeline: named passes in a fixed order, and the optimizer levels.

``fast_run`` runs, in this order:

1. ``ifelse_lift``: the branches of every ``ifelse`` onto the outer graph, so the
   next passes see (and merge) what they share with the rest
   (``lazy_branches.py``);
2. ``merge``: one node per distinct computation, one constant per distinct value;
3. ``canonicalize``: algebraic and structural simplification, and constant folding;
4. ``stabilize``: numerically safer equivalents (and constant folding);
5. ``specialize``: cheaper special cases (and constant folding);
6. ``merge`` again (the rewrites may have built equal nodes);
7. ``ifelse_lazy``: what only a branch needs back into it (run whenever
   ``ifelse_lift`` ran: until then both branches would be computed);
8. ``fusion``: elementwise chains into Composite nodes.

``fast_compile`` runs ``ifelse_lift``, ``merge``, ``constant_folding`` (folding alone),
``stabilize`` and ``ifelse_lazy``
(the graph keeps what the user wrote, so every level that rewrites at all makes the
unstable forms stable, see ``core/tensor/stable_forms.py``); ``None`` nothing. Each local pass runs its rewrites to a fixpoint. Other modules add rewrites to a pass with
``register_rewrite("canonicalize")`` (they run after the built-in ones). A
:class:`~symnb.core.rewriting.query.RewriteQuery` (what ``Mode.including`` /
``excluding`` / ``requiring`` build) adds or removes passes and rewrites by tag.
"""

from __future__ import annotations

from typing import Callable

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.rewriting import algebra, specialize, stabilize, structure
from symnb.core.graph.rewriting import GraphPass, LocalPass, NodeRewriter
from symnb.core.rewriting.folding import constant_folding
from symnb.core.rewriting.fusion import FusionPass
from symnb.core.rewriting.lazy_branches import IfElseLazy, IfElseLift
from symnb.core.rewriting.merge import MergePass
from symnb.core.rewriting.query import RewriteQuery

__all__ = ["PASSES", "LEVELS", "PIPELINE", "optimize", "register_rewrite", "passes_for",
           "rewrite_tags"]

PASSES: dict[str, GraphPass] = {
    "ifelse_lift": IfElseLift(),
    "merge": MergePass(),
    "constant_folding": LocalPass("constant_folding", [constant_folding]),
    "canonicalize": LocalPass("canonicalize", algebra.REWRITES + structure.REWRITES + [constant_folding]),
    "stabilize": LocalPass("stabilize", stabilize.REWRITES + [structure.local_reshape_lift, constant_folding]),
    "specialize": LocalPass("specialize", stabilize.LATER + specialize.REWRITES + [constant_folding]),
    "ifelse_lazy": IfElseLazy(),
    "fusion": FusionPass(),
}

#: Every pass run at some level, in order, with the levels that run it there.
PIPELINE: tuple[tuple[str, frozenset], ...] = (
    ("ifelse_lift", frozenset({"fast_run", "fast_compile"})),
    ("merge", frozenset({"fast_run", "fast_compile"})),
    ("constant_folding", frozenset({"fast_compile"})),
    ("canonicalize", frozenset({"fast_run"})),
    ("stabilize", frozenset({"fast_run", "fast_compile"})),
    ("specialize", frozenset({"fast_run"})),
    ("merge", frozenset({"fast_run"})),
    ("ifelse_lazy", frozenset({"fast_run", "fast_compile"})),
    ("fusion", frozenset({"fast_run"})),
)

#: Passes that must run once another has: the key's pass runs whenever the value's ran
#: (a lifted IfElse computes both branches until its branches are rebuilt).
REQUIRED_AFTER = {"ifelse_lazy": "ifelse_lift"}

LEVELS: dict[str | None, tuple[str, ...]] = {
    level: tuple(name for name, levels in PIPELINE if level in levels)
    for level in ("fast_run", "fast_compile")}
LEVELS[None] = ()


def passes_for(level: str | None) -> tuple[str, ...]:
    """The pass names an optimizer level runs, in order."""
    if level == "None":  # as spelled in SYMNB_FLAGS
        level = None
    key = level.lower() if isinstance(level, str) else level
    if key not in LEVELS:
        raise ValueError(f"unknown optimizer {level!r}; expected 'fast_run', 'fast_compile' or None")
    return LEVELS[key]


def optimize(fgraph: FunctionGraph, level: str | None = "fast_run",
             query: RewriteQuery | None = None) -> FunctionGraph:
    """Rewrite ``fgraph`` in place with the passes of ``level``; return it.

    ``level`` is ``'fast_run'``, ``'fast_compile'`` or ``None``; ``query`` (from a
    mode's ``including``/``excluding``/``requiring``) adds or removes passes and
    rewrites by tag. The rewrites applied are recorded in ``fgraph.history``.
    """
    if not query:
        for name in passes_for(level):
            PASSES[name].apply(fgraph)
        return fgraph
    passes_for(level)  # checks the level's name
    level = level.lower() if isinstance(level, str) and level != "None" else None
    ran: set[str] = set()
    for name, levels in PIPELINE:
        graph_pass, pass_tags = PASSES[name], {name} | levels
        if not isinstance(graph_pass, LocalPass):
            if query.selects(level, pass_tags) or REQUIRED_AFTER.get(name) in ran:
                graph_pass.apply(fgraph)
                ran.add(name)
            continue
        skipped = frozenset(r.name for r in graph_pass.rewrites
                            if not query.selects(level, pass_tags | {r.name}))
        if len(skipped) < len({r.name for r in graph_pass.rewrites}):
            graph_pass.apply(fgraph, skipped)
    return fgraph


def rewrite_tags() -> set[str]:
    """Every tag a query may name: the levels, the passes and their rewrites' names."""
    tags = {"fast_run", "fast_compile"} | set(PASSES)
    for graph_pass in PASSES.values():
        if isinstance(graph_pass, LocalPass):
            tags.update(r.name for r in graph_pass.rewrites)
    return tags


def register_rewrite(pass_name: str) -> Callable[[NodeRewriter], NodeRewriter]:
    """Decorator: add a :class:`NodeRewriter` to the local pass ``pass_name``."""
    target = PASSES.get(pass_name)
    if not isinstance(target, LocalPass):
        local = sorted(name for name, p in PASSES.items() if isinstance(p, LocalPass))
        raise ValueError(f"no local rewrite pass named {pass_name!r}; passes: {', '.join(local)}")
    return target.register
