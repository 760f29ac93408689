"""Checks that need 8 devices, run in ONE subprocess by test_sharding.py.

JAX fixes its device count when it starts, so XLA_FLAGS (8 forced host devices) is set
here before JAX is imported. Each check raises AssertionError on failure; ``main``
writes ``{check name: "ok" or the traceback}`` as JSON to the path in argv[1].
"""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import json  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import mlp_model  # noqa: E402

MESH = jax.make_mesh((8,), ("data",))


def data_parallel_step():
    data = NamedSharding(MESH, P("data"))
    return mlp_model.training_step(MESH, in_shardings=[data, data])


def check_data_parallel_matches_one_device():
    one_step, one_params = mlp_model.training_step()
    step, params = data_parallel_step()
    X, Y = mlp_model.data()
    for _ in range(mlp_model.STEPS):
        one_loss, loss = one_step(X, Y), step(X, Y)
    np.testing.assert_allclose(loss, one_loss, rtol=1e-5, atol=1e-5)
    reference = mlp_model.reference_training()
    for one, many in zip(one_params, params):
        np.testing.assert_allclose(many.get_value(), one.get_value(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(many.get_value(), reference[many.name], rtol=1e-4, atol=1e-5)
        # The update kept the shared variable's sharding: replicated over the 8 devices.
        value = many._backend_value()
        assert len(value.sharding.device_set) == 8 and value.sharding.is_fully_replicated, value.sharding
    hlo = step.lowered_text("hlo")
    assert "all-reduce" in hlo, "the data-parallel gradient has no all-reduce"
    assert "all-reduce" not in one_step.lowered_text("hlo")


def check_sharded_jax_inputs_and_explicit_meshes():
    """Inputs already split over the devices (made on jax.make_mesh's Explicit axes)
    are taken as they are and give the one-device result."""
    one_step, one_params = mlp_model.training_step()
    step, params = data_parallel_step()
    X, Y = mlp_model.data()
    split = NamedSharding(MESH, P("data"))
    gX, gY = jax.device_put(X, split), jax.device_put(Y, split)
    step(gX, gY)
    one_step(X, Y)
    for one, many in zip(one_params, params):
        np.testing.assert_allclose(many.get_value(), one.get_value(), rtol=1e-5, atol=1e-5)


def check_model_parallel_layer():
    mesh = jax.make_mesh((8,), ("model",))
    rng = np.random.default_rng(3)
    w = rng.normal(size=(6, 16)).astype("float32")
    b = rng.normal(size=(16,)).astype("float32")
    x_value = rng.normal(size=(5, 6)).astype("float32")
    W = sn.shared(w, name="W", sharding=(mesh, P(None, "model")))
    B = sn.shared(b, name="B", sharding=(mesh, P("model")))
    x = T.matrix("x")
    x.tag.test_value = x_value
    layer = T.tanh(T.dot(x, W) + B)
    split = sn.function([x], layer, out_shardings=(mesh, P(None, "model")))
    gathered = sn.function([x], layer.sum(axis=1), out_shardings=mesh)
    expected = np.tanh(x_value @ w + b)
    np.testing.assert_allclose(split(x_value), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gathered(x_value), expected.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert W._backend_value().sharding.spec == P(None, "model")
    assert W._backend_value().addressable_shards[0].data.shape == (6, 2)
    # Summing over the split axis needs the shards of every device.
    assert "all-reduce" in gathered.lowered_text("hlo") or "all-gather" in gathered.lowered_text("hlo")


def check_updates_keep_a_split_sharding():
    mesh = jax.make_mesh((8,), ("model",))
    value = np.arange(32, dtype="float32").reshape(4, 8)
    W = sn.shared(value, name="W", sharding=(mesh, P(None, "model")))
    step = sn.function([], [], updates=[(W, W * 2 + 1)])
    step()
    step()
    np.testing.assert_array_equal(W.get_value(), (value * 2 + 1) * 2 + 1)
    assert W._backend_value().sharding.spec == P(None, "model")


def check_an_update_follows_an_input_on_another_device():
    """A shared variable JAX may move (not given a sharding) and updated by the step
    goes where a committed input is, from the first call on: that call donates a copy
    of the shared value, which must not be committed to the default device (later
    calls donate the value itself; the update then lies, committed, on device 3)."""
    value = np.linspace(-1, 1, 12).reshape(4, 3).astype("float32")
    W = sn.shared(value, name="W_follows")
    x = T.matrix("x")
    step = sn.function([x], T.dot(x, W).sum() * 1.5, updates=[(W, W * 2 + 1)])
    X = np.linspace(-2, 2, 20).reshape(5, 4).astype("float32")
    for _ in range(2):
        before = W.get_value()
        loss = step(jax.device_put(X, jax.devices()[3]))
        np.testing.assert_allclose(loss, (X @ before).sum() * 1.5, rtol=1e-5)
        np.testing.assert_allclose(W.get_value(), before * 2 + 1, rtol=1e-6)


def _moved_to_device_1(**options):
    """A step whose shared variable W an input committed to device 1 took there."""
    value = np.linspace(-1, 1, 12).reshape(4, 3).astype("float32")
    W = sn.shared(value, name="W_moved")
    x = T.matrix("x")
    step = sn.function([x], T.dot(x, W).sum(), updates=[(W, W * 2 + 1)], **options)
    X = np.linspace(-2, 2, 20).reshape(5, 4).astype("float32")
    step(jax.device_put(X, jax.devices()[1]))
    assert W._backend_value().devices() == {jax.devices()[1]}
    return step, W, X


def _device_mismatch(call, *args) -> str:
    try:
        call(*args)
    except sn.errors.DeviceMismatchError as err:
        assert isinstance(err, ValueError)
        assert err.__cause__ is None and err.__suppress_context__, "JAX's message is not the user's"
        return str(err)
    raise AssertionError("values committed to different devices were accepted")


def check_a_shared_variable_on_another_device_than_an_input_is_named():
    """An input committed to device 0, a shared variable an earlier call left on device
    1: the error names both with their devices and how to move them; nothing ran. The
    fast path and the full path (profile=True) both say so, for shapes that ran before
    (the value itself donated) and new ones (a copy donated)."""
    for options in ({}, {"profile": True}):
        step, W, X = _moved_to_device_1(**options)
        before = W.get_value()
        for rows in (5, 3):
            message = _device_mismatch(step, jax.device_put(X[:rows], jax.devices()[0]))
            assert "input 'x': committed to cpu:0" in message, message
            assert "shared variable 'W_moved': committed to cpu:1" in message, message
            assert "W_moved.set_value(W_moved.get_value())" in message, message
            assert "the shared variables are unchanged" in message, message
            np.testing.assert_array_equal(W.get_value(), before)
        # What the message says works: NumPy follows W; W placed anew follows the input.
        np.testing.assert_allclose(step(X), (X @ before).sum(), rtol=1e-5)
        np.testing.assert_allclose(W.get_value(), before * 2 + 1, rtol=1e-6)
        W.set_value(W.get_value())
        moved = W.get_value()
        np.testing.assert_allclose(step(jax.device_put(X, jax.devices()[0])), (X @ moved).sum(), rtol=1e-5)
        assert W._backend_value().devices() == {jax.devices()[0]}


def check_two_inputs_on_different_devices_are_named():
    """The one-output fast path (no shared variable): two committed inputs."""
    a, b = T.vector("a"), T.vector("b")
    add = sn.function([a, b], a + b)
    values = np.arange(3, dtype="float32"), np.ones(3, dtype="float32")
    message = _device_mismatch(add, jax.device_put(values[0], jax.devices()[0]),
                               jax.device_put(values[1], jax.devices()[2]))
    assert "input 'a': committed to cpu:0" in message and "input 'b': committed to cpu:2" in message, message
    assert "pass 'a', 'b' as NumPy" in message, message
    np.testing.assert_array_equal(add(values[0], jax.device_put(values[1], jax.devices()[2])),
                                  values[0] + values[1])


def check_debugprint_and_profile_show_shardings():
    step, _ = data_parallel_step()
    text = sn.printing.debugprint(step, file="str")
    assert "Shardings (one SPMD program):" in text, text
    assert "output loss: not set (JAX and XLA choose)" in text, text
    assert "input X: PartitionSpec('data',) over mesh {'data': 8}" in text, text
    assert "shared W1: PartitionSpec() over mesh {'data': 8}" in text, text
    assert "update of W1: PartitionSpec() over mesh {'data': 8}" in text, text
    collective_lines = [line for line in text.splitlines() if line.strip().startswith("all-reduce")]
    assert collective_lines, text
    # The collective is traced back to a symnb node's scope.
    assert any("mlp_model.py" in line for line in collective_lines), collective_lines
    profiled, _ = mlp_model.training_step(MESH, in_shardings=[(MESH, P("data"))] * 2, profile=True)
    profiled(*mlp_model.data())
    report = profiled.profile.summary(file="str")
    assert "all-reduce" in report and "input X: PartitionSpec('data',)" in report, report
    one_device, _ = mlp_model.training_step()
    assert "Shardings" not in sn.printing.debugprint(one_device, file="str")


def check_as_jax_keeps_the_shardings():
    """as_jax's parameters are the sharded values; under jax.jit its step equals the
    compiled function's."""
    step, params = data_parallel_step()
    fn, values = step.as_jax()
    assert values["W1"].sharding.is_fully_replicated and len(values["W1"].sharding.device_set) == 8
    X, Y = mlp_model.data()
    explicit = NamedSharding(MESH, P("data"))  # jax.make_mesh's default: Explicit axes
    eager_loss, eager_new = fn(values, jax.device_put(X, explicit), jax.device_put(Y, explicit))
    try:
        jax.jit(fn)(values, jax.device_put(X, explicit), jax.device_put(Y, explicit))
    except TypeError as err:
        assert "explicit mesh axes" in str(err) and "AxisType.Auto" in str(err), err
    else:
        raise AssertionError("explicit-axes tracers were accepted")
    auto = NamedSharding(Mesh(MESH.devices, ("data",), axis_types=(AxisType.Auto,)), P("data"))
    loss, new = jax.jit(fn)(values, jax.device_put(X, auto), jax.device_put(Y, auto))
    np.testing.assert_allclose(eager_loss, loss, rtol=1e-6)
    np.testing.assert_allclose(loss, step(X, Y), rtol=1e-6)
    for p in params:
        np.testing.assert_allclose(new[p.name], p.get_value(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(eager_new[p.name], p.get_value(), rtol=1e-6, atol=1e-7)


def check_bad_shardings_are_refused():
    x = T.matrix("x")
    try:
        sn.function([x], x * 2, in_shardings=[P("data")])
    except TypeError as err:
        assert "needs a mesh" in str(err) and "'x'" in str(err), err
    else:
        raise AssertionError("a PartitionSpec without a mesh was accepted")
    try:
        sn.function([x], x * 2, in_shardings=[(MESH, P("data", None, None))])
    except ValueError as err:
        assert "partitions 3 dimension(s)" in str(err) and "'x'" in str(err), err
    else:
        raise AssertionError("a sharding of 3 dimensions for a matrix was accepted")
    f = sn.function([x], x * 2, in_shardings=[P("data")], mesh=MESH)
    value = np.arange(16, dtype="float32").reshape(8, 2)
    np.testing.assert_array_equal(f(value), value * 2)


def check_a_split_function_takes_shardings():
    """A length known only at run time (x[mask]) splits the function into programs: each
    takes the function's inputs with their shardings, the last gives the outputs with
    theirs; the result is the one-device one."""
    data = NamedSharding(MESH, P("data"))
    x = T.matrix("x")
    kept = x[x.sum(axis=1) > 0]
    f = sn.function([x], [kept.sum(axis=0), x * 2], in_shardings=[data], out_shardings=[None, data])
    one = sn.function([x], [kept.sum(axis=0), x * 2])
    assert type(f).__name__ == "SplitFunction", type(f)
    ins, outs = f.shardings
    assert ins[0].spec == P("data") and outs[0] is None and outs[1].spec == P("data"), f.shardings
    rng = np.random.default_rng(5)
    for _ in range(3):
        value = rng.normal(size=(16, 3)).astype("float32")
        for got, expected in zip(f(value), one(value)):
            np.testing.assert_allclose(got, expected, rtol=1e-6)
        # Theano's sum of float32 accumulates in float64 (acc_dtype): so does the reference,
        # since a sum near 0 of float32 terms differs in its 5th digit otherwise.
        kept_rows = value[value.sum(axis=1) > 0].astype(np.float64)
        np.testing.assert_allclose(f(value)[0], kept_rows.sum(axis=0), rtol=1e-6)


def main(out_path: str) -> None:
    results = {}
    for name, check in list(globals().items()):
        if name.startswith("check_") and callable(check):
            try:
                check()
                results[name] = "ok"
            except Exception:
                results[name] = traceback.format_exc()
    with open(out_path, "w") as file:
        json.dump(results, file)


if __name__ == "__main__":
    main(sys.argv[1])
