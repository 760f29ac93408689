"""Inner graphs in printing: Scan's loop body and IfElse's branches after the tree
(Theano's ``Inner graphs:`` section), and Scan/IfElse boxes in pydotprint."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.printing import debugprint, pydotprint
from tests.optional_tools import needs_dot
from tests.printing.test_pydotprint import svg_nodes


def cumsum_graph():
    """A cumulative sum: ``acc + x_t`` carried from ``s0``."""
    x = T.vector("x", test_value=np.array([1, 2, 3], "float32"))
    s0 = T.scalar("s0", test_value=np.float32(0))

    def step(x_t, acc):
        return acc + x_t

    sums, _ = sn.scan(step, sequences=[x], outputs_info=[s0])
    return x, s0, sums


CUMSUM_TREE = """\
Scan{step} [id A] ''
 |Shape_i{0} [id B] 'n_steps'
 | |x [id C]
 |x [id C]
 |s0 [id D]

Inner graphs:

Scan{step} [id A] ''
 >Elemwise{add,no_inplace} [id E] ''
 > |s0[t-1] [id F] -> [id D]
 > |x[t] [id G] -> [id C]
"""


def test_scan_inner_graph_follows_the_tree():
    _, _, sums = cumsum_graph()
    assert debugprint(sums, file="str") == CUMSUM_TREE


def test_scan_inner_graph_of_a_compiled_function():
    x, s0, sums = cumsum_graph()
    f = sn.function([x, s0], sums)
    # Execution-order positions on the outer lines only: inner nodes run inside the loop.
    assert debugprint(f, file="str") == """\
Scan{step} [id A] ''   1
 |Shape_i{0} [id B] 'n_steps'   0
 | |x [id C]
 |x [id C]
 |s0 [id D]

Inner graphs:

Scan{step} [id A] ''
 >Elemwise{add,no_inplace} [id E] ''
 > |s0[t-1] [id F] -> [id D]
 > |x[t] [id G] -> [id C]
"""
    np.testing.assert_array_equal(f(np.array([1, 2, 3], "float32"), np.float32(0)), [1, 3, 6])


def test_print_inner_graphs_false_prints_the_tree_only():
    _, _, sums = cumsum_graph()
    assert debugprint(sums, file="str", print_inner_graphs=False) == CUMSUM_TREE.split("\n\n")[0] + "\n"


def test_inner_test_values_are_those_of_the_first_step():
    _, _, sums = cumsum_graph()
    assert debugprint(sums, file="str", print_test_value=True) == """\
Scan{step} [id A] '' -> float32 (3,) [1., 3., 6.]
 |Shape_i{0} [id B] 'n_steps' -> int64 () 3
 | |x [id C] -> float32 (3,) [1., 2., 3.]
 |x [id C] -> float32 (3,) [1., 2., 3.]
 |s0 [id D] -> float32 () 0.0

Inner graphs:

Scan{step} [id A] ''
 >Elemwise{add,no_inplace} [id E] '' -> float32 () 1.0
 > |s0[t-1] [id F] -> [id D] -> float32 () 0.0
 > |x[t] [id G] -> [id C] -> float32 () 1.0
"""


def test_inner_nodes_keep_the_users_creation_sites():
    x, s0, sums = cumsum_graph()
    inner_nodes = sums.owner.op.inner_graphs[0].nodes
    compiled = sn.function([x, s0], sums).maker.fgraph
    (scan_node,) = [n for n in compiled.toposort() if n.op.inner_graphs]
    for node in inner_nodes + scan_node.op.inner_graphs[0].nodes:
        assert node.site.frame.function == "step"
        assert node.site.line == "return acc + x_t"


def ifelse_graph():
    a = T.scalar("a", test_value=np.float32(2))
    b = T.scalar("b", test_value=np.float32(3))
    return sn.ifelse(T.lt(a, b), a * b, T.exp(a))


def test_ifelse_branches_follow_the_tree():
    # The condition needs a and b, so both come in; each branch's own nodes are inside.
    assert debugprint(ifelse_graph(), file="str") == """\
IfElse [id A] ''
 |Elemwise{lt,no_inplace} [id B] ''
 | |a [id C]
 | |b [id D]
 |a [id C]
 |b [id D]

Inner graphs:

IfElse [id A] ''
 >Elemwise{mul,no_inplace} [id E] '' (then)
 > |a [id F] -> [id C]
 > |b [id G] -> [id D]
 >Elemwise{exp,no_inplace} [id H] '' (else)
 > |a [id F] -> [id C]
"""


def test_ifelse_with_several_outputs_numbers_them():
    a = T.scalar("a", test_value=np.float32(2))
    big, small = sn.ifelse(T.gt(a, 0), [a * 2, a], [a, -a])
    text = debugprint([big, small], file="str")
    assert text.split("Inner graphs:\n\n")[1] == """\
IfElse [id A]
 >Elemwise{mul,no_inplace} [id E] '' (then 0)
 > |a [id F] -> [id C]
 > |TensorConstant{2} [id G]
 >a [id F] -> [id C] (then 1)
 >a [id F] -> [id C] (else 0)
 >Elemwise{neg,no_inplace} [id H] '' (else 1)
 > |a [id F] -> [id C]
"""
    assert text.startswith("IfElse.0 [id A] ''\n")


def test_nested_scans_each_get_an_entry_and_unnamed_inputs_their_position():
    X = T.matrix("X", test_value=np.ones((2, 3), "float32"))

    def row_sum(row):
        # A step without named parameters: its unnamed state is shown by position.
        sums, _ = sn.scan(lambda *args: args[1] + args[0], sequences=[row],
                          outputs_info=[T.zeros((), "float32")], name="inner")
        return sums[-1]

    totals, _ = sn.scan(row_sum, sequences=[X], name="outer")
    # The initial zeros do not depend on the row: scan computes them once, outside both loops.
    assert debugprint(totals, file="str") == """\
Scan{outer} [id A] ''
 |Shape_i{0} [id B] 'n_steps'
 | |X [id C]
 |X [id C]
 |Alloc [id D] ''
   |TensorConstant{0.0} [id E]
   |TensorConstant{[]} [id F]

Inner graphs:

Scan{outer} [id A] ''
 >Subtensor{-1} [id G] ''
 > |Scan{inner} [id H] ''
 >   |Shape_i{0} [id I] 'n_steps'
 >   | |X[t] [id J] -> [id C]
 >   |X[t] [id J] -> [id C]
 >   |*1-<TensorType(float32, shape=())> [id K] -> [id D]

Scan{inner} [id H] ''
 >Elemwise{add,no_inplace} [id L] ''
 > |*1-<TensorType(float32, shape=())> [id M] -> [id K]
 > |X[t][t] [id N] -> [id J]
"""


def test_an_unnamed_state_is_named_as_the_steps_parameter():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    sums, _ = sn.scan(lambda v, acc: acc + v, sequences=[x], outputs_info=[T.zeros((), "float32")])
    body = debugprint(sums, file="str").split("Inner graphs:\n\n")[1].splitlines()[1:]
    assert [line.split(" [id")[0] for line in body] == [
        " >Elemwise{add,no_inplace}", " > |acc", " > |x[t]"]


def test_scan_until_marks_its_condition():
    x0 = T.scalar("x0", test_value=np.float32(1))

    def halve(x):
        return x / 2, sn.scan_until(x < 0.1)

    xs, _ = sn.scan(halve, outputs_info=[x0], n_steps=10)
    # A scan_until node has two outputs (the steps, buffered, and how many ran): no name on
    # its header; scan returns the rows run (StepsRun of both).
    assert debugprint(xs, file="str") == """\
StepsRun [id A] ''
 |Scan{halve,until}.0 [id B] ''
 | |TensorConstant{10} [id C]
 | |x0 [id D]
 |Scan{halve,until}.1 [id B] ''

Inner graphs:

Scan{halve,until} [id B]
 >Elemwise{true_div,no_inplace} [id E] ''
 > |x0[t-1] [id F] -> [id D]
 > |TensorConstant{2} [id G]
 >Elemwise{lt,no_inplace} [id H] '' (until)
 > |x0[t-1] [id F] -> [id D]
 > |TensorConstant{0.1} [id I]
"""


# -- pydotprint: Scan and IfElse are drawn as 3-D boxes, without their inner graphs --------

def test_dot_source_draws_scan_and_ifelse_as_boxes_with_inner_counts():
    _, _, sums = cumsum_graph()
    chosen = sn.ifelse(T.gt(sums[-1], 3), sums * 2, sums)
    dot = pydotprint(chosen, format="dot", return_image=True)
    assert ('[label="Scan{step}\\ninner graph: 1 node", shape=box3d, style=filled, '
            'fillcolor=yellow]') in dot
    assert ('[label="IfElse\\nthen: 1 node, else: 0 nodes", shape=box3d, style=filled, '
            'fillcolor=magenta]') in dot
    assert dot.count("shape=box3d") == 2
    assert "Elemwise{add" not in dot  # the loop body is not drawn


@needs_dot
def test_svg_labels_scan_with_its_name_and_inner_count():
    _, _, sums = cumsum_graph()
    nodes = svg_nodes(pydotprint(sums, format="svg", return_image=True))
    assert nodes["Scan{step}"][:2] == (["Scan{step}", "inner graph: 1 node"], "yellow")
    assert nodes["Shape_i{0}"][0] == ["Shape_i{0}"]
