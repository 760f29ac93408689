"""The rewriting framework: named local rewrites, and passes that apply them.

A local rewrite looks at one node and returns replacements for its outputs (or None).
It declares the Op classes it tracks, so a pass only offers it nodes of those classes::

    @node_rewriter([ew.TrueDiv])
    def local_div_self(fgraph, node):
        x, y = node.inputs
        if x is y:
            return [ones_like_output(node)]

A :class:`LocalPass` applies a list of rewrites until none fires (a fixpoint), using a
worklist: it visits every node once, then only the nodes a replacement touched (the new
nodes and the readers of the new values), so its cost grows with the graph's size and
the number of rewrites applied, never by rescanning the graph.

New nodes receive the creation site of the node they replace, so errors raised by the
optimized graph still name the user's line; every replacement is recorded in
``fgraph.history`` under the rewrite's name, with its declared exactness.

Exactness. A rewrite is *exact* when the new value equals the replaced one for every
input, NaN, infinities, -0.0 and overflow included, up to the rounding of the dtype
(the tolerances of DebugMode): ``x * 1 -> x``. A rewrite that changes values somewhere
says where it is exact, in words, and is then *inexact*::

    @node_rewriter([ew.TrueDiv], exact="where x is finite and non-zero")
    def local_div_self(fgraph, node): ...

DebugMode reports a value changed by an inexact rewrite as a note naming it; a value
changed by an exact one is an error (a bug in the rewrite).
"""

from __future__ import annotations

import collections
from typing import Any, Callable, Iterable, Sequence

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.op import Op
from symnb.core.graph.source import warn_at_user_line

__all__ = ["NodeRewriter", "node_rewriter", "GraphPass", "LocalPass", "RewriteLimitWarning",
           "RewriteFailureWarning", "build"]

#: What a rewrite returns: None/False (no change), one replacement per output (None
#: for an output it leaves alone), or a dict from variables to their replacements.
RewriteResult = Any


class RewriteLimitWarning(UserWarning):
    """A pass stopped before its fixpoint: its rewrites kept firing (a rewrite loop)."""


class RewriteFailureWarning(UserWarning):
    """A rewrite raised an error (a bug in the rewrite); it was skipped for that node."""


class NodeRewriter:
    """A named local rewrite: ``fn(fgraph, node)`` for nodes whose op is an instance of
    one of ``tracks``.

    ``exact`` is True for a rewrite that keeps every value (see the module's docstring),
    or a text saying where it does (``"where x is finite and non-zero"``); the rewrite is
    then inexact, ``self.exact`` is False and ``self.domain`` holds the text.
    """

    def __init__(self, fn: Callable[[FunctionGraph, Apply], RewriteResult],
                 tracks: Sequence[type], name: str | None = None, exact: bool | str = True) -> None:
        name = name or fn.__name__
        if not tracks:
            raise ValueError(f"rewrite {name!r} must track at least one Op class")
        for cls in tracks:
            if not (isinstance(cls, type) and issubclass(cls, Op)):
                raise TypeError(f"rewrite {name!r} tracks {cls!r}, not an Op class")
        self.fn = fn
        self.tracks = tuple(tracks)
        self.name = name
        self.domain = exactness_domain(exact, name)
        self.__doc__ = fn.__doc__

    @property
    def exact(self) -> bool:
        """True when the rewrite keeps every value; False when it declared a domain."""
        return self.domain is None

    def __call__(self, fgraph: FunctionGraph, node: Apply) -> RewriteResult:
        return self.fn(fgraph, node)

    def __repr__(self) -> str:
        inexact = "" if self.exact else f", exact only {self.domain}"
        return f"<rewrite {self.name} tracking {', '.join(c.__name__ for c in self.tracks)}{inexact}>"


def exactness_domain(exact: bool | str, name: str) -> str | None:
    """None for an exact rewrite; the text saying where an inexact one is exact."""
    if exact is True:
        return None
    if isinstance(exact, str) and exact.strip():
        return exact.strip()
    raise ValueError(f"rewrite {name!r}: exact must be True or a text saying where the rewrite "
                     f"keeps values (e.g. 'where x is finite and non-zero'), got {exact!r}")


def node_rewriter(tracks: Sequence[type], name: str | None = None, exact: bool | str = True
                  ) -> Callable[[Callable[[FunctionGraph, Apply], RewriteResult]], NodeRewriter]:
    """Decorator: make a function a :class:`NodeRewriter` tracking the Op classes ``tracks``.

    ``exact``: True (the default) for a rewrite that keeps every value, else a text
    saying where it does (see :class:`NodeRewriter`).
    """
    def wrap(fn: Callable[[FunctionGraph, Apply], RewriteResult]) -> NodeRewriter:
        return NodeRewriter(fn, tracks, name, exact)

    return wrap


def build(op: Op, *inputs: Variable) -> Variable:
    """The output of a new node ``op(*inputs)``, built without a creation site or test
    values (the pass gives it the replaced node's site)."""
    node = op.make_node(*inputs)
    return node.outputs[0]


class GraphPass:
    """A whole-graph pass: ``apply(fgraph)`` edits it and returns how many edits it made."""

    name = "pass"

    def apply(self, fgraph: FunctionGraph) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<pass {self.name}>"


class LocalPass(GraphPass):
    """Apply local rewrites to a fixpoint, in the order given, with a worklist."""

    def __init__(self, name: str, rewrites: Iterable[NodeRewriter] = (),
                 limit_per_node: int = 20) -> None:
        self.name = name
        self.rewrites: list[NodeRewriter] = list(rewrites)
        self.limit_per_node = limit_per_node
        self._by_class: dict[type, tuple[NodeRewriter, ...]] = {}

    def register(self, rewrite: NodeRewriter) -> NodeRewriter:
        """Add ``rewrite`` at the end of this pass (returns it, to be usable as a decorator)."""
        self.rewrites.append(rewrite)
        self._by_class.clear()
        return rewrite

    def rewrites_for(self, op_class: type) -> tuple[NodeRewriter, ...]:
        """The rewrites tracking ``op_class`` or one of its bases, in pass order."""
        found = self._by_class.get(op_class)
        if found is None:
            found = tuple(r for r in self.rewrites if issubclass(op_class, r.tracks))
            self._by_class[op_class] = found
        return found

    def apply(self, fgraph: FunctionGraph, skipped: frozenset = frozenset()) -> int:
        """Rewrite to a fixpoint; the rewrites named in ``skipped`` do not run."""
        queue = collections.deque(fgraph.toposort())
        queued = set(queue)
        budget = self.limit_per_node * (len(queue) + 100)
        applied = 0
        while queue:
            node = queue.popleft()
            queued.discard(node)
            if node not in fgraph.apply_nodes:
                continue
            for rewrite in self.rewrites_for(type(node.op)):
                if rewrite.name in skipped:
                    continue
                try:
                    result = rewrite(fgraph, node)
                    if result is None or result is False:
                        continue
                    touched = self._replace(fgraph, node, rewrite, result)
                except Exception as err:  # a broken rewrite must not break the compile
                    _warn_failure(rewrite, node, err)
                    continue
                applied += 1
                for other in touched:
                    if other not in queued:
                        queued.add(other)
                        queue.append(other)
                break
            if applied > budget:
                warn_at_user_line(f"rewrite pass {self.name!r} stopped after {applied} rewrites "
                                  f"without reaching a fixpoint; a rewrite keeps undoing another",
                                  RewriteLimitWarning)
                break
        return applied

    @staticmethod
    def _replace(fgraph: FunctionGraph, node: Apply, rewrite: NodeRewriter,
                 result: RewriteResult) -> list[Apply]:
        """Apply one rewrite's replacements; return the nodes to look at again."""
        pairs = _pairs(node, result, rewrite.name)
        touched: list[Apply] = []
        for old, new in pairs:
            if new is None or old is new or old not in fgraph.clients:
                continue
            # The readers of ``old`` now read ``new``: they may match a rewrite now.
            readers = [c for c, _ in fgraph.clients[old] if c != "output"]
            imported = fgraph.replace(old, new, reason=rewrite.name, domain=rewrite.domain)
            site = old.owner.site if old.owner is not None else node.site
            for created in imported:
                if not created.site:
                    created.site = site
            touched.extend(imported)
            touched.extend(readers)
        return touched


def _warn_failure(rewrite: NodeRewriter, node: Apply, err: Exception) -> None:
    warn_at_user_line(f"rewrite {rewrite.name!r} failed on {node!r} and was skipped (the graph "
                      f"is left as it was): {type(err).__name__}: {err}", RewriteFailureWarning)


def _pairs(node: Apply, result: RewriteResult, name: str) -> list[tuple[Variable, Variable]]:
    if isinstance(result, dict):
        return list(result.items())
    if isinstance(result, Variable):
        result = [result]
    result = list(result)
    if len(result) != len(node.outputs):
        raise ValueError(f"rewrite {name!r} returned {len(result)} replacement(s) for "
                         f"{node!r}, which has {len(node.outputs)} output(s)")
    return list(zip(node.outputs, result))
