"""ifelse: values on both paths, laziness (only the taken branch runs, in NumPy and in
XLA), what goes inside the branches, errors and gradients."""

import jax
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply
from symnb.core.ifelse import IfElse, ifelse
from symnb.core.graph.op import Op
from symnb.gradient import verify_grad
from symnb.lower_xla.registry import lower
from tests.reference import assert_same, check_paths, symbolic_like

CALLS: list[str] = []


class Record(Op):
    """Test-only op: the identity, recording ``tag`` each time it runs (perform or XLA)."""

    __props__ = ("tag",)
    has_effects = True  # must run inside the compiled program

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        CALLS.append(self.tag)
        return [inputs[0].copy()]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]


@lower.register(Record)
def _record(op, node):
    def run(x):
        jax.debug.callback(lambda: CALLS.append(op.tag))
        return x

    return run


@pytest.mark.parametrize("taken", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_values_on_both_paths(taken, dtype, rng):
    x = (rng.normal(size=(3, 2)) * 5).astype(dtype)
    y = (rng.normal(size=(3, 2)) * 5).astype(dtype)
    check_paths(lambda c, x, y: ifelse(c, x * 2, y - x), [np.array(taken), x, y],
                lambda c, x, y: x * 2 if c else y - x)


@pytest.mark.parametrize("condition", [np.int32(0), np.int64(7), np.uint8(1)])
def test_integer_condition_means_nonzero(condition, rng):
    x = rng.normal(size=4)
    check_paths(lambda c, x: ifelse(c, T.exp(x), x), [condition, x],
                lambda c, x: np.exp(x) if c != 0 else x)


def test_tuple_of_outputs_and_python_scalars(rng):
    x, y = rng.normal(size=3).astype("float32"), rng.normal(size=()).astype("float32")
    for taken in (True, False):
        xs, ys = symbolic_like(x, "x"), symbolic_like(y, "y")
        c = symbolic_like(np.array(taken), "c")
        a, b = ifelse(c, (xs + 1, ys), [xs * 0, 2.0])
        assert a.dtype == "float32" and b.dtype == "float32"
        expected = (x + 1, y) if taken else (x * 0, np.float32(2.0))
        assert_same(a.test_value, expected[0], "perform")
        assert_same(b.test_value, expected[1], "perform")
        values = sn.function([c, xs, ys], [a, b])(np.array(taken), x, y)
        assert_same(values[0], expected[0], "XLA")
        assert_same(values[1], expected[1], "XLA")


def test_only_the_taken_branch_runs_in_numpy_and_in_xla(rng):
    x = symbolic_like(rng.normal(size=3), "x")
    c = symbolic_like(np.array(True), "c")
    then_value = Record("then")(x * 2)
    else_value = Record("else")(x - 1)
    CALLS.clear()
    z = ifelse(c, then_value, else_value)
    assert CALLS == ["then"]  # the IfElse test value ran the then branch only
    f = sn.function([c, x], z)
    value = np.arange(3.0)
    for taken, expected in ((True, value * 2), (False, value - 1)):
        CALLS.clear()
        assert_same(f(np.array(taken), value), expected, "XLA")
        jax.effects_barrier()
        assert CALLS == (["then"] if taken else ["else"])


def test_switch_by_contrast_computes_both_branches(rng):
    x = symbolic_like(rng.normal(size=3), "x")
    c = symbolic_like(np.array(True), "c")
    z = T.switch(c, Record("then")(x * 2), Record("else")(x - 1))
    f = sn.function([c, x], z)
    CALLS.clear()
    f(np.array(True), np.arange(3.0))
    jax.effects_barrier()
    assert sorted(CALLS) == ["else", "then"]


def test_branch_work_moves_inside_and_condition_work_stays_outside(rng):
    x = symbolic_like(rng.normal(size=4), "x")
    total = x.sum()
    z = ifelse(total > 0, T.exp(x) * total, T.log(T.abs(x)))
    node = z.owner
    assert isinstance(node.op, IfElse)
    assert any(inp is total for inp in node.inputs)  # shared with the condition: an input
    then_ops = {type(n.op).__name__ for n in node.op.then_graph.nodes}
    else_ops = {type(n.op).__name__ for n in node.op.else_graph.nodes}
    assert "Exp" in then_ops and "Exp" not in else_ops and "Log" in else_ops
    assert "Sum" not in then_ops
    (exp_node,) = [n for n in node.op.then_graph.nodes if type(n.op).__name__ == "Exp"]
    assert "T.exp(x)" in exp_node.site.line  # inner nodes keep their creation sites


def test_condition_must_be_a_boolean_or_integer_scalar(rng):
    x = symbolic_like(rng.normal(size=3), "x")
    with pytest.raises(TypeError, match="boolean .*scalar.*T.switch"):
        ifelse(x > 0, x, -x)
    with pytest.raises(TypeError, match="float32"):
        ifelse(T.scalar("f"), x, -x)


def test_branches_must_agree_on_dtype_ndim_and_static_shape(rng):
    x = symbolic_like(rng.normal(size=3), "x")
    c = symbolic_like(np.array(True), "c")
    with pytest.raises(TypeError, match="same dtype"):
        ifelse(c, x, T.cast(x, "float32"))
    with pytest.raises(TypeError, match="same dtype and number of dimensions"):
        ifelse(c, x, x.sum())
    with pytest.raises(TypeError, match="2 output"):
        ifelse(c, [x, x], [x])
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        ifelse(c, T.vector("a", shape=(2,)), T.vector("b", shape=(3,)))


def test_branches_of_different_shapes_specialize_on_the_condition(rng):
    x = symbolic_like(rng.normal(size=4), "x")
    c = symbolic_like(np.array(True), "c")
    z = ifelse(c, x[:2], x[1:])
    assert z.test_value.shape == (2,)  # the NumPy reference runs one branch only
    f = sn.function([c, x], z)  # one program per value of c, running the taken branch
    values = np.arange(4.0)
    assert_same(f(np.array(True), values), values[:2], "then")
    assert_same(f(np.array(False), values), values[1:], "else")
    flag = sn.shared(np.array(True), name="flag")  # specialized on its value at each call
    g = sn.function([x], ifelse(flag, x[:2], x[1:]))
    assert_same(g(values), values[:2], "then")
    flag.set_value(np.array(False))
    assert_same(g(values), values[1:], "else")


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gradient_of_the_taken_branch(sign, rng):
    x = np.abs(rng.normal(size=(3,))) * sign + 0.1 * sign
    y = rng.normal(size=(3,))
    verify_grad(lambda x, y: ifelse(x.sum() > 0, T.tanh(x) * y, y ** 3 + x * x), [x, y], rng=rng)


def test_gradient_of_several_outputs_and_an_unused_input(rng):
    x, y = rng.normal(size=(2, 3)), rng.normal(size=3)

    def fn(x, y):
        a, b = ifelse(y.sum() > 100, [x * 2, y], [T.exp(x), x.sum(axis=0)])
        return a.sum(axis=0) + b * y

    verify_grad(fn, [x, y], rng=rng)


def test_a_list_of_one_output_gives_a_list(rng):
    x = symbolic_like(rng.normal(size=3), "x")
    c = symbolic_like(np.array(False), "c")
    result = ifelse(c, [x * 2], [x + 1])
    assert isinstance(result, list) and len(result) == 1
    assert_same(result[0].test_value, x.test_value + 1, "perform")


def test_ifelse_laziness_with_a_print_in_each_branch(capsys):
    from symnb.printing import Print

    with sn.config.change_flags(compute_test_value="off"):
        cond = T.scalar("cond", dtype="bool")
        x = T.vector("x")
        chosen = sn.ifelse(cond, Print("then")(x * 2), Print("else")(x * 3))
        both = T.switch(cond, Print("switch-then")(x * 2), Print("switch-else")(x * 3))
        f = sn.function([cond, x], chosen)
        g = sn.function([cond, x], both)
    value = np.array([1.0, 2.0], "float32")
    np.testing.assert_array_equal(f(True, value), [2, 4])
    assert capsys.readouterr().out == "then __str__ = [2. 4.]\n"
    np.testing.assert_array_equal(f(False, value), [3, 6])
    assert capsys.readouterr().out == "else __str__ = [3. 6.]\n"
    np.testing.assert_array_equal(g(False, value), [3, 6])
    printed = capsys.readouterr().out
    assert "switch-then" in printed and "switch-else" in printed  # switch computes both
    # The ifelse's test value runs only the taken branch (each branch expression also
    # printed its own test value when it was built, before the ifelse existed).
    flag = T.scalar("flag", dtype="bool", test_value=np.bool_(False))
    v = T.vector("v", test_value=value)
    then_branch, else_branch = Print("then")(v + 1), Print("else")(v - 1)
    capsys.readouterr()
    result = sn.ifelse(flag, then_branch, else_branch)
    assert capsys.readouterr().out == "else __str__ = [0. 1.]\n"
    np.testing.assert_array_equal(result.test_value, [0, 1])


def test_theanos_ifelse_op_selects_values_computed_outside():
    # Theano's IfElse(n_outs, as_view, gpu, name)(cond, *then_values, *else_values)
    from symnb.ifelse import IfElse

    c = T.iscalar("c")
    x, y = T.dvector("x"), T.dvector("y")
    op = IfElse(2, as_view=True)
    assert isinstance(op, IfElse) and op.as_view and op.n_outs == 2
    a, b = op(c, x * 2, y, y, x)
    f = sn.function([c, x, y], [a, b])
    vx, vy = np.arange(3.0), np.arange(3.0) + 10
    for taken, expected in ((1, (vx * 2, vy)), (0, (vy, vx))):
        for got, want in zip(f(taken, vx, vy), expected):
            np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="4 values"):
        op(c, x, y)
    with pytest.raises(TypeError, match="same dtype"):
        IfElse(1)(c, x, T.ivector())


def test_theanos_ifelse_op_equals_the_node_ifelse_builds():
    # Theano's IfElse is equal by its number of outputs: a function's pure selection is IfElse(n)
    from symnb.ifelse import IfElse, ifelse

    c = T.iscalar("c")
    x1, x2, y1, y2 = (T.dvector(n) for n in ("x1", "x2", "y1", "y2"))
    f = sn.function([c, x1, x2, y1, y2], ifelse(c, (x1, x2), (y1, y2)))
    nodes = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, IfElse)]
    assert len(nodes) == 1 and nodes[0].op == IfElse(2) and hash(nodes[0].op) == hash(IfElse(2))
    assert nodes[0].op != IfElse(1)
    # branches that compute are not a selection: not equal to IfElse(n)
    g = sn.function([c, x1, y1], ifelse(c, T.exp(x1), y1))
    assert not any(n.op == IfElse(1) for n in g.maker.fgraph.toposort())
    v = np.linspace(-1, 1, 4)
    np.testing.assert_allclose(g(1, v, v + 1), np.exp(v))
    np.testing.assert_allclose(g(0, v, v + 1), v + 1)
    # two selections of the same operands in another order are different ops
    swapped = IfElse(1)(c, y1, x1)
    assert swapped.owner.op == IfElse(1)
    h = sn.function([c, x1, y1], [IfElse(1)(c, x1, y1), swapped])
    got = h(1, v, v + 1)
    np.testing.assert_array_equal(got[0], v)
    np.testing.assert_array_equal(got[1], v + 1)
