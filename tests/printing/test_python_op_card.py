"""An op compiled programs run as Python (its perform called back from XLA) is marked on
its node: the viewer model's ``runs`` (printing/view_model.py, view_inner.py) and the
server-side card (printing/html.py)."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.printing.html import node_details_html
from symnb.printing.view_model import view_model_parts
from symnb.printing.node_facts import PYTHON_OP
from symnb.printing.view_model import view_model
from tests.python_ops import DoubleOp


def _runs_by_op(model):
    return {node["op"]: node["runs"] for node in model["nodes"] if node["kind"] == "op"}


def test_the_model_marks_the_python_op_of_a_graph_and_of_a_compiled_function():
    x = T.dvector("x", test_value=np.ones(2))
    y = T.exp(DoubleOp()(x))
    assert _runs_by_op(view_model(y)) == {"double_op": PYTHON_OP, "exp": None}
    f = sn.function([x], y)
    runs = _runs_by_op(view_model(f))
    assert runs["double_op"] == PYTHON_OP and all(v is None for k, v in runs.items() if k != "double_op")


def test_a_python_op_inside_a_loop_body_is_marked():
    xs = T.dmatrix("xs", test_value=np.ones((3, 2)))
    rows, _ = sn.scan(lambda row: T.tanh(DoubleOp()(row)), sequences=[xs])
    nodes = _all_nodes(view_model(rows))
    inner = [node for node in nodes if node["op"] == "double_op"]
    assert inner and all(node["runs"] == PYTHON_OP for node in inner)
    assert all(node["runs"] is None for node in nodes if node["op"] != "double_op")


def _all_nodes(model):
    """Every node entry of the model, its inner graphs' too."""
    found, stack = [], [model]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("kind") == "op":
                found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def test_the_card_says_python_host_callback():
    x = T.dvector("x", test_value=np.ones(2))
    y = DoubleOp()(x)
    parts = view_model_parts(y)
    assert PYTHON_OP in node_details_html(parts, parts.ids[id(y.owner)])
    exp = T.exp(x)
    other = view_model_parts(exp)
    assert PYTHON_OP not in node_details_html(other, other.ids[id(exp.owner)])
