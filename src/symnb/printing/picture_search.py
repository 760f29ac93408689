"""Searching a picture's graph by name or op: every node, drawn or inside a closed group.

A big graph opens with its groups closed (:mod:`symnb.printing.groups`); a search that
looked only at what is drawn would find a parameter inside ``layer() #2`` only once the
user had opened that group by hand. As TensorBoard's graph view and Model Explorer do,
the search walks the whole graph; the explorer then opens the groups around the hit it
shows (:meth:`GraphPicture.closed_groups_around`).
"""

from __future__ import annotations

from symnb.core.graph import Apply, Constant, Variable
from symnb.core.graph.errors import label
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import value_text
from symnb.printing.labels import node_name

__all__ = ["search_text", "search_index", "find_nodes"]


def search_text(obj: Apply | Variable, origins: dict[int, str]) -> str:
    """What a search matches for a node (lower case): an Apply's name (its role, the
    user's name or source text) and op; a root's name and kind (``input``, ``shared``,
    ``constant``)."""
    if isinstance(obj, Apply):
        return f"{node_name(obj, origins)} {obj.op.display_name()}".lower()
    if isinstance(obj, Constant):
        return f"{obj.name or value_text(obj.data)} constant".lower()
    kind = "shared" if isinstance(obj, SharedVariable) else "input"
    return f"{label(obj)} {kind}".lower()


def search_index(picture) -> list[tuple[str, str]]:
    """``[(node id, search text)]`` of every node of ``picture``'s graph (not its inner
    graphs): the same for every redraw of one graph, so a caller may keep it."""
    return [(picture.node_id(obj), search_text(obj, picture.origins))
            for obj in list(picture.roots) + list(picture.order)]


def find_nodes(picture, query: str, index: list[tuple[str, str]] | None = None) -> list[str]:
    """The ids of ``picture``'s nodes whose name or op contains ``query`` (any case): the
    top-level graph's roots then its Apply nodes in execution order, whether drawn or
    inside a closed group, then the nodes of the inner graphs drawn expanded. ``index``:
    :func:`search_index` of this graph, when kept (else made here)."""
    query = query.strip().lower()
    if not query:
        return []
    hits = [node_id for node_id, text in (index if index is not None else search_index(picture))
            if query in text]
    for node in picture.nodes.values():
        for inner in node.inner:
            hits += find_nodes(inner.picture, query)
    return hits
