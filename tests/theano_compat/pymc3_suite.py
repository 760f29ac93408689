"""Run PyMC3 3.9.3's own tests on symnb, its Theano code ported by renaming only.

PyMC3 3.9.3 is the last release on plain Theano 1.0. Its code is not part of this project:
:func:`download` fetches its source release from the package index (the sdist ships
``pymc3/tests``); its dependencies (ArviZ, pandas, patsy, fastprogress, h5py) come with
symnb's test extras. :func:`port_pymc3` renames ``theano`` to ``symnb`` everywhere (so
``pymc3/theanof.py`` becomes ``pymc3/symnbf.py``) and applies the changes today's Python,
NumPy (2), SciPy and ArviZ need on any backend, none about Theano: :data:`NUMPY_ALIASES`
(everywhere) and :data:`ENVIRONMENT_FIXES` (per file); ``docs/porting.md`` lists them.
:func:`run_suite` runs test files there in one pytest process. ``python
tests/theano_compat/pymc3_suite.py [WORK_DIR] [TEST_PATH ...]`` runs it by hand and prints
the counts, skip reasons and failures.
"""

from __future__ import annotations

import json
import re
import sys
import tarfile
from pathlib import Path

from tests.theano_compat.ported_suite import apply_fixes, counts_per_file, pip_download, port, run_pytest

VERSION = "3.9.3"

#: The seven test files of issue 41 (PyMC3's model, distributions, samplers and variational
#: inference), paths inside the ported copy.
TEST_FILES = ["pymc3/tests/test_dist_math.py", "pymc3/tests/test_distributions.py",
              "pymc3/tests/test_math.py", "pymc3/tests/test_model.py",
              "pymc3/tests/test_sampling.py", "pymc3/tests/test_step.py",
              "pymc3/tests/test_variational_inference.py"]

#: NumPy 1.24 removed the aliases of Python's builtin types that NumPy 1.20 deprecated
#: (``np.bool`` was ``bool``, ``np.int`` was ``int``): each is replaced by the builtin it
#: was, in every file. {regular expression: replacement}.
NUMPY_ALIASES = {r"\bnp\.bool\b(?!_)": "bool", r"\bnp\.int\b(?!_)": "int",
                 r"\bnp\.float\b(?!_)": "float",
                 # NumPy 1.24 removed np.MachAr (deprecated in 1.22): its default's eps is
                 # float64's machine epsilon, finfo's.
                 r"\bnp\.MachAr\(\)\.eps\b": "np.finfo(np.float64).eps"}

#: The changes today's Python (3.11), NumPy (2), SciPy and ArviZ (0.23) need, on any backend,
#: none about Theano: {file: [(text, replacement)]}, each text found (every occurrence
#: replaced). docs/porting.md lists them with their reasons.
ENVIRONMENT_FIXES = {
    # NumPy 1.23 removed np.asscalar (deprecated since 1.16): a.item() is what it returned.
    "pymc3/util.py": [("from numpy import asscalar, ndarray", "from numpy import ndarray"),
                      ("return asscalar(value)", "return value.item()")],
    "pymc3/distributions/multivariate.py": [("np.asscalar(nu)", "np.asarray(nu).item()")],
    # NumPy 1.25 removed numpy.testing.Tester (its nose runner); pymc3.test() ran the
    # tests with it. pytest runs them here.
    "pymc3/tests/__init__.py": [("from numpy.testing import Tester\n\ntest = Tester().test\n", "")],
    "pymc3/__init__.py": [("from .tests import test\n", "")],
    # NumPy 2 refuses to store an array of one element in a scalar slot (NumPy 1.25
    # deprecated it; NumPy 1 stored the element): Metropolis reports its scaling as an
    # array of shape (1,) in a scalar statistic. Reshaped to the slot's shape, as NumPy 1 did.
    "pymc3/backends/ndarray.py": [("                    data[key][self.draw_idx] = val",
                                   "                    data[key][self.draw_idx] = np.reshape(val, data[key].shape[1:])")],
    # ArviZ 0.13 removed from_pymc3 (PyMC3 3.11 took the converter into its own code);
    # pm.sample calls it for its convergence checks and return_inferencedata=True. This
    # short stand-in gives the posterior (untransformed variables) and the sampler
    # statistics by chain, through ArviZ's from_dict; it has no observed data, log
    # likelihood or dims (a test reading those fails, and is counted).
    "pymc3/sampling.py": [
        ("        idata = arviz.from_pymc3(trace, **ikwargs)", "        idata = _from_pymc3(trace, **ikwargs)"),
        ("from .backends.base import BaseTrace, MultiTrace\n",
         "from .backends.base import BaseTrace, MultiTrace\n\n\n"
         "def _from_pymc3(trace, model=None, save_warmup=False, **kwargs):\n"
         "    from .util import is_transformed_name\n"
         "    posterior = {v: np.stack(trace.get_values(v, combine=False))\n"
         "                 for v in trace.varnames if not is_transformed_name(v)}\n"
         "    stats = {}\n"
         "    for name in trace.stat_names:\n"
         "        stats[{'depth': 'tree_depth', 'tree_size': 'n_steps', 'mean_tree_accept': 'acceptance_rate',\n"
         "               'model_logp': 'lp'}.get(name, name)] = np.stack(trace.get_sampler_stats(name, combine=False))\n"
         "    return arviz.from_dict(posterior=posterior, sample_stats=stats)\n\n\n")],
    # NumPy 1.23 refuses a list of slices (or Ellipsis) as an index (NumPy 1 read it as the
    # tuple): Minibatch slices its data in memory with one.
    "pymc3/data.py": [("        self.shared = symnb.shared(data[in_memory_slc])",
                       "        self.shared = symnb.shared(data[tuple(in_memory_slc) if isinstance(in_memory_slc, list) else in_memory_slc])")],
    # pandas 3 copies on write: DataFrame.values is a read-only view; setting the frame's
    # cells (iloc) is what writing into it did.
    "pymc3/tests/test_model.py": [("    data.values[:] = np.nan", "    data.iloc[:, :] = np.nan")],
    # Python 3.11 removed inspect.getargspec (deprecated since 3.0); getfullargspec's .args
    # are the same list.
    "pymc3/tuning/starting.py": [("from inspect import getargspec", "from inspect import getfullargspec as getargspec")],
    # ArviZ 0.12 renamed hpd to hdi (same arguments: the interval's probability is hdi_prob,
    # which PyMC3 maps from credible_interval itself) and removed geweke, which PyMC3 only
    # re-exports (its own tests do not call it).
    "pymc3/stats/__init__.py": [("geweke = map_args(az.geweke)\n", ""),
                                ("hpd = map_args(az.hpd)", "hpd = map_args(az.hdi)"),
                                ('    "geweke",\n', "")],
}


def download(dest: Path) -> Path:
    """PyMC3's source release unpacked under ``dest``."""
    sdist = pip_download(f"pymc3=={VERSION}", dest, "--no-binary", ":all:")
    with tarfile.open(sdist) as archive:
        archive.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return dest / f"pymc3-{VERSION}"


def apply_aliases(ported: Path, aliases: dict[str, str]) -> None:
    """Replace each pattern of ``aliases`` in every Python file of the ported copy."""
    for path in ported.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        new = text
        for pattern, replacement in aliases.items():
            new = re.sub(pattern, replacement, new)
        if new != text:
            path.write_text(new, encoding="utf-8")


def port_pymc3(source: Path, dest: Path) -> Path:
    """The renamed copy, with the environment fixes."""
    ported = port(source, dest)
    apply_aliases(ported, NUMPY_ALIASES)
    apply_fixes(ported, ENVIRONMENT_FIXES)
    return ported


def run_suite(ported: Path, tests: list[str], timeout: float = 3000) -> dict:
    """Run ``tests`` (paths under ``ported``, e.g. ``pymc3/tests/test_math.py``) on symnb."""
    plugin_dir = Path(__file__).resolve().parent
    return run_pytest(ported, tests, [plugin_dir], timeout=timeout,
                      # Theano's default floatX, float64, which PyMC3's tests were written
                      # for (symnb's default is float32: README, "float64").
                      env={"SYMNB_PORT_MISSING_MODULES": json.dumps({}), "SYMNB_FLAGS": "floatX=float64"},
                      options=["-p", "ported_suite_skips"], python_files="test_*.py")


def per_file(result: dict, files: list[str] = TEST_FILES) -> dict[str, dict[str, int]]:
    """The counts by outcome of each test file, from :func:`run_suite`'s result."""
    return counts_per_file(result, {f.removesuffix(".py").replace("/", "."): f for f in files})


def prepare(work: Path) -> Path:
    """The ported copy under ``work``, reusing what an earlier call left there: delete
    ``work/ported`` to port again (after changing the fixes)."""
    source = work / "download" / f"pymc3-{VERSION}"
    if not source.exists():
        source = download(work / "download")
    ported = work / "ported"
    if not ported.exists():
        port_pymc3(source, ported)
    return ported


if __name__ == "__main__":  # python tests/theano_compat/pymc3_suite.py [WORK_DIR] [TESTS ...]
    import tempfile

    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    ported = prepare(work)
    result = run_suite(ported, sys.argv[2:] or TEST_FILES)
    print(result["counts"])
    for name, counts in per_file(result, sys.argv[2:] or TEST_FILES).items():
        print(f"    {name!r}: {counts},")
    from tests.theano_compat.theano_suite import causes

    for message, count in causes(result).most_common():
        print(f"{count} x {message}")
    for reason, count in sorted(result["skips"].items()):
        print(f"skipped {count}: {reason}")
    for name, message in result["failures"]:
        print(f"{name}: {message[:300]}")
