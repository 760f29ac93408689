"""The ids of a picture's nodes at any depth: a scan's loop body, a condition's branches,
a fused chain, drawn expanded or not. A node of an inner graph has the id its node gets
once its holder is expanded (``n5/0/n2``), which :func:`expansions_for` turns into the
nodes to expand. (What an id stands for: ``ViewModelParts.obj_of``; searching is the
viewer's, on its model: :mod:`symnb.printing.view_search`.)
"""

from __future__ import annotations

__all__ = ["expansions_for"]


def expansions_for(node_id: str) -> list[str]:
    """The nodes to expand, outermost first, for node ``node_id`` (``n5/0/n2/1/n0``:
    ``n5``, then ``n5/0/n2``) to be drawn; none for a top-level node."""
    parts = node_id.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts) - 1, 2)]
