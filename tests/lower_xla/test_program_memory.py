"""The memory compiled programs hold (``symnb/lower_xla/program_memory.py``) and the
program cache's bound on it (``config.program_cache_mb``), down to a long session's
resident memory: a notebook cell edited and run again hundreds of times."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.basic import toposort
from symnb.lower_xla.cache import Program, ProgramCache, TraceRecord, compiled_program
from symnb.lower_xla.program_memory import graph_bytes

ROOT = Path(__file__).resolve().parents[2]


def _program(nbytes):
    return Program(jitted=lambda: None, nodes=[], record=TraceRecord(nbytes=nbytes))


def test_the_cache_drops_the_least_recently_used_beyond_its_memory_bound():
    cache = ProgramCache(maxsize=100)
    programs = {key: _program(3 << 20) for key in "abcd"}
    with sn.config.change_flags(program_cache_mb=8):
        cache.put("a", programs["a"])
        cache.put("b", programs["b"])
        assert cache.get("a") is programs["a"]  # "a" is now the most recently used
        cache.put("c", programs["c"])           # 9 MB: "b" goes
        assert cache.get("b") is None and len(cache) == 2 and cache.nbytes == 6 << 20
        cache.put("d", _program(20 << 20))      # alone beyond the bound: kept, alone
        assert [cache.get(k) is not None for k in "acd"] == [False, False, True]


def test_each_trace_adds_to_a_program_s_memory_and_the_bound_drops_it(monkeypatch):
    fresh = ProgramCache()
    monkeypatch.setattr("symnb.lower_xla.cache.program_cache", fresh)

    def graph(build):
        x = T.vector("x")
        out = build(x)
        return [x], [out], toposort([out], [x])

    first = compiled_program(*graph(lambda x: T.sin(x) * 2.0), (), "fast_run")
    untraced = first.nbytes
    value = np.linspace(-1, 1, 3).astype("float32")
    np.testing.assert_allclose(first.call(value)[0], np.sin(value) * 2, rtol=1e-6)
    one_trace = first.nbytes - untraced
    assert one_trace > 1 << 20  # an executable: more than a megabyte, whatever the graph
    first.call(np.ones(4, "float32"))  # a new shape: a second executable
    assert first.nbytes == untraced + 2 * one_trace
    with sn.config.change_flags(program_cache_mb=1):
        compiled_program(*graph(lambda x: T.cos(x)), (), "fast_run")
        assert len(fresh) == 1  # the first, the least recently used, went
        assert compiled_program(*graph(lambda u: T.sin(u) * 2.0), (), "fast_run") is not first
    np.testing.assert_allclose(first.call(value)[0], np.sin(value) * 2, rtol=1e-6)  # still runs


def test_the_graph_s_arrays_are_counted_once_each():
    x = T.vector("x")
    x.tag.test_value = np.linspace(0, 1, 500).astype("float32")
    weights = np.arange(500, dtype="float64")
    w = T.constant(weights)
    out = x * w + w  # the constant's array twice, counted once
    product = x.tag.test_value * weights
    expected = x.tag.test_value.nbytes + weights.nbytes + product.nbytes + (product + weights).nbytes
    assert graph_bytes(toposort([out], [x])) == expected


SESSION = """
import gc, json, sys
import numpy as np
import symnb as sn
import symnb.tensor as T
from symnb.lower_xla.cache import Program, program_cache

def resident():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) << 10 for line in status if line.startswith("VmRSS:"))

# A notebook cell edited and run again: each run compiles its code anew (a new code
# object, defining its function anew), builds a distinct graph, then calls it (its
# program, traced, grows: the bound is checked at the next compile).
CELL = '''
def build(c):
    x = T.vector("x"); y = T.vector("y")
    return sn.function([x, y], x * c + y)
f = build({c})
'''
cells = int(sys.argv[1])
namespace = {"sn": sn, "T": T, "xv": np.arange(5, dtype="float32")}
rss, bound_kept, wrong = {}, True, []
for i in range(1, cells + 1):
    exec(compile(CELL.format(c=float(i)), f"<cell {i}>", "exec"), namespace)
    bound_kept &= program_cache.nbytes <= sn.config.program_cache_mb << 20 or len(program_cache) == 1
    exec(compile("result = f(xv, xv)", f"<cell {i}>", "exec"), namespace)
    if not np.array_equal(namespace["result"], namespace["xv"] * (i + 1)):
        wrong.append(i)
    if i in (cells // 2, cells):
        rss[i] = resident()
alive = sum(1 for o in gc.get_objects() if type(o) is Program)
print(json.dumps({"rss": [rss[cells // 2], rss[cells]], "cached": len(program_cache),
                  "nbytes": program_cache.nbytes, "bound_kept": bound_kept, "alive": alive,
                  "wrong": wrong}))
"""


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmRSS (Linux)")
def test_a_long_session_s_memory_stops_growing_once_the_cache_is_full(tmp_path):
    """300 runs of a cell, with the cache bounded at 16 MB (about ten small programs):
    over the last 150 the resident memory grows less than 20 MB. It grew 1.5 MB per run
    (225 MB): every run's function and program stayed alive, held by the last frame of
    the cell's ``build`` that symnb's source records kept (``core/graph/source.py``)."""
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])),
           "SYMNB_FLAGS": f"program_cache_mb=16,compile_cache_dir={tmp_path}"}
    done = subprocess.run([sys.executable, "-c", SESSION, "300"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["wrong"] == []
    assert found["bound_kept"] and 1 < found["cached"] < 128  # the memory bound, not the count
    # Programs alive: the cached ones and the last cell's (held by its function).
    assert found["alive"] <= found["cached"] + 1, found
    half, end = found["rss"]
    assert end - half < 20 << 20, f"grew {(end - half) / 2**20:.1f} MB over the last 150 cells"
