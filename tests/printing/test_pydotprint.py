"""pydotprint: pictures through pydot and Graphviz (PNG/SVG/PDF), and its errors."""

import os
import shutil
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing import GraphvizNotFoundError, pydotprint
from tests.optional_tools import needs_dot
from tests.printing import MinMax

SVG = "{http://www.w3.org/2000/svg}"


def small_function():
    """``v * w + 1`` with w shared: an input, a shared variable, a constant and an output."""
    w = sn.shared(np.ones(3, "float32"), name="w")
    v = T.vector("v")
    with sn.config.change_flags(optimizer=None):
        return sn.function([v], v * w + 1)


def svg_node_list(svg: str) -> list[tuple[list[str], str, str, int]]:
    """Each drawn node of an SVG: (its text lines, the fill colour and the element of its
    outline, its number of outlines)."""
    nodes = []
    for group in ET.fromstring(svg).iter(SVG + "g"):
        if group.get("class") != "node":
            continue
        texts = [t.text for t in group.iter(SVG + "text")]
        outlines = [e for e in group if e.tag in (SVG + "polygon", SVG + "ellipse", SVG + "path")]
        nodes.append((texts, outlines[0].get("fill"), outlines[0].tag.replace(SVG, ""),
                      len(outlines)))
    return nodes


def svg_nodes(svg: str) -> dict[str, tuple[list[str], str, str, int]]:
    """The drawn nodes of an SVG by their first text line (which must be unique)."""
    nodes = svg_node_list(svg)
    by_text = {node[0][0]: node for node in nodes}
    assert len(by_text) == len(nodes), "two nodes share a first line"
    return by_text


@needs_dot
def test_svg_shows_ops_names_types_and_distinct_kinds():
    svg = pydotprint(small_function(), format="svg", return_image=True)
    assert isinstance(svg, str)
    nodes = svg_nodes(svg)
    assert set(nodes) == {"Elemwise{mul,no_inplace}", "Elemwise{add,no_inplace}", "v", "w",
                          "TensorConstant{1}", "output 0"}
    assert nodes["v"][:3] == (["v", "float32 (?,)"], "#9be39b", "ellipse")     # input
    assert nodes["w"][1:3] == ("#ffd966", "path")                               # shared: cylinder
    assert nodes["TensorConstant{1}"][1:3] == ("#dddddd", "polygon")          # constant: note
    assert nodes["output 0"][1:] == ("#9ec9ff", "ellipse", 2)                   # output: double
    assert nodes["Elemwise{add,no_inplace}"][1:] == ("#ffaabb", "polygon", 1)   # op: box
    edge_texts = [t.text for g in ET.fromstring(svg).iter(SVG + "g") if g.get("class") == "edge"
                  for t in g.iter(SVG + "text")]
    assert sorted(edge_texts) == sorted(["0 float32 (?,)", "1 float32 (?,)", "0 float32 (?,)",
                                         "1 int8 ()", "float32 (?,)"])


@needs_dot
def test_png_file_by_suffix(tmp_path, capsys):
    path = pydotprint(small_function(), outfile=tmp_path / "graph.png")
    assert path == str(tmp_path / "graph.png")
    with open(path, "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    assert capsys.readouterr().out == f"The output file is available at {path}\n"


@needs_dot
def test_svg_and_pdf_files(tmp_path):
    svg_path = pydotprint(small_function(), outfile=str(tmp_path / "g.svg"),
                          print_output_file=False)
    with open(svg_path) as handle:
        assert "Elemwise{mul,no_inplace}" in {t.text for t in ET.parse(handle).iter(SVG + "text")}
    pdf_path = pydotprint(small_function(), outfile=str(tmp_path / "g"), format="pdf",
                          print_output_file=False)
    assert pdf_path == str(tmp_path / "g.pdf")
    with open(pdf_path, "rb") as handle:
        assert handle.read(5) == b"%PDF-"


@needs_dot
def test_png_bytes_for_notebooks(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    x = T.vector("x")
    image = pydotprint(T.exp(x), format="png", return_image=True)
    assert isinstance(image, bytes) and image.startswith(b"\x89PNG\r\n\x1a\n")
    assert os.listdir(tmp_path) == [] and capsys.readouterr().out == ""  # no file written


@needs_dot
def test_default_outfile(capsys):
    x = T.vector("x")
    path = pydotprint(x * 2.)
    assert path.endswith("symnb.pydotprint.png") and os.path.exists(path)
    assert path in capsys.readouterr().out


@needs_dot
def test_variables_compact_and_expanded():
    x = T.vector("x")
    h = T.exp(x)
    out = T.tanh(T.sin(h))
    compact = svg_nodes(pydotprint([out], format="svg", return_image=True))
    full = svg_node_list(pydotprint(out, format="svg", return_image=True, compact=False))
    assert set(compact) == {"x", "Elemwise{exp,no_inplace}", "Elemwise{sin,no_inplace}",
                            "Elemwise{tanh,no_inplace}", "output 0"}
    # compact=False also draws the two unnamed intermediate values, as white ellipses.
    assert len(full) == len(compact) + 2
    intermediates = [node for node in full if node[1:3] == ("white", "ellipse")]
    assert sorted(node[0][0] for node in intermediates) == ["Elemwise{exp,no_inplace}",
                                                            "Elemwise{sin,no_inplace}"]


@needs_dot
def test_named_intermediate_and_unused_output():
    x = T.vector("x")
    low, _high = MinMax()(x)
    low.name = "low"
    nodes = svg_nodes(pydotprint(low * 2., format="svg", return_image=True))
    assert nodes["low"][:3] == (["low", "float32 ()"], "white", "ellipse")
    assert nodes["MinMax.1"][1] == "#bbbbbb"  # the output nobody reads


def test_dot_source_needs_no_graphviz(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    source = pydotprint(small_function(), format="dot", return_image=True)
    assert source.startswith("digraph symnb {")
    for label in ('"Elemwise{mul,no_inplace}"', '"v\\nfloat32 (?,)"', '"w\\nfloat32 (?,)"',
                  '"TensorConstant{1}\\nint8 ()"', "shape=cylinder", "peripheries=2"):
        assert label in source


def test_with_ids_and_quoting_of_angle_brackets():
    x = T.vector()
    source = pydotprint(x + 1., format="dot", return_image=True, with_ids=True)
    assert '"Elemwise{add,no_inplace} id=0"' in source
    # Quoted, so Graphviz does not read <...> as an HTML label.
    assert 'label="<TensorType(float32, shape=(?,))>"' in source


def test_long_labels_are_cut():
    x = T.vector("x" * 100)
    source = pydotprint(x * 2., format="dot", return_image=True, max_label_size=20)
    assert '"' + "x" * 17 + '...\\nfloat32 (?,)"' in source


def test_missing_graphviz_explains_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` there
    with pytest.raises(GraphvizNotFoundError) as info:
        pydotprint(small_function(), outfile=tmp_path / "g.png")
    message = str(info.value)
    assert "apt-get install graphviz" in message and "conda install graphviz" in message
    assert not (tmp_path / "g.png").exists()


def test_bad_format():
    with pytest.raises(ValueError, match="format must be one of"):
        pydotprint(T.vector("x") * 2., format="bmp", return_image=True)


def test_function_graph_and_maker_fgraph():
    from types import SimpleNamespace

    from symnb.core.graph.fgraph import FunctionGraph

    x = T.vector("x")
    graph = FunctionGraph([x], [T.exp(x) * 2.])
    for obj in (graph, SimpleNamespace(maker=SimpleNamespace(fgraph=graph))):
        source = pydotprint(obj, format="dot", return_image=True, with_ids=True)
        assert '"Elemwise{exp,no_inplace} id=0"' in source
        assert '"Elemwise{mul,no_inplace} id=1"' in source


def test_missing_pydot_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)  # import pydot now fails
    with pytest.raises(ImportError, match="pip install pydot"):
        pydotprint(T.vector("x") * 2., format="dot", return_image=True)


def test_shared_updates_are_labelled_by_their_variable():
    import numpy as np

    import symnb as sn

    x = T.vector("x")
    w = sn.shared(np.zeros(2, "float32"), name="w")
    f = sn.function([x], (w * x).sum(), updates=[(w, w + x)])
    text = pydotprint(f, format="dot", return_image=True)
    assert "w (update)" in text and "output 0" in text


def test_pydot_imported_says_whether_pydotprint_can_draw(monkeypatch, tmp_path):
    """Theano's ``printing.pydot_imported``: pydot imports and Graphviz's ``dot`` is found."""
    from symnb.printing.pydot import pydot_usable

    try:
        import pydot  # noqa: F401
        has_pydot = True
    except ImportError:
        has_pydot = False
    assert sn.printing.pydot_imported is (has_pydot and shutil.which("dot") is not None)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` there
    assert pydot_usable() is False


@needs_dot
def test_cond_highlight_without_ifelse_logs_theanos_warning_through_symnb_logger():
    # Theano's logger and handler (theano.theano_logger, theano.logging_default_handler):
    # a program swaps the handler to capture symnb's messages, as Theano's tests do.
    import io
    import logging

    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    sn.symnb_logger.removeHandler(sn.logging_default_handler)
    sn.symnb_logger.addHandler(handler)
    try:
        pydotprint(small_function(), cond_highlight=True, return_image=True, format="dot")
        no_highlight = captured.getvalue()
        x = T.dscalar("x")
        pydotprint(sn.ifelse(x > 0, x, -x), cond_highlight=True, return_image=True, format="dot")
    finally:
        sn.symnb_logger.addHandler(sn.logging_default_handler)
        sn.symnb_logger.removeHandler(handler)
    assert no_highlight == ("pydotprint: cond_highlight is set but there is no IfElse node "
                            "in the graph\n")
    assert captured.getvalue() == no_highlight  # a graph with an ifelse: nothing more
    assert sn.logging_default_handler in sn.symnb_logger.handlers
