"""Three Keras 2.2.4 models (ported by renaming, ``KERAS_BACKEND=symnb``) trained on generated
data, and what ``GraphExplorer`` draws of each one's training function, written as JSON.

Run by ``test_keras_explorer.py`` in an interpreter of its own (Keras and its requirements
come from the ported copy and a folder on ``PYTHONPATH``, nothing installed here):
``python keras_explorer_models.py MODEL OUT.json`` with MODEL ``mlp``, ``convnet`` or
``lstm``. The model is built and trained at the script's top level, as a user's script
or notebook does (a function of the user's building it would be a group around it). Written:
its loss per epoch, the loss ``evaluate`` reports, the data and weights (for a NumPy
reference), its layers' names and Keras's own shapes, and the explorer's top-level groups,
the edges between its boxes (with every layer's group drawn closed) and the details of
the first layer's group.
"""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore", category=SyntaxWarning)  # Keras 2.2.4's "is 0" in its backend
from keras.layers import LSTM, Conv2D, Dense, Flatten, MaxPooling2D  # noqa: E402
from keras.models import Sequential  # noqa: E402

from symnb.widgets import GraphExplorer  # noqa: E402

BATCH = 16
EPOCHS = 8


def explored(model) -> dict:
    """What the explorer draws of ``model``'s training function, after its last call."""
    explorer = GraphExplorer(model.train_function.function)
    tree = explorer.picture.tree
    # The forward graph's layer groups (the gradient mirrors them, under the same names).
    layer_groups = {g.title: g.id for g in tree.groups()
                    if g.kind == "owner" and not any(a.kind == "grad" for a in g.ancestors())}
    for layer in model.layers:  # each layer one box (a big graph draws them so already)
        if layer_groups.get(layer.name) in explorer.opened:
            explorer.close_group(layer_groups[layer.name])
    boxes = {node_id: node.label for node_id, node in explorer.picture.nodes.items()}
    first = layer_groups.get(model.layers[0].name)
    return {
        "groups": [[g.kind, g.title] for g in explorer.picture.tree.top.children],
        "edges": [[boxes[e.source], boxes[e.target], e.label] for e in explorer.picture.edges],
        "first_layer": explorer.describe(first) if first is not None else "",
        "snapshot": explorer.snapshot_body(),
    }


MODEL, OUT = sys.argv[1:3]
np.random.seed(0)  # Keras draws its initial weights and shuffles with NumPy's generator
rng = np.random.RandomState(1)
if MODEL == "mlp":
    x = rng.uniform(-1, 1, (64, 8)).astype("float32")
    y = (x[:, :4].sum(1, keepdims=True) > 0).astype("float32")
    model = Sequential()
    model.add(Dense(16, activation="relu", input_shape=(8,)))
    model.add(Dense(1, activation="sigmoid"))
    model.compile("adam", "binary_crossentropy")
elif MODEL == "convnet":
    # Class k: a bright 3x3 patch in the k-th third of the image.
    labels = rng.randint(0, 3, 64)
    x = rng.uniform(0, 0.2, (64, 9, 9, 1)).astype("float32")
    for i, k in enumerate(labels):
        x[i, 3:6, 3 * k:3 * k + 3, 0] += 1
    y = np.eye(3, dtype="float32")[labels]
    model = Sequential()
    model.add(Conv2D(4, (3, 3), activation="relu", input_shape=(9, 9, 1)))
    model.add(MaxPooling2D((2, 2)))
    model.add(Flatten())
    model.add(Dense(3, activation="softmax"))
    model.compile("adam", "categorical_crossentropy")
else:
    x = rng.uniform(0, 1, (64, 5, 3)).astype("float32")
    y = x.mean(axis=(1, 2))[:, None].astype("float32")
    model = Sequential()
    model.add(LSTM(6, input_shape=(5, 3)))
    model.add(Dense(1))
    model.compile("adam", "mse")
history = model.fit(x, y, epochs=EPOCHS, batch_size=BATCH, verbose=0)
result = {
    "batch": BATCH,
    "loss": [float(v) for v in history.history["loss"]],
    "evaluated": float(model.evaluate(x, y, batch_size=len(x), verbose=0)),
    "x": x.tolist(), "y": y.tolist(),
    "weights": [w.tolist() for w in model.get_weights()],
    "layers": [[layer.name, [d and int(d) for d in layer.input_shape], [d and int(d) for d in layer.output_shape]]
               for layer in model.layers],
    **explored(model),
}
with open(OUT, "w") as out:
    json.dump(result, out)
