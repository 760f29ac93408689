"""The loop's rewrites (core/scan/rewriting.py): ``scan_remove_unused_inputs`` drops the
sequences and non-sequences a step never reads and passes a repeated one once; the
compiled values stay NumPy's (Theano's ``remove_constants_and_unused_inputs_scan`` tests)."""

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
