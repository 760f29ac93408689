"""Gradients through scan against central finite differences (both paths, float64),
with taps, non-sequences, go_backwards, reduce, and truncate_gradient."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.gradient import grad
from symnb.core.scan import reduce, scan, scan_until
from symnb.gradient import verify_grad
from tests.reference import assert_same, symbolic_like


def test_tanh_rnn_all_inputs(rng):
    def rnn(x, h0, w, u):
        h, _ = scan(lambda xt, h, w, u: T.tanh(T.dot(xt, w) + T.dot(h, u)),
                    sequences=x, outputs_info=h0, non_sequences=[w, u])
        return h

    verify_grad(rnn, [rng.normal(size=(5, 2, 3)), rng.normal(size=(2, 4)),
                      rng.normal(size=(3, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5], rng=rng)


def test_sequence_and_output_taps(rng):
    def fn(x, h0, w):
        h, _ = scan(lambda xm1, xp1, hm2, hm1, w: T.sin(hm1 * w) + 0.5 * hm2 * xm1 + xp1,
                    sequences=dict(input=x, taps=[-1, 1]),
                    outputs_info=dict(initial=h0, taps=[-2, -1]), non_sequences=w)
        return h

    verify_grad(fn, [rng.normal(size=(7, 2)), rng.normal(size=(3, 2)), rng.normal(size=2)], rng=rng)


def test_captured_variable_and_map_output(rng):
    def fn(x, h0, b):
        (h, y), _ = scan(lambda xt, h: [h * T.cos(xt) + b, T.exp(xt * h)], sequences=x,
                         outputs_info=[h0, None])
        return T.concatenate([h, y])

    verify_grad(fn, [rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=3)], rng=rng)


def test_go_backwards_and_sequence_used_twice(rng):
    def fn(x, h0):
        h, _ = scan(lambda a, b, h: h * a + b * b, sequences=[x, x], outputs_info=h0,
                    go_backwards=True)
        return h

    verify_grad(fn, [rng.normal(size=(5, 2)), rng.normal(size=2)], rng=rng)


def test_gradient_of_only_some_steps_and_of_n_steps_bound_loop(rng):
    def fn(x, h0):
        h, _ = scan(lambda xt, h: h * xt + 1, sequences=x, outputs_info=h0, n_steps=3)
        return h[1:]  # the last steps only; x[3:] gets a zero gradient

    verify_grad(fn, [rng.normal(size=(5,)), rng.normal(size=())], rng=rng)


def test_reduce_keeps_only_the_final_state_and_differentiates(rng):
    def fn(x, a0):
        total, _ = reduce(lambda xt, a: a * xt + xt, x, a0)
        return total

    verify_grad(fn, [rng.normal(size=(4, 2)), rng.normal(size=2)], rng=rng)


def test_integer_sequence_gets_no_gradient(rng):
    coefficients = symbolic_like(rng.normal(size=3), "coefficients")
    x = symbolic_like(np.float64(1.5), "x")
    components, _ = scan(lambda c, p, v: c * v ** p, sequences=[coefficients, T.arange(10)],
                         non_sequences=x)
    g_c, g_x = grad(components.sum(), [coefficients, x])
    powers = np.arange(3)
    assert_same(g_c.test_value, 1.5 ** powers, "perform")
    assert_same(g_x.test_value, np.sum(coefficients.test_value * powers * 1.5 ** (powers - 1.0)),
                "perform")


@pytest.mark.parametrize("truncate", [0, 2, 10])
def test_truncate_gradient_backpropagates_through_the_last_steps_only(truncate, rng):
    # h_t = w * h_{t-1} + x_t, cost = h_{n-1}: d cost / d x_t = w ** (n-1-t).
    n = 5
    x_value, h0_value, w_value = rng.normal(size=n), 0.7, 1.3
    x, h0, w = (symbolic_like(np.asarray(v), name) for v, name in
                ((x_value, "x"), (h0_value, "h0"), (w_value, "w")))
    h, _ = scan(lambda xt, h, w: w * h + xt, sequences=x, outputs_info=h0, non_sequences=w,
                truncate_gradient=truncate)
    g_x, g_h0, g_w = grad(h[-1], [x, h0, w])
    kept = min(truncate, n)
    powers = w_value ** np.arange(n - 1, -1, -1)
    expected_x = np.where(np.arange(n) >= n - kept, powers, 0.0)
    states = [h0_value]
    for xt in x_value:
        states.append(w_value * states[-1] + xt)
    # d/dw over the processed steps t: (d cost / d h_t) * h_{t-1}
    expected_w = sum(w_value ** (n - 1 - t) * states[t] for t in range(n - kept, n))
    expected_h0 = w_value ** n if kept == n else 0.0
    f = sn.function([x, h0, w], [g_x, g_h0, g_w])
    for what, values in (("perform", [g_x.test_value, g_h0.test_value, g_w.test_value]),
                         ("XLA", f(x_value, h0_value, w_value))):
        np.testing.assert_allclose(values[0], expected_x, rtol=1e-12, err_msg=what)
        np.testing.assert_allclose(values[1], expected_h0, rtol=1e-12, err_msg=what)
        np.testing.assert_allclose(values[2], expected_w, rtol=1e-12, err_msg=what)


def test_second_order_through_scan(rng):
    def fn(x, w):
        h, _ = scan(lambda xt, h, w: T.tanh(h * w + xt), sequences=x,
                    outputs_info=T.zeros_like(x[0]), non_sequences=w)
        return grad(h.sum(), w)

    verify_grad(fn, [rng.normal(size=(4, 2)), rng.normal(size=2)], rng=rng)


def test_nested_loops_values_and_gradients(rng):
    def nested(x, w):
        def row(xr, w):  # Horner's rule along a row, inside a loop over rows
            s, _ = scan(lambda v, acc: acc * w + v, sequences=xr, outputs_info=T.zeros_like(w))
            return s[-1]

        out, _ = scan(row, sequences=x, non_sequences=w)
        return out

    x, w = rng.normal(size=(3, 4)), rng.normal(size=())
    expected = np.array([sum(r[j] * w ** (3 - j) for j in range(4)) for r in x])
    xs, ws = symbolic_like(x, "x"), symbolic_like(w, "w")
    out = nested(xs, ws)
    assert_same(out.test_value, expected, "perform")
    assert_same(sn.function([xs, ws], out)(x, w), expected, "XLA")
    verify_grad(nested, [x, w], rng=rng)


def test_ifelse_inside_a_loop_and_a_loop_inside_ifelse(rng):
    from symnb.core.ifelse import ifelse

    def if_in_loop(x):
        h, _ = scan(lambda xt, h: ifelse(xt > 0, h * xt, h - xt), sequences=x,
                    outputs_info=T.ones_like(x[0]))
        return h

    def loop_in_if(x):
        h, _ = scan(lambda xt, h: h * xt, sequences=x, outputs_info=T.ones_like(x[0]))
        return ifelse(x.sum() > 0, h, -h)

    verify_grad(if_in_loop, [rng.normal(size=6)], rng=rng)
    verify_grad(loop_in_if, [rng.normal(size=6)], rng=rng)


def test_an_initial_state_no_output_depends_on_is_disconnected_as_in_theano():
    # Theano's test_grad_connectivity_matrix: z reads x's state only, so z0 reaches no
    # output; sn.grad raises for it (disconnected_inputs='raise'), and with 'ignore'
    # the connected gradients are the reference's.
    def step(x_tm1, y_tm1, z_tm1):
        return x_tm1 ** 2, y_tm1, x_tm1 + 1

    x0, y0, z0 = T.dvector("x0"), T.dvector("y0"), T.dvector("z0")
    (x, y, z), _ = sn.scan(step, outputs_info=[x0, y0, z0], n_steps=3)
    cost = (x + y + z).sum()
    with pytest.raises(ValueError):
        sn.grad(cost, z0)
    with pytest.raises(ValueError):
        sn.grad(x.sum(), y0)
    op = x.owner.op
    assert op.connection_pattern(x.owner) == [[False, False, False], [True, False, True],
                                              [False, True, False], [False, False, False]]
    gx, gy, gz = sn.grad(cost, [x0, y0, z0], disconnected_inputs="ignore")
    f = sn.function([x0, y0, z0], [gx, gy, gz])
    v = np.array([0.5, -1.5])
    # x_n = x0 ** (2 ** n); d/dx0 of sum_n x_n + sum_n (x_{n-1} + 1), n = 1..3
    dx = sum(2 ** n * v ** (2 ** n - 1) for n in (1, 2, 3)) + sum(2 ** n * v ** (2 ** n - 1) for n in (0, 1, 2))
    got = f(v, v, v)
    np.testing.assert_allclose(got[0], dx)
    np.testing.assert_allclose(got[1], np.full(2, 3.0))
    np.testing.assert_array_equal(got[2], np.zeros(2))
