"""Theano's ``rebuild_collect_shared`` (``symnb.compile.pfunc``): graphs copied with
replacements, shared variables and their updates collected. Values checked with NumPy."""

import numpy as np
import pytest

import symnb
import symnb.tensor as T
from symnb.compile.pfunc import rebuild_collect_shared


def _graph():
    x = T.dvector("x")
    s = symnb.shared(np.ones(3), name="s")
    s.default_update = s * 2
    return x, s, (x + s).sum()


def test_outputs_copied_with_inputs_kept_and_default_updates_collected():
    x, s, y = _graph()
    inputs, outputs, (clone_d, update_d, update_expr, shared_inputs) = \
        rebuild_collect_shared([y], [x])
    assert inputs == [x] and outputs[0] is not y and clone_d[y] is outputs[0]
    assert shared_inputs == [s] and [target for target, _ in update_expr] == [s]
    f = symnb.function(inputs, outputs[0], updates=update_expr)
    values = np.arange(3.0)
    assert f(values) == pytest.approx((values + 1).sum())
    np.testing.assert_array_equal(s.get_value(), [2.0, 2.0, 2.0])


def test_copy_inputs_over_false_clones_every_root():
    x, s, y = _graph()
    inputs, outputs, (_, _, update_expr, shared_inputs) = rebuild_collect_shared(
        y, [x], copy_inputs_over=False)
    assert inputs[0] is not x and inputs[0].type == x.type
    # The shared variable's clone shares its storage: the function reads s's value.
    s.set_value(np.full(3, 5.0))
    f = symnb.function(inputs, outputs)
    assert f(np.zeros(3)) == pytest.approx(15.0)
    assert shared_inputs == [s]


def test_replace_updates_and_refusals():
    x, s, y = _graph()
    z = T.dvector("z")
    inputs, outputs, (_, update_d, update_expr, _) = rebuild_collect_shared(
        [y], [z], replace={x: z * 3}, updates=[(s, s + 1)], no_default_updates=True)
    assert [target for target, _ in update_expr] == [s]
    f = symnb.function(inputs, outputs[0], updates=update_expr)
    values = np.arange(3.0)
    assert f(values) == pytest.approx((values * 3 + 1).sum())
    np.testing.assert_array_equal(s.get_value(), [2.0, 2.0, 2.0])
    with pytest.raises(TypeError, match="Cannot use a shared variable"):
        rebuild_collect_shared([y], [s])
    with pytest.raises(ValueError, match="already has an update"):
        rebuild_collect_shared([y], [x], updates=[(s, s + 1), (s, s - 1)])
    with pytest.raises(TypeError, match="same type"):
        rebuild_collect_shared([y], [x], updates=[(s, s.sum())])
