"""``symnb.gradient.verify_grad`` with Theano 1.0's signature (``T.verify_grad`` is it)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.gradient import GradientError, verify_grad


def wrong_gradient(x):
    """x * x whose gradient is x (the right one is 2x): half the disconnected product."""
    return sn.gradient.disconnected_grad(x) * x


def test_theano_signature_positional_n_tests_and_rng():
    # Theano's order: fun, pt, n_tests, rng, eps, out_type, abs_tol, rel_tol, mode.
    verify_grad(T.tanh, [np.asarray([[2, 3, 4], [-1, 3.3, 9.9]])], 3, np.random.RandomState(0),
                1e-7, None, 1e-4, 1e-4, "FAST_RUN")


def test_rng_may_be_the_numpy_random_module_or_a_generator():
    verify_grad(T.tanh, [np.asarray([[2, 3, 4], [-1, 3.3, 9.9]])], rng=np.random)
    verify_grad(T.exp, [np.linspace(-1, 1, 5)], rng=np.random.default_rng(3))


def test_t_verify_grad_is_the_function_and_e_grad_its_error():
    assert T.verify_grad is sn.gradient.verify_grad
    assert T.verify_grad.E_grad is GradientError
    with pytest.raises(T.verify_grad.E_grad, match="differs from finite differences"):
        T.verify_grad(wrong_gradient, [np.array([1.0, 2.0, 3.0])], rng=np.random.RandomState(1))


def test_each_of_n_tests_draws_a_new_projection():
    class CountingRandomState(np.random.RandomState):
        draws = 0

        def random(self, size=None):
            CountingRandomState.draws += 1
            return super().random(size)

    verify_grad(T.sin, [np.ones(4)], n_tests=4, rng=CountingRandomState(0))
    assert CountingRandomState.draws == 4


def test_integer_points_are_refused_as_in_theano():
    with pytest.raises(TypeError, match="input 0 has dtype int64"):
        verify_grad(T.sin, [np.arange(3)], rng=np.random.RandomState(0))


def test_complex_out_type_is_refused_saying_why():
    with pytest.raises(NotImplementedError, match="complex"):
        verify_grad(T.sin, [np.ones(3)], out_type="complex64", rng=np.random.RandomState(0))


def test_debug_mode_checks_the_gradient_too():
    verify_grad(T.tanh, [np.array([0.3, -0.2])], rng=np.random.RandomState(0), mode="DebugMode",
                no_debug_ref=False)
    with pytest.raises(GradientError):
        verify_grad(wrong_gradient, [np.array([0.3, -0.2])], rng=np.random.RandomState(0),
                    mode="DebugMode")


def test_null_type_grad_error_is_theanos_name_of_a_null_gradient_error():
    """Theano's name is a TypeError among symnb's null gradients (an op's undefined
    gradient: tests/core/test_gradient_types.py); an integer wrt has a float gradient,
    as in Theano (tests/core/test_gradient_integers.py)."""
    import symnb.tensor as T
    from symnb.gradient import NullGradientError, NullTypeGradError

    i = T.iscalar("i")
    i.tag.test_value = 2
    x = T.dscalar("x")
    x.tag.test_value = 1.0
    g = sn.grad((x * i).sum(), i)
    assert g.dtype == "float64" and g.test_value == 1.0
    assert issubclass(NullTypeGradError, NullGradientError) and issubclass(NullTypeGradError, TypeError)
