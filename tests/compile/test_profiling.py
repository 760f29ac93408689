"""Profiles (issue 14): structural checks, never a race between two timings."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode, WrapLinker
from symnb.compile.profiling.measure import REPLAY, XLA_TRACE
from symnb.compile.profiling.xla import hlo_scopes
from symnb.compile.profiling.attribute import OUTSIDE
from symnb.compile.profiling.render import apply_rows, class_rows, line_rows, op_rows
from symnb.core.scan import scan
from symnb.lower_xla.interpreter import scope_names

M, K, N = 64, 128, 32


def _matmul(**flags):
    a = T.matrix("a", shape=(None, K))
    b = T.matrix("b", shape=(K, N))
    c = T.dot(a, b)
    return sn.function([a, b], c, profile=True, name="matmul", **flags)


def _args(rng=np.random.default_rng(0)):
    return (rng.normal(size=(M, K)).astype("float32"), rng.normal(size=(K, N)).astype("float32"))


def test_a_compile_is_not_a_call_and_records_its_shapes_and_stages():
    f = _matmul()
    a, b = _args()
    for _ in range(4):
        f(a, b)
    f(a[:5], b)  # a new shape signature: the program compiles again
    f(a[:5], b)
    profile = f.profile
    assert profile.calls == 4 and len(profile.compiles) == 2
    assert [c.shapes[0] for c in profile.compiles] == [((M, K), "float32"), ((5, K), "float32")]
    assert all(c.tracing > 0 and c.lowering > 0 and c.xla_compile > 0 for c in profile.compiles)
    assert all(c.seconds >= c.tracing + c.lowering + c.xla_compile for c in profile.compiles)
    assert profile.call_min <= profile.call_median <= max(profile.call_times)
    assert profile.call_mean == pytest.approx(sum(profile.call_times) / 4)
    stages = profile.compile_seconds()
    assert stages["rewriting"] == f.maker.rewrite_seconds
    text = profile.summary(file="str")
    # Why 4 of 6 calls are timed: the two that compiled are counted apart, and said so.
    assert "6 calls: 4 timed, 2 compiled the program (counted apart" in text
    assert "2 compile(s)" in text
    assert "compile 2: float32 (5, 128), float32 (128, 32)" in text


def test_flops_transfers_and_every_table_sum_to_the_call():
    f = _matmul()
    a, b = _args()
    for _ in range(3):
        f(a, b)
    report = f.profile.report(repeats=2)
    assert report.source == XLA_TRACE
    assert report.facts.flops == pytest.approx(2 * M * N * K, rel=0.1)
    assert report.facts.bytes_accessed >= a.nbytes + b.nbytes
    transfers = f.profile.transfers_per_call()
    assert transfers == {"h2d_bytes": a.nbytes + b.nbytes, "h2d_count": 2,
                         "d2h_bytes": M * N * 4, "d2h_count": 1}
    assert report.call_seconds == pytest.approx(f.profile.call_median)
    for rows in (apply_rows, op_rows, class_rows, line_rows):
        table = rows(f.profile, report)
        assert sum(r.percent for r in table) == pytest.approx(100.0, abs=0.01)
        assert sum(r.seconds for r in table) == pytest.approx(report.call_seconds, rel=1e-6)
    assert {r.index for r in apply_rows(f.profile, report) if r.index >= 0} == set(range(len(f.nodes)))
    text = f.profile.summary(file="str")
    assert "GFLOP/s" in text and "host->device 2 (49152 bytes (48.0 KiB))" in text
    assert f"input 0: dtype=float32, shape=({M}, {K}), strides=({K}, 1)" in text
    for title in ("\nLines (", "\nClass\n", "\nOp\n", "\nApply\n"):
        assert title in text
    assert OUTSIDE in text


def test_profile_memory_keyword_and_flag():
    f = _matmul(profile_memory=True)
    a, b = _args()
    f(a, b)
    report = f.profile.report(repeats=1)
    facts = report.facts
    assert facts.argument_bytes == a.nbytes + b.nbytes and facts.output_bytes == M * N * 4
    assert facts.peak_bytes >= facts.argument_bytes + facts.output_bytes
    largest = report.footprint[0]
    assert largest.shape == (M, K) and largest.nbytes == a.nbytes
    text = f.profile.summary(file="str")
    assert "Memory (profile_memory=True)" in text and "test_profiling.py" in text
    with sn.config.change_flags(profile_memory=True):
        x = T.vector("x")
        g = sn.function([x], x * 2)
    assert g.profile is not None and g.profile.memory
    assert sn.function([x], x * 2).profile is None


def _mlp_step():
    rng = np.random.default_rng(0)
    sizes = [20, 16, 3]
    shared = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        shared.append(sn.shared(rng.normal(size=(fan_in, fan_out)).astype("float32")))
        shared.append(sn.shared(np.zeros(fan_out, "float32")))
    x = T.matrix("x", shape=(None, sizes[0]))
    y = T.ivector("y")
    h = x
    for i in range(0, len(shared), 2):
        h = T.dot(h, shared[i]) + shared[i + 1]
        if i < len(shared) - 2:
            h = T.tanh(h)
    cost = -T.mean(T.log_softmax(h)[T.arange(y.shape[0]), y])
    grads = sn.grad(cost, shared)
    f = sn.function([x, y], cost, updates=[(p, p - 0.1 * g) for p, g in zip(shared, grads)],
                    profile=True)
    return f, shared, rng.normal(size=(8, 20)).astype("float32"), rng.integers(0, 3, 8).astype("int32")


def test_training_step_profile_leaves_the_shared_variables_as_they_were():
    f, shared, x, y = _mlp_step()
    for _ in range(2):
        f(x, y)
    before = [p.get_value() for p in shared]
    report = f.profile.report(repeats=2)
    assert all(np.array_equal(p.get_value(), v) for p, v in zip(shared, before))
    assert sorted(report.node_seconds) == list(range(len(f.nodes)))
    assert sum(report.node_seconds.values()) > 0
    classes = [r for r in class_rows(f.profile, report) if r.count and not r.members]
    assert sum(r.count for r in classes) == len(f.nodes)
    assert {r.key for r in classes} == {type(n.op).__name__ for n in f.nodes}
    f(x, y)  # the profile's replay did not count as calls, nor change the next call
    assert f.profile.calls == 2 and len(f.profile.compiles) == 1


def test_scan_profile_names_the_loop_and_its_body_lines():
    x = T.tensor3("x", shape=(None, 4, 5))
    h0 = T.matrix("h0", shape=(4, 5))
    w = sn.shared(np.eye(5, dtype="float32"), name="W")
    h, _ = scan(lambda xt, h, w: T.tanh(T.dot(xt, w) + h), sequences=x, outputs_info=h0,
                non_sequences=[w])
    cost = (h * h).mean()
    f = sn.function([x, h0], cost, profile=True)
    xs, zeros = np.ones((6, 4, 5), "float32"), np.zeros((4, 5), "float32")
    f(xs, zeros)
    f(xs, zeros)
    report = f.profile.report(repeats=2)
    scan_index = next(i for i, n in enumerate(f.nodes) if type(n.op).__name__ == "Scan")
    assert report.node_seconds[scan_index] > 0
    lines = line_rows(f.profile, report)
    assert any("h, _ = scan(lambda xt, h, w: T.tanh" in r.key and r.seconds > 0 for r in lines)
    assert sum(r.percent for r in lines) == pytest.approx(100.0, abs=0.01)
    # 6 steps of a (4, 5) x (5, 5) product: XLA counts the loop's flops once per step
    # or once in all; either way at least one step's.
    assert report.facts.flops >= 2 * 4 * 5 * 5


def test_a_program_run_node_by_node_is_profiled_by_replay_and_says_so():
    x = T.vector("x")
    f = sn.function([x], T.exp(x).sum(), profile=True,
                    mode=Mode(linker=WrapLinker([lambda i, node, fn: fn()]), optimizer=None))
    f(np.ones(3, "float32"))
    f(np.ones(3, "float32"))
    report = f.profile.report(repeats=2)
    assert report.source == REPLAY and report.facts is None
    assert sum(report.node_seconds.values()) == pytest.approx(report.call_seconds)
    assert "node-by-node replay" in f.profile.summary(file="str")


def test_profile_flag_prints_every_summary_at_exit():
    code = ("import numpy as np, symnb as sn, symnb.tensor as T\n"
            "x = T.vector('x')\nf = sn.function([x], x * 2, name='doubler')\n"
            "f(np.ones(3, 'float32')); f(np.ones(3, 'float32'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "SYMNB_FLAGS": "profile=True",
                               "PYTHONPATH": str(Path(sn.__file__).parents[1])},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Function profile: doubler" in done.stdout and "2 calls: 1 timed" in done.stdout


def test_debugprint_of_a_function_marks_its_transfers():
    from symnb import printing

    x = T.vector("x")
    w = sn.shared(np.ones(3, "float32"), name="w")
    f = sn.function([x], (x * w).sum(), profile=True)
    f(np.ones(3, "float32"))
    f(np.ones(3, "float32"))
    text = printing.debugprint(f, file="str")
    section = text.split("Transfers per call:\n")[1]
    assert " x: host -> device each call" in section
    assert " w: shared: stays on the device" in section
    assert "device -> host each call" in section
    assert "measured: host->device 1 (12 bytes), device->host 1 (4 bytes) per call" in section
    assert "Transfers per call" not in printing.debugprint(x * w, file="str")
    assert "Transfers per call" not in printing.debugprint(sn.function([x], x * w), file="str")


def _flops_after_two_calls(f, *args):
    f(*args)
    f(*args)
    return f.profile.report(repeats=1).facts.flops


def test_rnn_training_step_flops_count_every_step_of_the_loops():
    # XLA's cost analysis counts a loop body once; the profile counts it once per step.
    steps, batch, n_in, hidden = 40, 16, 48, 64
    rng = np.random.default_rng(0)
    x = T.tensor3("x", shape=(None, batch, n_in))
    h0 = T.matrix("h0", shape=(batch, hidden))
    w = sn.shared((rng.normal(size=(n_in, hidden)) * 0.1).astype("float32"))
    u = sn.shared((rng.normal(size=(hidden, hidden)) * 0.1).astype("float32"))
    h, _ = scan(lambda xt, h, w, u: T.tanh(T.dot(xt, w) + T.dot(h, u)), sequences=x,
                outputs_info=h0, non_sequences=[w, u])
    cost = T.mean(h * h)
    f = sn.function([x, h0], [cost] + sn.grad(cost, [w, u]), profile=True)
    flops = _flops_after_two_calls(f, rng.normal(size=(steps, batch, n_in)).astype("float32"),
                                   np.zeros((batch, hidden), "float32"))
    forward = 2 * batch * (n_in * hidden + hidden * hidden) * steps
    # Backward, each step: dW += x_t^T dz, dU += h_{t-1}^T dz, dh_{t-1} = dz U^T.
    backward = 2 * batch * (n_in * hidden + 2 * hidden * hidden) * steps
    assert flops == pytest.approx(forward + backward, rel=0.10)


def test_flops_of_a_scan_of_matmuls_and_of_nested_scans_multiply_by_their_steps():
    batch, hidden, steps, outer = 8, 96, 30, 5
    rng = np.random.default_rng(1)
    values = (rng.normal(size=(batch, hidden)).astype("float32"),
              (rng.normal(size=(hidden, hidden)) * 0.1).astype("float32"))
    h0 = T.matrix("h0", shape=(batch, hidden), test_value=values[0])
    a = T.matrix("a", shape=(hidden, hidden), test_value=values[1])  # 150 steps stay finite
    h, _ = scan(lambda h, a: T.dot(h, a), outputs_info=h0, non_sequences=a, n_steps=steps)
    f = sn.function([h0, a], h[-1], profile=True)
    assert _flops_after_two_calls(f, *values) == pytest.approx(2 * batch * hidden ** 2 * steps,
                                                               rel=0.10)

    def inner_loop(h, a):
        inner, _ = scan(lambda g, a: T.dot(g, a), outputs_info=h, non_sequences=a, n_steps=steps)
        return inner[-1]

    nested, _ = scan(inner_loop, outputs_info=h0, non_sequences=a, n_steps=outer)
    g = sn.function([h0, a], nested[-1], profile=True)
    assert _flops_after_two_calls(g, *values) == pytest.approx(
        2 * batch * hidden ** 2 * steps * outer, rel=0.10)


def _layer(inp, w):
    return T.dot(inp, w)  # one line builds every layer's dot


def test_nodes_built_at_one_line_each_get_their_own_measured_time():
    """Three dots built by one helper line are three XLA operations, each timed for its
    own node (not the line's time split evenly); a fused operation is a row of its own."""
    rng = np.random.default_rng(1)
    x = T.matrix("x", shape=(None, 256))
    wide, narrow = (sn.shared(rng.normal(size=(256, n)).astype("float32"), name=f"w{n}") for n in (512, 2))
    back = sn.shared(rng.normal(size=(512, 256)).astype("float32"), name="back")
    out = T.tanh(_layer(_layer(_layer(x, wide), back), narrow)).sum()
    f = sn.function([x], out, profile=True)
    batch = rng.normal(size=(512, 256)).astype("float32")
    for _ in range(4):
        f(batch)
    report = f.profile.report(repeats=5)
    dots = [i for i, node in enumerate(f.nodes) if node.op.display_name() == "dot"]
    fused_members = {i for op in report.fused for i in op.members}
    assert len(dots) == 3
    # Each dot's own scope is carried by XLA operations that carry no other dot's: its
    # time is its own operations' (read structurally: comparing the three timings
    # would be a race, which failed once on a loaded machine).
    names = scope_names(f.nodes)
    scopes = hlo_scopes(report.facts.hlo_text)
    operations = [{op for op, paths in scopes.items() if any(names[i] in path for path in paths)}
                  for i in dots]
    assert all(operations)
    assert all(not (a & b) for k, a in enumerate(operations) for b in operations[k + 1:])
    timed = [i for i in dots if i not in fused_members]
    seconds = [report.node_seconds[i] for i in timed]
    assert all(s > 0 for s in seconds) and len(set(seconds)) == len(seconds)  # measured each
    text = f.profile.summary(file="str", n_nodes=100)
    for op in report.fused:
        assert f"(one fused XLA operation {op.name!r}: " in text


def test_a_program_from_the_cache_says_so_instead_of_zero_compiles():
    a = T.matrix("a", shape=(None, K))
    b = T.matrix("b", shape=(K, N))
    first = sn.function([a, b], T.dot(a, b) * 3, profile=True)
    args = _args()
    first(*args)
    again = sn.function([a, b], T.dot(a, b) * 3, profile=True)  # an equal graph: a cache hit
    again(*args)
    assert len(first.profile.compiles) == 1 and again.profile.compiles == []
    assert "compile: 1 compile(s)" in first.profile.overview(file="str")
    for text in (again.profile.overview(file="str"), again.profile.summary(file="str")):
        assert "no call compiled: the program came from a cache" in text
        assert "0 compile(s)" not in text


def test_overview_lists_the_costliest_lines_costliest_first():
    f = _matmul()
    a, b = _args()
    for _ in range(3):
        f(a, b)
    overview = f.profile.overview(file="str", n_lines=5)
    assert "costliest first" in overview
    listed = overview.split("costliest first):\n")[1].splitlines()
    rows = line_rows(f.profile, f.profile.report())[:5]
    assert [r.seconds for r in rows] == sorted((r.seconds for r in rows), reverse=True)
    assert len(listed) == len(rows) >= 2
    # The same rows as the Lines table, which lists every line, in the same words.
    assert listed == [f"    {r.share:>6}  {r.own_time(r.seconds)}  {r.key}" for r in rows]


def test_overview_in_the_codes_order_says_so_and_lists_the_same_lines():
    f = _matmul()
    a, b = _args()
    for _ in range(3):
        f(a, b)
    by_cost = f.profile.overview(file="str", n_lines=2).split("costliest first):\n")[1].splitlines()
    by_line = f.profile.overview(file="str", n_lines=2, order="line")
    assert "listed in the code's order, not by cost):\n" in by_line
    listed = by_line.split("not by cost):\n")[1].splitlines()
    assert sorted(listed) == sorted(by_cost)
    with pytest.raises(ValueError, match="order must be 'time' or 'line'"):
        f.profile.overview(order="size")


def test_a_report_measured_again_reuses_its_compiled_program_until_the_shapes_change():
    f = _matmul()
    a, b = _args()
    f(a, b)
    first = f.profile.report(repeats=2)
    f(a, b)  # another call: the report is measured again, on the same program
    again = f.profile.report(repeats=2)
    assert again is not first and again.facts is first.facts
    assert again.facts.flops == pytest.approx(2 * M * N * K, rel=0.1)
    f(a[:5], b)  # new shapes: another executable, whose flops count 5 rows
    smaller = f.profile.report(repeats=2)
    assert smaller.facts is not first.facts
    assert smaller.facts.flops == pytest.approx(2 * 5 * N * K, rel=0.1)


def test_theanos_profile_stats_object_given_as_profile_records_the_calls():
    # Theano's spelling: stats = ProfileStats(...); function(..., profile=stats); stats.summary()
    stats = sn.compile.ProfileStats(atexit_print=False, gpu_checks=False)
    a = T.matrix("a")
    f = sn.function([a], a + 1, profile=stats)
    value = np.ones((2, 2), "float32")
    for _ in range(3):
        np.testing.assert_array_equal(f(value), value + 1)
    assert f.profile is stats
    assert len(stats.call_times) + len(stats.compiles) == 3
    with pytest.raises(ValueError, match="already records another compiled function"):
        sn.function([a], a * 2, profile=stats)
