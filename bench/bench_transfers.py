"""Copies between host and device per call (issues 22, 30): the MLP training step.

    python bench/bench_transfers.py

bench_grad's training step (inputs ``x`` and ``y``, one output, six shared parameters
updated in place; its integer-label indexing is checked at run time, so its program
returns the checks' flag) is called 10 times under ``jax.transfer_guard("log")``, in a
child process whose log of transfers is counted. Expected per call: one host->device
copy per input (2) and one device->host copy per output (1: the flag travels inside the
loss's transfer, ``lower_xla/check_flag.py``); the shared variables stay on the device
(never copied either way) and are donated (the old buffers are deleted by each call).
The same count for the hand-written ``jax.jit`` step (parameters kept as device arrays)
is printed beside it.

On a CPU, JAX reads outputs without a copy, so its transfer guard logs no device->host
transfer there; the reads of device arrays by the host (each conversion of a
``jax.Array`` to NumPy: a device->host copy on a GPU) are counted instead, for both
(``reads``), as tests/compile/test_transfers.py does.
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
reads = [0]
for _name in ("asarray", "array"):  # count jax.Array -> NumPy conversions (before compiling)
    def _counting(value, *args, _original=getattr(np, _name), **kwargs):
        reads[0] += isinstance(value, jax.Array)
        return _original(value, *args, **kwargs)
    setattr(np, _name, _counting)
from bench_grad import BATCH, SIZES, initial_params, jax_step, symnb_step
rng = np.random.default_rng(0)
params = initial_params(rng)
x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")
f, shared = symnb_step(params)
reference = [jax.device_put(p) for p in params]
f(x, y); loss, reference = jax_step(reference, x, y); np.asarray(loss)  # compile, place
before = [s._backend_value() for s in shared]
for name in ("symnb", "jax.jit"):
    print("==", name, file=sys.stderr, flush=True)
    start = reads[0]
    with jax.transfer_guard("log"):
        for _ in range({calls}):
            if name == "symnb":
                f(x, y)
            else:
                loss, reference = jax_step(reference, x, y)
                np.asarray(loss)
    print("== reads", (reads[0] - start) / {calls}, file=sys.stderr, flush=True)
    print("== end", file=sys.stderr, flush=True)
device = jax.devices()[0]
on_device = all(isinstance(s._backend_value(), jax.Array) and s._backend_value().devices() == {{device}}
                for s in shared)
donated = all(b.is_deleted() for b in before)
print("checked", f._program.checked, "donated", donated)
print(str(device).replace(" ", "_"), on_device)
"""


def count_transfers() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", _CHILD.format(calls=CALLS)], capture_output=True,
                          text=True, env=env, timeout=600, cwd=HERE)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    words = done.stdout.split()
    device, on_device = words[-2:]
    checked, donated = words[-5] == "True", words[-3] == "True"
    counts = {}
    for name, block in re.findall(r"== (\S+)\n(.*?)== end", done.stderr, re.S):
        read = float(re.search(r"== reads (\S+)", block).group(1))
        counts[name] = (block.count("host-to-device transfer") / CALLS,
                        block.count("device-to-host transfer") / CALLS, read)
    gpu = "cpu" not in device.lower()
    for name, (h2d, d2h, read) in counts.items():
        print(f"per call, MLP step, {name:<8} host->device {h2d:4.1f} (expected 2)   "
              f"device->host {d2h:4.1f} (expected {1 if gpu else 0}{'' if gpu else ': CPU, no copy'})"
              f"   reads of device arrays {read:4.1f} (expected 1)")
    symnb_h2d, symnb_d2h, symnb_reads = counts["symnb"]
    verdict = (symnb_h2d == 2 and symnb_d2h == (1 if gpu else 0) and symnb_reads == 1
               and on_device == "True" and donated)
    print(f"symnb's program checked: {checked}; shared variables on {device} after the calls: "
          f"{on_device}; donated (old buffers deleted): {donated}   "
          f"{'ok' if verdict else 'NOT AS EXPECTED'}")
    return {"name": "transfers", "device": device, **{k: list(v) for k, v in counts.items()},
            "shared_on_device": on_device == "True", "checked": checked, "donated": donated}


if __name__ == "__main__":
    count_transfers()
