"""lower_xla/executable_cache.py: executables kept on disk, found before tracing.

Each test runs fresh Python processes over a temporary cache folder and a copy of this
checkout's symnb (the key holds symnb's sources: a checkout edited while the suite runs
must not change what a test's processes share); the child reports
the executable cache's counts (hits, misses), how many times programs were traced, its
results and the shared variable's new value, all checked against NumPy. A second
process running the same program reads the executable back without tracing it; a
changed graph, dtype, shape, flag, donation or version never does; a check that fails
in a program read back gives the error it gives when compiled, and leaves the shared
variable as it was. (Correctness, not speed: bench/bench_first_result.py measures it.)
"""

import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest

from symnb.lower_xla.checks import CheckSite, CheckTable
from tests.lower_xla.frozen_sources import frozen_sources, run_child

# A softmax classifier's SGD step: W (shared, updated: donated) indexed by labels known
# only at run time (an index check). argv: a JSON of the variant to build.
_CHILD = textwrap.dedent("""
    import json, sys
    options = json.loads(sys.argv[1])
    if options.get("version"):
        import symnb._version
        symnb._version.__version__ = options["version"]
    if options.get("jax_version"):
        import jax
        jax.__version__ = options["jax_version"]
    if options.get("jax_cache_read_once"):
        # JAX reads its own cache despite symnb's bypass when another thread made it
        # decide to, meanwhile: that race, made certain (the first compile is said read).
        import contextlib
        import symnb.lower_xla.executable_cache as kept
        bypassed, said = kept.jax_cache_bypassed, []

        @contextlib.contextmanager
        def read_once():
            with bypassed() as read_back:
                yield read_back
            if not said:
                said.append(True)
                read_back[0] = True
        kept.jax_cache_bypassed = read_once
    import numpy as np
    import symnb as sn, symnb.tensor as T
    from symnb.lower_xla.cache import program_cache
    from symnb.lower_xla.executable_cache import counts
    dtype, n = options.get("dtype", "float32"), options.get("n", 6)
    W = sn.shared(np.linspace(-1, 1, 12).reshape(4, 3).astype(dtype), name="W")
    x = T.matrix("x", dtype=dtype)
    y = T.ivector("y")
    scores = T.dot(x, W) * options.get("scale", 1.0)
    cost = -T.mean(T.log_softmax(scores)[T.arange(y.shape[0]), y])
    updates = [(W, W - 0.5 * sn.grad(cost, W))] if options.get("updates", True) else []
    f = sn.function([x, y], cost, updates=updates)
    xv = np.linspace(0, 1, n * 4).reshape(n, 4).astype(dtype)
    yv = (np.arange(n) % 3).astype("int32")
    if options.get("bad_label"):
        yv[1] = 7
    out = {}
    before = W.get_value().copy()
    try:
        out["cost"] = float(f(xv, yv))
    except Exception as error:
        out["error"] = str(error)
        out["unchanged"] = bool(np.array_equal(W.get_value(), before))
    out.update(W=W.get_value().tolist(), hits=counts.hits, misses=counts.misses,
               writes=counts.writes, skipped=counts.skipped, traces=program_cache.traces,
               shapes=sorted(str(v) for v in f.last_shapes.values()))
    print(json.dumps(out))
""")


def _sources(tmp_path) -> Path:
    return Path(frozen_sources(tmp_path))


def _run(tmp_path, cache: str | None = None, flags: str = "", **options) -> dict:
    return run_child(tmp_path, _CHILD, json.dumps(options), cache=cache, flags=flags,
                     name="training_step.py")


def _numpy_step(dtype: str = "float32", n: int = 6, scale: float = 1.0) -> tuple[float, np.ndarray]:
    """The step in NumPy (float64): the cost and W's new value."""
    W = np.linspace(-1, 1, 12).reshape(4, 3).astype(dtype).astype(np.float64)
    x = np.linspace(0, 1, n * 4).reshape(n, 4).astype(dtype).astype(np.float64)
    y = np.arange(n) % 3
    scores = x @ W * scale
    probabilities = np.exp(scores - scores.max(1, keepdims=True))
    probabilities /= probabilities.sum(1, keepdims=True)
    cost = -np.mean(np.log(probabilities[np.arange(n), y]))
    delta = probabilities.copy()
    delta[np.arange(n), y] -= 1
    return cost, W - 0.5 * scale * x.T @ delta / n


def _check_values(run: dict, dtype: str = "float32", n: int = 6, scale: float = 1.0,
                  updates: bool = True) -> None:
    cost, W = _numpy_step(dtype, n, scale)
    np.testing.assert_allclose(run["cost"], cost, rtol=1e-5)
    expected = W if updates else np.linspace(-1, 1, 12).reshape(4, 3)
    np.testing.assert_allclose(run["W"], expected, rtol=1e-5, atol=1e-6)


def test_a_second_process_runs_the_executable_without_tracing(tmp_path):
    first = _run(tmp_path)
    assert (first["hits"], first["misses"], first["writes"]) == (0, 1, 1)
    assert first["traces"] == 1
    assert os.listdir(tmp_path / "cache" / "symnb-0.1.0" / "executables")
    second = _run(tmp_path)
    assert (second["hits"], second["misses"], second["traces"]) == (1, 0, 0)
    assert second["shapes"] == first["shapes"] and first["shapes"]  # f.last_shapes restored
    for run in (first, second):
        _check_values(run)


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
@pytest.mark.parametrize("change", [
    dict(scale=2.0),                 # another constant in the graph
    dict(dtype="float64"),           # another dtype
    dict(n=5),                       # another shape in the call
    dict(updates=False),             # no update: nothing donated, another graph
    dict(flags=",index_checks=False"),
    dict(version="0.0.0-test"),      # another symnb version
    dict(jax_version="0.10.99"),     # another (supported) jax version: only the key tells
])
def test_a_changed_program_is_not_read_back(tmp_path, change):
    _run(tmp_path)  # the program above, kept
    run = _run(tmp_path, **change)
    assert run["hits"] == 0 and run["misses"] == 1 and run["traces"] == 1
    _check_values(run, change.get("dtype", "float32"), change.get("n", 6),
                  change.get("scale", 1.0), change.get("updates", True))


def test_a_failed_check_read_back_reports_the_same_error(tmp_path):
    first = _run(tmp_path, bad_label=True)
    second = _run(tmp_path, bad_label=True)
    assert (first["misses"], second["hits"], second["traces"]) == (1, 1, 0)
    assert second["error"] == first["error"]
    assert "IndexError" in first["error"] and "training_step.py" in first["error"]
    assert "T.log_softmax(scores)[T.arange(y.shape[0]), y]" in first["error"]
    assert first["unchanged"] and second["unchanged"]
    np.testing.assert_array_equal(second["W"], np.linspace(-1, 1, 12).reshape(4, 3)
                                  .astype("float32"))


def test_sources_rewritten_unchanged_keep_the_executable_changed_ones_do_not(tmp_path):
    """A merge or a checkout rewrites files it leaves unchanged: the key held their
    modification times, so the next process compiled anew (a second process of a test
    missed the executable the first had kept)."""
    first = _run(tmp_path)
    later = os.stat(_sources(tmp_path) / "symnb" / "__init__.py").st_mtime_ns + 10**9
    for path in _sources(tmp_path).rglob("*.py"):
        os.utime(path, ns=(later, later))
    second = _run(tmp_path)
    assert (first["writes"], second["hits"], second["traces"]) == (1, 1, 0)
    with open(_sources(tmp_path) / "symnb" / "widgets" / "viewer.py", "a") as file:
        file.write("# another version\n")
    third = _run(tmp_path)
    assert (third["hits"], third["misses"], third["traces"]) == (0, 1, 1)
    for run in (first, second, third):
        _check_values(run)


def test_a_compile_jax_read_from_its_cache_is_done_again_and_kept(tmp_path):
    """symnb keeps only executables XLA compiled (JAX's cache gives ones that serialize
    incompletely on CPU); one JAX read back anyway was not kept, so the next process
    compiled again. It is compiled again, fresh, and kept."""
    first = _run(tmp_path, jax_cache_read_once=True)
    assert (first["misses"], first["writes"], first["skipped"], first["traces"]) == (1, 1, 0, 1)
    second = _run(tmp_path)
    assert (second["hits"], second["misses"], second["traces"]) == (1, 0, 0)
    for run in (first, second):
        _check_values(run)


def test_the_good_call_and_the_failing_one_share_the_executable(tmp_path):
    _run(tmp_path)  # kept by a call whose check passed
    failing = _run(tmp_path, bad_label=True)
    assert failing["hits"] == 1 and failing["traces"] == 0
    assert "IndexError" in failing["error"] and failing["unchanged"]


def test_an_empty_folder_turns_it_off(tmp_path):
    for _ in range(2):
        run = _run(tmp_path, cache="")
        assert (run["hits"], run["misses"], run["writes"], run["traces"]) == (0, 0, 0, 1)
        _check_values(run)
    assert not (tmp_path / "cache").exists()


def _sites(n: int) -> list[CheckSite]:
    nodes = [object() for _ in range(n)]  # stand-ins: a site compares its node by identity
    return [CheckSite(node, "index", (("axis", i),)) for i, node in enumerate(nodes)]


def test_a_check_table_takes_back_only_the_ids_it_agrees_with():
    sites = _sites(3)
    table = CheckTable()
    assert table.restore(sites[:2]) and table.sites == sites[:2]
    assert table.restore(sites) and table.sites == sites  # extends
    assert table.add(sites[1]) == 1 and table.add(sites[2]) == 2
    assert table.restore(sites[:1]) and table.sites == sites  # a prefix agrees
    other = CheckTable()
    other.add(sites[2])
    assert not other.restore(sites) and other.sites == [sites[2]]  # id 0 taken by another


def test_a_program_lowered_by_a_rule_from_outside_symnb_is_not_kept():
    # The key covers symnb's code (its version and sources); a rule a user registers for
    # one of symnb's ops is code it cannot see, so such a program is never kept.
    import symnb.tensor as T
    from symnb.lower_xla.executable_cache import program_bytes
    from symnb.lower_xla.registry import lower

    op = T.exp(T.vector("x")).owner.op
    assert program_bytes((op,)) is not None
    original = lower.dispatch(type(op))
    lower.register(type(op))(lambda op, node: (lambda x: x))  # this test module's rule
    try:
        assert program_bytes((op,)) is None
    finally:
        lower.register(type(op))(original)
    assert lower.dispatch(type(op)) is original and program_bytes((op,)) is not None


# Linear algebra calls LAPACK's kernels, which lowering loads first: a second process
# runs the executable read back without lowering it.
_LINALG_CHILD = textwrap.dedent("""
    import json
    import numpy as np
    import symnb as sn, symnb.tensor as T
    from symnb.lower_xla.cache import program_cache
    from symnb.lower_xla.executable_cache import counts
    a = T.dmatrix("a")
    f = sn.function([a], [T.slinalg.cholesky(a), T.nlinalg.eigh(a)[0],
                          T.slinalg.solve(a, a[:, 0]), T.nlinalg.matrix_inverse(a)])
    value = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    results = [r.tolist() for r in f(value)]
    print(json.dumps(dict(results=results, hits=counts.hits, traces=program_cache.traces)))
""")


def test_a_linear_algebra_program_read_back_runs(tmp_path):
    # (a crash, -11, came before LAPACK was loaded first)
    runs = [run_child(tmp_path, _LINALG_CHILD) for _ in range(2)]
    assert (runs[0]["hits"], runs[1]["hits"], runs[1]["traces"]) == (0, 1, 0)
    value = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    expected = [np.linalg.cholesky(value), np.linalg.eigvalsh(value),
                np.linalg.solve(value, value[:, 0]), np.linalg.inv(value)]
    for run in runs:
        for got, want in zip(run["results"], expected):
            np.testing.assert_allclose(got, want, rtol=1e-12)
