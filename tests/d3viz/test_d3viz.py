"""``symnb.d3viz`` (Theano's ``theano.d3viz`` page): the HTML page holds the explorer's
model of the compiled function (every op the function runs, by its public name), and
``d3write`` the graph as dot text; the page drawn in Chromium is in
tests/browser/test_d3viz_page.py."""

from __future__ import annotations

import base64
import gzip
import json
import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
import symnb.d3viz as d3v


def small_mlp():
    rng = np.random.RandomState(0)
    x = T.matrix("x")
    w1 = sn.shared(rng.randn(5, 8).astype("float32"), name="W1")
    w2 = sn.shared(rng.randn(8, 2).astype("float32"), name="W2")
    y = T.nnet.softmax(T.dot(T.tanh(T.dot(x, w1)), w2))
    return sn.function([x], [y, -T.log(y[:, 0]).mean()])


def embedded_model(page: str) -> dict:
    found = re.search(r'<script type="application/x-symnb-model" class="symnb-model">(.*?)</script>', page, re.S)
    assert found, "the page holds no model"
    text = found.group(1).strip()
    try:
        return json.loads(gzip.decompress(base64.b64decode(text)))
    except (ValueError, OSError):
        return json.loads(text)


def test_the_page_holds_the_functions_graph(tmp_path):
    f = small_mlp()
    outfile = tmp_path / "mlp.html"
    d3v.d3viz(f, outfile)
    page = outfile.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<script" in page and "http" not in page.split("<body>")[0]
    model = embedded_model(page)
    boxes = [node for node in model["nodes"] if node["kind"] == "op"]
    assert len(boxes) >= 5
    names = {n.get("name") for n in model["nodes"]} | {n.get("label") for n in model["nodes"]}
    assert {"W1", "W2", "x"} <= names
    with pytest.raises(TypeError):
        d3v.d3viz(f, tmp_path / "other.html", compact=True)  # Theano's formatter options


def test_d3write_writes_the_dot_graph(tmp_path):
    f = small_mlp()
    d3v.d3write(f, tmp_path / "mlp.dot")
    text = (tmp_path / "mlp.dot").read_text()
    assert text.startswith("digraph")
    assert text.count("->") >= len(f.maker.fgraph.toposort())
