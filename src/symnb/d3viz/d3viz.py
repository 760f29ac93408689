"""``theano.d3viz.d3viz``'s two functions, over symnb's graph explorer and pydot export."""

from __future__ import annotations

import html
import os
from typing import Any

__all__ = ["d3viz", "d3write"]


def d3viz(fct: Any, outfile: str | os.PathLike, copy_deps: bool = True) -> None:
    """Write ``fct`` (a compiled function, a variable, an Apply or a list of variables) to
    ``outfile`` as an HTML page holding symnb's graph explorer: groups that open, values,
    search. ``copy_deps`` is accepted (Theano copied d3.js beside the page; this page needs
    no other file). Theano's options of its dot formatter do not apply to the explorer:
    passing one raises ``TypeError``."""
    # The notebook views load on first use, as the magics load them.
    from symnb.widgets._view import snapshot_html
    from symnb.widgets.explorer import GraphExplorer
    from symnb.widgets.viewer import state_html

    explorer = GraphExplorer(fct)
    key = explorer.snapshot_key
    title = html.escape(os.path.basename(os.fspath(outfile)))
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{title}</title></head><body>{snapshot_html(key, explorer.snapshot_body())}"
            f"{state_html(key, explorer.view_state())}</body></html>\n")
    with open(outfile, "w", encoding="utf-8") as f:
        f.write(page)


def d3write(fct: Any, path: str | os.PathLike, *args: Any, **kwargs: Any) -> None:
    """Write ``fct``'s graph to ``path`` in Graphviz's dot format (what Theano's d3viz page
    was drawn from), as :func:`symnb.printing.pydotprint` builds it; ``kwargs`` go to it."""
    from symnb.printing.pydot import pydotprint

    text = pydotprint(fct, *args, format="dot", return_image=True, **kwargs)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
