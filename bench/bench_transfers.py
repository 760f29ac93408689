"""Copies between host and device per call (issue 22): the MLP training step.

    python bench/bench_transfers.py

bench_grad's training step (inputs ``x`` and ``y``, one output, six shared parameters
updated in place) is called 10 times under ``jax.transfer_guard("log")``, in a child
process whose log of transfers is counted. Expected per call: one host->device copy per
input (2) and one device->host copy per output (1); the shared variables stay on the
device (never copied either way). The same count for the hand-written ``jax.jit`` step
(parameters kept as device arrays) is printed beside it. On a CPU, JAX reads outputs
without a copy, so no device->host transfer is logged there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
CALLS = 10

_CHILD = """
import sys, jax, numpy as np
from bench_grad import BATCH, SIZES, initial_params, jax_step, symnb_step
rng = np.random.default_rng(0)
params = initial_params(rng)
x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")
f, shared = symnb_step(params)
reference = [jax.device_put(p) for p in params]
f(x, y); loss, reference = jax_step(reference, x, y); np.asarray(loss)  # compile, place
for name in ("symnb", "jax.jit"):
    print("==", name, file=sys.stderr, flush=True)
    with jax.transfer_guard("log"):
        for _ in range({calls}):
            if name == "symnb":
                f(x, y)
            else:
                loss, reference = jax_step(reference, x, y)
                np.asarray(loss)
    print("== end", file=sys.stderr, flush=True)
device = jax.devices()[0]
on_device = all(isinstance(s._backend_value(), jax.Array) and s._backend_value().devices() == {{device}}
                for s in shared)
print(device, on_device)
"""


def count_transfers() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", _CHILD.format(calls=CALLS)], capture_output=True,
                          text=True, env=env, timeout=600, cwd=HERE)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    device, on_device = done.stdout.split()[-2:]
    counts = {}
    for name, block in re.findall(r"== (\S+)\n(.*?)== end", done.stderr, re.S):
        counts[name] = (block.count("host-to-device transfer") / CALLS,
                        block.count("device-to-host transfer") / CALLS)
    gpu = "cpu" not in device.lower()
    for name, (h2d, d2h) in counts.items():
        print(f"transfers per call, MLP step, {name:<8} host->device {h2d:4.1f} (expected 2)   "
              f"device->host {d2h:4.1f} (expected {1 if gpu else 0}{'' if gpu else ': CPU, no copy'})")
    symnb_h2d, symnb_d2h = counts["symnb"]
    verdict = symnb_h2d == 2 and symnb_d2h == (1 if gpu else 0) and on_device == "True"
    print(f"shared variables on {device} after the calls: {on_device}   "
          f"{'ok' if verdict else 'NOT AS EXPECTED'}")
    return {"name": "transfers", "device": device, **{k: list(v) for k, v in counts.items()},
            "shared_on_device": on_device == "True"}


if __name__ == "__main__":
    count_transfers()
