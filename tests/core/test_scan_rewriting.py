"""The loop's rewrites (core/scan/rewriting.py): ``scan_remove_unused_inputs`` drops the
sequences and non-sequences a step never reads and passes a repeated one once; a shape
alone does not run a loop that cannot fail (``Scan.shape_without_running``); the compiled
values stay NumPy's (Theano's ``remove_constants_and_unused_inputs_scan`` tests)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import Scan
from tests.reference import assert_same



def _scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


W = T.matrix("W")
V = T.ivector("v")
VV = T.matrix("vv")

#: (the loop, the rows of W it reads: NumPy's reference of the loop)
CASES = {
    "plain": (lambda: sn.scan(lambda i, W: W[i], sequences=V, non_sequences=[W])[0],
              lambda w, v, vv: w[v]),
    "a sequence twice": (lambda: sn.scan(lambda i, _, W: W[i], sequences=[V, V], non_sequences=W)[0],
                         lambda w, v, vv: w[v]),
    "unused sequences": (lambda: sn.scan(lambda _, i, _2, W: W[i], sequences=[VV, V, VV[0]],
                                         non_sequences=W)[0],
                         lambda w, v, vv: w[v[:vv.shape[1]]]),  # vv[0]: the shortest
    "unused non-sequences": (lambda: sn.scan(lambda i, _, _2, W: W[i], sequences=V,
                                             non_sequences=[W[0], W[0], W])[0],
                             lambda w, v, vv: w[v]),
    "both copies read": (lambda: sn.scan(lambda i, j, A, B: A[i] + 2 * B[j], sequences=[V, V],
                                         non_sequences=[W, W])[0],
                         lambda w, v, vv: 3 * w[v]),
    "the same sequence, other taps": (
        lambda: sn.scan(lambda a, b, W: W[a] - W[b],
                        sequences=[dict(input=V, taps=[0]), dict(input=V, taps=[1])],
                        non_sequences=W)[0],
        lambda w, v, vv: w[v[:-1]] - w[v[1:]]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_unused_and_repeated_inputs_leave_the_loop(case):
    build, reference = CASES[case]
    w = np.arange(12, dtype="float32").reshape(4, 3) ** 2
    v, vv = np.array([1, 3, 0, 2], dtype="int32"), np.ones((4, 3), dtype="float32")
    f = sn.function([W, V, VV], build(), on_unused_input="ignore")
    assert_same(f(w, v, vv), reference(w, v, vv), case)
    [node] = _scan_nodes(f)
    # each outer input once (the number of steps aside; a sequence read at other taps is
    # another window of it), and only those the step reads
    seqs, non_seqs = node.op.outer_seqs(node), node.op.outer_non_seqs(node)
    expected_seqs = 2 if case == "the same sequence, other taps" else 1
    assert seqs == [V] * expected_seqs and non_seqs == [W], (seqs, non_seqs)
    assert len(node.op.inner_non_seqs(node.op.inputs)) == 1


def test_without_canonicalize_the_repeated_sequence_stays():
    # FAST_COMPILE has no canonicalize pass: the loop keeps the sequence it reads twice,
    # and both graphs give NumPy's values.
    w = np.arange(9, dtype="float64").reshape(3, 3)
    v = np.array([2, 0], dtype="int32")
    Wd = T.dmatrix("Wd")
    out, _ = sn.scan(lambda i, _, _2, Wd: Wd[i] * 2, sequences=[V, V], non_sequences=[Wd[0], Wd])
    fast = sn.function([Wd, V], out)
    plain = sn.function([Wd, V], out, mode="FAST_COMPILE")
    assert len(_scan_nodes(fast)[0].inputs) == 3 and len(_scan_nodes(plain)[0].inputs) == 4
    assert_same(fast(w, v), w[v] * 2, "rewritten")
    assert_same(plain(w, v), w[v] * 2, "as built")


def test_an_input_passed_but_not_read_is_an_input_of_the_loop():
    # Theano passes every non-sequence to its loop: an input only passed there is used by
    # the function (no UnusedInputError), and the rewrite then drops it.
    X, Y = T.dmatrix("X"), T.dmatrix("Y")
    out, _ = sn.scan(lambda i, X, Y: X[i].sum(), sequences=T.arange(3), non_sequences=[X, Y])
    x = np.arange(6.0).reshape(3, 2)
    for mode, n_inputs in [(None, 3), ("FAST_COMPILE", 4)]:
        f = sn.function([X, Y], out, mode=mode)
        assert [len(n.inputs) for n in _scan_nodes(f)] == [n_inputs]
        assert_same(f(x, np.ones((1, 1))), x.sum(axis=1), "rows' sums")
    with pytest.raises(sn.gradient.DisconnectedInputError):
        sn.grad(out.sum(), Y)


def _shape_function(build):
    h0, w = T.vector("h0"), T.vector("w")
    out = build(h0, w)
    return sn.function([h0, w], out.shape, on_unused_input="ignore")


def test_a_shape_alone_does_not_run_a_loop_that_cannot_fail():
    # Theano's test_infershape_nsteps_smaller_seq_length: Scan's infer_shape answers.
    x = T.vector("x")
    [o1, o2], _ = sn.scan(lambda x, y: (x + 1, y + x), sequences=x, outputs_info=[None, x[0]],
                          n_steps=20)
    f = sn.function([x], [o1.shape[0], o2.shape[0]])
    assert _scan_nodes(f) == []
    assert [int(v) for v in f(np.ones(30, "float32"))] == [20, 20]
    assert [int(v) for v in f(np.ones(7, "float32"))] == [7, 7]  # the shortest: the sequence
    f = _shape_function(lambda h0, w: sn.scan(lambda h: h * 2, outputs_info=h0, n_steps=3)[0])
    assert _scan_nodes(f) == [] and f(np.ones(2, "float32"), np.ones(1, "float32")).tolist() == [3, 2]


@pytest.mark.parametrize("step", ["broadcast of unknown lengths", "a state changing shape"])
def test_a_loop_that_may_fail_runs_for_its_shape(step):
    if step == "broadcast of unknown lengths":
        def build(h0, w):
            return sn.scan(lambda h, w: h * w, outputs_info=h0, non_sequences=w, n_steps=3)[0]
    else:
        def build(h0, w):
            return sn.scan(lambda h: T.concatenate([h, h]), outputs_info=h0, n_steps=3)[0]
    f = _shape_function(build)
    assert len(_scan_nodes(f)) == 1
    with pytest.raises(Exception):  # the loop's own error, not a shape
        f(np.ones(2, "float32"), np.ones(3, "float32"))
