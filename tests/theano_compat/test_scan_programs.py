"""Scan as Theano's tutorials use it: updates returned from the step, the Jacobian
and Hessian recipes (the step receives the outer variables and differentiates them)."""

import numpy as np

import symnb as theano
import symnb.tensor as T


def test_scan_step_returning_updates():
    ema = theano.shared(np.float64(0.0), name="ema")
    seen = theano.shared(np.int64(0), name="seen")
    xs = T.dvector("xs")

    def step(x_t):
        new = 0.5 * ema + 0.5 * x_t
        return new, {ema: new, seen: seen + 1}

    averages, updates = theano.scan(step, sequences=xs)
    f = theano.function([xs], averages, updates=updates)
    values = np.array([4.0, 2.0, -1.0, 3.0])
    expected, state = [], 0.0
    for v in values:
        state = 0.5 * state + 0.5 * v
        expected.append(state)
    np.testing.assert_allclose(f(values), expected)
    assert ema.get_value() == expected[-1] and seen.get_value() == 4
    f(values[:2])
    assert seen.get_value() == 6


def test_jacobian_and_hessian_recipes():
    x = T.dvector("x")
    y = x ** 2
    J, updates = theano.scan(lambda i, y, x: T.grad(y[i], x), sequences=T.arange(y.shape[0]),
                             non_sequences=[y, x])
    f = theano.function([x], J, updates=updates)
    np.testing.assert_allclose(f([4, 4]), [[8, 0], [0, 8]])

    cost = (x ** 3).sum()
    gy = T.grad(cost, x)
    H, updates = theano.scan(lambda i, gy, x: T.grad(gy[i], x), sequences=T.arange(gy.shape[0]),
                             non_sequences=[gy, x])
    g = theano.function([x], H, updates=updates)
    np.testing.assert_allclose(g([1.0, 2.0, -1.0]), np.diag([6.0, 12.0, -6.0]))

    np.testing.assert_allclose(theano.function([x], theano.gradient.jacobian(y, x))([4, 4]),
                               [[8, 0], [0, 8]])
    np.testing.assert_allclose(theano.function([x], theano.gradient.hessian(cost, x))([1.0, 2.0]),
                               np.diag([6.0, 12.0]))
