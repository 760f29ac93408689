"""``sn.grad`` on integers and through integer-valued ops, as Theano 1.0.5 defines it
(theano/gradient.py's op contract): the gradient of an integer variable is that of its
continuous extension (checked against finite differences of the float64 function), an
integer-valued output passes zeros to its inputs (which stay connected), an integer cost
is seeded with floatX ones. Also the gradient core's other Theano rules: known gradients
broadcast to their variable, connection patterns, an op without ``perform``, and
``Rop``'s disconnected outputs."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.gradient import DisconnectedInputError, DisconnectedType, NullType, NullTypeGradError


def central_differences(f, x, eps=1e-6):
    """d f / d x (float64, ``f`` a NumPy function of a float64 array) by central differences."""
    x = np.asarray(x, dtype="float64")
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


# -- integer variables: the gradient of the continuous extension ----------------------------

@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_integer_wrt_is_the_continuous_extension(dtype, rng):
    wv = rng.normal(size=4)
    counts = T.vector("counts", dtype=dtype)
    w = T.dvector("w")
    cost = (T.cast(counts, "float64") ** 2 * w).sum() + T.dot(counts, w)
    g = sn.grad(cost, counts)
    assert g.dtype == "float64"  # a float gradient, the cost's dtype
    cv = np.array([3, -2, 0, 5], dtype=dtype)
    value = sn.function([counts, w], g)(cv, wv)
    reference = central_differences(lambda c: np.sum(c ** 2 * wv) + c @ wv, cv)
    np.testing.assert_allclose(value, reference, rtol=1e-7, atol=1e-7)


def test_integer_matrix_in_a_network_matches_the_float_input(rng):
    """Theano's test_grad_int: the gradient with respect to an integer input equals the
    gradient with respect to the same values as float64."""
    W, b = T.fmatrix("W"), T.fvector("b")

    def gradient_function(X):
        cost = T.nnet.sigmoid(T.dot(X, W) + b).sum()
        return sn.function([X, W, b], sn.grad(cost, X))

    Xv = (rng.normal(size=(5, 3)) * 127).astype("int32")
    Wv, bv = rng.normal(size=(3, 4)).astype("float32"), rng.normal(size=4).astype("float32")
    from_int = gradient_function(T.imatrix("X"))(Xv, Wv, bv)
    from_float = gradient_function(T.dmatrix("X"))(Xv.astype("float64"), Wv, bv)
    assert from_int.dtype == np.float64
    np.testing.assert_allclose(from_int, from_float, rtol=1e-12)
    sig = 1 / (1 + np.exp(-(Xv.astype("float64") @ Wv.astype("float64") + bv)))
    np.testing.assert_allclose(from_int, (sig * (1 - sig)) @ Wv.T.astype("float64"), rtol=1e-5,
                               atol=1e-9)  # (float32 W: the saturated entries differ by ~1e-17)


def test_bool_times_int8_has_float_gradients():
    x, y = T.scalar("x", dtype="bool"), T.bscalar("y")
    dx, dy = sn.grad(x * y, [x, y])  # an int8 cost: zeros through the product (Theano)
    assert dx.dtype == dy.dtype == sn.config.floatX
    f = sn.function([x, y], [dx, dy])
    for value in f(True, np.int8(3)):
        assert value == 0


def test_gradient_of_an_integer_with_respect_to_itself_is_one():
    x = T.iscalar("x")
    g = sn.grad(x, x)  # Theano's test_dxdx: 1, not 0
    assert g.dtype == sn.config.floatX
    assert g.eval({x: 12}) == 1.0


def test_known_gradient_of_an_integer_variable():
    x, g_given = T.iscalar("x"), T.scalar("g")
    g = sn.grad(cost=None, known_grads={x: g_given}, wrt=x)
    assert sn.function([g_given], g)(np.float32(0.6)) == np.float32(0.6)


def test_known_gradient_must_be_a_float():
    x = T.iscalar("x")
    with pytest.raises(TypeError, match="float"):
        sn.grad(cost=None, known_grads={x: T.iscalar("g")}, wrt=x)


# -- integer-valued outputs: zeros, connected -----------------------------------------------

def test_integer_cast_passes_zeros_not_disconnected(rng):
    xv = rng.uniform(0.5, 4.0, size=5)
    x = T.dvector("x")
    truncated = T.cast(x, "int32")
    g = sn.grad((truncated * x).sum(), x)  # the direct path; the cast's path is zeros
    np.testing.assert_array_equal(sn.function([x], g)(xv), xv.astype("int32").astype("float64"))
    only_cast = sn.grad(T.cast(truncated, "float64").sum(), x)  # Theano: zeros, no error
    assert only_cast.dtype == "float64"
    np.testing.assert_array_equal(sn.function([x], only_cast)(xv), np.zeros(5))


@pytest.mark.parametrize("build", [
    lambda x: T.argmax(x),
    lambda x: (x > 0).sum(),
    lambda x: T.eq(x, 1).sum() + T.isnan(x).sum(),
    lambda x: T.cast(T.floor(x), "int64").sum(),
], ids=["argmax", "comparison", "eq_isnan", "floor_int"])
def test_integer_cost_gives_zeros(build, rng):
    xv = rng.normal(size=6)
    x = T.dvector("x")
    cost = build(x)
    assert not cost.dtype.startswith("float")
    g = sn.grad(cost, x)  # Theano seeds floatX ones; the ops pass zeros
    assert g.dtype == "float64"
    np.testing.assert_array_equal(sn.function([x], g)(xv), np.zeros(6))


@pytest.mark.parametrize("method", ["all", "any"])
def test_any_all_of_int8_give_floatx_zeros(method, rng):
    x = T.bmatrix("x")
    g = sn.grad(getattr(x, method)(), x)
    assert g.dtype == sn.config.floatX
    f = sn.function([x], g)
    xv = rng.binomial(n=1, p=0.5, size=(5, 7)).astype("int8")
    for value in (xv, np.zeros_like(xv), np.ones_like(xv)):
        out = f(value)
        assert out.shape == value.shape and not out.any()


def test_integer_arithmetic_passes_zeros_as_theano():
    """Theano's Elemwise: an integer-valued output passes zeros, even for ``x + y``."""
    x, y = T.iscalar("x"), T.iscalar("y")
    dx, dy = sn.grad(T.cast(x + y, "float64") * 2.0, [x, y])
    f = sn.function([x, y], [dx, dy])
    assert [float(v) for v in f(3, 4)] == [0.0, 0.0]
    # through a float cast of each, the continuous extension's gradient
    dx = sn.grad(T.cast(x, "float64") * 2.0 + T.cast(y, "float64"), x)
    assert sn.function([x, y], dx)(3, 4) == 2.0


def test_shape_stays_disconnected():
    x = T.dvector("x")
    with pytest.raises(DisconnectedInputError, match="'x'"):
        sn.grad(T.cast(x.shape[0], "float64"), x)


def test_clip_of_integers_builds():
    x, y, z = T.iscalar("x"), T.iscalar("y"), T.iscalar("z")
    grads = sn.grad(T.clip(x, y, z), [x, y, z])
    values = sn.function([x, y, z], grads)(5, 1, 3)
    assert [float(v) for v in values] == [0.0, 0.0, 0.0]


def test_integer_cost_with_null_or_disconnected_known_gradient():
    x, y = T.iscalar("x"), T.iscalar("y")
    cost = x + y
    with pytest.raises(NullTypeGradError):
        sn.grad(cost, [x, y], known_grads={cost: NullType()()})
    with pytest.raises(DisconnectedInputError):
        sn.grad(cost, [x, y], known_grads={cost: DisconnectedType()()})


# -- known gradients, connection patterns, ops without perform ----------------------------

def test_scalar_known_gradient_broadcasts_to_the_variable(rng):
    av = rng.normal(size=(3, 4))
    a = T.dmatrix("a", test_value=av)
    y = T.tanh(a)
    g = sn.grad(cost=None, known_grads={y: T.constant(0.5, dtype="float64")}, wrt=a)
    np.testing.assert_allclose(sn.function([a], g)(av), 0.5 * (1 - np.tanh(av) ** 2), rtol=1e-12)
    row = sn.grad(cost=None, known_grads={y: T.constant(np.array([1.0, 2.0, 3.0, 4.0]))}, wrt=a)
    np.testing.assert_allclose(sn.function([a], row)(av), np.arange(1.0, 5.0) * (1 - np.tanh(av) ** 2),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="shape"):  # seen in the test values
        sn.grad(cost=None, known_grads={y: T.constant(np.ones(3))}, wrt=a)
    with pytest.raises(TypeError, match="broadcast"):  # more axes than the variable
        sn.grad(cost=None, known_grads={y: T.constant(np.ones((2, 3, 4)))}, wrt=a)


class _TwoOutputs(Op):
    """Outputs ``(2 x, x.sum())``; the connection pattern says the second does not depend
    on ``x`` (a lie the gradient must believe, as Theano's test_disconnected_nan)."""

    def make_node(self, x):
        return Apply(self, [x], [x.type(), T.dscalar()])

    def connection_pattern(self, node):
        return [[True, False]]

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


class _UndefinedForSecond(Op):
    def make_node(self, f, g):
        return Apply(self, [f, g], [T.dscalar()])

    def grad(self, inputs, output_grads):
        return [output_grads[0] * inputs[0].ones_like(), NullType()()]


def test_connection_pattern_keeps_a_null_gradient_away(rng):
    x = T.dvector("x")
    f, g = _TwoOutputs()(x)
    g_x = sn.grad(_UndefinedForSecond()(f, g), x)  # no NullTypeGradError: g is not from x
    assert g_x.dtype == "float64"


class _NoPerform(Op):
    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def grad(self, inputs, output_grads):
        return [sn.gradient.grad_undefined(self, 0, inputs[0])]


def test_op_without_perform_builds_and_its_undefined_gradient_raises():
    a = T.scalar("a")
    b = _NoPerform()(a)  # Theano computed no value while building: no error yet
    assert not b.has_test_value
    with pytest.raises(NullTypeGradError):
        sn.grad(b, a)
    with pytest.raises(NotImplementedError):
        b.eval({a: np.float32(1.0)})  # asked for, its value is refused


class _WrongCount(Op):
    def make_node(self, *inputs):
        return Apply(self, list(inputs), [T.dvector()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]

    def grad(self, inputs, output_grads):
        return [output_grads[0]]


def test_wrong_number_of_gradients_is_a_value_error():
    i, j = T.dvector("i"), T.dvector("j")
    with pytest.raises(ValueError, match="wrong number"):
        sn.grad(_WrongCount()(i, j).sum(), [i, j])


class _IntegerGradient(Op):
    def make_node(self, x):
        return Apply(self, [x], [T.dvector()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0].astype("float64")

    def grad(self, inputs, output_grads):
        return [T.cast(output_grads[0], "int32")]  # rounds the gradient: refused


def test_an_integer_valued_gradient_is_refused():
    x = T.ivector("x")
    with pytest.raises(TypeError, match="integer-valued gradient"):
        sn.grad(_IntegerGradient()(x).sum(), x)


# -- Rop: disconnected outputs ---------------------------------------------------------------

class _BreakRop(Op):
    """Theano's test_rop.BreakRop: the identity, with no gradient and no R-operator."""

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]

    def grad(self, inputs, output_grads):
        return [sn.gradient.grad_undefined(self, 0, inputs[0])]

    def R_op(self, inputs, eval_points):
        return [None]


@pytest.mark.parametrize("build", [
    lambda x, m: x.shape[0],
    lambda x, m: T.argmax(m, axis=1),
    lambda x, m: T.argmax(x),
    lambda x, m: T.max(_BreakRop()(m), axis=0),
], ids=["shape", "argmax_other", "argmax_own", "break_rop"])
def test_rop_through_an_op_without_r_operator_raises(build):
    x, v, mx = T.vector("x"), T.vector("v"), T.matrix("mx")
    y = build(x, mx)
    with pytest.raises(DisconnectedInputError):  # a ValueError, as Theano's check_nondiff_rop
        T.Rop(y, x, v)
    zeros = T.Rop(y, x, v, disconnected_outputs="ignore")
    out = sn.function([x, v, mx], zeros, on_unused_input="ignore")(
        np.ones(3, "float32"), np.ones(3, "float32"), np.ones((2, 3), "float32"))
    assert not np.any(out)
    assert T.Rop(y, x, v, disconnected_outputs="ignore", return_disconnected="None") is None


def test_rop_of_a_list_and_a_tuple(rng):
    m, v = T.matrix("m"), T.vector("v")
    m_, v_ = T.matrix("m_"), T.vector("v_")
    as_list = T.Rop([m, v, m + v], [m, v], [m_, v_])
    as_tuple = T.Rop((m, v, m + v), [m, v], [m_, v_])
    assert isinstance(as_list, list) and isinstance(as_tuple, tuple) and len(as_tuple) == 3
    values = [rng.uniform(size=s).astype("float32") for s in [(3, 7), (7,), (3, 7), (7,)]]
    out = sn.function([m, v, m_, v_], list(as_tuple))(*values)
    np.testing.assert_allclose(out[0], values[2])
    np.testing.assert_allclose(out[1], values[3])
    np.testing.assert_allclose(out[2], values[2] + values[3], rtol=1e-6)


def test_rop_eval_point_of_another_rank_is_a_value_error():
    with pytest.raises(ValueError):
        T.Rop(0., [T.matrix()], [T.vector()])


def test_integer_shared_variables_get_floatx_zeros():
    """Lasagne's test_get_or_compute_grads: ``grad(A + B, [A, B])`` of two
    ``shared(1)`` is Theano's float zeros (an integer sum passes zeros)."""
    A, B = sn.shared(1), sn.shared(1)
    grads = sn.grad(A + B, [A, B])
    assert [g.dtype for g in grads] == [sn.config.floatX] * 2
    assert [float(v) for v in sn.function([], grads)()] == [0.0, 0.0]


@pytest.mark.parametrize("build", [
    lambda x, m: (m ** 2).sum(axis=1),
    lambda x, m: sn.gradient.zero_grad(x),
], ids=["other_input", "zero_grad"])
def test_rop_of_an_output_independent_of_wrt_is_zeros(build):
    """Theano gave the other inputs zero eval points: zeros, no error."""
    x, v, mx = T.vector("x"), T.vector("v"), T.matrix("mx")
    y = build(x, mx)
    out = sn.function([x, v, mx], T.Rop(y, x, v), on_unused_input="ignore")(
        np.ones(3, "float32"), np.ones(3, "float32"), np.ones((2, 3), "float32"))
    assert out.shape == (2,) or out.shape == (3,)
    assert not np.any(out)


def test_undefined_gradient_behind_an_integer_draw_raises():
    """Theano's test_rng_mrg.test_undefined_grad: a binomial draw's p is wrapped in
    undefined_grad; the integer draw passes zeros, which still meet it."""
    from symnb.sandbox.rng_mrg import MRG_RandomStreams

    prob = T.scalar("prob")
    out = MRG_RandomStreams(1234).binomial((), p=prob)
    assert out.dtype == "int64"
    with pytest.raises(NullTypeGradError):
        sn.grad(out, prob)
    p = T.scalar("p")  # without undefined_grad: zeros through the comparison
    g = sn.grad(T.cast(T.lt(T.constant(0.3), p), "int64"), p)
    assert g.eval({p: np.float32(0.5)}) == 0


def test_rop_of_a_gradient_that_does_not_depend_on_wrt_is_zeros():
    """Theano's test_Rop_dot_bug_18Oct2013_Jeremiah: built, and zeros."""
    x = T.arange(20.0).reshape([1, 20])
    v = sn.shared(np.ones([20]))
    d = T.dot(x, v).sum()
    rop = T.Rop(sn.grad(d, v), v, v)
    assert not np.any(sn.function([], rop)())
