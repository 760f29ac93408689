"""``theano.misc.pkl_utils`` (``symnb.misc.pkl_utils``): Theano's documented example of
``dump`` and ``load``, the archive read by NumPy alone, and ``StripPickler``."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.misc import pkl_utils


def test_theanos_example_and_numpy_reading_the_archive():
    foo_1, foo_2 = sn.shared(np.array(0.0), name="foo"), sn.shared(np.array(1.0), name="foo")
    weights = np.arange(6.0).reshape(2, 3)
    w = sn.shared(weights, name="W")
    buffer = io.BytesIO()
    pkl_utils.dump((foo_1, foo_2, np.array(2), w), buffer)
    buffer.seek(0)
    archive = np.load(buffer)
    assert sorted(archive.keys()) == ["W", "array_0", "foo", "foo_2", "pkl"]
    np.testing.assert_array_equal(archive["W"], weights)
    assert archive["foo_2"] == 1.0 and archive["array_0"] == 2
    buffer.seek(0)
    foo_1b, foo_2b, array, wb = pkl_utils.load(buffer)
    assert (foo_1b.get_value(), foo_2b.get_value(), int(array)) == (0.0, 1.0, 2)
    np.testing.assert_array_equal(wb.get_value(), weights)
    assert wb.name == "W" and isinstance(wb, sn.SharedVariable)


def test_a_trained_function_round_trips_through_the_archive():
    x = T.dvector("x")
    w = sn.shared(np.array([1.0, -2.0]), name="w")
    f = sn.function([x], T.dot(x, w), updates=[(w, w * 2)])
    f(np.ones(2))
    buffer = io.BytesIO()
    pkl_utils.dump(f, buffer)
    buffer.seek(0)
    g = pkl_utils.load(buffer)
    assert g(np.array([1.0, 1.0])) == pytest.approx(-2.0)  # w was [2, -4] when dumped


def test_refusals():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        def duplicates(z):
            return pkl_utils.PersistentSharedVariableID(z, allow_duplicates=False)

        pickler = pkl_utils._ZipPickler(io.BytesIO(), 4, duplicates(archive))
        with pytest.raises(ValueError, match="multiple shared variables with the name `a`"):
            pickler.dump([sn.shared(np.zeros(2), name="a"), sn.shared(np.ones(2), name="a")])
    with pytest.raises(ValueError, match="unnamed shared variable"):
        pkl_utils.dump(sn.shared(np.zeros(2)), io.BytesIO(),
                       persistent_id=lambda z: pkl_utils.PersistentSharedVariableID(z, allow_unnamed=False))


def test_strip_pickler_leaves_out_test_values_and_sites_not_the_graph():
    x = T.dvector("x", test_value=np.array([1.0, 2.0]))
    y = T.exp(x) * 2
    out = io.BytesIO()
    pkl_utils.StripPickler(out, protocol=-1).dump({"y": y})
    out.seek(0)
    y2 = pickle.load(out)["y"]
    assert y2.owner.inputs[0]._test_value is None and y2._site is None
    assert x.test_value is not None  # the graph pickled is not changed
    x2 = y2.owner.inputs[0].owner.inputs[0]
    np.testing.assert_allclose(sn.function([x2], y2)(np.array([0.0, 1.0])), 2 * np.exp([0.0, 1.0]))
