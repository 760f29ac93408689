"""Scan and IfElse in XLA: lax.scan / lax.while_loop / lax.cond, memory only for kept
outputs, scan_until, and a tanh RNN against the same model in jax.lax.scan + jax.grad."""

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.gradient import grad
from symnb.core.graph.basic import toposort
from symnb.core.ifelse import ifelse
from symnb.core.scan import reduce, scan, scan_until, steps_run
from symnb.lower_xla.interpreter import build_program
from tests.reference import assert_same, symbolic_like


def _jaxpr(inputs, outputs, values):
    program = build_program(inputs, outputs, toposort(outputs, inputs))
    with jax.enable_x64(True):  # as sn.function does for graphs with 64-bit types
        return jax.make_jaxpr(program)(*values)


def _primitives(jaxpr) -> list:
    found = []
    for eqn in jaxpr.eqns:
        found.append(eqn)
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            found.extend(_primitives(sub))
    return found


def test_scan_lowers_to_lax_scan_and_reduce_stacks_nothing(rng):
    x_value = rng.normal(size=(50, 3)).astype("float32")
    x = symbolic_like(x_value, "x")
    h, _ = scan(lambda xt, h: h + xt, sequences=x, outputs_info=T.zeros_like(x[0]))
    total, _ = reduce(lambda xt, acc: acc + xt, x, T.zeros_like(x[0]))
    (loop,) = [e for e in _primitives(_jaxpr([x], [h], [x_value]).jaxpr) if e.primitive.name == "scan"]
    assert (50, 3) in [tuple(v.aval.shape) for v in loop.outvars]
    (loop,) = [e for e in _primitives(_jaxpr([x], [total], [x_value]).jaxpr) if e.primitive.name == "scan"]
    assert all(tuple(v.aval.shape) == (3,) for v in loop.outvars)  # carried, not stacked


def test_scan_until_lowers_to_a_while_loop_and_stops_at_the_right_step():
    a = T.scalar("a", dtype="float64", test_value=np.float64(2.0))

    def newton(guess, a):
        better = 0.5 * (guess + a / guess)
        return better, scan_until(T.abs(better - guess) < 1e-10)

    roots, _ = scan(newton, outputs_info=a, non_sequences=a, n_steps=100)
    count = steps_run(roots)
    assert roots.type.shape == (None,)  # the rows run: a length known at run time only
    buffer = roots.owner.inputs[0]  # the loop's rows, buffered up to n_steps
    prims = {e.primitive.name for e in _primitives(_jaxpr([a], [buffer], [np.float64(2.0)]).jaxpr)}
    assert "while" in prims and "scan" not in prims

    def reference(value):
        guesses, guess = [], value
        while True:
            better = 0.5 * (guess + value / guess)
            guesses.append(better)
            if abs(better - guess) < 1e-10 or len(guesses) == 100:
                return np.array(guesses), len(guesses)
            guess = better

    f = sn.function([a], [roots, count, roots[-1], buffer])
    for value in (2.0, 9.0, 1e6):
        expected, steps = reference(value)
        padded = np.concatenate([expected, np.full(100 - steps, expected[-1])])
        results = f(value)
        assert results[0].shape == (steps,) and results[1] == steps and steps < 100
        np.testing.assert_allclose(results[0], expected, rtol=1e-15)
        np.testing.assert_allclose(results[2], np.sqrt(value), rtol=1e-12)
        np.testing.assert_allclose(results[3], padded, rtol=1e-15)  # rows past the last repeat it
        if value == 2.0:  # the test value runs the same loop with NumPy
            np.testing.assert_allclose(roots.test_value, expected, rtol=1e-15)
            assert count.test_value == steps


def test_scan_until_over_a_sequence_stops_at_the_first_true_condition():
    x_value = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype="int32")
    x = symbolic_like(x_value, "x")
    sums, _ = scan(lambda xt, s: [s + xt, scan_until(s + xt > 10)], sequences=x,
                   outputs_info=np.int32(0))
    expected = np.array([3, 4, 8, 9, 14], dtype="int32")  # the steps run, as in Theano
    assert_same(sums.test_value, expected, "perform")
    results = sn.function([x], [sums, steps_run(sums)])(x_value)
    assert_same(results[0], expected, "XLA")
    assert results[1] == 5


def test_ifelse_lowers_to_lax_cond(rng):
    x_value = rng.normal(size=3)
    x, c = symbolic_like(x_value, "x"), symbolic_like(np.array(True), "c")
    z = ifelse(c, T.exp(x), T.log(T.abs(x)))
    prims = {e.primitive.name for e in _primitives(_jaxpr([c, x], [z], [np.array(True), x_value]).jaxpr)}
    assert "cond" in prims


def test_number_of_steps_from_an_input_value_specializes_the_program():
    k = T.iscalar("k", test_value=np.int32(2))
    a = T.vector("a", test_value=np.ones(3, "float32"))
    result, _ = scan(lambda prior, a: prior * a, outputs_info=T.ones_like(a), non_sequences=a,
                     n_steps=k)
    f = sn.function([a, k], [result[-1], result])
    value = np.arange(3, dtype="float32")
    for steps in (3, 1, 3, 5):
        last, every = f(value, steps)
        assert_same(last, value ** steps, "XLA")
        assert every.shape == (steps, 3)


def _rnn_reference(w, u, x, h0):
    def step(h, xt):
        h = jnp.tanh(xt @ w + h @ u)
        return h, h

    _, hs = jax.lax.scan(step, h0, x)
    return jnp.mean(hs * hs)


@pytest.mark.parametrize("length", [7, 1])
def test_tanh_rnn_matches_jax_values_and_gradients(length, rng):
    steps, batch, hidden = length, 4, 5
    x_value = rng.normal(size=(steps, batch, hidden)).astype("float32")
    h0_value = rng.normal(size=(batch, hidden)).astype("float32")
    w_value = (rng.normal(size=(hidden, hidden)) * 0.5).astype("float32")
    u_value = (rng.normal(size=(hidden, hidden)) * 0.5).astype("float32")
    x, h0 = symbolic_like(x_value, "x"), symbolic_like(h0_value, "h0")
    w, u = symbolic_like(w_value, "w"), symbolic_like(u_value, "u")
    h, _ = scan(lambda xt, h, w, u: T.tanh(T.dot(xt, w) + T.dot(h, u)), sequences=x,
                outputs_info=h0, non_sequences=[w, u])
    cost = T.mean(h * h)
    g_w, g_u = grad(cost, [w, u])
    expected_cost, (expected_w, expected_u) = jax.value_and_grad(_rnn_reference, argnums=(0, 1))(
        w_value, u_value, x_value, h0_value)
    compiled = sn.function([x, h0, w, u], [cost, g_w, g_u])(x_value, h0_value, w_value, u_value)
    for what, values in (("perform", [cost.test_value, g_w.test_value, g_u.test_value]),
                         ("XLA", compiled)):
        for value, expected in zip(values, (expected_cost, expected_w, expected_u)):
            assert value.dtype == np.float32, what
            np.testing.assert_allclose(value, np.asarray(expected), rtol=2e-5, atol=1e-6, err_msg=what)


def test_reading_only_the_last_step_makes_the_loop_carry_it(rng):
    a_value = np.arange(5, dtype="float32")
    a = symbolic_like(a_value, "A")
    result, _ = scan(lambda prior, a: prior * a, outputs_info=T.ones_like(a), non_sequences=a,
                     n_steps=3)
    only_last = sn.function([a], result[-1])
    (loop,) = [n for n in only_last.maker.fgraph.toposort() if n.op.display_name() == "Scan{scan_fn}"]
    assert loop.op.info.return_last == (True,) and loop.outputs[0].ndim == 1
    assert_same(only_last(a_value), a_value ** 3, "XLA")
    both = sn.function([a], [result[-1], result])  # every step is needed: nothing changes
    (loop,) = [n for n in both.maker.fgraph.toposort() if n.op.display_name() == "Scan{scan_fn}"]
    assert loop.op.info.return_last == (False,)
    values = both(a_value)
    assert_same(values[0], a_value ** 3, "XLA")
    assert_same(values[1], np.stack([a_value, a_value ** 2, a_value ** 3]), "XLA")


def test_last_step_of_a_scan_until_loop_is_its_final_state():
    a = T.scalar("a", dtype="float64", test_value=np.float64(2.0))
    roots, _ = scan(lambda g, a: [0.5 * (g + a / g), scan_until(T.abs(0.5 * (g + a / g) - g) < 1e-12)],
                    outputs_info=a, non_sequences=a, n_steps=60)
    f = sn.function([a], roots[-1])
    assert any(getattr(n.op, "info", None) and n.op.info.return_last == (True,)
               for n in f.maker.fgraph.toposort())
    np.testing.assert_allclose(f(10.0), np.sqrt(10.0), rtol=1e-14)
