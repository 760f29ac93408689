"""Loops whose steps have lengths computed from what the loop passes them (Theano
allowed a length per step): the function specializes on the arguments those values
come from, and the loop runs step by step while tracing. Against NumPy, and Keras's
CTC loss (nested loops, ``nonzero`` reads, slices by a state) against a NumPy CTC."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import DebugMode, NanGuardMode


def test_a_slice_per_step_from_a_sequence():
    x = T.matrix("x")
    lengths = T.lvector("lengths", shape=(3,))
    sums, _ = sn.scan(lambda row, n: row[:n].sum(), sequences=[x, lengths])
    f = sn.function([x, lengths], sums)
    values = np.arange(12, dtype="float32").reshape(3, 4)
    for n in ([1, 4, 2], [0, 3, 3]):
        np.testing.assert_allclose(f(values, np.array(n)), [r[:k].sum() for r, k in zip(values, n)])
    assert f._static == (1,)  # the lengths, not x: x's values set no length
    np.testing.assert_allclose(f(values + 1, np.array([1, 4, 2])),
                               [r[:k].sum() for r, k in zip(values + 1, [1, 4, 2])])


@pytest.mark.parametrize("mode", [None, "DebugMode", "NanGuardMode"])
def test_the_node_by_node_modes_and_index_checks_in_steps(mode):
    # The debugging modes pass concrete device arrays, and the step's index checks go
    # through checkify: the lengths must stay known through both.
    mode = {"DebugMode": DebugMode(), "NanGuardMode": NanGuardMode(True, True, True)}.get(mode)
    x = T.vector("x")
    starts = T.lvector("starts", shape=(3,))
    sums, _ = sn.scan(lambda n, x: T.set_subtensor(x[:n], 0).sum() + x[n], sequences=[starts],
                      non_sequences=[x])
    f = sn.function([x, starts], sums, mode=mode)
    values = np.arange(1, 6, dtype="float32")
    np.testing.assert_allclose(f(values, np.array([1, 2, 3])), [values[n:].sum() + values[n] for n in (1, 2, 3)])
    with pytest.raises(IndexError, match="index 7 in starts.* out of bounds for axis 0 of x"):
        f(values, np.array([1, 2, 7]))


def test_a_length_from_a_state():
    x = T.vector("x")

    def step(k, x):
        return k + 1, x[:k].sum()

    (ks, sums), _ = sn.scan(step, outputs_info=[T.constant(np.int64(1)), None], non_sequences=[x],
                            n_steps=3)
    values = np.array([1, 2, 4, 8], "float32")
    got_k, got_sums = sn.function([x], [ks, sums])(values)
    np.testing.assert_array_equal(got_k, [2, 3, 4])
    np.testing.assert_allclose(got_sums, [1, 3, 7])


def test_a_nonzero_read_inside_a_step():
    x = T.matrix("x")
    mask = T.matrix("mask", dtype="int8", shape=(3, 4))
    sums, _ = sn.scan(lambda row, m: row[m.nonzero()].sum(), sequences=[x, mask])
    f = sn.function([x, mask], sums)
    values = np.arange(12, dtype="float32").reshape(3, 4) - 5
    m = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1]], "int8")
    np.testing.assert_allclose(f(values, m), (values * m).sum(axis=1))
    assert f._static == (1,)


def test_a_nonzero_read_from_a_small_argument_specializes():
    x = T.vector("x")
    m = T.vector("m", dtype="int8", shape=(5,))
    f = sn.function([x, m], x[m.nonzero()] * 2)
    values = np.arange(5, dtype="float32")
    for mask in ([1, 0, 0, 1, 1], [0, 1, 0, 0, 0]):
        mask = np.array(mask, "int8")
        np.testing.assert_allclose(f(values, mask), values[mask.nonzero()] * 2)
    free = T.vector("free", dtype="int8")  # no fixed size: the nonzero runs on the host
    g = sn.function([x, free], x[free.nonzero()])
    mask = np.array([0, 1, 1, 0, 1], "int8")
    np.testing.assert_array_equal(g(values, mask), values[mask.nonzero()])


def test_scan_until_run_step_by_step():
    lengths = T.lvector("lengths", shape=(4,))

    def step(n):
        total = T.arange(n).sum()
        return total, sn.scan_until(T.ge(total, 3))

    totals, _ = sn.scan(step, sequences=[lengths])
    f = sn.function([lengths], [totals, sn.steps_run(totals)])
    got, steps = f(np.array([2, 3, 5, 1]))
    np.testing.assert_array_equal(got, [1, 3])  # stops after the second step
    assert steps == 2


# -- Keras 2.2.4's CTC loss on the Theano backend (Shawn Tan's construction) ---------------

def interleave_blanks(y):
    blanks = T.alloc(-1, y.shape[0] * 2 + 1)
    return T.set_subtensor(blanks[T.arange(y.shape[0]) * 2 + 1], y)


def skip_positions(y):
    positions = T.arange((y.shape[0] - 3) // 2) * 2 + 1
    differ = T.neq(y[positions], y[positions + 2])
    return positions[differ.nonzero()]  # a read with a nonzero of the labels' values


def advance(skips, zeros, active, log_p_curr, log_p_prev):
    active_skips = skips[(skips < active).nonzero()]
    active_next = T.cast(T.minimum(T.maximum(active + 1, T.max(T.concatenate([active_skips, [-1]])) + 3),
                                   log_p_curr.shape[0]), "int32")
    common = T.max(log_p_prev[:active])  # a slice by the state
    p_prev = T.exp(log_p_prev[:active] - common)
    p = T.set_subtensor(zeros[:active_next][:active], p_prev)
    p = T.inc_subtensor(p[1:], p[:-1])
    p = T.inc_subtensor(p[active_skips + 2], p_prev[active_skips])
    return active_next, T.set_subtensor(zeros[:active_next], log_p_curr[:active_next] + T.log(p) + common)


def path_log_probs(predict, y, smoothing=1e-4):
    log_y = T.log((1 - smoothing) * predict[:, y] + smoothing * np.float32(1.0) / y.shape[0])
    zeros = T.zeros_like(log_y[0])
    forward, backward = skip_positions(y), skip_positions(y[::-1])

    def step(f_curr, b_curr, f_active, f_prev, b_active, b_prev):
        return (*advance(forward, zeros, f_active, f_curr, f_prev),
                *advance(backward, zeros, b_active, b_curr, b_prev))

    (f_active, log_f, b_active, log_b), _ = sn.scan(
        step, sequences=[log_y, log_y[::-1, ::-1]],
        outputs_info=[np.int32(1), zeros, np.int32(1), zeros])
    idxs = T.arange(log_y.shape[1]).dimshuffle("x", 0)
    mask = (idxs < f_active.dimshuffle(0, "x")) & (idxs < b_active.dimshuffle(0, "x"))[::-1, ::-1]
    return log_f + log_b[::-1, ::-1] - log_y, mask


def ctc_cost(predict, y):
    log_probs, mask = path_log_probs(predict, interleave_blanks(y))
    common = T.max(log_probs)
    return -(T.log(T.sum(T.exp(log_probs - common)[mask.nonzero()])) + common)


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    def step(labels, predict, n_in, n_labels):
        return ctc_cost(predict[0:n_in[0]], labels[0:n_labels[0]])

    costs, _ = sn.scan(step, sequences=[y_true, y_pred, input_length, label_length])
    return costs


def ctc_reference(probs, labels, smoothing=1e-4):
    """The CTC loss by the forward algorithm (blank: the last class), on Keras's smoothed
    probabilities, less log(T): Keras's Theano code sums the paths' probability over the
    T time steps (its test's expected values are these)."""
    ext = [-1]
    for label in labels:
        ext += [label, -1]
    y = (1 - smoothing) * probs[:, ext] + smoothing / len(ext)
    alpha = np.zeros(len(ext))
    alpha[:2] = y[0, :2]
    for t in range(1, len(probs)):
        prev = alpha.copy()
        alpha[1:] += prev[:-1]
        for s in range(2, len(ext)):
            if ext[s] != -1 and ext[s] != ext[s - 2]:
                alpha[s] += prev[s - 2]
        alpha *= y[t]
    return -np.log(alpha[-1] + alpha[-2]) - np.log(len(probs))


def test_the_ctc_loss_keras_builds_matches_numpy():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(6), size=(2, 5)).astype("float32")
    labels = sn.shared(np.array([[0, 1, 2, 1, 0], [0, 1, 2, 0, -1]], "int32"), name="labels")
    input_lengths = sn.shared(np.array([[5], [4]], "int32"), name="input_lengths")
    label_lengths = sn.shared(np.array([[5], [4]], "int32"), name="label_lengths")
    y_pred = T.tensor3("y_pred")
    costs = ctc_batch_cost(labels, y_pred, input_lengths, label_lengths)
    f = sn.function([y_pred], costs)

    def expected(p):
        return [ctc_reference(p[0].astype(float), [0, 1, 2, 1, 0]),
                ctc_reference(p[1, :4].astype(float), [0, 1, 2, 0])]

    np.testing.assert_allclose(f(probs), expected(probs), rtol=1e-5)
    assert f._static == (1, 2, 3)  # the shared variables; y_pred (0) sets no length
    other = rng.dirichlet(np.ones(6), size=(2, 5)).astype("float32")
    np.testing.assert_allclose(f(other), expected(other), rtol=1e-5)
    labels.set_value(np.array([[3, 3, 2, 0, 0], [1, 2, 0, 4, 4]], "int32"))  # another program
    label_lengths.set_value(np.array([[2], [3]], "int32"))
    np.testing.assert_allclose(f(probs), [ctc_reference(probs[0].astype(float), [3, 3]),
                                          ctc_reference(probs[1, :4].astype(float), [1, 2, 0])],
                               rtol=1e-5)


def test_the_ctc_loss_on_kerass_own_test_values():
    probs = np.asarray(
        [[[0.633766, 0.221185, 0.0917319, 0.0129757, 0.0142857, 0.0260553],
          [0.111121, 0.588392, 0.278779, 0.0055756, 0.00569609, 0.010436],
          [0.0357786, 0.633813, 0.321418, 0.00249248, 0.00272882, 0.0037688],
          [0.0663296, 0.643849, 0.280111, 0.00283995, 0.0035545, 0.00331533],
          [0.458235, 0.396634, 0.123377, 0.00648837, 0.00903441, 0.00623107]],
         [[0.30176, 0.28562, 0.0831517, 0.0862751, 0.0816851, 0.161508],
          [0.24082, 0.397533, 0.0557226, 0.0546814, 0.0557528, 0.19549],
          [0.230246, 0.450868, 0.0389607, 0.038309, 0.0391602, 0.202456],
          [0.280884, 0.429522, 0.0326593, 0.0339046, 0.0326856, 0.190345],
          [0.423286, 0.315517, 0.0338439, 0.0393744, 0.0339315, 0.154046]]], "float32")
    costs = ctc_batch_cost(sn.shared(np.array([[0, 1, 2, 1, 0], [0, 1, 1, 0, -1]], "int32")),
                           sn.shared(probs), sn.shared(np.array([[5], [5]], "int32")),
                           sn.shared(np.array([[5], [4]], "int32")))
    np.testing.assert_allclose(costs.test_value, [1.73308, 3.81351], atol=1e-5)  # Keras's values
    np.testing.assert_allclose(costs.eval(), costs.test_value, rtol=1e-6)
