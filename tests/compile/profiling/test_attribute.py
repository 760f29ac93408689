"""A profile states only what was measured: an XLA operation that fused several nodes'
work is one unit with its measured time, its members carry no time of their own, and
the units with the time outside the program add up to the call."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.profiling.attribute import OUTSIDE, call_units, operations_of
from symnb.compile.profiling.render import apply_rows, class_rows, line_rows, op_rows
from symnb.lower_xla.interpreter import scope_names


def _issue_case():
    """The issue's case: sigmoid(x W) summed, 64x64: XLA fuses the dot, the sigmoid and
    the sum, whose time the old profile split "by output size" (the Sum got 6.4e-10 s)."""
    rng = np.random.default_rng(0)
    x = T.matrix("x", shape=(64, 64))
    w = sn.shared(rng.normal(size=(64, 64)).astype("float32"), name="W")
    f = sn.function([x], T.sigmoid(T.dot(x, w)).sum(), profile=True, name="issue")
    batch = rng.normal(size=(64, 64)).astype("float32")
    for _ in range(3):
        f(batch)
    return f


@pytest.fixture(scope="module")
def issue_case():
    return _issue_case()


def test_operations_keep_a_fusion_whole_and_name_its_members():
    x = T.vector("x")
    y = T.exp(x) * 2  # two nodes
    z = y.sum()
    f = sn.function([x], z)
    names = scope_names(f.nodes)
    # Made by hand: what xla.hlo_scopes reads from an HLO text (a fusion's instructions'
    # scopes), with the times measured for each operation.
    scopes = {"fusion.1": [(names[0],), (names[0], names[0]), (names[1],)],
              "reduce.2": [(names[-1],)],
              "copy.3": [()]}
    times = {"fusion.1": 3e-6, "reduce.2": 1e-6, "copy.3": 5e-7}
    found = {op.name: op for op in operations_of(times, scopes, f.nodes)}
    last = len(f.nodes) - 1
    assert found["fusion.1"].members == (0, 1) and found["fusion.1"].seconds == 3e-6
    assert found["reduce.2"].members == (last,) and not found["reduce.2"].fused
    assert found["copy.3"].members == ()
    assert found["fusion.1"].lines == tuple(dict.fromkeys(f.nodes[i].site.describe(verb="")
                                                          for i in (0, 1)))


def test_a_fused_operations_members_carry_no_time_of_their_own(issue_case):
    f = issue_case
    report = f.profile.report(repeats=3)
    assert report.fused, "XLA fused the dot, the sigmoid and the sum on this backend"
    own = report.node_seconds
    for op in report.fused:
        assert op.seconds > 0 and len(op.members) > 1
    # A node's own time is exactly its operations of no other node's: nothing of a
    # fused operation is given to a member.
    for i in range(len(f.nodes)):
        alone = sum(op.seconds for op in report.operations if op.members == (i,))
        assert own[i] == alone
    members = {i for op in report.fused for i in op.members}
    rows = {r.index: r for r in apply_rows(f.profile, report)}
    for i in members - {i for i in members if own[i] > 0}:
        assert rows[i].seconds == 0 and rows[i].share == "-" and rows[i].fused_in
    # One row per fused operation, with its measured time and its members.
    fused_rows = [r for r in rows.values() if r.members] + \
        [r for r in apply_rows(f.profile, report) if r.members and r.index < 0]
    assert {(r.seconds, r.members) for r in fused_rows} == {(op.seconds, op.members) for op in report.fused}
    text = f.profile.summary(file="str", n_nodes=100)
    assert "e-1" not in text and "e-0" not in text  # no 6.4e-10 s, no 7.944e-03s


def test_every_table_and_the_call_units_add_up_to_the_call(issue_case):
    f = issue_case
    report = f.profile.report(repeats=3)
    units = call_units(report)
    assert sum(u.share for u in units) == pytest.approx(1.0, abs=1e-9)
    assert sum(u.seconds for u in units) == pytest.approx(report.call_seconds, rel=1e-9)
    assert [u.kind for u in units].count("outside") == 1
    for rows in (apply_rows, op_rows, class_rows, line_rows):
        table = rows(f.profile, report)
        assert sum(r.percent for r in table) == pytest.approx(100.0, abs=0.01)
        assert OUTSIDE in {r.key for r in table}


def test_the_coloured_graph_covers_the_whole_call(issue_case):
    import re

    from symnb.widgets import GraphExplorer

    f = issue_case
    report = f.profile.report()
    explorer = GraphExplorer(f)
    picture = explorer.picture
    node_shares = [n.time_share for n in picture.nodes.values() if n.seconds is not None]
    unit_shares = [u.share for u in picture.time_units]
    assert sum(node_shares) + sum(unit_shares) == pytest.approx(1.0, abs=1e-6)
    outside = next(u for u in picture.time_units if u.text.startswith("outside the XLA program"))
    assert outside.seconds == pytest.approx(report.outside_seconds)
    # The scale runs to the costliest unit, whichever it is (the outside time too).
    assert picture.max_share == pytest.approx(max(node_shares + unit_shares))
    svg = explorer.svg()
    assert svg.count('class="symnb-time-unit"') == len(report.fused) + 1 + (report.unattributed > 0)
    members = {i for op in report.fused for i in op.members if report.node_seconds[i] == 0}
    for i in members:  # drawn as in their unit, with no share of their own
        node = picture.nodes[explorer.id_of(f.nodes[i])]
        assert node.seconds is None and re.fullmatch(r"F\d+", node.fused_in)
        assert f"in {node.fused_in}" in node.caption


def test_the_viewers_time_share_overlay_adds_up_to_the_call(issue_case):
    from symnb.printing.view_model import view_model

    f = issue_case
    report = f.profile.report()
    overlay = view_model(f)["overlays"]["time_share"]
    assert overlay["outside"] == pytest.approx(report.outside_seconds / report.call_seconds, rel=1e-2)
    spanning = sum(unit["share"] for unit in overlay["fused"] if unit["group"] is None)
    total = sum(overlay["values"].values()) + overlay["outside"] + overlay.get("unnamed", 0) + spanning
    assert total == pytest.approx(1.0, abs=0.01)  # values are rounded to 3 digits
    members = {i for op in report.fused for i in op.members if report.node_seconds[i] == 0}
    assert not any(f"n{i}" in overlay["values"] for i in members)
