"""One set of profile numbers: ``f.profile.summary()``, ``overview()``, ``ProfileView``,
the time-coloured graph and ``%%symgraph --profile`` print the same measurement, digit
for digit; its totals checked against ``time.perf_counter`` around the calls."""

import re
import time
import urllib.parse

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.magics.report import profile_calls
from symnb.widgets import ProfileView

# A time: "12.35 µs" (s, ms, µs, ns), or "-" for a node whose work is all in a fused
# XLA operation (that operation's row has the time; the node has none of its own).
TIME = r"(?:-|[0-9.]+ (?:s|ms|\u00b5s|ns))"
# The Apply table: <% time> <sum %> <apply time> <time per call> <#call> <id> <op> <built at>
APPLY_ROW = re.compile(rf"^ +(-|[0-9.]+%) +[0-9.]+% +{TIME} +({TIME}) +\d+ +(\d+)  ", re.M)
# The Lines table: <% time> <sum %> <time per call> <#apply> <line> (no #apply: the rows
# that are no line's, e.g. the time outside the program)
LINE_ROW = re.compile(rf"^ +(-|[0-9.]+%) +[0-9.]+% +({TIME}) +(?:\d+  )?(.+)$", re.M)


@pytest.fixture(scope="module")
def profiled():
    rng = np.random.default_rng(0)
    a = T.matrix("a", shape=(None, 192))
    w = sn.shared(rng.normal(size=(192, 192)).astype("float32"), name="w")
    hidden = T.tanh(T.dot(a, w))
    loss = (hidden * hidden).mean()
    f = sn.function([a], loss, profile=True, name="loss")
    batch = rng.normal(size=(256, 192)).astype("float32")
    return f, batch


def _apply_numbers(summary):
    apply = summary.split("\nApply\n")[1]
    return {int(i): (pct, secs) for pct, secs, i in APPLY_ROW.findall(apply)}


def test_summary_view_graph_and_magic_print_the_same_numbers(profiled):
    f, batch = profiled
    view = profile_calls(f, [batch])  # what %%symgraph --profile shows
    summary = f.profile.summary(file="str", n_nodes=100)
    apply = _apply_numbers(summary)
    assert sorted(apply) == list(range(len(f.nodes)))
    # tanh and the square are fused into one XLA operation: one row, its members none.
    report = f.profile.report()
    assert report.fused and all(f"(one fused XLA operation {op.name!r}: " in summary for op in report.fused)
    # ProfileView: the same rows, the same digits.
    shown = {r.index: (r.share, r.time) for r in view.rows if r.index >= 0}
    assert shown == apply
    page = view.table_html()
    for pct, secs in apply.values():
        assert f">{pct}<" in page and f">{secs}<" in page
    # The by-line rows of the summary are the overview's and the view's.
    lines = summary.split("\nLines (where the time goes, by your code)\n")[1].split("\n\n")[0]
    by_line = [(pct, secs, line.strip()) for pct, secs, line in LINE_ROW.findall(lines)]
    view_lines = [(r.share, r.own_time(r.seconds), r.key + r.fused_note) for r in view.line_rows]
    assert by_line == view_lines
    overview = f.profile.overview(file="str", n_lines=3)
    # The overview ranks the lines with a time of their own (a line all of whose work is
    # in fused operations is named in their rows).
    ranked = [shown for shown, r in zip(view_lines, view.line_rows) if r.seconds or not r.fused_in]
    for pct, secs, line in ranked[:3]:
        assert f"{pct:>6}  {secs}  {line}" in overview
    # The total and the split, as the summary's own line states them.
    total = re.search(r"Per call: the XLA program (\S+ \S+), outside it (\S+ \S+), total (\S+ \S+)\.", summary)
    assert f"in the XLA program {total.group(1)}" in overview
    assert f"outside it {total.group(2)}" in overview and f"), {total.group(3)} per call" in overview
    # The time-coloured graph: each node's tag and details.
    explorer = view.graph()
    svg = explorer.svg()
    assert "symnb-time-legend" in svg
    for index, (pct, secs) in apply.items():
        node_id = explorer.id_of(f.nodes[index])
        group = svg.split(f'data-id="{node_id}"', 1)[1].split('class="symnb-node', 1)[0]
        if pct == "-":  # in a fused operation's box above the graph, no share of its own
            assert re.search(r"\u00b7 in F\d+</tspan>", group)
            assert "no time of its own" in explorer.select(node_id)
            continue
        assert f"\u00b7 {pct}</tspan>" in group  # after the op, inside the box
        assert f"{secs} per call ({pct} of the call)" in explorer.select(node_id)
    for op in report.fused:  # each fused operation is a box of its own, its time measured
        assert f"fused XLA operation {op.name!r}" in urllib.parse.unquote(svg).replace("&#x27;", "'")
    # The graph a profiled function opens with by default reads the same measurement.
    assert urllib.parse.unquote(type(explorer)(f).snapshot_body()).count("of the call") > 0
    assert type(explorer)(f).times == explorer.times


def test_the_measurement_is_kept_until_new_calls_or_a_refresh(profiled):
    f, batch = profiled
    f(batch)
    first = f.profile.report()
    assert f.profile.report() is first  # every view reads this one
    view = ProfileView(f)
    assert view.report is first
    view.refresh()
    assert view.report is not first and f.profile.report() is view.report
    f(batch)
    assert f.profile.report() is not view.report  # a new call: measured again


def test_profile_totals_against_perf_counter_around_the_calls(profiled):
    f, batch = profiled
    f(batch)  # compiled already: every call below is timed
    before = f.profile.calls
    outer = []
    for _ in range(15):
        started = time.perf_counter()
        f(batch)
        outer.append(time.perf_counter() - started)
    inner = f.profile.call_times[before:]
    assert len(inner) == 15
    # Each call's own clock sits inside the clock around it.
    assert all(i <= o for i, o in zip(inner, outer))
    # ...and measures most of it (loose: the machine is shared and the call small).
    assert sum(inner) >= 0.3 * sum(outer)
    report = f.profile.report()
    assert report.call_seconds == pytest.approx(f.profile.call_median)
    assert 0.3 * np.median(outer) <= report.call_seconds <= 3 * np.mean(outer)
    assert report.program_seconds + report.outside_seconds == pytest.approx(report.call_seconds)
    rows = f.profile.line_times()
    assert sum(s for _, s, _ in rows) == pytest.approx(report.call_seconds, rel=1e-6)
    assert sum(p for _, _, p in rows) == pytest.approx(100.0, abs=0.01)
    assert report.program_seconds == pytest.approx(sum(op.seconds for op in report.operations))


def test_a_trace_longer_than_the_call_is_said_not_hidden(profiled):
    f, batch = profiled
    f(batch)
    f.profile.call_times[:] = [1e-9] * len(f.profile.call_times)  # calls "faster" than the trace
    report = f.profile.report(refresh=True)
    assert report.traced_seconds > report.call_seconds == pytest.approx(1e-9)
    assert report.outside_seconds == 0 and report.program_seconds == report.call_seconds
    assert "longer than the median call: the machine was busy" in f.profile.summary(file="str")
