"""The executables kept on disk (``executable_cache.py``) and JAX's persistent cache, with
several devices: a program read back in another process runs on the devices it was
compiled for, or is compiled again; never a program for other devices.

The children run with 8 host CPU devices (``XLA_FLAGS``) over one temporary cache folder.
A first process compiles and calls a list of variants (graph, dtype, shape, where the
arguments and shared values lie, flags); a second calls them in another order, reading
the first's programs back. Every result is checked against NumPy, and no call may raise.
"""

import pytest
import json
import os
import random
import subprocess
import sys
import textwrap

import numpy as np

import symnb
from tests.lower_xla.frozen_sources import run_child

# The children import this checkout's symnb (the one under test).
_SOURCES = os.path.dirname(os.path.dirname(symnb.__file__))

# argv: a JSON file of variants; prints one JSON line: each variant's output and shared
# value after the call (or its error), and the executable cache's counts.
_CHILD = textwrap.dedent("""
    import contextlib, json, sys
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P
    import symnb as sn, symnb.tensor as T
    from symnb.lower_xla.executable_cache import counts

    jax_hits = []  # JAX's persistent cache (programs over several devices) read back
    jax.monitoring.register_event_listener(
        lambda event, **kwargs: jax_hits.append(1) if event == "/jax/compilation_cache/cache_hits" else None)
    devices = jax.devices()
    assert len(devices) == 8, devices

    def mesh(chosen):
        return Mesh(np.array(chosen), ("data",), axis_types=(AxisType.Auto,))

    def values(dtype, n):
        if np.dtype(dtype).kind == "f":
            return (np.linspace(-2, 2, n * 4).reshape(n, 4).astype(dtype),
                    np.linspace(-1, 1, 12).reshape(4, 3).astype(dtype))
        return ((np.arange(n * 4).reshape(n, 4) % 9 - 4).astype(dtype),
                (np.arange(12).reshape(4, 3) % 5 - 2).astype(dtype))

    def build(v, W):
        x = T.matrix("x", dtype=v["dtype"])
        inputs, updates = [x], []
        if v["graph"] == "tanh_dot":
            out = T.tanh(T.dot(x, W)).sum(axis=1)
        elif v["graph"] == "affine":
            out = (x * 3).sum(axis=1) + W.sum()
        elif v["graph"] == "update":
            out = T.dot(x, W).sum()
            updates = [(W, W * 2 + 1)]
        else:  # gather: indices known at run time (an index check unless turned off)
            idx = T.ivector("idx")
            inputs.append(idx)
            out = x[idx].sum(axis=1) + W.sum()
        split = NamedSharding(mesh(devices), P("data", None))
        in_shardings = [split] + [None] * (len(inputs) - 1) if v["place"] == "in_shardings" else None
        return sn.function(inputs, out, updates=updates, in_shardings=in_shardings)

    def argument(v, X):
        place, k = v["place"], v["device"]
        if place == "device":
            return jax.device_put(X, devices[k])
        if place == "uncommitted":
            return jnp.asarray(X)
        if place in ("sharded_input", "sharded_shared"):
            return jax.device_put(X, NamedSharding(mesh(devices), P("data", None)))
        if place in ("mesh2", "shared_on_mesh2"):
            return jax.device_put(X, NamedSharding(mesh(devices[k:k + 2]), P("data", None)))
        if place == "one_device_mesh":
            return jax.device_put(X, NamedSharding(mesh(devices[k:k + 1]), P("data", None)))
        return X  # numpy, default_device, in_shardings

    def shared_sharding(v):
        k = v["device"]
        chosen = {"sharded_shared": devices, "shared_on_mesh2": devices[k:k + 2]}.get(v["place"])
        return None if chosen is None else NamedSharding(mesh(chosen), P())

    def run(v):
        X, w = values(v["dtype"], v["n"])
        W = sn.shared(w, name="W", sharding=shared_sharding(v))
        f = build(v, W)
        with jax.enable_x64(True):  # else JAX stores a float64/int64 argument in 32 bits
            args = [argument(v, X)] + ([np.array([v["n"] - 1, 0, 2], "int32")] if v["graph"] == "gather" else [])
        return {"out": np.asarray(f(*args)).tolist(), "W": np.asarray(W.get_value()).tolist()}

    def scope(v):
        stack = contextlib.ExitStack()
        if v["flags"]:
            stack.enter_context(sn.config.change_flags(**v["flags"]))
        if v["x64"]:
            stack.enter_context(jax.enable_x64(True))
        if v["place"] == "default_device":
            stack.enter_context(jax.default_device(devices[v["device"]]))
        return stack

    results = []
    for v in json.load(open(sys.argv[1])):
        try:
            with scope(v):
                results.append(run(v))
        except Exception as error:
            results.append({"error": f"{type(error).__name__}: {error}"[:2000]})
    print(json.dumps({"results": results, "hits": counts.hits, "misses": counts.misses,
                      "writes": counts.writes, "jax_hits": len(jax_hits)}))
""")

_GRAPHS = ("tanh_dot", "affine", "update", "gather")
_PLACES = ("numpy", "device", "uncommitted", "default_device", "sharded_input",
           "sharded_shared", "mesh2", "shared_on_mesh2", "one_device_mesh", "in_shardings")
_FLAGS = ({}, {"optimizer": "fast_compile"}, {"index_checks": False})


def _run(tmp_path, variants: list[dict], name: str) -> dict:
    listing = tmp_path / f"{name}.json"
    listing.write_text(json.dumps(variants))
    # The processes share executables: they run one copy of the sources (frozen_sources.py);
    # 8 host devices, whatever accelerator the machine has.
    return run_child(tmp_path, _CHILD, str(listing), timeout=600,
                     env={"XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"})


def _variant(graph: str, dtype: str = "float32", n: int = 8, place: str = "numpy",
             device: int = 0, flags: dict | None = None, x64: bool = False) -> dict:
    return dict(graph=graph, dtype=dtype, n=n, place=place, device=device, flags=flags or {},
                x64=x64)


def _expected(v: dict) -> tuple[np.ndarray, np.ndarray]:
    """The variant's output and shared value after the call, in NumPy."""
    dtype, n = v["dtype"], v["n"]
    if np.dtype(dtype).kind == "f":
        X = np.linspace(-2, 2, n * 4).reshape(n, 4).astype(dtype)
        W = np.linspace(-1, 1, 12).reshape(4, 3).astype(dtype)
    else:
        X = (np.arange(n * 4).reshape(n, 4) % 9 - 4).astype(dtype)
        W = (np.arange(12).reshape(4, 3) % 5 - 2).astype(dtype)
    if v["graph"] == "tanh_dot":
        return np.tanh(X @ W).sum(axis=1), W
    if v["graph"] == "affine":
        return (X * 3).sum(axis=1) + W.sum(), W
    if v["graph"] == "update":
        return (X @ W).sum(), W * 2 + 1
    return X[[n - 1, 0, 2]].sum(axis=1) + W.sum(), W


def _check(variants: list[dict], run: dict) -> None:
    for v, result in zip(variants, run["results"], strict=True):
        assert "error" not in result, (v, result["error"])
        out, W = _expected(v)
        tolerance = dict(rtol=1e-12, atol=1e-12) if v["dtype"] == "float64" else \
            dict(rtol=1e-5, atol=1e-5) if v["dtype"] == "float32" else dict(rtol=0, atol=0)
        np.testing.assert_allclose(result["out"], out, **tolerance, err_msg=str(v))
        np.testing.assert_allclose(result["W"], W, **tolerance, err_msg=str(v))


def test_a_program_read_back_beside_a_sharded_one_runs_on_one_device(tmp_path):
    # The same graph called once on one device, once with its shared variable on a
    # mesh of 8 devices and its input split over it; twice, in two processes.
    variants = [_variant("tanh_dot"), _variant("tanh_dot", place="sharded_shared")]
    first = _run(tmp_path, variants, "first")
    second = _run(tmp_path, variants, "second")
    assert first["writes"] >= 1 and second["hits"] >= 1  # read back from disk
    assert second["jax_hits"] >= 1  # the sharded program, from JAX's cache
    for run in (first, second):
        _check(variants, run)


def _fuzz_variants(seed: int, count: int) -> list[dict]:
    """``count`` variants drawn with ``seed``: a graph, a dtype (floats for tanh), a
    batch, where the arguments lie, on which device, and flags."""
    rng = random.Random(seed)
    variants = []
    for _ in range(count):
        graph = rng.choice(_GRAPHS)
        dtypes = ("float32", "float64") if graph == "tanh_dot" else ("float32", "float64", "int32", "int64")
        variants.append(_variant(graph, rng.choice(dtypes), rng.choice((8, 16)), rng.choice(_PLACES),
                                 rng.randrange(7), rng.choice(_FLAGS), rng.random() < 0.25))
    return variants


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
def test_variants_read_back_in_another_order_give_numpys_results(tmp_path):
    variants = _fuzz_variants(seed=27, count=36)
    order = list(range(len(variants)))
    random.Random(8).shuffle(order)
    first = _run(tmp_path, variants, "first")
    _check(variants, first)
    shuffled = [variants[i] for i in order]
    second = _run(tmp_path, shuffled, "second")
    _check(shuffled, second)
    # Both caches were read: symnb's executables (one device), JAX's (several).
    assert second["hits"] >= 1 and second["jax_hits"] >= 1, second


# An executable compiled for device 3, written as the cache writes it, read back: the
# check that guards every read (whatever the key says) accepts it only on device 3.
_GUARD = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.experimental.serialize_executable import serialize, deserialize_and_load
    from symnb.lower_xla.executable_cache import _runs_where_called
    devices = jax.devices()
    on_3 = jax.device_put(np.ones(4, "float32"), devices[3])
    on_5 = jax.device_put(np.ones(4, "float32"), devices[5])
    compiled = jax.jit(lambda a: jnp.tanh(a).sum()).lower(on_3).compile()
    kept = serialize(compiled)
    loaded = deserialize_and_load(*kept, backend="cpu", execution_devices=[devices[3]])
    everywhere = deserialize_and_load(*kept, backend="cpu")  # JAX's default: every device
    print(_runs_where_called(loaded, [devices[3]], (on_3,)),
          _runs_where_called(loaded, [devices[3]], (np.ones(4, "float32"),)),
          _runs_where_called(loaded, [devices[3]], (on_5,)),
          _runs_where_called(everywhere, [devices[3]], (on_3,)),
          _runs_where_called(loaded, [devices[5]], (on_5,)),
          float(loaded(on_3)))
""")


def test_an_executable_runs_only_on_the_device_it_was_kept_for(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([_SOURCES, os.environ.get("PYTHONPATH", "")]),
               XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", _GUARD], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    *verdicts, value = done.stdout.split()
    assert verdicts == ["True", "True", "False", "False", "False"]
    np.testing.assert_allclose(float(value), 4 * np.tanh(1.0), rtol=1e-6)
