"""MRG31k3p (``theano.sandbox.rng_mrg``): the generator against L'Ecuyer's recurrence in
Python integers, the jump matrices against powers of its transition matrices, the
compiled draw against the NumPy ``perform``, and ``MRG_RandomStreams``' derived draws
(Box-Muller, ``binomial``, ``multinomial``, ``choice``) against NumPy on the same uniforms."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor.random import mrg
from symnb.sandbox import rng_mrg
from symnb.sandbox.rng_mrg import MRG_RandomStreams

M1, M2 = 2 ** 31 - 1, 2 ** 31 - 21069


def reference_values(state, n):
    """L'Ecuyer and Touzin's MRG31k3p in Python ints: x1 = 2**22 x1[-2] + (2**7 + 1) x1[-3]
    mod M1, x2 = 2**15 x2[-1] + (2**15 + 1) x2[-3] mod M2, out = x1 - x2 mod M1 (M1 for 0)."""
    x1, x2 = [int(v) for v in state[:3]], [int(v) for v in state[3:]]  # newest first
    out = []
    for _ in range(n):
        y1 = (2 ** 22 * x1[1] + (2 ** 7 + 1) * x1[2]) % M1
        y2 = (2 ** 15 * x2[0] + (2 ** 15 + 1) * x2[2]) % M2
        x1, x2 = [y1, x1[0], x1[1]], [y2, x2[0], x2[1]]
        out.append((y1 - y2) % M1 or M1)
    return np.array(out, dtype=np.float64) / 2 ** 31, np.array(x1 + x2)


def as_theano_float32(values):
    """Theano's C code for float32: the int converted to float32, times 4.6566126e-10f."""
    return np.rint(values * 2 ** 31).astype(np.float32) * np.float32(4.6566126e-10)


def mat_pow_mod(a, e, m):
    result = [[int(i == j) for j in range(3)] for i in range(3)]
    while e:
        if e & 1:
            result = [[sum(result[i][k] * a[k][j] for k in range(3)) % m for j in range(3)] for i in range(3)]
        a = [[sum(a[i][k] * a[k][j] for k in range(3)) % m for j in range(3)] for i in range(3)]
        e >>= 1
    return np.array(result, dtype=np.int64)


def test_one_stream_is_lecuyers_recurrence():
    state = np.array([12345] * 6, dtype="int32")
    expected, after = reference_values(state, 50)
    new = state.copy()
    got = [rng_mrg.mrg_next_value(new, new, mrg.NORM, 0xFFFFFFFF, 0) for _ in range(50)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(new, after)


def test_jump_matrices_are_powers_of_the_transition_matrices():
    a1 = [[0, 2 ** 22, 2 ** 7 + 1], [1, 0, 0], [0, 1, 0]]  # (x1[n], x1[n-1], x1[n-2])
    a2 = [[2 ** 15, 0, 2 ** 15 + 1], [1, 0, 0], [0, 1, 0]]
    np.testing.assert_array_equal(mrg.A1p72, mat_pow_mod(a1, 2 ** 72, M1))
    np.testing.assert_array_equal(mrg.A2p72, mat_pow_mod(a2, 2 ** 72, M2))
    np.testing.assert_array_equal(mrg.A1p134, mat_pow_mod(a1, 2 ** 134, M1))
    np.testing.assert_array_equal(mrg.A2p134, mat_pow_mod(a2, 2 ** 134, M2))
    # and the helper applies them: 5 steps after 2**72 = 2**72 steps after 5
    s = np.array([1, 2, 3, 4, 5, 6], dtype="int32")
    _, five = reference_values(s, 5)
    _, jumped_then_five = reference_values(rng_mrg.ff_2p72(s), 5)
    np.testing.assert_array_equal(rng_mrg.ff_2p72(five.astype("int32")), jumped_then_five)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("streams, size", [(1, (5,)), (3, (2, 5)), (7, (7,)), (4, ())])
def test_compiled_draw_is_the_streams_values_and_the_test_value(dtype, streams, size):
    rstates = mrg.substream_rstates(np.array([7] * 6, dtype="int32"), streams)
    state = sn.shared(rstates)
    new_state, sample = rng_mrg.mrg_uniform.new(state, None, dtype, size)
    f = sn.function([], [sample, new_state])
    got, got_state = f()
    n = int(np.prod(size))
    expected = np.empty(n)
    expected_state = rstates.copy()
    for s in range(streams):  # value i from stream i % streams
        mine = list(range(s, n, streams))
        values, after = reference_values(rstates[s], len(mine))
        expected[mine] = values
        if mine:
            expected_state[s] = after
    assert got.dtype == dtype and got.shape == size
    if dtype == "float32":
        expected = as_theano_float32(expected)
    np.testing.assert_array_equal(got.ravel(), expected)
    np.testing.assert_array_equal(got_state, expected_state)
    np.testing.assert_array_equal(sample.test_value, got)


def test_dot_modulo_is_mat_vec_mod_m():
    rng = np.random.default_rng(0)
    big = np.iinfo(np.int32).max
    A1, A2 = (rng.integers(0, big, (3, 3)).astype("int64") for _ in range(2))
    s1, s2 = (rng.integers(0, big, 3).astype("int32") for _ in range(2))
    m1, m2 = np.int32(2147483647), np.int32(2147462579)
    args = [T.lmatrix(), T.ivector(), T.iscalar(), T.lmatrix(), T.ivector(), T.iscalar()]
    f = sn.function(args, rng_mrg.DotModulo()(*args))
    expected = [int(sum(int(a) * int(b) % int(m) for a, b in zip(row, s)) % int(m))
                for A, s, m in ((A1, s1, m1), (A2, s2, m2)) for row in A]
    np.testing.assert_array_equal(f(A1, s1, m1, A2, s2, m2), expected)


def test_streams_follow_theanos_layout_and_seed_repeats_them():
    r = MRG_RandomStreams(12345)
    u = r.uniform(size=(7,), nstreams=7)
    f = sn.function([], u)
    first, second = f(), f()
    # stream j of the first draw starts 2**72 * j steps after the seed's state
    start = np.array([12345] * 6, dtype="int32")
    for j in range(7):
        values, _ = reference_values(start, 2)
        np.testing.assert_array_equal([first[j], second[j]], as_theano_float32(values))
        start = rng_mrg.ff_2p72(start)
    # the next draw's streams start 2**134 steps later
    v = r.uniform(size=(1,), nstreams=1)
    values, _ = reference_values(rng_mrg.ff_2p134(np.array([12345] * 6, dtype="int32")), 1)
    np.testing.assert_array_equal(sn.function([], v)(), as_theano_float32(values))
    r.seed()
    np.testing.assert_array_equal(f(), first)
    r.seed(99)
    assert not np.allclose(f(), first)


def test_normal_is_box_muller_of_the_uniforms():
    size = (3, 5)  # odd: the last of the 16 normals is dropped
    normal = MRG_RandomStreams(31).normal(size, avg=1.0, std=2.0, dtype="float64")
    uniform = MRG_RandomStreams(31).uniform((16,), dtype="float64", nstreams=60 * 256)
    u = sn.function([], uniform)()
    r, theta = np.sqrt(-2 * np.log(u[:8])), 2 * np.pi * u[8:]
    z = np.concatenate([r * np.cos(theta), r * np.sin(theta)])[:15].reshape(size)
    np.testing.assert_allclose(sn.function([], normal)(), 1.0 + 2.0 * z, rtol=1e-12)


def test_binomial_multinomial_and_choice_read_the_uniforms_as_theano():
    pvals = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], dtype="float32")
    u = sn.function([], MRG_RandomStreams(5).uniform((4 * 2,), dtype="float32", nstreams=60 * 256))()
    counts = sn.function([], MRG_RandomStreams(5).multinomial(pvals=pvals, n=4))()
    expected = np.zeros((2, 3), dtype="int64")
    for c in range(4):
        for row in range(2):  # draw c of row r: uniform c * rows + r, first cdf above it
            expected[row, np.argmax(np.cumsum(pvals[row]) > u[c * 2 + row])] += 1
    np.testing.assert_array_equal(counts, expected)

    picks = sn.function([], MRG_RandomStreams(5).choice(size=2, p=pvals, replace=False))()
    expected = np.empty((2, 2), dtype="int64")
    for row in range(2):
        p = pvals[row].astype("float32").copy()
        for c in range(2):
            expected[row, c] = k = np.argmax(np.cumsum(p) > u[c * 2 + row])
            p[k] = 0
            p /= p.sum()
    np.testing.assert_array_equal(picks, expected)

    u = sn.function([], MRG_RandomStreams(9).uniform((4, 6), nstreams=4))()
    b = sn.function([], MRG_RandomStreams(9).binomial((4, 6), p=0.3, nstreams=4))()
    np.testing.assert_array_equal(b, (u < 0.3).astype("int64"))


def test_parameters_have_no_gradient_and_sizes_are_checked():
    low = T.scalar()
    with pytest.raises(sn.gradient.NullTypeGradError):
        sn.grad(MRG_RandomStreams(1).uniform((), low=low), low)
    with pytest.raises(ValueError, match="<= 0"):
        MRG_RandomStreams(1).uniform((0, 3))
    with pytest.raises(ValueError, match="2\\*\\*31"):
        sn.function([], MRG_RandomStreams(1).uniform((2 ** 16, 2 ** 15), nstreams=1))()
    with pytest.raises(ValueError, match="seed should not be 0"):
        MRG_RandomStreams(0)


def test_substream_states_are_repeated_jumps():
    start = np.array([3, 1, 4, 1, 5, 9], dtype="int32")
    states = [start]
    for _ in range(99):
        states.append(rng_mrg.ff_2p72(states[-1]))
    np.testing.assert_array_equal(mrg.substream_rstates(start, 100), np.array(states))
    np.testing.assert_array_equal(mrg.substream_rstates(start, 37), np.array(states[:37]))
