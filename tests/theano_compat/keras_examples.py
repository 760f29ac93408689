"""Run two of Keras 2.2.4's own example scripts on symnb: ``conv_lstm`` (4 ConvLSTM2D +
BatchNormalization) and ``mnist_acgan`` (4 Dropout layers in the discriminator), the two
whose training steps stack ``ifelse`` layers (issue 42: they never finished compiling).

The scripts come from Keras's source release (``keras_suite.prepare``: downloaded and
renamed ``theano`` -> ``symnb``, ``examples/`` included) and run as they are written, in
a process of their own, but for :data:`EDITS`: small synthetic data (MNIST is not
downloaded: ``mnist.load_data`` gives random digits of MNIST's shapes and dtypes), one or
two epochs of a few batches, NumPy 2's ``float`` for the removed ``np.float``, and a
stop after training (the plots and image files that follow need matplotlib and PIL,
stubbed here). A prelude times every Keras backend function: its build (``sn.function``)
and each call, the first including XLA's compile, with the losses it returned.

``python -m tests.theano_compat.keras_examples [WORK_DIR] [NAME ...]`` prints the times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.theano_compat.ported_suite import SRC

#: Per example: (text, replacement) edits of the script, each text found.
EDITS = {
    "conv_lstm": [
        ("dtype=np.float)", "dtype=float)"),  # NumPy 2 removed the np.float alias
        ("noisy_movies, shifted_movies = generate_movies(n_samples=1200)",
         "noisy_movies, shifted_movies = generate_movies(n_samples=8, n_frames=4)"),
        ("batch_size=10,\n        epochs=300, validation_split=0.05)",
         "batch_size=4,\n        epochs=2)"),
        ("which = 1004", "raise SystemExit(0)"),
    ],
    "mnist_acgan": [
        ("    epochs = 100\n    batch_size = 100\n", "    epochs = 1\n    batch_size = 32\n"),
        ("        print('Testing for epoch {}:'.format(epoch))", "        raise SystemExit(0)"),
    ],
}

#: Run before the script: synthetic MNIST, and the timing of every backend function.
PRELUDE = '''
import atexit, json, time
import numpy as np
from keras.backend import symnb_backend as _backend
from keras.datasets import mnist as _mnist

def _synthetic_mnist(*args, **kwargs):
    rng = np.random.RandomState(0)
    def part(n):
        return (rng.randint(0, 256, (n, 28, 28)).astype("uint8"),
                rng.randint(0, 10, n).astype("uint8"))
    return part(96), part(32)

_mnist.load_data = _synthetic_mnist
_RECORDS = []
_built = _backend.Function.__init__
_called = _backend.Function.__call__

def _timed_init(self, *args, **kwargs):
    start = time.perf_counter()
    _built(self, *args, **kwargs)
    self._record = {"name": self.name, "build_s": time.perf_counter() - start, "calls": []}
    _RECORDS.append(self._record)

def _timed_call(self, inputs):
    start = time.perf_counter()
    result = _called(self, inputs)
    loss = float(np.asarray(result[0]).sum()) if len(result) else None
    self._record["calls"].append([time.perf_counter() - start, loss])
    return result

_backend.Function.__init__ = _timed_init
_backend.Function.__call__ = _timed_call
atexit.register(lambda: print("KERAS_EXAMPLE_TIMES " + json.dumps(_RECORDS)))
'''

#: Modules the scripts import for what comes after training (plots, image files).
STUBS = {"pylab.py": "", "PIL/__init__.py": "", "PIL/Image.py": ""}


def script(ported: Path, name: str) -> str:
    """The example's text with :data:`PRELUDE` and its :data:`EDITS`."""
    text = (ported / "examples" / f"{name}.py").read_text(encoding="utf-8")
    for old, new in EDITS[name]:
        if old not in text:
            raise RuntimeError(f"{name}.py: {old!r} not found (another Keras version?)")
        text = text.replace(old, new)
    future, rest = _split_future_imports(text)
    return future + PRELUDE + rest


def _split_future_imports(text: str) -> tuple[str, str]:
    """``from __future__`` lines must stay first: the prelude goes after them."""
    lines = text.splitlines(keepends=True)
    last = max((i for i, line in enumerate(lines) if line.startswith("from __future__")), default=-1)
    return "".join(lines[:last + 1]), "".join(lines[last + 1:])


def run_example(ported: Path, site: Path, name: str, work: Path, timeout: float = 1200) -> dict:
    """Run the edited example in its own process (cwd ``work``); the records of its
    backend functions (name, build seconds, each call's seconds and loss) and the total."""
    work.mkdir(parents=True, exist_ok=True)
    stubs = work / "stubs"
    for relative, text in STUBS.items():
        (stubs / relative).parent.mkdir(parents=True, exist_ok=True)
        (stubs / relative).write_text(text)
    path = work / f"{name}_run.py"
    path.write_text(script(ported, name), encoding="utf-8")
    env = dict(os.environ, KERAS_BACKEND="symnb", KERAS_HOME=str(ported / "keras_home"),
               JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"),
               PYTHONPATH=os.pathsep.join(str(p) for p in [SRC, ported, site, stubs]))
    import time

    start = time.perf_counter()
    proc = subprocess.run([sys.executable, str(path)], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)
    total = time.perf_counter() - start
    marker = "KERAS_EXAMPLE_TIMES "
    found = [line for line in proc.stdout.splitlines() if line.startswith(marker)]
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"{name} failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n"
                           f"{proc.stderr[-6000:]}")
    return {"functions": json.loads(found[-1][len(marker):]), "total_s": total}


def training_functions(result: dict) -> list[dict]:
    """The records of the functions that trained (Keras names them ``train_function``)."""
    return [r for r in result["functions"] if r["name"] == "train_function" and r["calls"]]


def summary(name: str, result: dict) -> str:
    lines = [f"{name}: {result['total_s']:.0f} s in all"]
    for record in result["functions"]:
        calls = record["calls"]
        if not calls:
            continue
        later = [c[0] for c in calls[1:]]
        lines.append(f"  {record['name']}: build {record['build_s']:.1f} s, first call "
                     f"{calls[0][0]:.1f} s, then {sum(later) / max(len(later), 1):.2f} s per call "
                     f"({len(calls)} calls); losses {[round(c[1], 4) for c in calls]}")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m tests.theano_compat.keras_examples [WORK_DIR] [NAME ...]
    import tempfile

    from tests.theano_compat.keras_suite import prepare

    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    ported, site = prepare(work)
    for example in sys.argv[2:] or list(EDITS):
        print(summary(example, run_example(ported, site, example, work / "runs")), flush=True)
