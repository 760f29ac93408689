"""``OpFromGraph`` (symnb.compile.builders, Theano's theano.compile.builders): a graph used
as one op. Values (test value by the inner graph's NumPy perform, and compiled, the
graph inlined) against NumPy; gradients by differentiating the inner graph against the
derivatives written by hand and finite differences; Theano's grad_overrides."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.builders import OpFromGraph
from symnb.gradient import NullTypeGradError, grad_undefined


def _values(rng, n=3):
    return [rng.normal(size=(2, 3)) for _ in range(n)]


def test_two_calls_compute_the_graph_on_their_arguments(rng):
    x, y, z = T.dmatrix("x"), T.dmatrix("y"), T.dmatrix("z")
    op = OpFromGraph([x, y, z], [x + y * z])
    out = op(x, y, z) - op(y, z, x)
    xv, yv, zv = _values(rng)
    expected = (xv + yv * zv) - (yv + zv * xv)
    x.test_value, y.test_value, z.test_value = xv, yv, zv
    np.testing.assert_allclose(out.test_value, expected, rtol=1e-12)  # NumPy perform
    np.testing.assert_allclose(sn.function([x, y, z], out)(xv, yv, zv), expected, rtol=1e-12)
    assert isinstance(out.owner.inputs[0].owner.op, OpFromGraph)
    assert op != OpFromGraph([x, y, z], [x + y * z])  # by identity, as Theano's


def test_gradient_differentiates_the_inner_graph(rng):
    x, y, z = T.dmatrix("x"), T.dmatrix("y"), T.dmatrix("z")
    op = OpFromGraph([x, y, z], [T.tanh(x) * y + z ** 2])
    cost = (op(x, y, z) * op(z, x, y)).sum()
    grads = sn.function([x, y, z], sn.grad(cost, [x, y, z]))
    xv, yv, zv = _values(rng)

    def numeric(fn, point, eps=1e-6):
        out = np.zeros_like(point)
        for i in np.ndindex(point.shape):
            step = np.zeros_like(point)
            step[i] = eps
            out[i] = (fn(point + step) - fn(point - step)) / (2 * eps)
        return out

    def f(a, b, c):
        return np.tanh(a) * b + c ** 2

    def cost_np(a, b, c):
        return (f(a, b, c) * f(c, a, b)).sum()

    got = grads(xv, yv, zv)
    expected = [numeric(lambda v: cost_np(v, yv, zv), xv), numeric(lambda v: cost_np(xv, v, zv), yv),
                numeric(lambda v: cost_np(xv, yv, v), zv)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def test_shared_variables_inside_are_implicit_inputs(rng):
    x = T.dvector("x")
    w = sn.shared(np.array([1.0, 2.0, 3.0]), "w")
    op = OpFromGraph([x], [x * w])
    f = sn.function([x], [op(x), sn.grad(op(x).sum(), x)], updates=[(w, w + 1)])
    xv = rng.normal(size=3)
    out, g = f(xv)
    np.testing.assert_allclose(out, xv * [1, 2, 3])
    np.testing.assert_allclose(g, [1, 2, 3])
    np.testing.assert_allclose(f(xv)[0], xv * [2, 3, 4])  # reads the shared value of each call


def test_grad_overrides(rng):
    x, y = T.dvector("x"), T.dvector("y")
    # one callable for all inputs: Theano's (inputs, output_grads) -> input grads
    op = OpFromGraph([x, y], [x * y], grad_overrides=lambda inps, gs: [gs[0] * 10, gs[0] * 0])
    gx, gy = sn.grad(op(x, y).sum(), [x, y])
    xv, yv = rng.normal(size=4), rng.normal(size=4)
    got = sn.function([x, y], [gx, gy])(xv, yv)
    np.testing.assert_allclose(got[0], np.full(4, 10.0))
    np.testing.assert_allclose(got[1], np.zeros(4))
    # one entry per input: 'default' (the inner graph's: y), a null gradient
    op = OpFromGraph([x, y], [x * y], grad_overrides=["default", grad_undefined(T.mul, 1, y)])
    gx = sn.grad(op(x, y).sum(), x)
    np.testing.assert_allclose(sn.function([x, y], gx)(xv, yv), yv)
    with pytest.raises(NullTypeGradError, match="mathematically undefined"):
        sn.grad(op(x, y).sum(), y)


def test_wrong_inputs_are_refused_naming_them():
    x = T.dmatrix("x")
    op = OpFromGraph([x], [x * 2])
    with pytest.raises(TypeError, match=r"input 0 of OpFromGraph \('v'\) has type"):
        op(T.fvector("v"))
    with pytest.raises(TypeError, match="takes 1 inputs, got 2"):
        op(x, x)
    with pytest.raises(TypeError, match="constant"):
        OpFromGraph([T.constant(1.0)], [x])


def test_overrides_as_theano_1_0_5_calls_them(rng):
    x, y = T.dvector("x"), T.dvector("y")
    # an OpFromGraph as the override, called on (inputs..., output grads...)
    dz = T.dvector("dz")
    grad_op = OpFromGraph([x, y, dz], [dz * y * 2, dz * x * 1.5])
    op = OpFromGraph([x, y], [x * y], grad_overrides=grad_op)
    # lop_overrides: (inputs, outputs, output_grads)
    lop = OpFromGraph([x, y], [x * y], lop_overrides=lambda i, o, g: [g[0] * o[0], g[0] * 0])
    gx, gy = sn.grad(op(x, y).sum(), [x, y])
    lx = sn.grad(lop(x, y).sum(), x)
    xv, yv = rng.normal(size=4), rng.normal(size=4)
    got = sn.function([x, y], [gx, gy, lx])(xv, yv)
    np.testing.assert_allclose(got[0], yv * 2)
    np.testing.assert_allclose(got[1], xv * 1.5)
    np.testing.assert_allclose(got[2], xv * yv)
    # Theano's connection pattern, read from the graph or as given
    z = T.dvector("z")
    op1 = OpFromGraph([x, y, z], [x * y, y * z])
    assert op1.connection_pattern(None) == [[True, False], [True, True], [False, True]]
    m, n, p, q = (T.dvector(c) for c in "mnpq")
    o1, o2 = op1(m, n, p)
    op2 = OpFromGraph([m, n, p, q], op1(o1, q, o2))  # through op1's own pattern
    assert op2.connection_pattern(None) == [[True, False], [True, True], [False, True],
                                            [True, True]]
    assert OpFromGraph([x, y], [x * y], connection_pattern=[[True], [False]],
                       on_unused_input="ignore").connection_pattern(None) == [[True], [False]]
    # Theano's list form of rop_overrides (one entry per output) is refused
    with pytest.raises(NotImplementedError, match="rop_overrides"):
        OpFromGraph([x, y], [x * y], rop_overrides=["default"])


def test_rop_overrides_give_rop_and_leave_the_gradient_as_it_is(rng):
    # Theano's test_builders test_rop_override: an override that is not the true
    # Jacobian-vector product (factors 2 and 1.5), so seeing its numbers shows it is used.
    x, y, u, v = (T.dvector(c) for c in "xyuv")

    def ro(inputs, points):
        (a, b), (da, db) = inputs, points
        return [da * b * 2.0 + a * db * 1.5]

    by_function = OpFromGraph([x, y], [x * y], rop_overrides=ro)
    by_op = OpFromGraph([x, y], [x * y], rop_overrides=OpFromGraph([x, y, u, v], ro([x, y], [u, v])))
    xv, yv, uv, vv = rng.normal(size=(4, 5))
    for op in (by_function, by_op):
        out = op(x, y)
        jvp = sn.function([x, y, u, v], T.Rop(out, [x, y], [u, v]))(xv, yv, uv, vv)
        np.testing.assert_allclose(jvp, uv * yv * 2.0 + xv * vv * 1.5)
        # the gradient and Lop are the inner graph's, and so is the second derivative
        gx, gy = sn.grad(out.sum(), [x, y])
        lx, ly = T.Lop(out, [x, y], u)
        hxy = sn.grad((gx * u).sum(), y)                   # d/dy of sum(y * u) = u
        got = sn.function([x, y, u], [gx, gy, lx, ly, hxy])(xv, yv, uv)
        for value, expected in zip(got, [yv, xv, uv * yv, uv * xv, uv]):
            np.testing.assert_allclose(value, expected)


def test_a_function_override_may_set_its_arguments_test_values(rng):
    """Theano called a function override on fresh variables (the gradient is an
    OpFromGraph of its own), so it may set their test values: PyMC3's MvNormalLogp sets
    its output gradient's to 1. The gradient is then that of the real arguments."""
    x, y = T.dvector("x"), T.dvector("y")

    def dlogp(inputs, gradients):
        (g,) = gradients
        g.tag.test_value = np.float64(1.0)  # a computed gradient would refuse another value
        a, b = inputs
        return [g * b * 3.0, g * a]

    op = OpFromGraph([x, y], [(x * y).sum()], grad_overrides=dlogp, inline=True)
    xv, yv = rng.normal(size=4), rng.normal(size=4)
    x.tag.test_value, y.tag.test_value = xv, yv
    cost = op(x, y) * 2.5  # the output gradient is 2.5, computed
    gx, gy = sn.grad(cost, [x, y])
    np.testing.assert_allclose(gx.test_value, 2.5 * yv * 3.0)  # the real gradient's value
    got = sn.function([x, y], [gx, gy])(xv, yv)
    np.testing.assert_allclose(got[0], 2.5 * yv * 3.0)
    np.testing.assert_allclose(got[1], 2.5 * xv)
    np.testing.assert_array_equal(x.tag.test_value, xv)  # the user's variables untouched
