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


def _float64_sum():
    """sum(tanh(x * w)) of 1,000 float64 values, w shared: float32 would be off by ~1e-5."""
    rng = np.random.default_rng(5)
    w = sn.shared(rng.normal(size=1000), name="w")
    x = T.vector("x", dtype="float64")
    f = sn.function([x], T.tanh(x * w).sum())
    return f, w.get_value(), rng.normal(size=(3, 1000)) * 3


_TRANSFORMS = {
    "jit": lambda fn, params, X: jax.jit(lambda a: fn(params, a)[0])(X[0]),
    "grad": lambda fn, params, X: jax.grad(lambda a: fn(params, a)[0])(X[0]),
    "vmap": lambda fn, params, X: jax.vmap(lambda a: fn(params, a)[0])(X),
}


def _numpy_float64(transform: str, w: np.ndarray, X: np.ndarray) -> np.ndarray:
    if transform == "jit":
        return np.tanh(X[0] * w).sum()
    if transform == "grad":
        return w * (1 - np.tanh(X[0] * w) ** 2)
    return np.tanh(X * w).sum(axis=1)


@pytest.fixture
def x64_on():
    """JAX's 64-bit mode on for the test (a global setting: put back afterwards)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


@pytest.mark.parametrize("transform", sorted(_TRANSFORMS))
def test_a_64_bit_graph_traced_with_x64_off_is_refused(transform):
    # JAX would cast the traced float64 argument to float32 before fn sees it: the
    # result (float64 under jit) would silently be computed in float32.
    assert not jax.config.jax_enable_x64
    f, w, X = _float64_sum()
    fn, params = f.as_jax()
    with pytest.raises(sn.X64DisabledError) as caught:
        _TRANSFORMS[transform](fn, params, X)
    message = str(caught.value)
    assert 'jax.config.update("jax_enable_x64", True)' in message
    assert "input 'x': expects float64, traced as float32; created at test_as_jax.py" in message
    assert isinstance(caught.value, TypeError)


def test_64_bits_made_inside_the_graph_are_kept_with_x64_off():
    # Only traced arguments are narrowed by JAX: values the graph makes in 64 bits (here
    # from a float32 input) are traced in 64 bits inside fn, so they need no x64 mode.
    # In float32, 1e8 + x would lose x (its spacing there is 8).
    x = T.vector("x")
    wide = T.cast(x, "float64") + 1e8
    product = (wide - 1e8) * wide.sum()
    fn, params = sn.function([x], product).as_jax()
    total, _ = sn.function([x], product.sum()).as_jax()
    X = (np.arange(1, 9, dtype="float32") / 7)[None].repeat(2, axis=0)
    wide_numpy = X.astype(np.float64) + 1e8
    expected = (wide_numpy - 1e8) * wide_numpy.sum(axis=1, keepdims=True)
    jitted = jax.jit(lambda a: fn(params, a)[0])(X[0])
    assert jitted.dtype == np.float64
    np.testing.assert_allclose(jitted, expected[0], rtol=1e-9)
    np.testing.assert_allclose(jax.vmap(lambda a: fn(params, a)[0])(X), expected, rtol=1e-9)
    # d/dx sum((w - 1e8) * sum(w)) = sum(w) + sum(w - 1e8) for each x, w = x + 1e8
    grad = jax.grad(lambda a: total(params, a)[0])(X[0])
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, np.full(8, wide_numpy[0].sum() + (wide_numpy[0] - 1e8).sum()),
                               rtol=1e-7)


def test_64_bit_jax_arrays_keep_their_dtype_when_traced_with_x64_off():
    # JAX narrows NumPy arrays and Python numbers it traces, not 64-bit jax.Arrays
    # (made under jax.enable_x64, as params are): those need no x64 mode.
    f, w, X = _float64_sum()
    fn, params = f.as_jax()
    with jax.enable_x64(True):
        X = jax.device_put(X)
    for transform in sorted(_TRANSFORMS):
        result = _TRANSFORMS[transform](fn, params, X)
        with jax.enable_x64(True):  # compare in float64
            np.testing.assert_allclose(np.asarray(result), _numpy_float64(transform, w, np.asarray(X)),
                                       rtol=1e-12, atol=1e-13)
    grads = jax.grad(lambda p: fn(p, X[0])[0])(params)  # over the params themselves
    with jax.enable_x64(True):
        expected = np.asarray(X[0]) * (1 - np.tanh(np.asarray(X[0]) * w) ** 2)
        np.testing.assert_allclose(np.asarray(grads["w"]), expected, rtol=1e-12, atol=1e-13)


def test_the_message_names_each_narrowed_value_and_the_fix():
    n = T.lscalar("n")
    x = T.vector("x", dtype="float64")
    scale = sn.shared(np.float32(2), name="scale")  # 32 bits: not named
    offset = sn.shared(np.float64(0.5), name="offset")
    fn, params = sn.function([x, n], (x + offset) * scale * n).as_jax()
    # params from NumPy (not the jax.Arrays as_jax gives) are narrowed too.
    with pytest.raises(sn.X64DisabledError) as caught:
        jax.jit(fn)(dict(params, offset=np.float64(0.5)), np.ones(2), 3)
    lines = str(caught.value).splitlines()
    assert "JAX's 64-bit mode off" in lines[0]
    assert lines[1].startswith("  input 'x': expects float64, traced as float32; created at "
                               "test_as_jax.py")
    assert lines[2].startswith("  input 'n': expects int64, traced as int32")
    assert lines[3].startswith("  params['offset'] (shared variable 'offset'): expects float64, "
                               "traced as float32")
    assert len(lines) == 5 and 'jax.config.update("jax_enable_x64", True)' in lines[4]


@pytest.mark.parametrize("transform", sorted(_TRANSFORMS))
def test_a_64_bit_graph_is_exact_once_x64_is_on(transform, x64_on):
    # x64 turned on after as_jax() (the fixture runs first, so turn it off around as_jax).
    with jax.enable_x64(False):
        f, w, X = _float64_sum()
        fn, params = f.as_jax()
    result = _TRANSFORMS[transform](fn, params, X)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result, _numpy_float64(transform, w, X), rtol=1e-12, atol=1e-13)


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
