"""``sn.grad`` and its controls (the seed's T.grad, consider_constant, block_gradient,
known_grads), jacobian/hessian and verify_grad, against hand-derived gradients and
finite differences."""

import re
import sys
import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply, toposort
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_variable
from symnb.core.graph.type import TensorType
from symnb.gradient import (
    DisconnectedInputError, GradientError, hessian, jacobian, verify_grad,
)
from symnb.lower_xla import lower


def dvec(name, value, **kwargs):
    return T.dvector(name, test_value=np.asarray(value, dtype="float64"), **kwargs)


def both_paths(g, inputs, values):
    """The gradient's test value (NumPy path) and its compiled value (XLA path)."""
    compiled = sn.function(inputs, g, on_unused_input="ignore")(*values)
    return g.test_value, compiled


# -- the grad API --------------------------------------------------------------------------

def test_seed_grad_of_two_x_is_two():
    x = T.scalar("x")
    g = sn.grad(2. * x, x)
    assert g.dtype == x.dtype
    assert g.test_value == 2.0
    assert sn.function([x], g)(np.float32(5.0)) == 2.0


def test_wrt_one_variable_a_list_or_a_tuple(rng):
    av, bv = rng.normal(size=4), 1.7
    a, b = dvec("a", av), T.dscalar("b", test_value=bv)
    c = (a ** 2).sum() * b
    ga = sn.grad(c, a)
    assert isinstance(ga, sn.Variable)
    as_list, as_tuple = sn.grad(c, [a, b]), sn.grad(c, (a, b))
    assert isinstance(as_list, list) and isinstance(as_tuple, tuple)
    np.testing.assert_allclose(ga.test_value, 2 * av * bv, rtol=1e-12)
    for grads in (as_list, as_tuple):
        compiled = sn.function([a, b], list(grads))(av, bv)
        for values in ([g.test_value for g in grads], compiled):
            np.testing.assert_allclose(values[0], 2 * av * bv, rtol=1e-12)
            np.testing.assert_allclose(values[1], np.sum(av ** 2), rtol=1e-12)


@pytest.mark.parametrize("wrt, given", [(3, "int 3"), ("a", "str 'a'"), (None, "NoneType None")])
def test_wrt_that_is_not_a_variable_or_a_list_is_refused_saying_what_was_given(wrt, given):
    a = dvec("a", np.ones(2))
    with pytest.raises(TypeError, match=re.escape(
            f"grad: wrt must be a variable or a list of variables, got {given}")):
        sn.grad((a ** 2).sum(), wrt)


def test_a_list_holding_a_non_variable_is_refused_naming_the_item():
    a = dvec("a", np.ones(2))
    with pytest.raises(TypeError, match=re.escape("wrt must be a variable or a list of "
                                                  "variables; the list holds int 3")):
        sn.grad((a ** 2).sum(), [a, 3])


def test_a_variable_used_twice_accumulates(rng):
    xv = rng.normal(size=(3, 2))
    x = T.dmatrix("x", test_value=xv)
    g = sn.grad((x * x + T.sin(x) * x).sum(), x)
    for value in both_paths(g, [x], [xv]):
        np.testing.assert_allclose(value, 2 * xv + np.cos(xv) * xv + np.sin(xv), rtol=1e-12)


def test_gradient_has_the_variables_dtype():
    x = T.fvector("x", test_value=np.ones(3, "float32"))
    scale = sn.shared(np.array([1.0, 2.0, 3.0]), name="scale")
    cost = (x * scale).sum()
    assert cost.dtype == "float64"
    g = sn.grad(cost, x)
    assert g.dtype == "float32" and g.test_value.dtype == np.float32
    np.testing.assert_array_equal(sn.function([x], g)(np.ones(3, "float32")), [1, 2, 3])


def test_cost_must_be_a_scalar():
    x = dvec("x", [1.0, 2.0])
    squares = x ** 2
    with pytest.raises(TypeError, match="cost must be a scalar") as info:
        sn.grad(squares, x)
    assert "'squares'" in str(info.value) and "squares = x ** 2" in str(info.value)


def test_integer_cost_is_seeded_with_floatx_ones():
    """Theano: an integer cost's gradient is seeded with floatX ones; argmax passes
    zeros. (More in test_gradient_integers.py.)"""
    x = dvec("x", [1.5, 2.5])
    g = sn.grad(T.argmax(x), x)
    assert g.dtype == "float64"
    np.testing.assert_array_equal(g.test_value, [0.0, 0.0])


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_integer_wrt_gets_a_float_gradient(dtype):
    counts = T.vector("counts", dtype=dtype)
    cost = (T.cast(counts, "float64") * np.array([1.0, 2.0, 3.0])).sum()
    g = sn.grad(cost, counts)  # Theano: the continuous extension's gradient
    assert g.dtype == "float64"
    value = sn.function([counts], g)(np.array([1, 0, 1], dtype=dtype))
    np.testing.assert_array_equal(value, [1.0, 2.0, 3.0])


def test_gradient_through_an_integer_cast_is_zero(rng):
    xv = rng.uniform(0.5, 4.0, size=5)
    x = dvec("x", xv)
    truncated = T.cast(x, "int32")
    g = sn.grad((truncated * x).sum(), x)  # only the direct path carries a gradient
    for value in both_paths(g, [x], [xv]):
        np.testing.assert_array_equal(value, xv.astype("int32").astype("float64"))
    zeros = sn.grad(T.cast(truncated, "float64").sum(), x)  # connected: zeros (Theano)
    for value in both_paths(zeros, [x], [xv]):
        np.testing.assert_array_equal(value, np.zeros(5))


# -- known_grads: backprop in two steps ------------------------------------------------------

def _two_stage(rng):
    """z(x) = f(g(x)): g(x) = tanh(W x), f(h) = sum(log(1 + h**2)) * sum(x)."""
    wv, xv = rng.normal(size=(4, 3)), rng.normal(size=3)
    x = dvec("x", xv)
    h = T.tanh(T.dot(T.constant(wv), x))
    cost = T.log(1 + h ** 2).sum()
    return wv, xv, x, h, cost


def test_known_grads_splits_backprop_into_two_steps(rng):
    wv, xv, x, h, cost = _two_stage(rng)
    dcost_dh = sn.grad(cost, h)                    # step 1: backprop through f
    split = sn.grad(None, x, known_grads={h: dcost_dh})  # step 2: through g
    direct = sn.grad(cost, x)
    hv = np.tanh(wv @ xv)
    expected = wv.T @ ((2 * hv / (1 + hv ** 2)) * (1 - hv ** 2))
    for value in both_paths(split, [x], [xv]):
        np.testing.assert_allclose(value, expected, rtol=1e-12)
    np.testing.assert_allclose(split.test_value, direct.test_value, rtol=1e-12)


def test_known_grads_from_outside_the_graph(rng):
    """The seed's "f is not a symnb function": d cost / d h arrives as an input."""
    wv, xv, x, h, _ = _two_stage(rng)
    upstream = dvec("upstream", rng.normal(size=4))
    gx = sn.grad(None, x, known_grads={h: upstream})
    f = sn.function([x, upstream], gx)
    uv = rng.normal(size=4)
    hv = np.tanh(wv @ xv)
    np.testing.assert_allclose(f(xv, uv), wv.T @ (uv * (1 - hv ** 2)), rtol=1e-12)


def test_known_grads_add_to_the_costs_gradient(rng):
    wv, xv, x, h, cost = _two_stage(rng)
    extra = rng.normal(size=4)
    g = sn.grad(cost, x, known_grads={h: T.constant(extra)})
    hv = np.tanh(wv @ xv)
    expected = wv.T @ ((2 * hv / (1 + hv ** 2) + extra) * (1 - hv ** 2))
    for value in both_paths(g, [x], [xv]):
        np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_known_grads_on_the_cost_itself_scales_it(rng):
    xv = rng.normal(size=3)
    x = dvec("x", xv)
    cost = (x ** 2).sum()
    g = sn.grad(None, x, known_grads={cost: T.constant(3.0)})
    np.testing.assert_allclose(g.test_value, 6 * xv, rtol=1e-12)


def test_known_grads_errors():
    x = dvec("x", [1.0, 2.0, 3.0])
    h = T.tanh(x)
    with pytest.raises(ValueError, match="give a cost"):
        sn.grad(None, x)
    with pytest.raises(TypeError, match=r"known_grads\['h'\].*float64 \(\?, \?\)"):
        sn.grad(None, x, known_grads={h: T.dmatrix("m", test_value=np.ones((3, 1)))})
    with pytest.raises(TypeError, match="keys must be symbolic"):
        sn.grad(None, x, known_grads={"h": x})
    fixed = T.dvector("fixed", shape=(3,), test_value=np.ones(3))
    with pytest.raises(TypeError, match=r"known_grads\['hf'\] has type float64 \(2,\)"):
        hf = T.tanh(fixed)
        sn.grad(None, fixed, known_grads={hf: T.constant(np.ones(2))})
    with pytest.raises(ValueError, match=r"shape \(2,\) \(test value\), the variable \(3,\)"):
        sn.grad(None, x, known_grads={h: dvec("short", [1.0, 1.0])})


# -- consider_constant, disconnected_grad, stop_gradient ------------------------------------------

def test_consider_constant_blocks_the_path_through_a_variable(rng):
    xv = rng.uniform(0.5, 1.5, size=4)
    x = dvec("x", xv)
    squared = x ** 2
    cost = (squared * x).sum()               # x**3: full gradient 3 x**2
    for value in both_paths(sn.grad(cost, x), [x], [xv]):
        np.testing.assert_allclose(value, 3 * xv ** 2, rtol=1e-12)
    held = sn.grad(cost, x, consider_constant=[squared])   # squared held fixed: x**2
    for value in both_paths(held, [x], [xv]):
        np.testing.assert_allclose(value, xv ** 2, rtol=1e-12)


def test_consider_constant_with_a_list(rng):
    xv = rng.normal(size=5)
    x = dvec("x", xv)
    y, z = T.exp(x), T.sin(x)
    cost = (y * z + x).sum()
    np.testing.assert_allclose(sn.grad(cost, x, consider_constant=[y]).test_value,
                               np.exp(xv) * np.cos(xv) + 1, rtol=1e-12)
    np.testing.assert_allclose(sn.grad(cost, x, consider_constant=[y, z]).test_value, np.ones(5))
    with pytest.raises(DisconnectedInputError):
        sn.grad((y * z).sum(), x, consider_constant=[y, z])


@pytest.mark.parametrize("block", [sn.gradient.disconnected_grad, T.stop_gradient],
                         ids=["disconnected_grad", "stop_gradient"])
def test_blocked_expression_is_identity_for_values_and_constant_for_gradients(block, rng):
    xv = rng.uniform(0.5, 1.5, size=(2, 3))
    x = T.dmatrix("x", test_value=xv)
    squared = x ** 2
    blocked = block(squared)
    for value in both_paths(blocked, [x], [xv]):
        np.testing.assert_array_equal(value, xv ** 2)
    cost = (blocked * x).sum()
    g = sn.grad(cost, x)
    for value in both_paths(g, [x], [xv]):
        np.testing.assert_allclose(value, xv ** 2, rtol=1e-12)
    # the same as holding the expression constant in the call
    np.testing.assert_allclose(sn.grad((squared * x).sum(), x, consider_constant=[squared]).test_value,
                               g.test_value, rtol=1e-12)
    with pytest.raises(DisconnectedInputError):
        sn.grad(blocked.sum(), x)


# -- disconnected inputs ------------------------------------------------------------------------

def _disconnected():
    x = dvec("x", [1.0, 2.0])
    unused = T.dmatrix("unused", test_value=np.ones((2, 3)))
    return x, unused, (x ** 2).sum()


def test_disconnected_input_raises_by_default_naming_it_and_its_line():
    x, unused, cost = _disconnected()
    with pytest.raises(DisconnectedInputError) as info:
        sn.grad(cost, [x, unused])
    message = str(info.value)
    assert "'unused'" in message and "float64 (?, ?)" in message
    assert 'unused = T.dmatrix("unused", test_value=np.ones((2, 3)))' in message
    assert "test_gradient.py" in message


def test_disconnected_input_warn_points_at_the_users_line():
    x, unused, cost = _disconnected()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        gx, gu = sn.grad(cost, [x, unused], disconnected_inputs="warn")
    assert len(caught) == 1 and "'unused'" in str(caught[0].message)
    assert caught[0].filename == __file__ and caught[0].lineno == line
    np.testing.assert_array_equal(gu.test_value, np.zeros((2, 3)))
    np.testing.assert_array_equal(gx.test_value, [2.0, 4.0])


def test_disconnected_input_ignore_gives_zeros_or_none():
    x, unused, cost = _disconnected()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gu = sn.grad(cost, unused, disconnected_inputs="ignore")
        assert sn.grad(cost, unused, disconnected_inputs="ignore", return_disconnected="none") is None
    assert gu.dtype == "float64"
    compiled = sn.function([unused], gu)(np.ones((4, 5)))
    np.testing.assert_array_equal(compiled, np.zeros((4, 5)))


def test_policy_names_are_checked():
    x, unused, cost = _disconnected()
    with pytest.raises(ValueError, match="disconnected_inputs"):
        sn.grad(cost, x, disconnected_inputs="silent")
    with pytest.raises(ValueError, match="return_disconnected"):
        sn.grad(cost, x, return_disconnected="disconnected")


# -- jacobian and hessian ----------------------------------------------------------------------

def _numeric_jacobian(fn, point, eps=1e-6):
    rows = []
    for i in range(point.size):
        step = np.zeros_like(point)
        step.flat[i] = eps
        rows.append((fn(point + step) - fn(point - step)) / (2 * eps))
    return np.stack(rows, axis=-1).reshape(fn(point).shape + point.shape)


def test_jacobian_rows_against_finite_differences(rng):
    av, xv = rng.normal(size=(3, 4)), rng.normal(size=4)
    x = T.dvector("x", shape=(4,), test_value=xv)
    expression = T.tanh(T.dot(T.constant(av), x)) * x.sum()
    jac = jacobian(expression, x)
    assert jac.type.shape[0] == 3
    expected = _numeric_jacobian(lambda v: np.tanh(av @ v) * v.sum(), xv)
    for value in both_paths(jac, [x], [xv]):
        assert value.shape == (3, 4)
        np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-8)


def test_jacobian_with_respect_to_several_variables(rng):
    xv, mv = rng.normal(size=3), rng.normal(size=(2, 3))
    x = T.dvector("x", shape=(3,), test_value=xv)
    m = T.dmatrix("m", shape=(2, 3), test_value=mv)
    # the last row does not depend on m (a zero block), the first two do not depend on x alone
    expression = T.concatenate([T.dot(m, x), (x ** 2).sum(keepdims=True)])
    jx, jm = jacobian(expression, [x, m])
    expected_x = np.vstack([mv, 2 * xv])
    expected_m = np.zeros((3, 2, 3))
    expected_m[0, 0], expected_m[1, 1] = xv, xv
    for value in both_paths(jx, [x, m], [xv, mv]):
        np.testing.assert_allclose(value, expected_x, rtol=1e-12)
    for value in both_paths(jm, [x, m], [xv, mv]):
        np.testing.assert_allclose(value, expected_m, rtol=1e-12)


def test_jacobian_of_a_scalar_is_its_gradient_and_unknown_lengths_go_through_scan():
    x = dvec("x", [1.0, 2.0])
    np.testing.assert_allclose(jacobian((x ** 2).sum(), x).test_value, [2.0, 4.0])
    jx = jacobian(x ** 2, x)  # length unknown statically: a scan over the elements (Theano)
    np.testing.assert_allclose(jx.test_value, np.diag([2.0, 4.0]))
    np.testing.assert_allclose(sn.function([x], jx)([1.0, 2.0, -3.0]), np.diag([2.0, 4.0, -6.0]))
    other = T.dvector("other", shape=(2,), test_value=np.ones(2))
    with pytest.raises(DisconnectedInputError, match="'other'"):
        jacobian(T.dvector("y", shape=(3,), test_value=np.ones(3)) * 2, other)


def test_hessian_of_a_quadratic_is_its_symmetric_part(rng):
    av, bv, xv = rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=4)
    x = T.dvector("x", shape=(4,), test_value=xv)
    cost = 0.5 * T.dot(x, T.dot(T.constant(av), x)) + T.dot(T.constant(bv), x)
    h = hessian(cost, x)
    for value in both_paths(h, [x], [xv]):
        np.testing.assert_allclose(value, (av + av.T) / 2, rtol=1e-12, atol=1e-14)


def test_hessian_against_finite_differences(rng):
    xv, yv = rng.uniform(0.2, 1, size=3), rng.uniform(-1, 1, size=2)
    x = T.dvector("x", shape=(3,), test_value=xv)
    y = T.dvector("y", shape=(2,), test_value=yv)
    cost = (x ** 3).sum() * T.cos(x).sum() + T.exp(y).prod() * x.sum()

    def gradient(xs, ys):  # hand-derived first derivatives, differentiated numerically
        dx = 3 * xs ** 2 * np.cos(xs).sum() - np.sin(xs) * (xs ** 3).sum() + np.exp(ys).prod()
        dy = np.exp(ys).prod() * xs.sum() * np.ones_like(ys)
        return dx, dy

    hx, hy = hessian(cost, [x, y])
    expected_x = _numeric_jacobian(lambda v: gradient(v, yv)[0], xv)
    expected_y = _numeric_jacobian(lambda v: gradient(xv, v)[1], yv)
    for value in both_paths(hx, [x, y], [xv, yv]):
        np.testing.assert_allclose(value, expected_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hy.test_value, expected_y, rtol=1e-6, atol=1e-8)


def test_hessian_of_a_linear_cost_is_zero_and_disconnected_inputs_raise():
    x = T.dvector("x", shape=(3,), test_value=np.ones(3))
    unused = T.dvector("unused", shape=(2,), test_value=np.ones(2))
    h = hessian(T.dot(T.constant(np.array([1.0, 2.0, 3.0])), x), x)
    for value in both_paths(h, [x], [np.arange(3.0)]):
        np.testing.assert_array_equal(value, np.zeros((3, 3)))
    with pytest.raises(DisconnectedInputError, match="'unused'"):
        hessian((x ** 2).sum(), [x, unused])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hx, hu = hessian((x ** 2).sum(), [x, unused], disconnected_inputs="ignore")
    np.testing.assert_array_equal(hx.test_value, 2 * np.eye(3))
    np.testing.assert_array_equal(hu.test_value, np.zeros((2, 2)))


def test_hessian_needs_vectors_of_static_length():
    m = T.dmatrix("m", test_value=np.ones((2, 2)))
    with pytest.raises(TypeError, match="hessian: 'm' has type float64"):
        hessian((m ** 2).sum(), m)


# -- gradient graphs are graphs like any other ------------------------------------------------------

def test_gradient_test_value_is_available_at_once():
    x = T.matrix("x", test_value=np.full((2, 3), 0.5, "float32"))
    g = sn.grad(T.tanh(x).sum(), x)
    assert g.has_test_value  # computed as the graph was built, before anything asks
    np.testing.assert_allclose(g.test_value, np.full((2, 3), 1 - np.tanh(0.5) ** 2), rtol=1e-6)


def test_gradient_nodes_are_created_at_the_users_grad_line():
    x = dvec("x", [0.5, 1.5])
    cost = (T.exp(x) * T.sin(x)).sum()
    forward = {id(node) for node in toposort([cost])}
    g = sn.grad(cost, x)
    assert g.owner.site.line == "g = sn.grad(cost, x)"
    backward = [node for node in toposort([g]) if id(node) not in forward]
    assert len(backward) >= 4
    for node in backward:
        assert node.site.frame.filename == __file__ and node.site.line == "g = sn.grad(cost, x)"


@pytest.mark.slow
def test_a_deep_chain_differentiates_without_recursion(rng):
    n = 10_000
    assert sys.getrecursionlimit() < n
    xv = rng.uniform(0.1, 0.5, size=3)
    x = dvec("x", xv)
    y, values = x, [xv]
    for _ in range(n):
        y = T.sin(y)
        values.append(np.sin(values[-1]))
    g = sn.grad(y.sum(), x)
    np.testing.assert_allclose(g.test_value, np.prod(np.cos(values[:-1]), axis=0), rtol=1e-9)


@pytest.mark.slow
def test_a_deep_chain_gradient_compiles(rng):
    # XLA's CPU compiler takes minutes on long chains of transcendental functions (so does
    # jax.grad of the same chain), hence an affine chain here, with x used at every step.
    n = 5_000
    xv = rng.uniform(0.1, 0.5, size=3)
    x = dvec("x", xv)
    y = x
    # NumPy float64 scalars: Python floats would be float32 constants (Theano's rule under
    # floatX=float32), and 0.999 rounded to float32, 5,000 times over, is another number.
    a, b = np.float64(0.999), np.float64(0.001)
    for _ in range(n):
        y = y * a + x * b     # 2 nodes a step: 10,000 in all
    g = sn.grad(y.sum(), x)
    expected = 0.999 ** n + 0.001 * sum(0.999 ** k for k in range(n))
    for value in both_paths(g, [x], [xv]):
        np.testing.assert_allclose(value, np.full(3, expected), rtol=1e-10)


# -- verify_grad on a user's own op ---------------------------------------------------------------

class Square(Op):
    """x**2, with a gradient rule that is right or (``wrong=True``) off by a factor 1 + x."""

    __props__ = ("wrong",)

    def __init__(self, wrong: bool) -> None:
        self.wrong = wrong

    def make_node(self, x):
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType(x.dtype, x.type.shape)])

    def perform(self, node, inputs):
        return [np.asarray(inputs[0] ** 2, dtype=node.outputs[0].dtype)]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        right = g * 2 * x
        return [right * (1 + x) if self.wrong else right]


@lower.register(Square)
def _lower_square(op, node):
    return lambda x: x * x


def test_verify_grad_accepts_a_right_rule(rng):
    verify_grad(Square(wrong=False), [rng.normal(size=(2, 3))], rng=rng)


def test_verify_grad_reports_the_largest_errors_and_where(rng):
    # The relative error |x| / (|1 + x| + 1) and the absolute one 2 r x**2 (r: the random
    # projection in [0.5, 1.5]) are both largest where |x| is: at (1, 2).
    point = np.array([[0.1, -0.2, 0.15], [0.3, -0.1, 3.0]])
    with pytest.raises(GradientError) as info:
        verify_grad(Square(wrong=True), [point], rng=rng)
    message = str(info.value)
    assert "input #0 (NumPy reference path)" in message
    assert "at 6 of 6 positions" in message
    found = re.search(r"largest absolute error (\S+) at index \(1, 2\): analytic (\S+), numeric (\S+)",
                      message)
    assert found, message
    abs_err, analytic, numeric = map(float, found.groups())
    np.testing.assert_allclose(analytic, 4 * numeric, rtol=1e-5)  # factor 1 + x = 4
    np.testing.assert_allclose(abs_err, analytic - numeric, rtol=1e-2)  # printed to 3 digits
    found = re.search(r"largest relative error (\S+) at index \(1, 2\)", message)
    assert found, message
    np.testing.assert_allclose(float(found.group(1)), 3 / 5, rtol=1e-5)
