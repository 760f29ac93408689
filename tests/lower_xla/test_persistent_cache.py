"""lower_xla/persistent_cache.py: compiled programs kept on disk between processes.

Each test runs fresh Python processes over a temporary cache folder and counts the
persistent cache's hits and misses: JAX's (its monitoring events) and symnb's
executables found before tracing (``executable_cache.counts``), which serves most
programs: a second process running the same graph reads its program back, and a
changed graph, dtype or shape never does.
Every result is checked against NumPy. (Correctness, not speed: bench/bench_first_result.py
measures the time saved.)
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symnb

# The children import this checkout's symnb (the one under test).
_SOURCES = os.path.dirname(os.path.dirname(symnb.__file__))

# One program per run: ``expression`` of x (a vector of ``dtype`` and ``length``),
# compiled and called; prints the result and the cache's hits and misses.
_CHILD = textwrap.dedent("""
    import json, sys
    import jax, numpy as np
    events = {"hits": 0, "misses": 0}
    def listen(event, **kwargs):
        if event == "/jax/compilation_cache/cache_hits":
            events["hits"] += 1
        elif event == "/jax/compilation_cache/cache_misses":
            events["misses"] += 1
    jax.monitoring.register_event_listener(listen)
    import symnb as sn, symnb.tensor as T
    expression, dtype, length = sys.argv[1], sys.argv[2], int(sys.argv[3])
    x = T.vector("x", dtype=dtype)
    f = sn.function([x], eval(expression, {"T": T, "x": x}))
    value = np.linspace(0, 1, length).astype(dtype)
    result = f(value).tolist()
    from symnb.lower_xla.executable_cache import counts
    events["hits"] += counts.hits
    events["misses"] += counts.misses
    print(json.dumps({"result": result, "folder": jax.config.jax_compilation_cache_dir,
                      **events}))
""")


def _run(cache: str | None, expression: str = "T.exp(x) * 3", dtype: str = "float32",
         length: int = 5, environ: dict | None = None) -> dict:
    env = dict(os.environ if environ is None else environ)
    env["PYTHONPATH"] = os.pathsep.join([_SOURCES, env.get("PYTHONPATH", "")])
    env["SYMNB_FLAGS"] = "compile_cache_min_seconds=0" + \
        ("" if cache is None else f",compile_cache_dir={cache}")
    done = subprocess.run([sys.executable, "-c", _CHILD, expression, dtype, str(length)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _expected(expression_numpy, dtype: str = "float32", length: int = 5) -> np.ndarray:
    return expression_numpy(np.linspace(0, 1, length).astype(dtype))


def test_a_second_process_reads_the_program_back(tmp_path):
    first = _run(str(tmp_path))
    assert first["misses"] >= 1 and first["hits"] == 0
    assert first["folder"].startswith(str(tmp_path)) and os.listdir(first["folder"])
    second = _run(str(tmp_path))
    assert second["hits"] >= 1 and second["misses"] == 0
    for run in (first, second):
        np.testing.assert_allclose(run["result"], _expected(lambda v: np.exp(v) * 3), rtol=1e-6)


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
@pytest.mark.parametrize("expression, dtype, length, numpy_expression", [
    ("T.exp(x) * 4", "float32", 5, lambda v: np.exp(v) * 4),   # another constant
    ("T.sin(x) * 3", "float32", 5, lambda v: np.sin(v) * 3),   # another op
    ("T.exp(x) * 3", "float64", 5, lambda v: np.exp(v) * 3),   # another dtype
    ("T.exp(x) * 3", "float32", 7, lambda v: np.exp(v) * 3),   # another shape
])
def test_a_changed_graph_dtype_or_shape_is_compiled_anew(tmp_path, expression, dtype, length,
                                                          numpy_expression):
    _run(str(tmp_path))  # T.exp(x) * 3 on 5 float32 values, cached
    changed = _run(str(tmp_path), expression, dtype, length)
    assert changed["hits"] == 0 and changed["misses"] >= 1
    np.testing.assert_allclose(changed["result"], _expected(numpy_expression, dtype, length),
                               rtol=1e-6)


def test_on_by_default_in_the_per_user_cache_folder(tmp_path):
    environ = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    run = _run(None, environ=environ)
    folder = tmp_path / "symnb" / "compiled"
    assert run["folder"].startswith(str(folder)) and run["misses"] >= 1
    assert any(folder.rglob("*")), "no compiled program was written to the default folder"


def test_an_empty_folder_turns_the_cache_off(tmp_path):
    environ = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    run = _run("", environ=environ)
    assert run["folder"] is None and run["hits"] == run["misses"] == 0
    assert not any(tmp_path.rglob("*"))
    np.testing.assert_allclose(run["result"], _expected(lambda v: np.exp(v) * 3), rtol=1e-6)


def test_a_cache_folder_the_user_gave_jax_is_left_alone(tmp_path):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    code = textwrap.dedent(f"""
        import jax, numpy as np
        jax.config.update("jax_compilation_cache_dir", {str(theirs)!r})
        import symnb as sn, symnb.tensor as T
        x = T.vector("x")
        print(sn.function([x], x + 1)(np.zeros(2, "float32")).tolist(),
              jax.config.jax_compilation_cache_dir)
    """)
    env = dict(os.environ, SYMNB_FLAGS=f"compile_cache_dir={ours},compile_cache_min_seconds=0",
               PYTHONPATH=os.pathsep.join([_SOURCES, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    assert done.stdout.split() == ["[1.0,", "1.0]", str(theirs)]
    assert not ours.exists()
