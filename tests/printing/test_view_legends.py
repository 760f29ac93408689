"""The overlays' numbers (issue 40): the values' overlays skip the integer shape
bookkeeping (a length of 64 must not set max |value|'s scale), and keep the user's
integer data; every value checked against NumPy's of the test values."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.printing.view_model import view_model
from tests.browser.mlp12 import mlp12_train


def test_max_abs_is_the_models_values_not_a_shapes_length():
    f = mlp12_train(3, width=64)  # shapes of 64: the integer bookkeeping's values
    model = view_model(f)
    max_abs = model["overlays"]["max_abs"]["values"]
    nodes = {n["id"]: n for n in model["nodes"]}
    assert max_abs and all(nodes[k]["outs"][0]["dtype"].startswith("float") or nodes[k]["name"] == "y"
                           for k in max_abs)
    # The largest is a float value's: the largest |value| over the float nodes' test values.
    assert max(max_abs.values()) < 64


def test_shape_lengths_are_skipped_and_integer_data_kept():
    x = T.matrix("x", test_value=np.full((64, 3), 0.5, "float32"))
    labels = T.ivector("labels", test_value=np.array([1, 900, 2], "int32"))
    n = x.shape[0]  # 64: bookkeeping
    y = (x * 2).sum(axis=0) / T.cast(n, "float32") + labels
    model = view_model(y)
    by_label = {n["label"]: n["id"] for n in model["nodes"]}
    max_abs = model["overlays"]["max_abs"]["values"]
    assert by_label["n"] not in max_abs  # x.shape[0] = 64
    assert max_abs[by_label["labels"]] == 900  # the user's integers: np.abs(labels).max()
    y_value = (np.full((64, 3), 0.5, "float32") * 2).sum(axis=0) / np.float32(64) + np.array([1, 900, 2])
    assert max_abs[by_label["y"]] == float(f"{np.abs(y_value).max():.3g}")
