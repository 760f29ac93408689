"""Outputs of a loop computed without it (core/scan/pushout.py), Theano's pushout
rewrites: values against NumPy, and the loops left in the compiled graph."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import Scan
from tests.reference import assert_same


def _scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def test_an_output_every_step_copies_needs_no_loop(rng):
    # Theano's test_pushout_all: the step reads only non-sequences, so symnb's scan computes
    # dot(h, W1 + W2) once, outside, and the loop would copy it n_steps times.
    W1, W2, h0 = T.matrix("W1"), T.matrix("W2"), T.vector("h0")
    o, _ = sn.scan(lambda h, A, B: T.dot(h, A + B), non_sequences=[h0, W1, W2], n_steps=5)
    [c, s], _ = sn.scan(lambda h: (T.constant(np.float32(3)), h * 2), outputs_info=[None, h0],
                        n_steps=3)
    values = [rng.uniform(size=shape).astype("float32") for shape in [(2,), (2, 2), (2, 2)]]
    h, a, b = values
    for mode, loops in [(None, 1), ("FAST_COMPILE", 2)]:
        f = sn.function([h0, W1, W2], [o, c, s], mode=mode)
        assert len(_scan_nodes(f)) == loops, mode  # the recurrent one stays
        out, const, states = f(*values)
        assert_same(out, np.tile(np.dot(h, a + b), (5, 1)), "repeated")
        assert_same(const, np.full(3, 3, "float32"), "constant rows")
        assert_same(states, np.stack([h * 2, h * 4, h * 8]), "states")


@pytest.mark.parametrize("go_backwards", [False, True])
def test_an_elementwise_output_of_the_rows_needs_no_loop(go_backwards, rng):
    # Theano's scanOp_pushout_seqs_ops: the step is elementwise in the rows it reads (two
    # taps of m, a scalar row of x broadcast from the left, a non-sequence w), so the output
    # is that computation on the whole windows.
    # rows of 3 and w of 3: lengths known to agree (a broadcast that may fail stays in its loop)
    m, x = T.tensor("float32", shape=(None, 3), name="m"), T.vector("x")
    w = T.tensor("float32", shape=(3,), name="w")
    out, _ = sn.scan(lambda a, a2, b, w: T.exp(a * w - a2).dimshuffle(0, "x") - b,
                     sequences=[dict(input=m, taps=[0, 2]), x], non_sequences=w,
                     go_backwards=go_backwards)
    f = sn.function([m, x, w], out)
    assert _scan_nodes(f) == []
    vm, vx, vw = (rng.uniform(size=s).astype("float32") for s in [(6, 3), (5,), (3,)])
    n = 4  # the taps of m leave 6 - 2 rows; x has 5
    a, a2, b = vm[:n], vm[2:2 + n], vx[:n]
    if go_backwards:
        a, a2, b = a[::-1], a2[::-1], b[::-1]
    expected = np.exp(a * vw - a2)[:, :, None] - b[:, None, None]
    assert_same(f(vm, vx, vw), expected.astype("float32"), "whole rows")


def test_an_output_reading_a_state_keeps_its_loop():
    x, h0 = T.vector("x"), T.scalar("h0")
    [s, e], _ = sn.scan(lambda t, h: (h + t, t * 2), sequences=x, outputs_info=[h0, None])
    both = sn.function([x, h0], [s, e])
    assert len(_scan_nodes(both)) == 1  # the state's loop; the elementwise output left it
    v = np.array([1, 2, 3], "float32")
    states, doubled = both(v, 0.5)
    assert_same(states, (0.5 + np.cumsum(v)).astype("float32"), "states")
    assert_same(doubled, v * 2, "doubled")


def test_theanos_names_of_the_scan_rewrites_exclude_them():
    x = T.vector("x")
    out, _ = sn.scan(lambda t: t + 1, sequences=x)
    default = sn.compile.mode.get_default_mode()
    assert _scan_nodes(sn.function([x], out)) == []
    kept = sn.function([x], out, mode=default.excluding("scanOp_pushout_seqs_ops"))
    assert len(_scan_nodes(kept)) == 1
    assert_same(kept(np.array([1, 2], "float32")), np.array([2, 3], "float32"), "the loop")


def test_a_broadcast_that_may_fail_stays_in_its_loop():
    x, w = T.matrix("x"), T.vector("w")
    out, _ = sn.scan(lambda xt, w: T.tanh(xt * 2) + w, sequences=[x], non_sequences=[w])  # the bug
    f = sn.function([x, w], out)
    assert len(_scan_nodes(f)) == 1
    assert_same(f(np.ones((2, 3), "float32"), np.ones(3, "float32")),
                np.full((2, 3), np.tanh(np.float32(2)) + 1, "float32"), "fits")
    with pytest.raises(sn.GraphRuntimeError, match="Inside Scan") as info:
        f(np.ones((2, 3), "float32"), np.ones(4, "float32"))
    assert "# the bug" in str(info.value)  # the step's line


def test_what_leaves_the_loop_keeps_the_steps_lines():
    x = T.vector("x")
    out, _ = sn.scan(lambda t: T.exp(t) * 2, sequences=x)
    f = sn.function([x], out)
    assert _scan_nodes(f) == []
    sites = [n.site.describe("at") for n in f.maker.fgraph.toposort()
             if type(n.op).__name__ == "Elemwise" or "Composite" in str(n.op)]
    assert sites and all("test_scan_pushout.py" in s for s in sites), sites
