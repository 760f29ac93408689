"""debugprint: Theano's tree text, checked line by line on small graphs."""

import io
import subprocess
import sys

import numpy as np
import pytest

import symnb as sn
import symnb.printing
import symnb.tensor as T
from symnb.printing import debugprint
from symnb.printing._common import char_id
from tests.printing import MinMax


def seed_graph():
    """Seed 001: ``a = 2. * z`` with ``z = x + y`` named 'z', x and y unnamed scalars."""
    x = T.scalar()
    y = T.scalar()
    z = x + y
    z.name = "z"
    return 2. * z


SEED_TREE = """\
Elemwise{mul,no_inplace} [id A] ''
 |TensorConstant{2.0} [id B]
 |Elemwise{add,no_inplace} [id C] 'z'
   |<TensorType(float32, shape=())> [id D]
   |<TensorType(float32, shape=())> [id E]
"""


def test_seed_001_tree():
    assert debugprint(seed_graph(), file="str") == SEED_TREE


def test_prints_to_stdout_and_returns_none(capsys):
    assert debugprint(seed_graph()) is None
    assert capsys.readouterr().out == SEED_TREE


def test_writes_to_a_file_and_returns_it():
    buffer = io.StringIO()
    assert debugprint(seed_graph(), file=buffer) is buffer
    assert buffer.getvalue() == SEED_TREE


def test_bad_file_string():
    with pytest.raises(ValueError, match="'str'"):
        debugprint(seed_graph(), file="stdout")


def test_repeated_node_printed_once():
    x = T.vector("x")
    h = x * 2.
    h.name = "h"
    assert debugprint(h + h, file="str") == """\
Elemwise{add,no_inplace} [id A] ''
 |Elemwise{mul,no_inplace} [id B] 'h'
 | |x [id C]
 | |TensorConstant{2.0} [id D]
 |Elemwise{mul,no_inplace} [id B] 'h'
"""


def test_print_type():
    x = T.matrix("x", shape=(None, 3))
    assert debugprint(x * 2., file="str", print_type=True) == """\
Elemwise{mul,no_inplace} [id A] <TensorType(float32, shape=(?, 3))> ''
 |x [id B] <TensorType(float32, shape=(?, 3))>
 |TensorConstant{2.0} [id C] <TensorType(float32, shape=())>
"""


def test_print_test_value_small_values():
    x = T.vector("x", test_value=np.array([1., 2., 3.], dtype="float32"))
    assert debugprint(x * 2., file="str", print_test_value=True) == """\
Elemwise{mul,no_inplace} [id A] '' -> float32 (3,) [2., 4., 6.]
 |x [id B] -> float32 (3,) [1., 2., 3.]
 |TensorConstant{2.0} [id C] -> float32 () 2.0
"""


def test_print_test_value_large_values_and_nan():
    value = np.arange(12, dtype="float64").reshape(3, 4)
    value[0, 0] = np.nan
    value[1, 1] = np.inf
    x = T.matrix("x", dtype="float64", test_value=value)
    counts = T.matrix("n", dtype="int32", test_value=np.arange(12, dtype="int32").reshape(3, 4))
    text = debugprint([x, counts], file="str", print_test_value=True)
    assert text == ("x [id A] -> float64 (3, 4) min=1 max=11 (1 NaN, 1 Inf)\n"
                    "n [id B] -> int32 (3, 4) min=0 max=11\n")


def test_print_test_value_does_not_compute_pending_values():
    p = T.vector("p")  # no test value: nodes built on it are pending
    y = p * 2.
    assert debugprint(y, file="str", print_test_value=True) == """\
Elemwise{mul,no_inplace} [id A] '' -> no test value
 |p [id B] -> no test value
 |TensorConstant{2.0} [id C] -> float32 () 2.0
"""
    assert y._test_value is None


def test_compiled_function_shows_execution_order_and_shared_by_name():
    w = sn.shared(np.ones(3, "float32"), name="w")
    v = T.vector("v")
    with sn.config.change_flags(optimizer=None):
        f = sn.function([v], v * w + 1)
    assert debugprint(f, file="str") == """\
Elemwise{add,no_inplace} [id A] ''   1
 |Elemwise{mul,no_inplace} [id B] ''   0
 | |v [id C]
 | |w [id D]
 |TensorConstant{1} [id E]
"""


def test_compiled_function_shows_updates():
    w = sn.shared(np.ones(3, "float32"), name="w")
    v = T.vector("v")
    with sn.config.change_flags(optimizer=None):
        f = sn.function([v], v * w, updates=[(w, w - v)])
    text = debugprint(f, file="str")
    lines = text.splitlines()
    assert lines[0].startswith("Elemwise{mul,no_inplace} [id A] ''   ")
    assert lines[1:3] == [" |v [id B]", " |w [id C]"]
    assert lines[3].startswith("Elemwise{sub,no_inplace} [id D] ''   ")
    assert lines[4:] == [" |w [id C]", " |v [id B]"]
    # The two indices are the two positions of the execution order.
    assert sorted(int(line.split()[-1]) for line in (lines[0], lines[3])) == [0, 1]


def test_function_graph_and_maker_fgraph():
    from types import SimpleNamespace

    from symnb.core.graph.fgraph import FunctionGraph

    x = T.vector("x")
    graph = FunctionGraph([x], [T.exp(x) * 2.])
    expected = """\
Elemwise{mul,no_inplace} [id A] ''   1
 |Elemwise{exp,no_inplace} [id B] ''   0
 | |x [id C]
 |TensorConstant{2.0} [id D]
"""
    assert debugprint(graph, file="str") == expected
    assert debugprint(SimpleNamespace(maker=SimpleNamespace(fgraph=graph)), file="str") == expected


def test_unnamed_shared_variable_shows_its_type():
    s = sn.shared(np.zeros(2, "float32"))
    assert debugprint(s + 1, file="str") == """\
Elemwise{add,no_inplace} [id A] ''
 |<TensorType(float32, shape=(?,))> [id B]
 |TensorConstant{1} [id C]
"""


def test_multi_output_node_suffixes():
    x = T.vector("x")
    low, high = MinMax()(x)
    assert debugprint(high - low, file="str") == """\
Elemwise{sub,no_inplace} [id A] ''
 |MinMax.1 [id B] ''
 | |x [id C]
 |MinMax.0 [id B] ''
"""


def test_apply_node_prints_every_output():
    x = T.vector("x")
    low, _ = MinMax()(x)
    assert debugprint(low.owner, file="str") == """\
MinMax.0 [id A] ''
 |x [id B]
MinMax.1 [id A] ''
"""


def test_ids_int_and_none():
    a = seed_graph()
    assert debugprint(a, file="str", ids="int").splitlines()[:2] == [
        "Elemwise{mul,no_inplace} [id 0] ''", " |TensorConstant{2.0} [id 1]"]
    assert debugprint(a, file="str", ids="") == """\
Elemwise{mul,no_inplace} ''
 |TensorConstant{2.0}
 |Elemwise{add,no_inplace} 'z'
   |<TensorType(float32, shape=())>
   |<TensorType(float32, shape=())>
"""


def test_ids_python_id():
    a = seed_graph()
    first = debugprint(a, file="str", ids="id").splitlines()[0]
    assert first == f"Elemwise{{mul,no_inplace}} [id {id(a.owner)}] ''"


def test_bad_ids():
    with pytest.raises(ValueError, match="ids must be one of"):
        debugprint(seed_graph(), file="str", ids="letters")


def test_depth_limits_levels():
    a = seed_graph()
    assert debugprint(a, file="str", depth=1) == "Elemwise{mul,no_inplace} [id A] ''\n"
    assert debugprint(a, file="str", depth=2) == SEED_TREE.rsplit("\n", 3)[0] + "\n"


def test_stop_on_name():
    assert debugprint(seed_graph(), file="str", stop_on_name=True) == """\
Elemwise{mul,no_inplace} [id A] ''
 |TensorConstant{2.0} [id B]
 |Elemwise{add,no_inplace} [id C] 'z'
"""


def test_done_dict_carries_ids_between_calls():
    x = T.vector("x")
    y = x * 2.
    done = {}
    first = debugprint(y, file="str", done=done)
    second = debugprint(y + x, file="str", done=done)
    assert first == "Elemwise{mul,no_inplace} [id A] ''\n |x [id B]\n |TensorConstant{2.0} [id C]\n"
    assert second == """\
Elemwise{add,no_inplace} [id D] ''
 |Elemwise{mul,no_inplace} [id A] ''
 |x [id B]
"""


def test_list_of_variables_shares_ids():
    x = T.vector("x")
    y = x + 1.
    assert debugprint([y, x], file="str") == """\
Elemwise{add,no_inplace} [id A] ''
 |x [id B]
 |TensorConstant{1.0} [id C]
x [id B]
"""


def test_rejects_other_objects():
    with pytest.raises(TypeError, match="cannot print an object of type int"):
        debugprint(3, file="str")
    with pytest.raises(TypeError, match="item 1 of the list"):
        debugprint([T.vector("x"), "y"], file="str")


def test_deep_graph_needs_no_recursion():
    y = T.scalar("x")
    for _ in range(3000):
        y = y + 1.
    lines = debugprint(y, file="str").splitlines()
    assert len(lines) == 1 + 3000 * 2
    assert sum(line.startswith(" |" * 3000 + "x [id ") for line in lines) == 1


def test_char_ids_after_z():
    numbers = (0, 1, 25, 26, 27, 52, 676)
    assert [char_id(n) for n in numbers] == ["A", "B", "Z", "BA", "BB", "CA", "BAA"]


def test_printing_does_not_import_jax():
    code = ("import sys, symnb.printing as P, symnb.tensor as T\n"
            "x = T.vector('x'); P.debugprint(x * 2., file='str'); P.pprint(x + 1.)\n"
            "P.min_informative_str(x - 1.); P.pydotprint(x * 3., format='dot', return_image=True)\n"
            "assert 'jax' not in sys.modules, 'symnb.printing imported jax'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_package_exports():
    assert symnb.printing.debugprint is debugprint
    assert {"debugprint", "pprint", "pp", "min_informative_str", "pydotprint", "Print"} <= set(
        symnb.printing.__all__)
    assert symnb.printing.Print is T.Print
