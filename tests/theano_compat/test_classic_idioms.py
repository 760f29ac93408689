"""Idioms of the classic deeplearning.net scripts and Theano's tutorial that are not
operations: truthiness of variables, Function.copy, Modes' including/excluding."""

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T


class DenoisingAutoencoder:
    """The constructor of deeplearning.net's dA.py: ``if not input:`` tests for None."""

    def __init__(self, W, input=None):
        if not input:
            input = T.dmatrix(name="input")
        self.x = input
        self.W = W

    def reconstruction(self):
        hidden = T.nnet.sigmoid(T.dot(self.x, self.W))
        return T.nnet.sigmoid(T.dot(hidden, self.W.T))


def test_every_variable_is_truthy_as_in_theano():
    rng = np.random.default_rng(0)
    W = theano.shared(rng.normal(size=(4, 3)), name="W")
    given = T.dmatrix("given")
    made_here = DenoisingAutoencoder(W)             # input None: the constructor makes one
    passed = DenoisingAutoencoder(W, input=given)   # a variable is truthy: kept
    assert passed.x is given and made_here.x is not given
    data = rng.normal(size=(2, 4))
    sigmoid = lambda v: 1 / (1 + np.exp(-v))
    expected = sigmoid(sigmoid(data @ W.get_value()) @ W.get_value().T)
    np.testing.assert_allclose(theano.function([given], passed.reconstruction())(data), expected)
    assert bool(W) and bool(T.constant(0.0)) and bool(given + 1)


@pytest.mark.parametrize("compare", [
    lambda a, b, c: a < b < c,
    lambda a, b, c: a >= b > c,
    lambda a, b, c: bool(T.eq(a, b)),
    lambda a, b, c: 1 if T.neq(a, c) else 0,
])
def test_the_result_of_a_comparison_has_no_truth_value(compare):
    a, b, c = T.dscalars("a", "b", "c")
    with pytest.raises(TypeError, match="comparison has no truth value"):
        compare(a, b, c)
