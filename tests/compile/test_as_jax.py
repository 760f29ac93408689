"""f.as_jax(): the compiled graph as a pure JAX function, and JAX arrays as inputs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

optax = pytest.importorskip("optax")


def _regression(seed: int = 0):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(3, 2)).astype("float32")
    W = sn.shared(w, name="W")
    b = sn.shared(np.zeros(2, "float32"), name="b")
    x, y = T.matrix("x"), T.matrix("y")
    loss = ((T.dot(x, W) + b - y) ** 2).mean()
    gW, gb = sn.grad(loss, [W, b])
    step = sn.function([x, y], loss, updates=[(W, W - 0.1 * gW), (b, b - 0.1 * gb)])
    X = rng.normal(size=(4, 3)).astype("float32")
    Y = rng.normal(size=(4, 2)).astype("float32")
    return step, (W, b), (gW, gb), (x, y), X, Y


def _numpy_loss(params, X, Y):
    return float((((X @ params["W"] + params["b"]) - Y) ** 2).mean())


def test_under_jit_gives_the_functions_outputs_and_updates():
    step, (W, b), _, _, X, Y = _regression()
    fn, params = step.as_jax()
    assert set(params) == {"W", "b"} and all(isinstance(v, jax.Array) for v in params.values())
    loss, new = jax.jit(fn)(params, X, Y)
    expected = _numpy_loss({"W": W.get_value(), "b": b.get_value()}, X, Y)
    np.testing.assert_allclose(loss, expected, rtol=1e-5)
    assert loss.dtype == np.float32
    step(X, Y)  # the compiled function's update, for comparison
    np.testing.assert_allclose(new["W"], W.get_value(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(new["b"], b.get_value(), rtol=1e-6, atol=1e-7)
    # params are copies: the call of step donated its own buffers, not these.
    assert not params["W"].is_deleted()


def test_grad_matches_sn_grad():
    step, (W, b), (gW, gb), (x, y), X, Y = _regression(1)
    fn, params = step.as_jax()
    grads = jax.grad(lambda p: fn(p, X, Y)[0])(params)
    symbolic = sn.function([x, y], [gW, gb])(X, Y)
    np.testing.assert_allclose(grads["W"], symbolic[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads["b"], symbolic[1], rtol=1e-5, atol=1e-6)


def test_vmap_over_examples_matches_numpy():
    step, (W, b), _, _, X, Y = _regression(2)
    fn, params = step.as_jax()
    per_example, _ = jax.vmap(fn, in_axes=(None, 0, 0))(params, X[:, None, :], Y[:, None, :])
    values = {"W": W.get_value(), "b": b.get_value()}
    expected = [_numpy_loss(values, X[i:i + 1], Y[i:i + 1]) for i in range(len(X))]
    np.testing.assert_allclose(per_example, expected, rtol=1e-5)


def test_one_optax_update():
    step, (W, b), (gW, gb), (x, y), X, Y = _regression(3)
    fn, params = step.as_jax()
    optimizer = optax.sgd(0.05, momentum=0.9)
    state = optimizer.init(params)
    grads = jax.grad(lambda p: fn(p, X, Y)[0])(params)
    updates, state = optimizer.update(grads, state, params)
    new = optax.apply_updates(params, updates)
    symbolic = sn.function([x, y], [gW, gb])(X, Y)  # first step of momentum SGD: -lr * g
    np.testing.assert_allclose(new["W"], W.get_value() - 0.05 * symbolic[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new["b"], b.get_value() - 0.05 * symbolic[1], rtol=1e-5, atol=1e-6)


def test_float64_graph_keeps_its_dtype_with_x64_off():
    x = T.vector("x", dtype="float64")
    S = sn.shared(np.array([1e-9, 2.0]), name="S")
    f = sn.function([x], x + S)
    fn, params = f.as_jax()
    out, _ = fn(params, np.array([1.0, 3.0]))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.array([1.0 + 1e-9, 5.0]))


def test_clear_errors():
    step, _, _, _, X, Y = _regression()
    fn, params = step.as_jax()
    with pytest.raises(KeyError, match="params lacks 'b'"):
        fn({"W": params["W"]}, X, Y)
    with pytest.raises(TypeError, match="takes params and 2 input"):
        fn(params, X)
    with pytest.raises(TypeError, match="'x' expects .*got float32 of shape \\(3,\\)"):
        fn(params, X[0], Y)
    unnamed = sn.shared(np.ones(2, "float32"))
    v = T.vector("v")
    with pytest.raises(ValueError, match="has no name"):
        sn.function([v], v * unnamed).as_jax()
    i = T.iscalar("i")
    with pytest.raises(ValueError, match="checks values while it runs"):
        sn.function([v, i], v[i]).as_jax()


def test_jax_arrays_are_inputs_without_a_host_copy():
    step, (W, b), _, (x, y), X, Y = _regression(4)
    reference = sn.function([x, y], ((T.dot(x, W) + b - y) ** 2).sum())
    expected = reference(X, Y)
    on_device = jax.device_put(X), jax.device_put(Y)
    reference(*on_device)  # the shared values are on the device from now on
    # Copying an input to the host and back would need a host -> device transfer.
    with jax.transfer_guard_host_to_device("disallow"):
        np.testing.assert_allclose(reference(*on_device), expected, rtol=1e-6)
        with pytest.raises(Exception, match="[Dd]isallowed"):
            jnp.asarray(np.ones(3)) + 1  # the guard does catch a host -> device copy
