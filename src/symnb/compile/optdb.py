"""Theano's optimizer database: ``theano.compile.mode.optdb`` and its queries.

Theano's tests and some programs rewrite a graph of their own without compiling it::

    fgraph = gof.FunctionGraph([x], [y])
    theano.compile.mode.optdb.query(theano.compile.mode.OPT_FAST_RUN).optimize(fgraph)

Here ``optdb`` is symnb's rewrite pipeline (:mod:`symnb.core.rewriting.passes`), not a
second one: a :class:`Query` (Theano's ``gof.Query``: tags included, required and
excluded) picks the level and tags as ``Mode.including``/``excluding``/``requiring`` do,
and ``optimize(fgraph)`` runs those passes on the :class:`~symnb.core.graph.fgraph.FunctionGraph`
in place, as ``sn.function`` runs them on the graph it compiles.
"""

from __future__ import annotations

from typing import Any, Iterable

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.rewriting import RewriteQuery, rewrite_tags
from symnb.core.rewriting.passes import optimize

__all__ = ["Query", "RewriteDatabase", "QueriedRewrites", "optdb", "OPT_NONE", "OPT_MERGE",
           "OPT_FAST_RUN", "OPT_FAST_COMPILE", "OPT_O2", "OPT_O3", "OPT_STABILIZE"]

#: Theano's optimizer levels, the tags that name them in a query.
_LEVELS = ("fast_run", "fast_compile")


class Query:
    """Theano's ``gof.Query``: the rewrites tagged with one of ``include``, all of
    ``require`` and none of ``exclude``. ``subquery``, ``position_cutoff`` and
    ``extra_optimizations`` (Theano's database internals) are refused when given."""

    def __init__(self, include: Iterable[str], require: Iterable[str] | None = None,
                 exclude: Iterable[str] | None = None, subquery: Any = None,
                 position_cutoff: Any = None, extra_optimizations: Any = None) -> None:
        for name, value in (("subquery", subquery), ("position_cutoff", position_cutoff),
                            ("extra_optimizations", extra_optimizations)):
            if value:
                raise NotImplementedError(f"Query({name}=...): symnb's pipeline has fixed passes "
                                          f"and no positions; query by tags (include, require, exclude)")
        self.include = frozenset(include)
        self.require = frozenset(require or ())
        self.exclude = frozenset(exclude or ())
        self.name: str | None = None

    def including(self, *tags: str) -> "Query":
        return Query(self.include | set(tags), self.require, self.exclude)

    def excluding(self, *tags: str) -> "Query":
        return Query(self.include, self.require, self.exclude | set(tags))

    def requiring(self, *tags: str) -> "Query":
        return Query(self.include, self.require | set(tags), self.exclude)

    def __repr__(self) -> str:
        return (f"Query{{inc={set(self.include)},ex={set(self.exclude)},"
                f"require={set(self.require)}}}")


class QueriedRewrites:
    """What ``optdb.query(...)`` returns (Theano's optimizer): ``optimize(fgraph)`` runs
    the selected passes on ``fgraph`` in place."""

    def __init__(self, query: Query) -> None:
        levels = [tag for tag in _LEVELS if tag in query.include]
        # fast_run's passes include fast_compile's: the wider level given decides
        self.level = levels[0] if levels else None
        self.rewrite_query = RewriteQuery().extended(
            rewrite_tags(), include=query.include - set(_LEVELS), exclude=query.exclude,
            require=query.require)

    def optimize(self, fgraph: FunctionGraph) -> FunctionGraph:
        """Rewrite ``fgraph`` in place (symnb's passes of the query); return it."""
        if not isinstance(fgraph, FunctionGraph):
            raise TypeError(f"optimize takes a symnb.gof.FunctionGraph, got {type(fgraph).__name__}")
        return optimize(fgraph, self.level, self.rewrite_query)

    apply = optimize  # Theano's optimizers are applied with either name

    def __call__(self, fgraph: FunctionGraph) -> FunctionGraph:
        return self.optimize(fgraph)


class RewriteDatabase:
    """Theano's ``optdb``: ``query(Query)`` or ``query('+tag', '-tag', '&tag', ...)``
    (``'tag'`` alone includes it, as in Theano's ``DB.query``)."""

    def query(self, *tags: Any) -> QueriedRewrites:
        if len(tags) == 1 and isinstance(tags[0], Query):
            return QueriedRewrites(tags[0])
        include, require, exclude = set(), set(), set()
        for tag in tags:
            if not isinstance(tag, str):
                raise TypeError(f"optdb.query takes one Query or tag strings, got {tag!r}")
            sign, name = (tag[0], tag[1:]) if tag[:1] in "+-&" else ("+", tag)
            {"+": include, "-": exclude, "&": require}[sign].add(name)
        return QueriedRewrites(Query(include, require, exclude))

    def __repr__(self) -> str:
        return "optdb (symnb's rewrite pipeline)"


optdb = RewriteDatabase()


def _named(query: Query, name: str) -> Query:
    query.name = name
    return query


OPT_NONE = _named(Query(include=[]), "OPT_NONE")
OPT_MERGE = _named(Query(include=["merge"]), "OPT_MERGE")
OPT_FAST_RUN = _named(Query(include=["fast_run"]), "OPT_FAST_RUN")
OPT_FAST_COMPILE = _named(Query(include=["fast_compile"]), "OPT_FAST_COMPILE")
OPT_O2 = _named(OPT_FAST_COMPILE.including("fusion"), "OPT_O2")
OPT_O3 = _named(OPT_FAST_RUN.excluding("inplace"), "OPT_O3")
# Theano's OPT_STABILIZE: its passes up to the stabilizations (merge, canonicalize, stabilize)
OPT_STABILIZE = _named(Query(include=["merge", "canonicalize", "stabilize"]), "OPT_STABILIZE")
