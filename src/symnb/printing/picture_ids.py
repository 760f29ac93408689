"""The ids of a picture's nodes at any depth: a scan's loop body, a condition's branches,
a fused chain, drawn expanded or not. A node of an inner graph has the id its node gets
once its holder is expanded (``n5/0/n2``), which :func:`expansions_for` turns into the
nodes to expand. (Searching is the viewer's, on its model: :mod:`symnb.printing.view_search`.)
"""

from __future__ import annotations

from symnb.core.graph import Apply, Variable

__all__ = ["every_node", "expansions_for"]


def every_node(picture) -> list[tuple[str, Apply | Variable]]:
    """``[(node id, node)]`` of ``picture``'s graph, roots then Apply nodes in execution
    order, each node holding inner graphs followed by theirs (at any depth, expanded or
    not: each inner graph laid out as its expansion lays it out, so the ids are those an
    expansion draws)."""
    found = []
    for obj in list(picture.roots) + list(picture.order):
        node_id = picture.node_id(obj)
        found.append((node_id, obj))
        if isinstance(obj, Apply) and obj.op.inner_graphs:
            for inner in picture._inner_pictures(obj, node_id):
                found += every_node(inner.picture)
    return found


def expansions_for(node_id: str) -> list[str]:
    """The nodes to expand, outermost first, for node ``node_id`` (``n5/0/n2/1/n0``:
    ``n5``, then ``n5/0/n2``) to be drawn; none for a top-level node."""
    parts = node_id.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts) - 1, 2)]
