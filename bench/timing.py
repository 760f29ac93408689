"""Shared timing helpers for the benchmarks: best-of-repeats, interleaved runs.

``BENCH_QUICK=1`` in the environment runs one round of two repeats: a dry run that
checks a benchmark works (bench/gpu_check.sh on a CPU), not a measurement.
``BENCH_CLOCK=cpu`` times with the CPU time of the process (``time.process_time``, all
its threads) instead of the wall clock: on a machine shared with other work, what the
work itself costs (time spent waiting for a core is not counted).
"""

from __future__ import annotations

import os
import time
from typing import Callable

QUICK = os.environ.get("BENCH_QUICK") == "1"
#: The clock every benchmark reads (see above).
clock = time.process_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter


def best_time(fn: Callable[[], object], number: int, repeat: int = 7) -> float:
    """The best (smallest) mean time per call, in seconds, over ``repeat`` batches."""
    fn()  # warm up: compile, caches
    best = float("inf")
    repeat = min(repeat, 2) if QUICK else repeat
    for _ in range(repeat):
        start = clock()
        for _ in range(number):
            fn()
        best = min(best, (clock() - start) / number)
    return best


def compare(name: str, ours: Callable[[], object], reference: Callable[[], object], number: int,
            target: float, rounds: int = 8, labels: tuple[str, str] = ("symnb", "jax.jit")) -> dict:
    """Time ``ours`` against ``reference`` in alternating rounds; report the best of each."""
    ours_best = reference_best = float("inf")
    rounds = 1 if QUICK else rounds
    for _ in range(rounds):
        ours_best = min(ours_best, best_time(ours, number))
        reference_best = min(reference_best, best_time(reference, number))
    ratio = ours_best / reference_best
    verdict = "ok" if ratio <= target else "OVER TARGET"
    print(f"{name:<48} {labels[0]} {ours_best * 1e6:10.1f} us   "
          f"{labels[1]} {reference_best * 1e6:10.1f} us   "
          f"ratio {ratio:5.2f} (target <= {target}) {verdict}")
    return {"name": name, "symnb_s": ours_best, "reference_s": reference_best, "ratio": ratio,
            "target": target}
