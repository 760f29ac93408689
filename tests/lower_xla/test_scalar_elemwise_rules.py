"""The lowering of Elemwise(scalar_op): which JAX function, or the host callback, and
what a program holding a host-run node does (values, shared updates, modes, pickling)."""

import pickle

import numpy as np
import pytest
import scipy.special

import symnb as sn
import symnb.tensor as T
from symnb import scalar
from symnb.compile import DebugMode, NanGuardMode
from symnb.core.tensor.scalar_basic import TensorScalarOp
from symnb.lower_xla.registry import holds_host_ops, runs_on_host
from symnb.lower_xla.rules.scalar_elemwise import scalar_jax_function
from symnb.printing.node_facts import PYTHON_OP, runs_as
from symnb.scalar import basic_scipy


class Hypot(scalar.BinaryScalarOp):
    """An op of two inputs computed by ``impl`` per element (no JAX function)."""

    def impl(self, a, b):
        return float(np.hypot(a, b))


class DivMod(scalar.BinaryScalarOp):
    """Two outputs, typed by an ``output_types`` method (Theano's other way)."""

    nout = 2

    def output_types(self, types):
        return [scalar.float64, scalar.int64]

    def impl(self, a, b):
        q, r = divmod(a, b)
        return float(q), int(r)


hypot = T.Elemwise(Hypot(scalar.upgrade_to_float))


@pytest.mark.parametrize("op, on_host", [
    (T.Elemwise(basic_scipy.gammaln), False), (T.Elemwise(basic_scipy.psi), False),
    (T.Elemwise(basic_scipy.erfcinv), False), (T.Elemwise(basic_scipy.tri_gamma), False),
    (T.Elemwise(basic_scipy.j0), True), (T.Elemwise(scalar.exp), False),
    (T.Elemwise(scalar.add), False), (hypot, True),
])
def test_which_ops_run_on_the_host(op, on_host):
    assert runs_on_host(op) is on_host
    assert (runs_as(op) == PYTHON_OP) is on_host
    if not on_host and not isinstance(op.scalar_op, TensorScalarOp):  # not a row's
        assert scalar_jax_function(op, op.nin) is not None


def test_a_host_op_in_a_training_step_updates_shared_variables():
    w = sn.shared(np.array([3.0, 5.0]), name="w")
    b = T.dvector("b", test_value=np.array([4.0, 12.0]))
    h = hypot(w, b)
    f = sn.function([b], h, updates=[(w, w + h)])
    assert holds_host_ops(f.maker.fgraph.toposort())
    np.testing.assert_allclose(f(np.array([4.0, 12.0])), [5.0, 13.0])
    np.testing.assert_allclose(w.get_value(), [8.0, 18.0])
    np.testing.assert_allclose(f(np.array([6.0, 0.0])), [10.0, 18.0])


def test_several_outputs_computed_per_element():
    a = np.array([7.0, -7.5, 9.0])
    b = np.array([2.0, 2.0, -4.0])
    x, y = T.dvector("x", test_value=a), T.dvector("y", test_value=b)
    q, r = T.Elemwise(DivMod())(x, y)
    assert (q.dtype, r.dtype) == ("float64", "int64")
    expected_q, expected_r = np.floor_divide(a, b), np.mod(a, b).astype("int64")
    np.testing.assert_array_equal(q.test_value, expected_q)
    np.testing.assert_array_equal(r.test_value, expected_r)
    compiled_q, compiled_r = sn.function([x, y], [q, r])(a, b)
    np.testing.assert_array_equal(compiled_q, expected_q)
    np.testing.assert_array_equal(compiled_r, expected_r)


@pytest.mark.parametrize("mode", [DebugMode(), NanGuardMode(), "FAST_COMPILE"])
def test_node_by_node_modes(mode):
    x = T.dvector("x", test_value=np.array([0.5, 2.0]))
    y = T.Elemwise(basic_scipy.gammaln)(x) + hypot(x, x)
    f = sn.function([x], y, mode=mode)
    t = np.array([1.5, 3.0])
    np.testing.assert_allclose(f(t), scipy.special.gammaln(t) + np.hypot(t, t), rtol=1e-12)


def test_a_compiled_function_pickles_with_its_scalar_ops():
    x = T.dvector("x", test_value=np.array([0.5, 2.0]))
    f = sn.function([x], T.Elemwise(basic_scipy.psi)(x) * 2)
    g = pickle.loads(pickle.dumps(f))
    t = np.array([0.7, 4.0])
    np.testing.assert_allclose(g(t), 2 * scipy.special.psi(t), rtol=1e-12)


class SinCos(scalar.UnaryScalarOp):
    """Two outputs with a gradient: a cost reading one of them leaves the other's None."""

    nout = 2

    def impl(self, x):
        return np.sin(x), np.cos(x)

    def grad(self, inputs, grads):
        (x,), (gs, gc) = inputs, grads
        return [gs * T.cos(x) - gc * T.sin(x)]


def test_a_gradient_through_one_output_of_two():
    t = np.array([0.3, 1.2, -2.0])
    x = T.dvector("x", test_value=t)
    s, c = T.Elemwise(SinCos(scalar.transfer_type(0, 0)))(x)
    np.testing.assert_allclose(c.test_value, np.cos(t))
    (g,) = sn.grad(s.sum(), [x])
    np.testing.assert_allclose(g.test_value, np.cos(t))
    np.testing.assert_allclose(sn.function([x], g)(t), np.cos(t))
    (g2,) = sn.grad((s * c).sum(), [x])
    np.testing.assert_allclose(sn.function([x], g2)(t), np.cos(2 * t), rtol=1e-12)
