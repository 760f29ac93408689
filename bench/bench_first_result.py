"""The first result after a kernel restart (issue 22): a fresh process to the first loss of
the MLP training step, against the same with hand-written ``jax.jit``.

    python bench/bench_first_result.py [--quick]

Each measure is a fresh Python process, timed from its start to the moment it prints its
first loss: import, build the step (bench_grad's 256x784-512-512-10 tanh MLP with SGD
updates), compile, one call. That is what a notebook user waits for after a kernel
restart; the process's exit, which a kernel does not go through between cells, is
shown apart (JAX's exit costs 0.1-0.2 s here: the interpreter's last garbage collection
walks everything JAX and XLA built). Three kinds, in alternating rounds, best of each
(the machine may be shared):

- ``jax.jit``: JAX, NumPy and the step written for JAX (``mlp.jax_loss``), no symnb;
- symnb, first process: the default settings, with an empty persistent compilation
  cache (a new temporary folder each round: the program is compiled and written);
- symnb, second process: the same with the cache a previous process filled;
- for information, the first process with ``index_checks=False``: the step indexes the
  log-softmax by labels known only at run time, which the default program checks.

Targets: the first process at most 1.10x ``jax.jit``'s; the second at most 0.6x the first.

The processes write and read compiled bytecode (``.pyc``) in a temporary folder
(``PYTHONPYCACHEPREFIX``, even where ``PYTHONDONTWRITEBYTECODE`` is set), as an installed
package has it: without, every process would compile symnb's sources anew.
With ``BENCH_CLOCK=cpu`` (see timing.py), a process is timed by its CPU time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent

_SYMNB = """
import time
import numpy as np
from bench_grad import BATCH, SIZES, initial_params, symnb_step
rng = np.random.default_rng(0)
f, _ = symnb_step(initial_params(rng))
x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")
print(float(f(x, y)), time.process_time(), flush=True)
"""

_JAX = """
import time
import jax, numpy as np
from mlp import BATCH, LEARNING_RATE, SIZES, initial_params, jax_loss
from training import sgd_step
rng = np.random.default_rng(0)
params = [jax.device_put(p) for p in initial_params(rng)]
x = rng.normal(size=(BATCH, SIZES[0])).astype("float32")
y = rng.integers(0, SIZES[-1], size=BATCH).astype("int32")
loss, params = sgd_step(jax_loss, LEARNING_RATE)(params, x, y)
print(float(loss), time.process_time(), flush=True)
"""


def _process(code: str, cache: str, bytecode: str, flags: str = "") -> tuple[float, float, float]:
    """A fresh process running ``code``: seconds from its start to its printed loss (wall
    clock, or with ``BENCH_CLOCK=cpu`` its own CPU time then), seconds from its start to
    its exit (wall clock), and the loss."""
    env = dict(os.environ, SYMNB_FLAGS=f"compile_cache_dir={cache}{flags}",
               PYTHONPYCACHEPREFIX=bytecode)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    start = time.perf_counter()
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=HERE) as child:
        line = child.stdout.readline()  # the loss, printed and flushed
        to_loss = time.perf_counter() - start
        _, errors = child.communicate(timeout=300)
        to_exit = time.perf_counter() - start
    if child.returncode != 0 or not line:
        raise RuntimeError(errors)
    loss, cpu_seconds = map(float, line.split())
    return (cpu_seconds if os.environ.get("BENCH_CLOCK") == "cpu" else to_loss), to_exit, loss


def first_result(rounds: int) -> dict:
    kinds = ("jax", "first", "second", "unchecked")
    best = dict.fromkeys(kinds, float("inf"))
    exits = dict.fromkeys(kinds, float("inf"))
    losses = set()
    with tempfile.TemporaryDirectory() as warm, tempfile.TemporaryDirectory() as bytecode:
        _process(_JAX, "", bytecode)  # writes the bytecode
        _process(_SYMNB, warm, bytecode)  # and fills the cache the "second" processes read
        for _ in range(rounds):
            with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as other:
                for kind, code, cache, flags in (
                        ("jax", _JAX, "", ""), ("first", _SYMNB, empty, ""),
                        ("second", _SYMNB, warm, ""),
                        ("unchecked", _SYMNB, other, ",index_checks=False")):
                    seconds, to_exit, loss = _process(code, cache, bytecode, flags)
                    best[kind] = min(best[kind], seconds)
                    exits[kind] = min(exits[kind], to_exit)
                    losses.add(round(loss, 4))
    assert len(losses) == 1, f"the processes computed different losses: {losses}"
    first, second = best["first"] / best["jax"], best["second"] / best["first"]
    print(f"{'fresh process to first loss, MLP step':<48} symnb {best['first']:6.2f} s   "
          f"jax.jit {best['jax']:6.2f} s   ratio {first:5.2f} (target <= 1.1) "
          f"{'ok' if first <= 1.1 else 'OVER TARGET'}")
    print(f"{'  the same, second process (persistent cache)':<48} symnb {best['second']:6.2f} s   "
          f"first {best['first']:6.2f} s   ratio {second:5.2f} (target <= 0.6) "
          f"{'ok' if second <= 0.6 else 'OVER TARGET'}")
    print(f"{'  first process with index_checks=False':<48} symnb {best['unchecked']:6.2f} s   "
          f"jax.jit {best['jax']:6.2f} s   ratio {best['unchecked'] / best['jax']:5.2f} (information)")
    print(f"{'  start to exit (information)':<48} " + "   ".join(
        f"{kind} {exits[kind]:5.2f} s" for kind in kinds))
    return {"name": "first result", **best, "ratio_first": first, "ratio_second": second}


def main() -> None:
    first_result(rounds=2 if "--quick" in sys.argv else 5)


if __name__ == "__main__":
    main()
