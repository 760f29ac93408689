"""graph_picture: a picture output with no bare image/svg+xml (which untrusted notebooks,
and so GitHub and a shared notebook, do not render)."""

import urllib.parse

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.optional_tools import LAYOUT_ENGINES


def test_graph_picture_is_an_html_image_of_the_graph_svg():
    x = T.vector("x", test_value=np.array([1.0, -2.0], "float32"))
    y = T.tanh(x) * 3
    picture = sn.printing.graph_picture(y, engine="layered")
    assert picture.svg == sn.printing.graph_svg(y, engine="layered")
    bundle = picture._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    html = bundle["text/html"]
    assert html.startswith('<img class="symnb-graph" src="data:image/svg+xml;charset=utf-8,')
    assert urllib.parse.unquote(html.split('src="', 1)[1].split('"', 1)[0]).split(",", 1)[1] == picture.svg
    # A box per node: x, the constant 3, tanh, mul.
    assert bundle["text/plain"] == "<graph picture: 4 nodes>" == repr(picture)


def _view_box(svg: str) -> tuple[float, float]:
    head = svg[:svg.index(">")]
    _, _, width, height = (float(v) for v in head.split('viewBox="', 1)[1].split('"', 1)[0].split())
    return width, height


def _translations(svg: str, upto: int) -> tuple[float, float]:
    """The sum of the ``translate(...)`` of the groups opened before ``upto`` and still open."""
    import re
    dx = dy = 0.0
    stack = []
    for match in re.finditer(r'<g(?: [^>]*)?>|</g>', svg[:upto]):
        if match.group() == "</g>":
            stack.pop()
            continue
        moved = re.search(r'translate\(([-\d.]+),([-\d.]+)\)', match.group())
        stack.append((float(moved.group(1)), float(moved.group(2))) if moved else (0.0, 0.0))
    for x, y in stack:
        dx, dy = dx + x, dy + y
    return dx, dy


@pytest.mark.parametrize("engine", LAYOUT_ENGINES)
def test_an_outputs_second_border_lies_inside_the_picture(engine):
    # dot puts the last box on the picture's bottom edge; the output's second border sits
    # 3 px outside the box: it must still be inside the viewBox (it was cut off).
    import re
    x = T.vector("x", test_value=np.array([1.0, -2.0], "float32"))
    svg = sn.printing.graph_svg(T.tanh(x) * 3, engine=engine)
    width, height = _view_box(svg)
    rings = list(re.finditer(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"'
                             r'[^>]*stroke="#2060c0" stroke-width="1.5"', svg))
    assert len(rings) == 1  # one output
    ring = rings[0]
    dx, dy = _translations(svg, ring.start())
    left, top = float(ring.group(1)) + dx, float(ring.group(2)) + dy
    right, bottom = left + float(ring.group(3)), top + float(ring.group(4))
    # The stroke is 1.5 px wide, centred on the outline.
    assert left - 0.75 >= 0 and top - 0.75 >= 0
    assert right + 0.75 <= width and bottom + 0.75 <= height, (bottom, height)
