"""``graph_picture``: a graph's picture as a notebook output that renders everywhere.

A bare ``image/svg+xml`` output does not render in an untrusted notebook (JupyterLab
shows ``<IPython.core.display.SVG object>`` instead), so the picture is shown as
``text/html`` holding an ``<img>`` of the SVG, which JupyterLab (trusted or not),
``jupyter nbconvert --to html`` and GitHub's notebook viewer all keep.
"""

from __future__ import annotations

from typing import Any

from symnb.printing.svg import graph_svg, picture_img

__all__ = ["GraphImage", "graph_picture"]


class GraphImage:
    """A drawn graph: ``.svg`` is its SVG text; in a notebook it shows as an image."""

    def __init__(self, svg: str, text: str = "graph picture") -> None:
        self.svg = svg
        self.text = text

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, str]:
        return {"text/html": picture_img(self.svg), "text/plain": f"<{self.text}>"}

    def __repr__(self) -> str:
        return f"<{self.text}>"


def graph_picture(obj: Any, engine: str = "auto", **picture_options: Any) -> GraphImage:
    """The picture :func:`graph_svg` draws of ``obj`` (a variable, a list of them, a
    compiled function), as an output a notebook shows trusted or not."""
    svg = graph_svg(obj, engine, **picture_options)
    count = svg.split('data-nodes="', 1)[1].split('"', 1)[0]
    return GraphImage(svg, f"graph picture: {count} nodes")
