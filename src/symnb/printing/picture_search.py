"""Searching a picture's graph by name or op: every node, drawn or inside a closed group.

A big graph opens with its groups closed (:mod:`symnb.printing.groups`); a search that
looked only at what is drawn would find a parameter inside ``layer() #2`` only once the
user had opened that group by hand. As TensorBoard's graph view and Model Explorer do,
the search walks the whole graph; the explorer then opens the groups around the hit it
shows (:meth:`GraphPicture.closed_groups_around`). It walks the inner graphs too (a
scan's loop body, a condition's branches), drawn expanded or not: a hit there has the
id its node gets once its holder is expanded (``n5/0/n2``), which
:func:`expansions_for` turns into the nodes to expand.
"""

from __future__ import annotations

from symnb.core.graph import Apply, Constant, Variable
from symnb.core.graph.errors import label
from symnb.core.tensor.shared import SharedVariable
from symnb.printing._common import value_text
from symnb.printing.labels import node_name, op_name

__all__ = ["search_text", "search_index", "find_nodes", "every_node", "expansions_for"]


def search_text(obj: Apply | Variable, origins: dict[int, str]) -> str:
    """What a search matches for a node (lower case): an Apply's name (its role, the
    user's name or source text) and op; a root's name and kind (``input``, ``shared``,
    ``constant``)."""
    if isinstance(obj, Apply):
        return f"{node_name(obj, origins)} {op_name(obj)} {obj.op.display_name()}".lower()
    if isinstance(obj, Constant):
        return f"{obj.name or value_text(obj.data)} constant".lower()
    kind = "shared" if isinstance(obj, SharedVariable) else "input"
    return f"{label(obj)} {kind}".lower()


def every_node(picture) -> list[tuple[str, Apply | Variable, dict[int, str]]]:
    """``[(node id, node, origins)]`` of ``picture``'s graph, roots then Apply nodes in
    execution order, each node holding inner graphs followed by theirs (at any depth,
    expanded or not: each inner graph laid out as its expansion lays it out, so the
    ids are those an expansion draws)."""
    found = []
    for obj in list(picture.roots) + list(picture.order):
        node_id = picture.node_id(obj)
        found.append((node_id, obj, picture.origins))
        if isinstance(obj, Apply) and obj.op.inner_graphs:
            for inner in picture._inner_pictures(obj, node_id):
                found += every_node(inner.picture)
    return found


def expansions_for(node_id: str) -> list[str]:
    """The nodes to expand, outermost first, for node ``node_id`` (``n5/0/n2/1/n0``:
    ``n5``, then ``n5/0/n2``) to be drawn; none for a top-level node."""
    parts = node_id.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts) - 1, 2)]


def search_index(picture) -> list[tuple[str, str]]:
    """``[(node id, search text)]`` of every node of ``picture``'s graph, its inner
    graphs' included: the same for every redraw of one graph, so a caller may keep it."""
    return [(node_id, search_text(obj, origins)) for node_id, obj, origins in every_node(picture)]


def find_nodes(picture, query: str, index: list[tuple[str, str]] | None = None) -> list[str]:
    """The ids of ``picture``'s nodes whose name or op contains ``query`` (any case), in
    :func:`every_node`'s order: whether drawn, inside a closed group or in an inner graph
    (a loop body) not drawn. ``index``: :func:`search_index` of this graph, when kept
    (else made here)."""
    query = query.strip().lower()
    if not query:
        return []
    return [node_id for node_id, text in (index if index is not None else search_index(picture))
            if query in text]
