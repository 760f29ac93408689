"""The static overview of a view model (printing/view_overview.py): the collapsed top level
in region columns that fit a cell, names as text."""

import re

from symnb.printing.view_overview import overview_svg
from tests.browser.viewer_page import mlp_model

XSS = "<img src=x onerror=alert(1)>"


def test_the_overview_is_the_collapsed_top_level_in_region_columns():
    model = mlp_model(layers=12)
    model["groups"][-1]["label"] = XSS  # the updates group, named like an HTML tag
    svg = overview_svg(model, width=860)
    titles = re.findall(r'font-weight="bold">([^<]*)</text>', svg)
    # The top level by hand: the inputs x and y, the series, the loss, the gradient, the
    # updates. Parameters are drawn inside the one box of their region they feed, as the
    # viewer draws them (each layer's W and b in the series); the function's inputs are
    # boxes of their own at the top of the spine, as in the viewer.
    top_groups = [g["label"] for g in model["groups"] if g["parent"] is None]
    inputs = [n["label"] for n in model["nodes"] if n["kind"] == "input"]
    assert sorted(inputs) == ["x", "y"]
    assert sorted(titles) == sorted(inputs + top_groups[:-1] + ["&lt;img src=x onerror=alert(1)&gt;"])
    assert XSS not in svg
    assert 'width="860"' in svg
    columns = re.findall(r'<text x="[\d.]+" y="14" font-size="11" fill="#777">(\w+)</text>', svg)
    assert columns == ["forward", "gradient", "updates"]
    # The series box says how many calls it folds.
    assert "12 calls" in svg


def test_a_top_level_loops_body_is_drawn_as_the_loop_not_a_box_of_its_own():
    """A loop's body (an "inner" group at the top level) is inside the loop's box, as the
    viewer draws it closed: the overview's boxes are the outer graph's, by hand."""
    import numpy as np

    import symnb as sn
    import symnb.tensor as T
    from symnb.printing.view_model import view_model

    xs = T.matrix("xs", test_value=np.ones((3, 2), "float32"))
    hs, _ = sn.scan(lambda x_t: T.tanh(x_t), sequences=[xs], name="step")
    model = view_model(hs)
    model["groups"] = [dict(g, parent=None) for g in model["groups"] if g["kind"] == "inner"]
    for node in model["nodes"]:  # everything at the top level, but the body's nodes
        node["group"] = node["group"] if "/" in node["id"] else None
    assert any(g["kind"] == "inner" and g["parent"] is None for g in model["groups"])
    titles = re.findall(r'font-weight="bold">([^<]*)</text>', overview_svg(model))
    outer = [n["label"] for n in model["nodes"] if "/" not in n["id"] and n["kind"] != "constant"]
    assert sorted(titles) == sorted(outer) and "Scan{step} body" not in titles
