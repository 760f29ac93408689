"""Searching the viewer's model: the browser's search (``SN.search`` in
``widgets/static/viewer_model.js``) answered in the kernel, on the same model and with the
same rule, so ``GraphExplorer.search`` returns the ids the viewer finds and draws.

The rule: a node whose label, name or op contains the query (any case), then a group
whose label does, in the model's order; then the nodes whose source line contains it (an
error names ``T.log(noise_var)``; the fused operation holding it is labelled
``fused: log·mul``, its line has the text). The whole model is searched: nodes inside
closed groups and loop bodies too.
"""

from __future__ import annotations

__all__ = ["search_model", "SEARCH_LIMIT"]

SEARCH_LIMIT = 5000  # as the browser's: a query of one letter on 50,000 nodes stays quick


def search_model(model: dict, query: str, limit: int = SEARCH_LIMIT) -> list[str]:
    """The ids of ``model``'s nodes and groups matching ``query`` (see the module docstring)."""
    q = query.strip().lower()
    if not q:
        return []
    hits: list[str] = []
    by_line: list[str] = []
    texts = [(n["id"], "\u0001".join(str(n.get(k) or "") for k in ("label", "name", "op")).lower(),
              str(n.get("code") or "").lower()) for n in model["nodes"]]
    texts += [(g["id"], str(g.get("label") or "").lower(), "") for g in model["groups"]]
    for node_id, text, line in texts:
        if q in text:
            hits.append(node_id)
            if len(hits) >= limit:
                return hits
        elif q in line and len(by_line) < limit:
            by_line.append(node_id)
    return (hits + by_line)[:limit]
