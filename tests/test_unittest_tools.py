"""``symnb.tests.unittest_tools`` (Theano's ``theano.tests.unittest_tools``): seeds from
``config.unittests.rseed``, ``verify_grad`` passing a right gradient and catching a wrong
one, ``assert_allclose`` with Theano's per-dtype tolerances; ``f.trust_input`` may be set
(the arguments are still checked)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.configparser import change_flags
from symnb.gradient import GradientError
from symnb.core.graph.op import Op
from symnb.core.graph.basic import Apply
from symnb.tests import unittest_tools as utt


def test_seeds_come_from_the_flag():
    with change_flags({"unittests.rseed": 12}):
        assert utt.fetch_seed() == 12 and utt.fetch_seed(3) == 3
        assert utt.seed_rng() == 12
        first = np.random.rand()
        utt.seed_rng()
        assert np.random.rand() == first
    with change_flags({"unittests.rseed": "random"}):
        assert utt.fetch_seed() is None


class _WrongGrad(Op):
    """x ** 2 with a wrong gradient (3x), to see verify_grad catch it."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        return [inputs[0] ** 2]

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, grads):
        return [grads[0] * 3 * inputs[0]]


def test_verify_grad():
    utt.verify_grad(lambda x: T.exp(x) * x, [np.array([0.3, -0.4])])
    with pytest.raises(GradientError):
        utt.verify_grad(_WrongGrad(), [np.array([0.3, 0.9])])


def test_assert_allclose_uses_theanos_tolerances():
    utt.assert_allclose(np.float64(1.0), np.float64(1.0 + 1e-9))
    with pytest.raises(utt.WrongValue):
        utt.assert_allclose(np.float64(1.0), np.float64(1.0 + 1e-6))
    utt.assert_allclose(np.float32(1.0), np.float32(1.0 + 5e-6))  # float32's 1e-5
    with pytest.raises(utt.WrongValue):
        utt.assert_allclose(np.ones(2), np.ones(3))


def test_trust_input_may_be_set_and_arguments_are_still_checked():
    x = T.dvector("x")
    f = sn.function([x], x * 2)
    f.trust_input = True
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(Exception):
        f(np.ones((2, 2)))
