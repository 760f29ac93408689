"""scan: values on both paths (test value = NumPy reference, compiled = lax.scan), taps,
shortest sequence, go_backwards, map/reduce/foldl/foldr, and the seeds' examples."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import Scan, foldl, foldr, map, reduce, scan
from tests.reference import assert_same, check_paths, symbolic_like


def _loop_cumsum(x, h0):
    out, h = [], h0
    for row in x:
        h = h + row
        out.append(h)
    return np.array(out, dtype=np.result_type(x, h0)).reshape((len(x),) + np.shape(h0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("shape", [(5, 3), (1, 3), (4,), (6, 1)])
def test_running_sum_over_a_sequence(dtype, shape, rng):
    x = (rng.normal(size=shape) * 10).astype(dtype)
    h0 = (rng.normal(size=shape[1:]) * 10).astype(dtype)

    def build(x, h0):
        out, updates = scan(lambda xt, h: h + xt, sequences=x, outputs_info=h0)
        assert isinstance(out.owner.op, Scan) and not updates
        return out

    check_paths(build, [x, h0], _loop_cumsum)


def test_map_with_non_sequences_and_a_captured_variable(rng):
    x, w, b = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=())

    def build(x, w, b):
        out, _ = map(lambda xt, w: T.tanh(xt * w) + b, x, non_sequences=w)  # b is captured
        return out

    check_paths(build, [x, w, b], lambda x, w, b: np.tanh(x * w) + b)


def test_captured_outer_computation_stays_outside_the_loop(rng):
    x, w = rng.normal(size=(4, 3)), rng.normal(size=3)
    xs, ws = symbolic_like(x, "x"), symbolic_like(w, "w")
    scaled = T.exp(ws)  # built outside: computed once, passed in
    out, _ = map(lambda xt: xt * scaled + T.exp(xt), xs)
    op = out.owner.op
    inner_ops = [type(n.op).__name__ for n in op.inner.nodes]
    assert inner_ops.count("Exp") == 1  # only the per-step exp is inside
    assert any(v is scaled for v in out.owner.inputs)
    assert_same(out.test_value, x * np.exp(w) + np.exp(x), "perform")


def test_strict_rejects_captured_shared_variables(rng):
    x = symbolic_like(rng.normal(size=(4, 3)), "x")
    w = sn.shared(rng.normal(size=3), name="w")
    with pytest.raises(sn.gof.fg.MissingInputError, match=r"strict=True.*'w'"):  # Theano's error
        scan(lambda xt: xt * w, sequences=x, strict=True)
    out, _ = scan(lambda xt, w: xt * w, sequences=x, non_sequences=w, strict=True)
    assert out.test_value.shape == (4, 3)


def test_sequence_taps_past_present_future(rng):
    x = rng.normal(size=(7, 2))

    def build(x):
        out, _ = scan(lambda a, b, c: a - 2 * b + c, sequences=dict(input=x, taps=[-1, 0, 1]))
        return out

    check_paths(build, [x], lambda x: x[:-2] - 2 * x[1:-1] + x[2:])


def test_sequence_with_only_past_taps_and_a_second_sequence(rng):
    x, y = rng.normal(size=(6,)), rng.normal(size=(10,))

    def build(x, y):
        out, _ = scan(lambda x3, x1, yt: x3 * x1 + yt,
                      sequences=[dict(input=x, taps=[-3, -1]), y])
        return out

    # taps -3 and -1 read x[t], x[t + 2]; 3 steps (6 - 3); y (length 10) limits nothing
    check_paths(build, [x, y], lambda x, y: x[:3] * x[2:5] + y[:3])


def test_output_taps_read_the_initial_stack_then_past_steps(rng):
    init = np.array([1.0, 2.0, 3.0])  # a longer initial stack: the first 2 rows are used

    def build(init):
        out, _ = scan(lambda h2, h1: h1 + 0.5 * h2, outputs_info=dict(initial=init, taps=[-2, -1]),
                      n_steps=5)
        return out

    def reference(init):
        hist = [init[0], init[1]]
        for _ in range(5):
            hist.append(hist[-1] + 0.5 * hist[-2])
        return np.array(hist[2:])

    check_paths(build, [init], reference)


def test_output_tap_minus_two_only(rng):
    init = rng.normal(size=(2, 3)).astype("float32")

    def build(init):
        out, _ = scan(lambda h2: h2 * 2, outputs_info=dict(initial=init, taps=[-2]), n_steps=4)
        return out

    check_paths(build, [init], lambda i: np.stack([i[0] * 2, i[1] * 2, i[0] * 4, i[1] * 4]))


def test_recurrent_and_map_outputs_together(rng):
    x, h0 = rng.normal(size=(5, 2)).astype("float32"), np.zeros(2, "float32")

    def build(x, h0):
        (h, sq), _ = scan(lambda xt, h: [h + xt, xt * xt], sequences=x, outputs_info=[h0, None])
        return T.concatenate([h, sq], axis=1)

    check_paths(build, [x, h0], lambda x, h0: np.concatenate([np.cumsum(x, 0), x * x], axis=1))


def test_shortest_sequence_sets_the_number_of_steps():
    coefficients = T.vector("coefficients", test_value=np.array([1, 0, 2], "float32"))
    x = T.scalar("x", test_value=np.float32(3))
    components, _ = scan(lambda coeff, power, free_var: coeff * (free_var ** power),
                         sequences=[coefficients, T.arange(1000)], non_sequences=x)
    assert components.test_value.shape == (3,)  # 3 iterations, not 1000
    f = sn.function([coefficients, x], components)
    assert f(np.array([1, 0, 2], "float32"), 3).shape == (3,)


def test_seed_polynomial_example():
    coefficients = T.vector("coefficients")
    x = T.scalar("x")
    max_coefficients_supported = 10000
    components, updates = scan(fn=lambda coeff, power, free_variable: coeff * (free_variable ** power),
                               outputs_info=None,
                               sequences=[coefficients, T.arange(max_coefficients_supported)],
                               non_sequences=x)
    polynomial = components.sum()
    calculate_polynomial = sn.function(inputs=[coefficients, x], outputs=polynomial)
    test_coefficients = np.asarray([1, 0, 2], dtype=np.float32)
    expected = sum(c * 3.0 ** p for p, c in enumerate(test_coefficients))  # 19.0
    result = calculate_polynomial(test_coefficients, 3)
    assert result == expected and result.dtype == np.float64  # float32 ** int64 is float64 in NumPy 2


def test_seed_pow_example():
    k = T.iscalar("k")
    A = T.vector("A")
    result, updates = scan(fn=lambda prior_result, A: prior_result * A,
                           outputs_info=T.ones_like(A), non_sequences=A, n_steps=k)
    final_result = result[-1]
    power = sn.function(inputs=[A, k], outputs=final_result, updates=updates)
    for steps in (2, 3):  # one program per distinct number of steps
        assert_same(power(np.arange(10, dtype="float32"), steps),
                    np.arange(10, dtype="float32") ** steps, "XLA")


def test_seed_pow_example_test_value():
    k = T.iscalar("k", test_value=np.int32(3))
    A = T.vector("A", test_value=np.arange(4, dtype="float32"))
    result, _ = scan(fn=lambda prior_result, A: prior_result * A,
                     outputs_info=T.ones_like(A), non_sequences=A, n_steps=k)
    powers = np.arange(4, dtype="float32") ** np.arange(1, 4)[:, None]
    assert_same(result.test_value, powers.astype("float32"), "perform")


@pytest.mark.parametrize("n_steps", [0, 2, 9])
def test_n_steps_bounds_the_sequence(n_steps, rng):
    x = rng.normal(size=(5, 2)).astype("float32")

    def build(x):
        out, _ = scan(lambda xt, h: h * 0.5 + xt, sequences=x,
                      outputs_info=np.zeros(2, "float32"), n_steps=n_steps)
        return out

    def reference(x):
        h, out = np.zeros(2, "float32"), []
        for row in x[:min(n_steps, 5)]:
            h = h * np.float32(0.5) + row
            out.append(h)
        return np.array(out, "float32").reshape(-1, 2)

    check_paths(build, [x], reference)


def test_go_backwards_reads_the_sequence_from_its_end(rng):
    x = rng.normal(size=(5, 3))

    def build(x):
        out, _ = scan(lambda xt, h: h + xt, sequences=x, outputs_info=np.zeros(3), go_backwards=True)
        return out

    check_paths(build, [x], lambda x: np.cumsum(x[::-1], axis=0))


def test_empty_sequence_gives_zero_rows(rng):
    x = np.zeros((0, 3), "float32")

    def build(x):
        (h, y), _ = scan(lambda xt, h: [h + xt, T.dot(xt, T.ones((3, 2)))], sequences=x,
                         outputs_info=[np.ones(3, "float32"), None])
        assert h.test_value.shape == (0, 3) and y.test_value.shape == (0, 2)
        return y

    check_paths(build, [x], lambda x: np.zeros((0, 2), "float32"))


def test_reduce_foldl_foldr(rng):
    x = rng.normal(size=(6, 2))

    def build_reduce(x):
        total, _ = reduce(lambda xt, acc: acc * 0.5 + xt, x, np.zeros(2))
        assert total.ndim == 1  # the final state only
        return total

    def reference(x, rows):
        acc = np.zeros(2)
        for row in rows:
            acc = acc * 0.5 + row
        return acc

    check_paths(build_reduce, [x], lambda x: reference(x, x))
    check_paths(lambda x: foldl(lambda xt, acc: acc * 0.5 + xt, x, np.zeros(2))[0], [x],
                lambda x: reference(x, x))
    check_paths(lambda x: foldr(lambda xt, acc: acc * 0.5 + xt, x, np.zeros(2))[0], [x],
                lambda x: reference(x, x[::-1]))


def test_reduce_with_a_map_output_gives_its_last_step(rng):
    x = rng.normal(size=(4, 3))
    check_paths(lambda x: reduce(lambda xt, a: [a + xt, xt * 2], x, [np.zeros(3), None])[0][1],
                [x], lambda x: x[-1] * 2)


def test_integer_state_and_multiple_outputs_returned_as_list(rng):
    x = np.arange(5, dtype="int64")
    xs = symbolic_like(x, "x")
    (count, doubled), _ = scan(lambda xt, c: [c + 1, xt * 2], sequences=xs,
                               outputs_info=[np.int64(0), None])
    assert_same(count.test_value, np.arange(1, 6), "perform")
    values = sn.function([xs], [count, doubled])(x)
    assert_same(values[0], np.arange(1, 6), "XLA")
    assert_same(values[1], x * 2, "XLA")


def test_inner_graph_is_exposed_with_creation_sites(rng):
    x = symbolic_like(rng.normal(size=(3, 2)), "x")

    def step(xt, h):
        new_h = T.tanh(h + xt)  # the inner node's site is this line
        return new_h

    h, _ = scan(step, sequences=x, outputs_info=np.zeros(2), name="rnn")
    op = h.owner.op
    assert op.display_name() == "Scan{rnn}"
    assert len(op.inner_inputs) == 2 and len(op.inner_outputs) == 1
    (out,) = op.inner_outputs
    assert out.owner.site.frame.function == "step"
    assert "T.tanh(h + xt)" in out.owner.site.line
    assert op.inner_inputs[0].name == "x[t]"


def test_one_fixed_step_applies_the_step_once_as_theano_does():
    # Theano's scan with n_steps 1 builds no loop: the step runs on the first slices
    # themselves, each output gets a leading axis of 1, and the state's dtype need not
    # be kept (Theano's test_mintap_onestep: an int8 constant 0 plus an int32 row).
    seq = T.ivector("seq")
    rs, updates = sn.scan(lambda s, prev: prev + s, sequences=dict(input=seq, taps=[2]),
                          outputs_info=0, n_steps=1)
    assert not updates and rs.dtype == "int32" and rs.ndim == 1
    f = sn.function([seq], rs)
    values = np.arange(20, dtype="int32")
    np.testing.assert_array_equal(f(values), np.int8(0) + values[2:3])
    assert not [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]

    x, h0 = T.matrix("x"), T.vector("h0")
    counter = sn.shared(np.float32(0))
    outs, updates = sn.scan(lambda a, h, w: (a * h + w, {counter: counter + 1}),
                            sequences=x, outputs_info=h0,
                            non_sequences=T.constant(np.float32(3)), n_steps=1)
    g = sn.function([x, h0], outs, updates=updates)
    xv = np.arange(6, dtype="float32").reshape(3, 2)
    hv = np.array([2, -1], "float32")
    np.testing.assert_array_equal(g(xv, hv), (xv[0] * hv + 3)[None])
    assert counter.get_value() == 1


def test_one_fixed_step_reads_the_rows_of_a_multi_tap_state():
    init = T.matrix("init")
    out, _ = sn.scan(lambda a, b: a - 2 * b, outputs_info=dict(initial=init, taps=[-3, -1]),
                     n_steps=1)
    f = sn.function([init], out)
    iv = np.arange(12, dtype="float32").reshape(4, 3)  # its first 3 rows are t-3..t-1, as in Theano
    np.testing.assert_array_equal(f(iv), (iv[0] - 2 * iv[2])[None])


def test_loops_with_the_same_body_are_equal_ops_as_in_theano():
    # Theano's test_hash: Scan ops compare their inner graphs, not their identity.
    x, y = T.vector("x"), T.vector("y")
    s1, _ = sn.scan(lambda v: v + 1, x)
    s2, _ = sn.scan(lambda v: v + 1, y)
    s3, _ = sn.scan(lambda v: v + 2, x)
    s4, _ = sn.scan(lambda v: v + 1, T.dvector("z"))
    assert s1.owner.op == s2.owner.op and hash(s1.owner.op) == hash(s2.owner.op)
    assert s1.owner.op != s3.owner.op and s1.owner.op != s4.owner.op  # body, dtype
    again, _ = sn.scan(lambda v: v + 1, x)
    f = sn.function([x], [s1, again, s3])
    xv = np.arange(4, dtype="float32")
    a, b, c = f(xv)
    np.testing.assert_array_equal(a, xv + 1)
    np.testing.assert_array_equal(b, xv + 1)
    np.testing.assert_array_equal(c, xv + 2)
