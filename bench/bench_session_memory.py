"""Memory of a long notebook session (issue 27): a cell edited and run again, many times.

    python bench/bench_session_memory.py [--cells N] [--cells-build top|helper] [--calibrate]

Each of N cells (default 2,000) is run by IPython's shell, as a notebook's kernel runs it,
and compiles a distinct small function (``x * c + y``, a new constant ``c`` per cell),
calls it once and shows its result; with ``--cells-build helper`` the cell builds it in
a function it defines. The process's resident memory (VmRSS) is printed
after 0 cells, every tenth of the run and after N cells, with the programs the program
cache holds, their estimated memory (``Program.nbytes``: symnb/lower_xla/program_memory.py)
and the programs alive in the process (cached, or held by a function or by garbage not
yet collected). Target: the resident memory grows less than 20 MB over the second half
(the cache is full long before). Nothing is collected by hand: the garbage collector
runs as it would in a notebook.

``--calibrate`` measures instead the resident memory each cached program holds, for
programs of several sizes (the freed memory handed back to the system with glibc's
``malloc_trim`` before each reading), beside the estimate ``Program.nbytes``: the
figures of program_memory.py's table.

A fresh folder is used for the executables kept on disk, so that every program compiles.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import io
import os
import sys
import tempfile
import time
import warnings

os.environ["SYMNB_FLAGS"] = ",".join(filter(None, [os.environ.get("SYMNB_FLAGS"),
                                                  "compile_cache_dir=" + tempfile.mkdtemp()]))

import numpy as np  # noqa: E402

import symnb as sn  # noqa: E402
import symnb.tensor as T  # noqa: E402
from symnb.lower_xla.cache import Program, program_cache  # noqa: E402

MB = 2 ** 20


def resident() -> float:
    """The process's resident memory (VmRSS), in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (this benchmark needs Linux)")


def live_programs() -> int:
    """Programs alive in the process, collected or not (a census, no collection)."""
    return sum(1 for o in gc.get_objects() if type(o) is Program)


def cached_mb() -> float | None:
    nbytes = getattr(program_cache, "nbytes", None)  # None: a symnb before the bound
    return None if nbytes is None else nbytes / MB


#: What each cell runs: the graph built at the cell's top level, or in a function the
#: cell defines (each run of the cell defines it anew, as a notebook's edit does).
CELLS = {
    "top": ("x = T.vector('x'); y = T.vector('y')\n"
            "f = sn.function([x, y], x * {i}.0 + y)\n"
            "f(xv, xv)\n"),
    "helper": ("def build(c):\n"
               "    x = T.vector('x'); y = T.vector('y')\n"
               "    f = sn.function([x, y], x * c + y)\n"
               "    return f\n"
               "f = build({i}.0)\n"
               "f(xv, xv)\n"),
}


def session(cells: int, style: str) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    # IPython keeps the last 1,000 results (Out) and says so when it drops the oldest.
    warnings.filterwarnings("ignore", "Output cache limit", UserWarning)
    shell.run_cell("import numpy as np, symnb as sn, symnb.tensor as T\n"
                   "xv = np.ones(5, 'float32')", store_history=True)
    start, began = resident(), time.perf_counter()
    rows = [(0, start)]
    cached_at: dict[int, int] = {}
    print(f"{'cells':>6} {'RSS MB':>8} {'cached':>7} {'cache MB':>9} {'alive':>6} {'s':>6}")

    def show(done: int) -> None:
        rss, held = resident(), cached_mb()
        rows.append((done, rss))
        cached_at[done] = len(program_cache)
        held_text = "n/a" if held is None else f"{held:.0f}"
        print(f"{done:>6} {rss:>8.1f} {len(program_cache):>7} {held_text:>9} "
              f"{live_programs():>6} {time.perf_counter() - began:>6.0f}", flush=True)

    show(0)
    for i in range(1, cells + 1):
        cell = CELLS[style].format(i=i)
        with contextlib.redirect_stdout(io.StringIO()):  # the result is shown (kept in Out)
            result = shell.run_cell(cell, store_history=True)
        result.raise_error()
        if i % max(1, cells // 10) == 0 or i in (cells // 2, program_cache.maxsize):
            show(i)
    at = dict(rows)
    half = cells // 2
    print(f"RSS: {start:.0f} MB at 0 cells, {at[half]:.0f} MB at {half}, {at[cells]:.0f} MB at "
          f"{cells}; over the second half: {at[cells] - at[half]:+.1f} MB (target < 20 MB)")
    full = program_cache.maxsize
    if full in at and cached_at[full] == full:  # none dropped yet: each cell's program is there
        print(f"RSS per program while the cache filled (cells 1 to {full}): "
              f"{(at[full] - start) / full:.2f} MB")
    held = cached_mb()
    if held is not None and len(program_cache):
        print(f"cached at the end: {len(program_cache)} programs, {held:.0f} MB estimated, "
              f"{held / len(program_cache):.2f} MB per program")


def _trimmed_resident() -> float:
    """Resident memory once freed memory is handed back to the system (glibc)."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return resident()


def _chain(steps: int):
    def build(i: int):
        x, y = T.vector("x"), T.vector("y")
        z = x * float(i) + y
        for k in range(steps):
            z = T.sin(z) * float(k + 2) if k % 2 else z + y
        value = np.ones(5, "float32")
        return sn.function([x, y], z), (value, value)
    return build


def _mlp(i: int):
    x, w, v = T.matrix("x"), T.matrix("w"), T.matrix("v")
    loss = T.exp(T.dot(T.tanh(T.dot(x, w) + float(i)), v)).sum()
    f = sn.function([x, w, v], [loss, *sn.grad(loss, [w, v])])
    return f, (np.ones((4, 3), "float32"), np.ones((3, 5), "float32"), np.ones((5, 2), "float32"))


def _scan(i: int):
    x = T.vector("x")
    out, _ = sn.scan(lambda a, prev: prev * a + float(i), sequences=[x],
                     outputs_info=[T.constant(np.float32(0))])
    return sn.function([x], out[-1]), (np.ones(7, "float32"),)


def _constant(i: int):
    x = T.vector("x")
    weights = np.random.default_rng(i).random(250_000, dtype="float32")  # 1 MB
    return sn.function([x], x * float(i) + weights), (np.ones(250_000, "float32"),)


def calibrate() -> None:
    """Resident memory per cached program against its estimate, by program size."""
    kinds = [("x * c + y", _chain(0), 48), ("50-step chain", _chain(50), 32),
             ("500-step chain", _chain(500), 12), ("2,000-step chain", _chain(2000), 6),
             ("MLP loss and gradients", _mlp, 32), ("scan", _scan, 32),
             ("a 1 MB constant", _constant, 16)]
    print(f"{'program':<24} {'nodes':>6} {'measured MB':>12} {'estimate MB':>12}")
    for name, build, count in kinds:
        f, args = build(10_000)  # compiled once first: what every program shares is loaded
        f(*args)
        del f
        program_cache.clear()
        before = _trimmed_resident()
        functions = []
        for i in range(count):
            f, args = build(i)
            f(*args)
            functions.append(f)
        nodes = len(functions[0].nodes)
        estimate = sum(f._program.nbytes for f in functions) / count / MB
        del functions, f  # the cache holds the programs alone
        measured = (_trimmed_resident() - before) / count
        print(f"{name:<24} {nodes:>6} {measured:>12.2f} {estimate:>12.2f}", flush=True)
        program_cache.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=2000)
    parser.add_argument("--cells-build", choices=sorted(CELLS), default="top", dest="style",
                        help="where each cell builds its graph: at its top level, or in a "
                             "function it defines")
    parser.add_argument("--calibrate", action="store_true")
    args = parser.parse_args()
    print(f"program_cache_mb={sn.config.values().get('program_cache_mb', 'n/a')}, "
          f"at most {program_cache.maxsize} programs; python {sys.version.split()[0]}")
    if args.calibrate:
        calibrate()
    else:
        session(args.cells, args.style)


if __name__ == "__main__":
    main()
