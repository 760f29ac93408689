"""sn.save / sn.load: model values by name in a .npz file, read without pickles."""

from __future__ import annotations

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def _model():
    rng = np.random.default_rng(0)
    return [sn.shared(rng.normal(size=(3, 2)).astype("float32"), name="W"),
            sn.shared(np.arange(2, dtype="int64"), name="count"),
            sn.shared(np.float64(0.5), name="rate")]


def test_round_trip_is_exact(tmp_path):
    saved = _model()
    values = [v.get_value() for v in saved]
    sn.save(tmp_path / "m.npz", saved)
    fresh = [sn.shared(np.zeros_like(v), name=s.name) for v, s in zip(values, saved)]
    sn.load(tmp_path / "m.npz", fresh)
    for var, value in zip(fresh, values):
        got = var.get_value()
        assert got.dtype == value.dtype and got.shape == value.shape
        assert got.tobytes() == value.tobytes()
    with np.load(tmp_path / "m.npz", allow_pickle=False) as archive:
        assert sorted(archive.files) == ["W", "count", "rate"]


def test_round_trip_after_training(tmp_path):
    W = sn.shared(np.ones((2, 2), "float32"), name="W")
    x = T.matrix("x")
    step = sn.function([x], [], updates=[(W, W - 0.1 * T.dot(x.T, T.dot(x, W)))])
    X = np.array([[1.0, 2.0], [0.5, -1.0]], "float32")
    expected = np.ones((2, 2), "float32")
    for _ in range(3):
        step(X)
        expected = (expected - np.float32(0.1) * (X.T @ (X @ expected))).astype("float32")
    np.testing.assert_allclose(W.get_value(), expected, rtol=1e-6)
    sn.save(tmp_path / "trained.npz", [W])
    other = sn.shared(np.zeros((2, 2), "float32"), name="W")
    sn.load(tmp_path / "trained.npz", [other])
    assert other.get_value().tobytes() == W.get_value().tobytes()
    # A loaded value is used by compiled functions.
    assert sn.function([], other * 1)().tobytes() == W.get_value().tobytes()


def test_errors_name_the_variable_and_change_nothing(tmp_path):
    path = tmp_path / "m.npz"
    sn.save(path, _model())
    W = sn.shared(np.zeros((3, 2), "float32"), name="W")
    missing = sn.shared(np.zeros(2), name="bias")
    with pytest.raises(sn.ModelFileError, match="has no value for 'bias'; it holds 'W', 'count', 'rate'"):
        sn.load(path, [W, missing])
    assert not W.get_value().any()  # W was valid, but nothing is set when one fails
    wrong_shape = sn.shared(np.zeros((2, 3), "float32"), name="W")
    with pytest.raises(sn.ModelFileError, match=r"stores 'W' as a float32 array of shape \(3, 2\).*"
                                                r"holds a float32 array of shape \(2, 3\)"):
        sn.load(path, [wrong_shape])
    wrong_dtype = sn.shared(np.zeros((3, 2), "float64"), name="W")
    with pytest.raises(sn.ModelFileError, match="float64 array of shape"):
        sn.load(path, [wrong_dtype])
    twin = sn.shared(np.zeros((3, 2), "float32"), name="W")
    with pytest.raises(ValueError, match="two of the variables are named 'W'"):
        sn.save(tmp_path / "twice.npz", [W, twin])
    assert not (tmp_path / "twice.npz").exists()
    with pytest.raises(ValueError, match="has none"):
        sn.save(tmp_path / "x.npz", [sn.shared(np.zeros(2))])


def test_bad_files(tmp_path):
    W = sn.shared(np.zeros((3, 2), "float32"), name="W")
    text = tmp_path / "notes.npz"
    text.write_text("not a model")
    with pytest.raises(sn.ModelFileError, match="cannot be loaded as arrays|not a model file"):
        sn.load(text, [W])
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, W=np.array([{"code": 1}], dtype=object))
    with pytest.raises(sn.ModelFileError, match="cannot be loaded as arrays.*allow_pickle"):
        sn.load(pickled, [W])
    single = tmp_path / "single.npy"
    np.save(single, np.zeros((3, 2), "float32"))
    with pytest.raises(sn.ModelFileError, match="single array"):
        sn.load(single, [W])
    with pytest.raises(FileNotFoundError):
        sn.load(tmp_path / "absent.npz", [W])
    assert not W.get_value().any()
