"""compile/split_program.py and split_buckets.py: a length known only at run time
splits the compiled function into programs with NumPy between them; the last program
is compiled per length bucket where padding is exact, else per length."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.split_buckets import bucket
from symnb.compile.split_program import SplitFunction

RNG = np.random.default_rng(39)


def _vector(n, rng=RNG):
    return rng.standard_normal(n).astype("float32")


def test_masked_mean_matches_numpy_and_buckets_its_lengths():
    x = T.vector("x")
    f = sn.function([x], x[x > 0].mean())
    assert isinstance(f, SplitFunction)
    assert f.lengths == "buckets", f.lengths_reason
    seen_lengths, seen_buckets = set(), set()
    for threshold in np.linspace(-2.0, 2.0, 12):
        values = _vector(100) - np.float32(threshold)
        np.testing.assert_allclose(f(values), values[values > 0].mean(), rtol=1e-5)
        seen_lengths.add(int((values > 0).sum()))
        seen_buckets.add(bucket(int((values > 0).sum())))
    # The mean's program is compiled per bucket, not per length.
    assert len(seen_lengths) > len(seen_buckets)
    assert f.programs[-1]._program.traces == len(seen_buckets)
    # x > 0 is computed in NumPy: no program of its own.
    assert f.compiled_programs() == len(seen_buckets)


def test_a_mask_length_changing_at_every_call_compiles_a_handful_of_programs():
    x = T.vector("x", shape=(256,))
    scale = sn.shared(np.float32(2.0), name="scale")  # the mask needs a program of its own
    mask = x * scale > 0.5
    f = sn.function([x], [x[mask].sum(), x[mask].max()])
    assert len(f.programs) == 2
    lengths = set()
    for _ in range(40):
        values = _vector(256)
        reference = values[values * 2 > 0.5]
        lengths.add(len(reference))
        total, largest = f(values)
        np.testing.assert_allclose(total, reference.sum(), rtol=1e-4)
        assert largest == reference.max()
    assert len(lengths) > 10  # the lengths did change...
    buckets = {bucket(n) for n in lengths}
    assert f.compiled_programs() == 1 + len(buckets) <= 1 + 4  # ...a few buckets cover them


def test_gradient_through_a_boolean_mask_by_finite_differences():
    x = T.dvector("x")
    cost = (x[x > 0] ** 2).mean() + x[(x > 0).nonzero()].sum()
    g = T.grad(cost, x)
    f = sn.function([x], [cost, g])
    assert f.lengths == "buckets", f.lengths_reason
    values = np.array([0.5, -1.0, 2.0, 3.0, -0.25, 1.5])

    def numpy_cost(v):
        kept = v[v > 0]
        return (kept ** 2).mean() + kept.sum()

    cost_value, grad_value = f(values)
    np.testing.assert_allclose(cost_value, numpy_cost(values))
    eps = 1e-6
    numeric = [(numpy_cost(values + eps * e) - numpy_cost(values - eps * e)) / (2 * eps)
               for e in np.eye(len(values))]
    np.testing.assert_allclose(grad_value, numeric, rtol=1e-6, atol=1e-8)


def test_nonzero_read_is_cut_to_its_real_length():
    x = T.matrix("x")
    m = T.matrix("m")
    f = sn.function([x, m], x[(m > 0).nonzero()] * 3)
    for shape in ((2, 3), (5, 4)):
        xv, mv = _vector(shape[0] * shape[1]).reshape(shape), _vector(shape[0] * shape[1]).reshape(shape)
        result = f(xv, mv)
        np.testing.assert_allclose(result, xv[(mv > 0).nonzero()] * 3, rtol=1e-6)
        assert result.shape == (int((mv > 0).sum()),)


def test_unique_with_counts_index_and_inverse():
    x = T.lvector("x")
    values, index, inverse, counts = T.extra_ops.Unique(True, True, True)(x)
    f = sn.function([x], [values * 10, index, inverse, counts, counts.sum()])
    data = np.array([3, 1, 3, 7, 1, 1, 9])
    expected = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    got = f(data)
    np.testing.assert_array_equal(got[0], expected[0] * 10)
    for result, reference in zip(got[1:4], expected[1:]):
        np.testing.assert_array_equal(result, reference.reshape(-1))
    assert got[4] == len(data)
    # Theano's default: the values only; as a test value too.
    y = T.vector("y", test_value=np.array([2.0, 2.0, 1.0], "float32"))
    unique = T.extra_ops.Unique()(y)
    np.testing.assert_array_equal(unique.test_value, [1.0, 2.0])
    np.testing.assert_array_equal(sn.function([y], unique)(np.array([5, 4, 5], "float32")), [4, 5])


def test_arange_of_a_value_computed_at_run_time():
    x = T.vector("x")
    n = T.cast(x.sum(), "int64")
    f = sn.function([x], [T.arange(n) * 2, T.arange(n).sum()])
    for total in (0, 3, 11):
        values = np.array([total, 0.0], "float32")
        doubled, summed = f(values)
        np.testing.assert_array_equal(doubled, np.arange(total) * 2)
        assert summed == np.arange(total).sum()


def test_boolean_mask_set_and_inc_subtensor_of_values_of_the_masked_length():
    x = T.vector("x")
    mask = x > 0
    kept = x[mask]
    f = sn.function([x], [T.set_subtensor(kept, kept * 2 - kept.mean()),
                          T.inc_subtensor(x[mask], T.arange(kept.shape[0]).astype("float32"))])
    assert f.lengths == "buckets", f.lengths_reason
    for n in (5, 12, 13):
        values = _vector(n)
        values[0] = 1.0  # never an empty mask: NumPy's mean of nothing is NaN with a warning
        positive = values > 0
        expected_set = values.copy()
        expected_set[positive] = values[positive] * 2 - values[positive].mean()
        expected_inc = values.copy()
        expected_inc[positive] += np.arange(positive.sum())
        got_set, got_inc = f(values)
        # 2x - mean cancels where x is near mean / 2: one float32 ulp of the mean (summed in
        # float64 here, as Theano's acc_dtype; in float32 in NumPy's reference) stays absolute.
        np.testing.assert_allclose(got_set, expected_set, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got_inc, expected_inc, rtol=1e-6)


def test_a_graph_padding_cannot_serve_specializes_per_length_and_says_why():
    x = T.vector("x")
    kept = x[x > 0]
    f = sn.function([x], T.sort(kept)[::-1][:2])  # a sort would see the padded rows
    assert f.lengths == "per length"
    assert "Sort" in f.lengths_reason and "test_split_program.py" in f.lengths_reason
    values = np.array([3.0, -1.0, 2.0, 5.0], "float32")
    np.testing.assert_array_equal(f(values), [5.0, 3.0])


def test_shared_variables_are_updated_after_the_whole_chain_only():
    w = sn.shared(np.float32(1.0), name="w")
    x = T.vector("x")
    kept = x[x > 0]
    # The host reshape fails when the kept count is odd: the update must not happen.
    pairs = T.reshape(kept, (-1, 2))
    f = sn.function([x], pairs.sum(), updates=[(w, w + kept.sum())])
    values = np.array([1.0, -2.0, 3.0], "float32")
    assert f(values) == 4.0
    assert w.get_value() == 5.0
    with pytest.raises(ValueError) as failure:
        f(np.array([1.0, 2.0, 3.0], "float32"))
    assert "test_split_program.py" in str(failure.value)  # the user's line
    assert w.get_value() == 5.0


def test_refusals_inside_a_loop_body_stay():
    m = T.matrix("m")
    sums, _ = sn.scan(lambda row: row[row.nonzero()].sum(), sequences=[m])
    with pytest.raises(sn.DynamicShapeError, match="row.nonzero"):
        sn.function([m], sums)


def test_keywords_defaults_and_single_outputs_are_the_function_s():
    x = T.vector("x")
    scale = T.scalar("scale")
    f = sn.function([x, sn.In(scale, value=2.0)], x[x > 0] * scale)
    values = np.array([1.0, -1.0, 4.0], "float32")
    np.testing.assert_array_equal(f(values), [2.0, 8.0])
    np.testing.assert_array_equal(f(x=values, scale=3.0), [3.0, 12.0])
    assert isinstance(f(values), np.ndarray)


def test_a_mask_written_twice_alike_is_one_length():
    x = T.vector("x")
    f = sn.function([x], T.set_subtensor(x[x > 0], x[x > 0] * 2))
    assert len(f.host_nodes) == 1 and f.lengths == "buckets", f.lengths_reason
    values = np.array([1.0, -2.0, 3.0, 0.5, 4.0], "float32")
    np.testing.assert_array_equal(f(values), np.where(values > 0, values * 2, values))


def test_reductions_over_padded_rows_of_a_matrix():
    x = T.matrix("x")
    rows = x[x[:, 0] > 0]
    f = sn.function([x], [rows.sum(axis=0), rows.max(axis=0), rows.min(), rows.prod(axis=0),
                          rows.mean(axis=0), rows.sum(axis=1) * 2, (rows > 1).any(), rows.shape[0]])
    assert f.lengths == "buckets", f.lengths_reason
    for n in (4, 9):
        values = RNG.standard_normal((n, 3)).astype("float32")
        values[0, 0] = 1.0
        kept = values[values[:, 0] > 0]
        expected = [kept.sum(axis=0), kept.max(axis=0), kept.min(), kept.prod(axis=0),
                    kept.mean(axis=0), kept.sum(axis=1) * 2, (kept > 1).any(), len(kept)]
        for got, reference in zip(f(values), expected, strict=True):
            np.testing.assert_allclose(got, reference, rtol=1e-5)


def test_a_classifier_step_on_the_labelled_examples_by_finite_differences():
    W = T.dmatrix("W")
    X = T.dmatrix("X")
    y = T.lvector("y")
    labelled = T.ge(y, 0)
    probabilities = T.nnet.softmax(T.dot(X[labelled], W))
    cost = T.nnet.categorical_crossentropy(probabilities, y[labelled]).mean()
    f = sn.function([W, X, y], [cost, T.grad(cost, W)])
    assert f.lengths == "buckets", f.lengths_reason

    def numpy_cost(w, x, labels):
        keep = labels >= 0
        logits = x[keep] @ w
        logits = logits - logits.max(axis=1, keepdims=True)
        log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        return -log_p[np.arange(keep.sum()), labels[keep]].mean()

    rng = np.random.default_rng(3)
    w = rng.standard_normal((5, 3))
    for n in (6, 11):
        x = rng.standard_normal((n, 5))
        labels = rng.integers(0, 3, n)
        labels[rng.random(n) < 0.4] = -1
        labels[0] = 1
        cost_value, grad_value = f(w, x, labels)
        np.testing.assert_allclose(cost_value, numpy_cost(w, x, labels), rtol=1e-10)
        eps = 1e-6
        numeric = np.zeros_like(w)
        for i in np.ndindex(*w.shape):
            step = np.zeros_like(w)
            step[i] = eps
            numeric[i] = (numpy_cost(w + step, x, labels) - numpy_cost(w - step, x, labels)) / (2 * eps)
        np.testing.assert_allclose(grad_value, numeric, rtol=1e-6, atol=1e-9)


def test_a_host_node_fed_by_another_makes_a_longer_chain():
    x = T.lvector("x")
    offset = sn.shared(np.int64(1), name="offset")
    distinct = T.extra_ops.Unique()(x[x > 0] + offset)
    f = sn.function([x], [distinct * 2, distinct.shape[0]])
    assert [n.op.display_name() for n in f.host_nodes] == ["Nonzero{False}", distinct.owner.op.display_name()]
    assert len(f.programs) == 3
    for data in (np.array([3, -1, 3, 5, 0, 5, 7]), np.array([-2, 4])):
        offset.set_value(np.int64(len(data)))
        expected = np.unique(data[data > 0] + len(data))
        doubled, count = f(data)
        np.testing.assert_array_equal(doubled, expected * 2)
        assert count == len(expected)


def test_the_profile_says_how_the_last_program_is_specialized():
    x = T.vector("x")
    f = sn.function([x], T.sort(x[x > 0]), profile=True)
    np.testing.assert_array_equal(f(np.array([2.0, -1.0, 1.0], "float32")), [1.0, 2.0])
    text = f.profile.summary(file="str")
    assert "compiled per length (padding is not exact: Sort" in text, text
    g = sn.function([x], x[x > 0].sum(), profile=True)
    g(np.array([2.0, -1.0, 1.0], "float32"))
    assert "compiled per length bucket." in g.profile.summary(file="str")


@pytest.mark.parametrize("dtype", ["int32", "bool", "float64"])
def test_extrema_of_padded_rows_of_other_dtypes(dtype):
    x = T.vector("x", dtype=dtype)
    keep = T.lvector("keep")
    kept = x[T.gt(keep, 0)]
    f = sn.function([x, keep], [kept.max(), kept.min(), kept.sum(), kept.mean()])
    assert f.lengths == "buckets", f.lengths_reason
    values = np.array([3, 0, 1, 7, 2], dtype)
    for mask in ([1, 0, 1, 0, 0], [0, 1, 1, 1, 1], [0, 1, 0, 0, 0]):
        chosen = values[np.array(mask) > 0]
        expected = [chosen.max(), chosen.min(), chosen.sum(), chosen.mean()]
        for got, reference in zip(f(values, np.array(mask)), expected, strict=True):
            assert got.dtype == reference.dtype
            np.testing.assert_allclose(got, reference)


def test_pickled_copied_and_printed_like_a_function():
    import pickle

    w = sn.shared(np.float32(0.0), name="w")
    x = T.vector("x")
    f = sn.function([x], x[x > 0].sum(), updates=[(w, w + 1)], name="positive")
    values = np.array([1.0, -2.0, 3.0], "float32")
    again = pickle.loads(pickle.dumps(f))
    assert isinstance(again, SplitFunction) and again(values) == 4.0
    copy = f.copy(delete_updates=True)
    assert copy(values) == [4.0] and w.get_value() == 0.0  # no update; a list, as Theano's copies
    assert f(values) == 4.0 and w.get_value() == 1.0
    text = sn.printing.debugprint(f, file="str")
    assert "Nonzero" in text and "Sum" in text


def test_an_empty_selection_s_max_fails_at_the_user_s_line_and_updates_nothing():
    w = sn.shared(np.float32(0.0), name="w")
    x = T.vector("x")
    largest = x[x > 0].max()  # the line the error names
    f = sn.function([x], largest, updates=[(w, w + largest)])
    assert f(np.array([1.0, 5.0, -1.0], "float32")) == 5.0 and w.get_value() == 5.0
    with pytest.raises(ValueError) as failure:
        f(np.array([-1.0, -2.0], "float32"))
    assert "max of an empty sequence" in str(failure.value)
    assert "largest = x[x > 0].max()  # the line the error names" in str(failure.value)
    assert w.get_value() == 5.0


def test_padding_makes_no_infinity_nanguardmode_would_see():
    x = T.vector("x")
    mode = sn.compile.NanGuardMode(nan_is_error=True, inf_is_error=True, big_is_error=False)
    kept = x[x > 0]
    f = sn.function([x], [kept.max(), kept.min(), kept.mean()], mode=mode)
    assert f.lengths == "buckets", f.lengths_reason
    values = np.array([1.0, -2.0, 3.0, 4.0], "float32")  # 3 rows, padded to 4
    np.testing.assert_allclose(f(values), [4.0, 1.0, 8.0 / 3.0], rtol=1e-6)


def test_row_numbers_indexing_an_unpadded_array_stay_per_length():
    x = T.vector("x")
    table = T.vector("table")
    kept = x[x > 0]
    # arange(n) * 2 indexes table: padded, its rows would point past the real ones.
    f = sn.function([x, table], T.set_subtensor(table[T.arange(kept.shape[0]) * 2], kept))
    assert f.lengths == "per length" and "may point anywhere" in f.lengths_reason
    values = np.array([1.0, -1.0, 2.0, 3.0], "float32")
    expected = np.zeros(8, "float32")
    expected[[0, 2, 4]] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(f(values, np.zeros(8, "float32")), expected)


def test_a_random_mask_is_one_draw_across_the_chain_and_the_stream_advances_once():
    srng = sn.RandomStreams(seed=7)
    x = T.vector("x")
    mask = srng.uniform(size=x.shape) > 0.5
    f = sn.function([x], [x[mask].sum(), T.switch(mask, x, 0).sum(), mask])
    values = np.arange(1, 65, dtype="float32")
    draws = []
    for _ in range(3):
        selected, switched, drawn = f(values)
        assert selected == switched == values[drawn].sum()  # the same draw in both programs
        draws.append(drawn)
    assert not np.array_equal(draws[0], draws[1])  # the default update ran once per call


def test_the_last_row_of_padded_rows_and_its_gradient_are_exact():
    x = T.dvector("x")
    kept = x[x > 0]
    cost = kept[-1] * 3 + (kept ** 2).sum()
    f = sn.function([x], [kept[-1], cost, T.grad(cost, x)])
    assert f.lengths == "buckets", f.lengths_reason
    for values in (np.array([1.0, -2.0, 3.0]), np.array([0.5, 2.0, -1.0, 4.0, 5.0, -3.0])):
        positive = values > 0
        last = np.flatnonzero(positive)[-1]
        expected_grad = np.where(positive, 2 * values, 0.0)
        expected_grad[last] += 3
        got_last, got_cost, got_grad = f(values)
        assert got_last == values[last]
        np.testing.assert_allclose(got_cost, values[last] * 3 + (values[positive] ** 2).sum())
        np.testing.assert_allclose(got_grad, expected_grad)


def test_every_program_after_the_first_is_compiled_per_bucket():
    # Two run-time lengths: the mask's (program 2 reads x[mask]) and Unique's (program 3).
    x = T.dvector("x")
    distinct = T.extra_ops.Unique()(T.round(x[x > 0] * 3))
    f = sn.function([x], [distinct * 2, distinct.sum()])
    assert len(f.programs) == 3 and f.lengths == "buckets", f.lengths_reason
    rng = np.random.default_rng(7)
    kept_lengths, distinct_lengths = set(), set()
    for _ in range(60):
        values = rng.normal(size=64)
        expected = np.unique(np.round(values[values > 0] * 3))
        doubled, total = f(values)
        np.testing.assert_array_equal(doubled, expected * 2)
        np.testing.assert_allclose(total, expected.sum())
        kept_lengths.add(int((values > 0).sum()))
        distinct_lengths.add(len(expected))
    middle, last = f.programs[1:]
    assert len(kept_lengths) > 4 and len(distinct_lengths) > 2  # lengths did change
    assert middle._program.traces == len({bucket(n) for n in kept_lengths}) < len(kept_lengths)
    assert last._program.traces == len({bucket(n) for n in distinct_lengths}) < len(distinct_lengths)
    assert f.compiled_programs() == middle._program.traces + last._program.traces  # x > 0: NumPy


def test_a_middle_program_padding_cannot_serve_is_named_with_its_reason():
    x = T.dvector("x")
    distinct = T.extra_ops.Unique()(T.sort(x[x > 0])[:-1])  # a sort would see padded rows
    f = sn.function([x], distinct.sum(), profile=True)
    assert f.lengths == "per length"
    assert f.lengths_reason.startswith("program 2 of 3: padding is not exact: Sort"), f.lengths_reason
    values = np.array([3.0, -1.0, 2.0, 3.0, 5.0])
    assert f(values) == np.unique(np.sort(values[values > 0])[:-1]).sum()
    assert "program 2 of 3: padding is not exact: Sort" in f.profile.summary(file="str")


def test_as_jax_runs_the_chain_with_the_host_steps_between_the_programs():
    import jax

    w = sn.shared(np.float32(2.0), name="w")
    x = T.vector("x")
    with sn.config.change_flags(index_checks=False):  # as for a one-program function
        f = sn.function([x], [x[x > 0].sum() * w, x[x > 0]], updates=[(w, w + 1)])
        fn, params = f.as_jax()
    assert set(params) == {"w"} and isinstance(params["w"], jax.Array)
    for values in (np.array([1.0, -2.0, 3.0], "float32"), _vector(37)):
        kept = values[values > 0]
        (total, rows), new = fn(params, values)
        np.testing.assert_allclose(total, kept.sum() * 2, rtol=1e-6)
        np.testing.assert_array_equal(rows, kept)
        assert new["w"] == 3.0 and params["w"] == 2.0  # pure: params unchanged
    assert w.get_value() == 2.0  # f's state untouched
    with pytest.raises(TypeError, match="runs Nonzero.* on the host between two programs"):
        jax.jit(fn)(params, np.array([1.0, -2.0], "float32"))
    with pytest.raises(TypeError, match="no one lowered text"):
        f.lowered_text()


def test_as_jax_of_a_scan_until_loop():
    max_value = T.scalar()
    values, _ = sn.scan(lambda p, m: [p * 2, sn.scan_until(p * 2 > m)],
                        outputs_info=T.constant(1.0), non_sequences=max_value, n_steps=1024)
    fn, params = sn.function([max_value], [values, values.sum()]).as_jax()
    assert params == {}
    (rows, total), _ = fn(params, np.float32(45))
    np.testing.assert_array_equal(rows, [2, 4, 8, 16, 32, 64])
    assert total == 126


def _lasagne_multiclass_hinge_loss(predictions, targets, delta=1):
    """Lasagne 0.2's lasagne.objectives.multiclass_hinge_loss, as written there."""
    num_cls = predictions.shape[1]
    if targets.ndim == predictions.ndim - 1:
        targets = T.extra_ops.to_one_hot(targets, num_cls)
    corrects = predictions[targets.nonzero()]
    rest = T.reshape(predictions[(1 - targets).nonzero()], (-1, num_cls - 1))
    rest = T.max(rest, axis=1)
    return T.nnet.relu(rest - corrects + delta)


def test_lasagne_multiclass_hinge_loss_at_batch_500_and_its_gradient():
    predictions, targets = T.dmatrix("predictions"), T.ivector("targets")
    loss = _lasagne_multiclass_hinge_loss(predictions, targets).mean()
    f = sn.function([predictions, targets], [loss, T.grad(loss, predictions)])
    # The reshape of the rows the mask kept would mix padded rows in: per length, said so.
    assert f.lengths == "per length" and "Reshape" in f.lengths_reason
    rng = np.random.default_rng(500)

    def numpy_loss(p, t):
        correct = p[np.arange(len(t)), t]
        others = p.copy()
        others[np.arange(len(t)), t] = -np.inf
        return np.maximum(others.max(axis=1) - correct + 1, 0).mean()

    for batch in (500, 128):
        p = rng.normal(size=(batch, 10))
        t = rng.integers(0, 10, batch).astype("int32")
        got_loss, got_grad = f(p, t)
        np.testing.assert_allclose(got_loss, numpy_loss(p, t), rtol=1e-12)
        eps = 1e-6
        rows = rng.choice(batch, 5, replace=False)  # a few entries by finite differences
        for i in rows:
            for j in (t[i], (t[i] + 1) % 10):
                step = np.zeros_like(p)
                step[i, j] = eps
                numeric = (numpy_loss(p + step, t) - numpy_loss(p - step, t)) / (2 * eps)
                np.testing.assert_allclose(got_grad[i, j], numeric, rtol=1e-5, atol=1e-9)


def test_a_failure_in_a_later_program_names_the_program_the_node_and_the_user_s_line():
    x, i = T.vector("x"), T.lscalar("i")
    kept = x[x > 0]
    picked = kept[i]  # the line the error names
    f = sn.function([x, i], picked * 2)
    assert f(np.array([1.0, -1.0, 2.0], "float32"), 1) == 4.0
    with pytest.raises(IndexError) as failure:
        f(np.array([1.0, -1.0, 2.0], "float32"), 5)
    text = str(failure.value)
    assert "'split function, program 2 of 2'" in text and "Subtensor" in text, text
    assert "index 5 in i is out of bounds for axis 0 of kept, which has length 2" in text, text
    assert "picked = kept[i]  # the line the error names" in text, text


_CACHED_CHILD = """
import json
import numpy as np
import symnb as sn, symnb.tensor as T
from symnb.lower_xla.executable_cache import counts

x = T.vector("x")
f = sn.function([x], x[x > 0].mean())
results = [float(f(np.where(np.arange(10) < k, np.arange(1, 11), -1).astype("float32")))
           for k in (4, 5, 6, 1)]
print(json.dumps(dict(results=results, hits=counts.hits, writes=counts.writes,
                      traces=f.compiled_programs())))
"""


def test_the_disk_cache_keeps_one_program_per_bucket(tmp_path):
    import json
    import os
    import subprocess
    import sys

    script = tmp_path / "split.py"
    script.write_text(_CACHED_CHILD)
    sources = os.path.dirname(os.path.dirname(sn.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([sources, os.environ.get("PYTHONPATH", "")]),
               SYMNB_FLAGS=f"compile_cache_min_seconds=0,compile_cache_dir={tmp_path / 'cache'}")
    # 4, 5, 6 and 1 positive values of 10: buckets 4, 8, 8 and 1 (x > 0 is computed in NumPy).
    expected = [np.arange(1, k + 1, dtype="float32").mean() for k in (4, 5, 6, 1)]
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        np.testing.assert_allclose(runs[-1]["results"], expected, rtol=1e-6)
    first, second = runs
    assert first["traces"] == 3  # one program per bucket, not per length
    assert first["writes"] == 3 and first["hits"] == 0
    # The next process reads the buckets' programs back: it traces and writes nothing.
    assert second["traces"] == second["writes"] == 0 and second["hits"] == 3
