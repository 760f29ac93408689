"""sn.clone (Theano's theano.clone): copies of graphs, with replacements, sharing or cloning
their roots; memory-aliased clones of shared variables (Lasagne's BatchNormLayer)."""

import pickle

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import graph_inputs, toposort
from symnb.scan_module import scan_utils


def _matrix(name, value):
    var = T.matrix(name, dtype="float64")
    var.tag.test_value = value
    return var


def test_share_inputs_keeps_the_roots_and_copies_every_node():
    xv = np.arange(6.0).reshape(2, 3)
    x = _matrix("x", xv)
    w = sn.shared(np.linspace(-1, 1, 3), name="w")
    out = T.tanh(x * w).sum(axis=1)
    copy = sn.clone(out)
    assert copy is not out
    assert {id(v) for v in graph_inputs([copy])} >= {id(x), id(w)}
    assert not {id(n) for n in toposort([copy])} & {id(n) for n in toposort([out])}
    expected = np.tanh(xv * np.linspace(-1, 1, 3)).sum(axis=1)
    np.testing.assert_allclose(copy.test_value, expected)
    np.testing.assert_allclose(sn.function([x], copy)(xv), expected)


def test_replace_swaps_a_variable_once():
    xv = np.arange(6.0).reshape(2, 3)
    x = _matrix("x", xv)
    out = T.exp(x).sum()
    # The replacement reads the key itself: it is not replaced again (x -> 2 * x once).
    doubled = sn.clone(out, replace={x: 2 * x})
    np.testing.assert_allclose(sn.function([x], doubled)(xv), np.exp(2 * xv).sum())
    y = _matrix("y", xv + 1)
    swapped = sn.clone([out, x + 1], replace=[(x, y)])
    assert isinstance(swapped, list)
    f = sn.function([y], swapped)
    np.testing.assert_allclose(f(xv + 1)[0], np.exp(xv + 1).sum())
    np.testing.assert_allclose(swapped[0].test_value, np.exp(xv + 1).sum())


def test_strict_replacement_needs_the_same_type():
    x = _matrix("x", np.ones((2, 3)))
    v = T.vector("v", dtype="float64")
    v.tag.test_value = np.arange(3.0)
    with pytest.raises(TypeError, match="strict=False"):
        sn.clone(x * 2, replace={x: v})
    loose = sn.clone(x * 2, replace={x: v}, strict=False)
    np.testing.assert_allclose(sn.function([v], loose)(np.arange(3.0)), 2 * np.arange(3.0))


def test_share_inputs_false_clones_inputs_with_their_test_values():
    xv = np.arange(6.0).reshape(2, 3)
    x = _matrix("x", xv)
    x.tag.note = "kept"  # Theano copies the tag
    out = (x ** 2).sum(axis=0)
    copy = scan_utils.clone(out, share_inputs=False)
    (new_x,) = [v for v in graph_inputs([copy]) if v.name == "x"]
    assert new_x is not x and new_x.type == x.type and new_x.tag.note == "kept"
    assert new_x.test_value is x.test_value
    np.testing.assert_allclose(copy.test_value, (xv ** 2).sum(axis=0))
    np.testing.assert_allclose(sn.function([new_x], copy)(xv + 1), ((xv + 1) ** 2).sum(axis=0))
    with pytest.raises(sn.compile.UnusedInputError):  # Theano reports it first
        sn.function([x], copy)  # the copy reads the clone, not x
    with pytest.raises(sn.compile.MissingInputError):
        sn.function([x], copy, on_unused_input="ignore")


def test_a_shared_clone_is_memory_aliased():
    mean = sn.shared(np.array([1.0, 2.0]), name="mean")
    alias = sn.clone(mean, share_inputs=False)
    assert alias is not mean and alias.name == "mean" and isinstance(alias, sn.SharedVariable)
    assert alias.default_update is None
    alias.set_value(np.array([5.0, 6.0]))
    np.testing.assert_array_equal(mean.get_value(), [5.0, 6.0])
    mean.set_value(np.array([7.0, 8.0]))
    np.testing.assert_array_equal(alias.get_value(), [7.0, 8.0])
    np.testing.assert_array_equal(alias.test_value, [7.0, 8.0])
    np.testing.assert_array_equal(sn.clone(alias, share_inputs=False).get_value(), [7.0, 8.0])


def test_updating_the_clone_updates_the_original_as_lasagne_batch_norm_does():
    """Lasagne's BatchNormLayer: a clone of the running mean carries the default update;
    the output reads the original (plus 0 * the clone, to collect the update)."""
    alpha = 0.25
    mean = sn.shared(np.zeros(3), name="mean")
    x = _matrix("x", np.ones((4, 3)))
    running = sn.clone(mean, share_inputs=False)
    running.default_update = (1 - alpha) * running + alpha * x.mean(axis=0)
    out = x - (mean + 0 * running)
    f = sn.function([x], out)
    rng = np.random.default_rng(0)
    expected_mean = np.zeros(3)
    for _ in range(3):
        batch = rng.normal(size=(4, 3))
        np.testing.assert_allclose(f(batch), batch - expected_mean)  # read before the update
        expected_mean = (1 - alpha) * expected_mean + alpha * batch.mean(axis=0)
        np.testing.assert_allclose(mean.get_value(), expected_mean)
        np.testing.assert_allclose(running.get_value(), expected_mean)


def test_two_updates_of_one_storage_are_refused():
    w = sn.shared(np.zeros(2), name="w")
    alias = sn.clone(w, share_inputs=False)
    with pytest.raises(ValueError, match="one storage"):
        sn.function([], w + alias, updates=[(w, w + 1), (alias, alias + 2)])


def test_an_explicit_update_of_the_clone_reaches_the_original():
    w = sn.shared(np.array([1.0, 2.0]), name="w")
    alias = sn.clone(w, share_inputs=False)
    f = sn.function([], [w * 1, alias * 10], updates=[(alias, alias + w)])
    before, tenfold = f()
    np.testing.assert_array_equal(before, [1.0, 2.0])
    np.testing.assert_array_equal(tenfold, [10.0, 20.0])
    np.testing.assert_array_equal(w.get_value(), [2.0, 4.0])


def test_pickling_keeps_the_aliasing():
    w = sn.shared(np.array([1.0, 2.0]), name="w")
    alias = sn.clone(w, share_inputs=False)
    w2, alias2 = pickle.loads(pickle.dumps([w, alias]))
    alias2.set_value(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(w2.get_value(), [3.0, 4.0])
    np.testing.assert_array_equal(w.get_value(), [1.0, 2.0])


def test_a_random_state_clone_keeps_its_class():
    streams = sn.RandomStreams(seed=3)
    draw = streams.uniform((2,))
    state = draw.owner.inputs[0]
    alias = state.clone()
    assert isinstance(alias, type(state))
    np.testing.assert_array_equal(np.asarray(alias.get_value()), np.asarray(state.get_value()))
