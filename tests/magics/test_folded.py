"""The folded list of ``%%symgraph``'s variables (symnb.magics.folded), on its own."""

import re

import numpy as np

import symnb.tensor as T
from symnb.magics.cell_variables import CellVariables
from symnb.magics.folded import MOST_LINES, Group, fold, folded_html, folded_text


def _shown(**bound):
    found = CellVariables()
    for name, value in bound.items():
        found.add(name, value)
    return found.shown


def test_containers_fold_to_one_line_named_by_their_indexes():
    x = T.vector("x", test_value=np.arange(3, dtype="float32"))
    items = fold(_shown(x=x, d={"a": x * 2, "b": x + 1, "c": x - 1}, pairs=[(x, x * 3), (x, x * 4)]))
    assert [item.name for item in items] == ["x", "d['a', 'b', ...]", "pairs[0..1][0..1]"]
    d, pairs = items[1:]
    assert isinstance(d, Group) and [line.name for line in d.lines] == ["d['a']", "d['b']", "d['c']"]
    assert d.summary == "3 variables: float32 (3,) x3"
    # x again in pairs: said once, the same variable, counted as listed above.
    assert pairs.summary == "4 variables: float32 (3,) x4 (2 listed above under other names)"
    assert pairs.lines[0].summary == "the same variable as x"


def test_a_pending_value_shows_the_static_shape_and_computes_nothing():
    v = T.matrix("v", shape=(None, 4))
    q = v * 2
    (line_v, line_q) = fold([("v", v), ("q", q)])
    assert (line_q.dtype, line_q.shape) == ("float32", "(?, 4)")
    assert line_q.summary == "pending (computed when .test_value is read)" and q._test_value is None
    assert line_v.summary == "no test value"
    text = folded_text([("v", v), ("q", q)])
    assert text[1].split("  [")[0].split() == "q float32 (?, 4) pending (computed when .test_value is read)".split()


def test_past_the_most_lines_the_rest_is_one_more_line():
    x = T.scalar("x", test_value=np.float32(1))
    shown = [(f"v{i}", x + i) for i in range(MOST_LINES + 5)]
    page = folded_html(shown)
    top = re.findall(r'<details class="symnb-(\w+)"', page)
    assert top.count("var") == MOST_LINES + 5 and top.count("more") == 1
    head, more = page.split('<details class="symnb-more">', 1)
    assert head.count('<details class="symnb-var"') == MOST_LINES - 1
    assert f"6 more names</summary>" in more and 'data-name="v16"' in more
