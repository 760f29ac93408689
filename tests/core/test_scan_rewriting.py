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


def test_loops_over_the_same_steps_merge_into_one():
    # Bodies with a state (an elementwise output of the rows alone leaves its loop).
    x, zero = T.vector("x"), T.constant(np.float32(0))
    sx, _ = sn.scan(lambda s, h: h + s, sequences=[x], outputs_info=zero, name="X")
    sy, _ = sn.scan(lambda s, h: h * s, sequences=[sx], outputs_info=T.constant(np.float32(1)),
                    name="Y")  # reads X: stays apart
    sz, _ = sn.scan(lambda s, h: h - s, sequences=[x], outputs_info=zero, name="Z")
    sw, _ = sn.scan(lambda s, h: h + 3 * s, sequences=[x[1:]], outputs_info=zero,
                    name="W")  # other steps: apart
    f = sn.function([x], [sx, sy, sz, sw])
    loops = {frozenset(n.op.info.name.split("&")) for n in _scan_nodes(f)}
    assert loops == {frozenset("W"), frozenset("XZ"), frozenset("Y")}, loops
    v = np.array([0.5, -1, 2, 4], "float32")
    for got, want in zip(f(v), [np.cumsum(v), np.cumprod(np.cumsum(v)), -np.cumsum(v),
                                3 * np.cumsum(v[1:])]):
        assert_same(got, want.astype("float32"), "merged")


def test_until_loops_merge_only_with_the_same_condition():
    x = T.vector("x")
    o1, _ = sn.scan(lambda t: (t + 1, sn.scan_module.until(t > 3)), x)
    o2, _ = sn.scan(lambda t: (t + 2, sn.scan_module.until(t > 3)), x)
    o3, _ = sn.scan(lambda t: (t + 3, sn.scan_module.until(t > 2)), x)
    f = sn.function([x], [o1, o2, o3])
    assert len(_scan_nodes(f)) == 2
    v = np.zeros(50, "float32")
    v[23], v[10] = 4, 3
    r1, r2, r3 = f(v)
    assert_same(r1, v[:24] + 1, "first")
    assert_same(r2, v[:24] + 2, "second")
    assert_same(r3, v[:11] + 3, "other condition")


@pytest.mark.parametrize("go_backwards", [False, True])
def test_an_elementwise_output_of_the_rows_needs_no_loop(go_backwards, rng):
    # Theano's scanOp_pushout_seqs_ops: the step is elementwise in the rows it reads (two
    # taps of m, a scalar row of x broadcast from the left, a non-sequence w), so the output
    # is that computation on the whole windows.
    m, x, w = T.matrix("m"), T.vector("x"), T.vector("w")
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
