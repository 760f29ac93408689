"""graph_picture: a picture output with no bare image/svg+xml (which untrusted notebooks,
and so GitHub and a shared notebook, do not render)."""

import urllib.parse

import numpy as np

import symnb as sn
import symnb.tensor as T


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
