"""A Keras model in the explorer: Keras 2.2.4 (its Theano backend ported by renaming only,
``KERAS_BACKEND=symnb``) trains an MLP, a small convnet and an LSTM built with
``Sequential``, and ``GraphExplorer`` on each one's training function reads as the model's
layers: one group per layer named as Keras names it (``dense_1``, ``conv2d_1``,
``lstm_1``, from the layer objects' ``name``: Keras unchanged), the shapes of the last
call on the edges between them.

Slow (Keras is downloaded from the package index): runs with ``--run-slow``, as CI does.
Each model runs in an interpreter of its own (``keras_explorer_models.py``), with Keras
and its requirements on its ``PYTHONPATH`` only.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from tests.theano_compat.keras_suite import download, port_keras
from tests.theano_compat.ported_suite import SRC

pytestmark = pytest.mark.slow(minutes=1)

DRIVER = Path(__file__).resolve().parent / "keras_explorer_models.py"
EPSILON = 1e-7  # Keras's clip of probabilities in its cross-entropies


@pytest.fixture(scope="session")
def ported_keras(tmp_path_factory):
    work = tmp_path_factory.mktemp("keras")
    source, site = download(work / "download")
    return port_keras(source, work / "ported"), site


def run_model(ported_keras, model, tmp_path) -> dict:
    ported, site = ported_keras
    out = tmp_path / f"{model}.json"
    env = {**os.environ, "KERAS_BACKEND": "symnb", "KERAS_HOME": str(ported / "keras_home"),
           "PYTHONPATH": os.pathsep.join(map(str, [SRC, ported, site]))}
    proc = subprocess.run([sys.executable, str(DRIVER), model, str(out)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(out.read_text())


# -- NumPy references of the trained models' losses (Keras's formulas) --------------------
def relu(z):
    return np.maximum(z, 0)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def hard_sigmoid(z):  # Keras's default recurrent activation
    return np.clip(0.2 * z + 0.5, 0, 1)


def mlp_loss(x, y, W1, b1, W2, b2):
    p = np.clip(sigmoid(relu(x @ W1 + b1) @ W2 + b2), EPSILON, 1 - EPSILON)
    return np.mean(-(y * np.log(p) + (1 - y) * np.log(1 - p)))


def convnet_loss(x, y, K, c, W, b):
    windows = sliding_window_view(x, K.shape[:2], axis=(1, 2))  # (n, 7, 7, 1, 3, 3)
    # A true convolution (the kernel flipped), as Theano's conv2d, which Keras calls.
    h = relu(np.einsum("nijcuv,uvcf->nijf", windows, K[::-1, ::-1]) + c)
    n, rows, cols, f = h.shape
    pooled = h[:, :rows // 2 * 2, :cols // 2 * 2].reshape(n, rows // 2, 2, cols // 2, 2, f).max(axis=(2, 4))
    p = softmax(pooled.reshape(n, -1) @ W + b)
    p = np.clip(p / p.sum(-1, keepdims=True), EPSILON, 1 - EPSILON)
    return np.mean(-(y * np.log(p)).sum(-1))


def lstm_loss(x, y, kernel, recurrent, bias, W, b):
    units = recurrent.shape[0]
    h = c = np.zeros((x.shape[0], units))
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias  # gates in Keras's order: i, f, c, o
        i, f, g, o = (z[:, k * units:(k + 1) * units] for k in range(4))
        c = hard_sigmoid(f) * c + hard_sigmoid(i) * np.tanh(g)
        h = hard_sigmoid(o) * np.tanh(c)
    return np.mean((h @ W + b - y) ** 2)


REFERENCE = {"mlp": mlp_loss, "convnet": convnet_loss, "lstm": lstm_loss}
LAYERS = {"mlp": ["dense_1", "dense_2"], "convnet": ["conv2d_1", "max_pooling2d_1", "flatten_1", "dense_1"],
          "lstm": ["lstm_1", "dense_1"]}
CLASSES = {"dense_1": "Dense", "conv2d_1": "Conv2D", "lstm_1": "LSTM"}


@pytest.mark.parametrize("model", ["mlp", "convnet", "lstm"])
def test_a_keras_model_trains_and_its_training_function_reads_as_its_layers(ported_keras, model, tmp_path):
    result = run_model(ported_keras, model, tmp_path)
    loss = result["loss"]
    assert all(later < earlier for earlier, later in zip(loss, loss[1:])), loss
    arrays = [np.asarray(a, "float64") for a in [result["x"], result["y"], *result["weights"]]]
    np.testing.assert_allclose(result["evaluated"], REFERENCE[model](*arrays), rtol=2e-5)

    # One group per layer, named as Keras names it, in the model's order.
    names = [name for name, _, _ in result["layers"]]
    assert names == LAYERS[model]
    assert [title for kind, title in result["groups"] if kind == "owner"] == names
    first = names[0]
    assert result["first_layer"].startswith(f"{first}: calls of {CLASSES[first]} '{first}', ")
    # The edges between them carry the last call's shapes: Keras's own shapes with the
    # batch's size (the last batch of 64 samples by 16: 16) for None.
    batch = result["batch"]
    edges = {(source, target): label for source, target, label in result["edges"]}
    (into_first,) = [label for (source, target), label in edges.items() if target == first and source.endswith("_input")]
    assert into_first == f"float32 {(batch, *result['layers'][0][1][1:])}"
    for (name, _, shape), following in zip(result["layers"], names[1:]):
        assert edges[(name, following)] == f"float32 {(batch, *shape[1:])}"
    assert all(name in result["snapshot"] for name in names)  # the saved picture too
