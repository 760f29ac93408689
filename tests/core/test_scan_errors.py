"""scan's messages point at the user's line inside the step function and name the
iteration; test values inside loops follow the compute_test_value modes."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import MissingTestValueError, TestValueError
from symnb.core.scan import scan
from tests.reference import assert_same, symbolic_like


def test_shape_bug_inside_the_step_fails_on_its_line_at_iteration_0():
    x = T.matrix("x", test_value=np.ones((4, 3), "float32"))
    w = T.vector("w", test_value=np.ones(2, "float32"))

    def step(xt):
        y = xt + w  # the bug: (3,) + (2,)
        return y

    with pytest.raises(TestValueError) as info:
        scan(step, sequences=x)
    message = str(info.value)
    assert "y = xt + w  # the bug" in message and "in step" in message
    assert "iteration 0" in message and "x[t].shape(3,)" in message


def test_failure_at_a_later_iteration_names_it_and_the_inner_line():
    idx = T.ivector("idx", test_value=np.array([0, 1, 5], "int32"))
    table = T.vector("table", test_value=np.arange(3, dtype="float32"))

    def step(i, table):
        picked = table[i]  # out of bounds at iteration 2
        return picked * 2

    with pytest.raises(TestValueError) as info:
        scan(step, sequences=idx, non_sequences=table, name="lookup")
    message = str(info.value)
    assert "at iteration 2 of scan 'lookup'" in message
    assert "picked = table[i]  # out of bounds" in message  # the inner node's line
    assert "scan(step, sequences=idx" in message            # and the scan's own line


def test_recurrent_dtype_mismatch_is_explained():
    x = T.vector("x", dtype="float64", test_value=np.ones(3))
    with pytest.raises(TypeError, match=r"output #0 .* dtype float64, .*h0.* float32.*astype"):
        scan(lambda xt, h: h + xt, sequences=x, outputs_info=T.scalar("h0", test_value=np.float32(0)))


def test_state_shape_mismatch_is_explained_at_build_and_at_run_time():
    x = T.matrix("x", shape=(None, 3), test_value=np.ones((2, 3), "float32"))
    with pytest.raises(TypeError, match=r"shape \(4,\), but its state .* shape \(2,\)"):
        scan(lambda h: T.concatenate([h, h]), outputs_info=T.vector("h0", shape=(2,)), n_steps=3)
    h0 = T.vector("h0", test_value=np.ones(1, "float32"))  # broadcasts into a (3,) result
    with pytest.raises(TestValueError, match=r"iteration 0, output #0 .* shape \(3,\).*\(1,\)"):
        scan(lambda xt, h: h + xt, sequences=x, outputs_info=h0)


def test_output_count_must_match_outputs_info():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    with pytest.raises(TypeError, match="returned 2 output.*outputs_info has 1"):
        scan(lambda xt, h: [h + xt, xt], sequences=x, outputs_info=[np.float32(0)])


def test_bad_arguments():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    with pytest.raises(TypeError, match="sequences or n_steps"):
        scan(lambda: T.constant(1.0))
    with pytest.raises(ValueError, match="must be negative"):
        scan(lambda h: h, outputs_info=dict(initial=x, taps=[0]), n_steps=2)
    with pytest.raises(ValueError, match="repeat a tap"):  # Theano refuses repeated output taps
        scan(lambda h: h, outputs_info=dict(initial=x, taps=[-1, -1]), n_steps=2)
    with pytest.raises(KeyError, match="unknown key"):
        scan(lambda a: a, sequences=dict(inputs=x))
    with pytest.raises(TypeError, match="scalar"):
        scan(lambda a: a, sequences=T.scalar("s"))
    with pytest.raises(ValueError, match=r"2 previous steps .* shape \(1, 3\)"):
        scan(lambda a, b: a + b, outputs_info=dict(initial=T.matrix("m", test_value=np.ones((1, 3), "float32")),
                                                   taps=[-2, -1]), n_steps=2)
    with pytest.raises(TypeError, match="not a shared variable"):
        scan(lambda a: (a, {x: a}), sequences=x)
    with pytest.raises(TypeError, match="n_steps must be an integer"):
        scan(lambda h: h, outputs_info=x, n_steps=2.5)
    with pytest.raises(TypeError, match="must be a scalar"):
        from symnb.core.scan import scan_until

        scan(lambda h: [h, scan_until(h)], outputs_info=x, n_steps=2)


def test_test_values_off_builds_without_values():
    with sn.config.change_flags(compute_test_value="off"):
        x = T.vector("x")
        h, _ = scan(lambda xt, h: h * 2 + xt, sequences=x, outputs_info=np.float32(0))
        assert not h.has_test_value
        f = sn.function([x], h)
    assert_same(f(np.ones(3, "float32")), np.array([1, 3, 7], "float32"), "XLA")


def test_inputs_without_values_leave_the_loop_pending_until_set():
    x = T.vector("x")
    h, _ = scan(lambda xt, h: h * 2 + xt, sequences=x, outputs_info=np.float32(0))
    with pytest.raises(MissingTestValueError, match="'x'"):
        h.test_value
    x.tag.test_value = np.ones(3, "float32")
    assert_same(h.test_value, np.array([1, 3, 7], "float32"), "perform")


def test_infer_shape_gives_the_number_of_steps_and_the_row_shape(rng):
    x = symbolic_like(rng.normal(size=(5, 3)), "x")
    w = symbolic_like(rng.normal(size=(3, 4)), "w")
    y, _ = scan(lambda xt, w: T.dot(xt, w), sequences=x, non_sequences=w)
    node = y.owner
    (shape,) = node.op.infer_shape(node, [(), (T.shape(x)[0], 3), (3, T.shape(w)[1])])
    assert shape[0] is node.inputs[0]
    assert int(shape[1].test_value) == 4
