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

# The Apply table: <% time> <sum %> <apply time> <time per call> <#call> <id> <op> <built at>
# (a share marked "~" is an estimate: a fused XLA operation's time split among its nodes)
APPLY_ROW = re.compile(r"^ +(~?[0-9.]+%) +[0-9.]+% +\S+ +(\S+) +\d+ +(\d+)  ", re.M)
# The Lines table: <% time> <sum %> <time per call> <#apply> <line> (no #apply: the rows
# that are no line's, e.g. the time outside the program)
LINE_ROW = re.compile(r"^ +([0-9.]+%) +[0-9.]+% +(\S+) +(?:\d+  )?(.+)$", re.M)


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
    # tanh and the square are fused into one XLA operation: their shares are estimates.
    assert [pct.startswith("~") for pct, _ in apply.values()].count(True) >= 2
    # ProfileView: the same rows, the same digits.
    shown = {r.index: (f"{'~' * bool(r.split)}{r.percent:.1f}%", f"{r.seconds:.3e}s") for r in view.rows}
    assert shown == apply
    page = view.table_html()
    for pct, secs in apply.values():
        assert f">{pct}<" in page and f">{secs}<" in page
    # The by-line rows of the summary are the overview's and the view's.
    lines = summary.split("\nLines (where the time goes, by your code)\n")[1].split("\n\n")[0]
    by_line = [(pct, secs, line.strip()) for pct, secs, line in LINE_ROW.findall(lines)]
    view_lines = [(f"{p:.1f}%", f"{s:.3e}s", line) for p, s, line in view.line_rows]
    assert by_line == view_lines
    overview = f.profile.overview(file="str", n_lines=3)
    for pct, secs, line in view_lines[:3]:
        assert f"{pct:>6}  {secs}  {line}" in overview
    # The total and the split, as the summary's own line states them.
    total = re.search(r"Per call: the XLA program (\S+), outside it (\S+), total (\S+)\.", summary)
    assert f"in the XLA program {total.group(1)}" in overview
    assert f"outside it {total.group(2)}" in overview and f"timed, {total.group(3)} per call" in overview
    # The time-coloured graph: each node's tag and details.
    explorer = view.graph()
    svg = explorer.svg()
    assert "symnb-time-legend" in svg
    for index, (pct, secs) in apply.items():
        pct = pct.lstrip("~")  # the picture shows the share, not whether it is an estimate
        node_id = explorer.id_of(f.nodes[index])
        group = svg.split(f'data-id="{node_id}"', 1)[1].split('class="symnb-node', 1)[0]
        assert f"\u00b7 {pct}</tspan>" in group  # after the op, inside the box
        assert f"{secs} per call ({pct} of the call)" in explorer.select(node_id)
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


def test_a_trace_longer_than_the_call_is_said_not_hidden(profiled):
    f, batch = profiled
    f(batch)
    f.profile.call_times[:] = [1e-9] * len(f.profile.call_times)  # calls "faster" than the trace
    report = f.profile.report(refresh=True)
    assert report.traced_seconds > report.call_seconds == pytest.approx(1e-9)
    assert report.outside_seconds == 0 and report.program_seconds == report.call_seconds
    assert "longer than the median call: the machine was busy" in f.profile.summary(file="str")
