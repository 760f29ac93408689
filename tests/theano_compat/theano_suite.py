"""Run Theano 1.0.5's own tests of its public API on symnb, renamed ``theano`` -> ``symnb``.

Theano's code is not part of this project, and none of it runs: :func:`download` fetches
Theano's source release from the package index (the sdist ships each package's ``tests``
folder) and extracts only the test files and the test helpers that live beside them
(``theano/tests/unittest_tools.py``, ``theano/tensor/tests/test_basic.py``'s makers...),
never the library. :func:`port_theano` renames ``theano`` to ``symnb`` (ported_suite.py's
:func:`port`), so ``import theano.tensor as T`` imports symnb, and places the tests in a
package of their own, ``symnb_tests``, laid out as Theano's: ``theano/tensor/tests/
test_basic.py`` becomes ``symnb_tests/tensor/tests/test_basic.py``. A test importing a test
helper (``from theano.tests import unittest_tools as utt``, ``from theano.tensor.tests.
test_basic import makeTester``) would look for it in symnb; :func:`rename_test_imports`
sends every dotted name with a ``tests`` part to ``symnb_tests`` instead
(``symnb_tests.tests.unittest_tools``), so the renamed tests find the renamed helpers. The
harness then applies :data:`ENVIRONMENT_FIXES` (today's Python, NumPy and SciPy) and runs
the files of :data:`PUBLIC_API_FILES` in one pytest process with two plug-ins:
``nose_compat`` (what pytest 8 dropped of nose, which Theano's tests were written for) and
``lacking_names`` (a test that uses a module symnb lacks by design, :data:`MISSING_MODULES`,
is skipped with the reason, decided where the test uses it).

``python tests/theano_compat/theano_suite.py [--force-imports] [WORK_DIR] [FILE ...]`` runs
it by hand and prints the counts per file, the skip reasons, the symnb names each file
uses that symnb lacks (read from the code) and the failures counted by what they stopped
at. ``--force-imports`` is the diagnosis past the imports: every name symnb lacks is a
stand-in that fails the test using it, naming it (lacking_names.py), so the counts say how
many tests each missing name holds back.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path, PurePosixPath

from tests.theano_compat.ported_suite import (
    SRC, apply_fixes, counts_per_file, pip_download, pip_install, port, run_pytest,
)

VERSION = "1.0.5"
#: What Theano 1.0.5's tests import beyond NumPy, SciPy and pytest, each named (installed
#: with ``--no-deps`` into a folder of the run, not into the environment): nose (its
#: ``assert_raises``, ``attr``, ``SkipTest``), parameterized and six.
REQUIREMENTS = ["nose==1.3.7", "parameterized==0.9.0", "six==1.17.0"]

#: Theano's test files of its public API (paths in Theano's package, as it lays them out).
PUBLIC_API_FILES = [
    "tensor/tests/test_basic.py", "tensor/tests/test_elemwise.py",
    "tensor/tests/test_subtensor.py", "tensor/tests/test_extra_ops.py",
    "tensor/tests/test_nlinalg.py", "tensor/tests/test_slinalg.py",
    "tensor/tests/test_sharedvar.py", "tensor/tests/test_shared_randomstreams.py",
    "scan_module/tests/test_scan.py",
    "tests/test_ifelse.py", "tests/test_gradient.py", "tests/test_rop.py", "tests/test_printing.py",
    "compile/tests/test_function_module.py", "compile/tests/test_pfunc.py",
    "compile/tests/test_shared.py", "compile/tests/test_builders.py",
    "sparse/tests/test_basic.py",
    "tensor/nnet/tests/test_nnet.py", "tensor/nnet/tests/test_conv.py",
    "tensor/nnet/tests/test_abstract_conv.py", "tensor/nnet/tests/test_bn.py",
    "tensor/nnet/tests/test_sigm.py",
    "tensor/signal/tests/test_pool.py",
    "sandbox/tests/test_rng_mrg.py",
]

#: Test data that Theano keeps beside its library code rather than in a ``tests`` folder:
#: ``test_rng_mrg.py`` reads the Java reference samples of MRG31k3p from ``theano/sandbox/``
#: (``os.path.split(theano.__file__)[0]``); extracted too, to the same place in
#: ``symnb_tests``, where :data:`HARNESS_FIXES` sends the test.
TEST_DATA = ["sandbox/samples_MRG31k3p_12_7_5.txt"]

#: Theano's test helper that almost every test file imports (``utt``), in Theano's layout.
UNITTEST_TOOLS = "tests/unittest_tools.py"

#: The package the renamed tests and their helpers live in (Theano's layout under it).
TESTS_PACKAGE = "symnb_tests"

#: The changes today's Python (3.11), NumPy (2) and SciPy need in Theano 1.0.5's test
#: files, none about symnb: {file under symnb_tests: [(text, replacement)]}, each text found
#: (every occurrence replaced). docs/porting.md lists them with their reasons.
_NUMPY_CAST = ("import numpy as np\n", "import numpy as np\n\n\n"
               "class _NumpyCast:  # NumPy 2 removed np.cast: np.cast[t](x) was np.asarray(x).astype(t)\n"
               "    def __getitem__(self, dtype):\n"
               "        return lambda x: np.asarray(x).astype(dtype)\n\n\n"
               "_np_cast = _NumpyCast()\n")
# NumPy 2 shapes the inverse of np.unique(x, return_inverse=True) as x (axis=None); NumPy 1,
# Theano's reference, gave it flat.
_NUMPY1_UNIQUE = ("import numpy as np\n", "import numpy as np\n\n\n"
                  "def _np1_unique(x, *args, **kwargs):  # NumPy 2 shapes the inverse as x; NumPy 1 flat\n"
                  "    found = getattr(np, 'unique')(x, *args, **kwargs)\n"
                  "    inverse = args[1] if len(args) > 1 else kwargs.get('return_inverse', False)\n"
                  "    if not inverse or kwargs.get('axis') is not None:\n"
                  "        return found\n"
                  "    position = 2 if (args[0] if args else kwargs.get('return_index', False)) else 1\n"
                  "    return found[:position] + (found[position].reshape(-1),) + found[position + 1:]\n")
ENVIRONMENT_FIXES: dict[str, list[tuple[str, str]]] = {
    "tensor/tests/test_basic.py": [
        # NumPy 1.25 removed numpy.testing.dec (nose's decorators); dec.skipif(condition,
        # message) is unittest's skipIf(condition, reason).
        ("from numpy.testing import dec, ", "from unittest import skipIf\nfrom numpy.testing import "),
        ("@dec.skipif(", "@skipIf("),
        # NumPy 1.24 removed the aliases np.float and np.complex of the builtins.
        ("np.float(", "float("), ("np.complex(", "complex("),
        # NumPy 2 removed np.find_common_type(arrays, [np.float16]): the arrays' common type
        # when it is floating point or complex, else the smallest float that holds it (the
        # scalar's kind wins and is widened: int8 -> float16, int16 -> float32, int64 ->
        # float64), which is NumPy's result_type of the arrays' dtypes and float16.
        ("        out_dtype = np.find_common_type(\n            [a.dtype for a in args], [np.float16])\n",
         "        out_dtype = np.result_type(*[a.dtype for a in args], np.float16)\n"),
        # NumPy 2 made np.ceil, np.floor and np.trunc of integers integers; NumPy 1 gave the
        # float that upcast_float16_ufunc names (as for every ufunc it wraps), so it is asked for.
        ("            kwargs.update(sig=sig)\n        return fn(*args, **kwargs)\n",
         "            kwargs.update(sig=sig)\n        else:\n            kwargs.update(dtype=out_dtype)\n"
         "        return fn(*args, **kwargs)\n"),
        # SciPy 1.15 put the float64 loop of its special functions first (gamma(uint8) was
        # float32, the first loop an 8- or 16-bit integer casts to, and is float64 now), and
        # NumPy 2's promotion (NEP 50) made polygamma(1, float32) float64 (a 0-d float64 times
        # a float32 array stayed float32): the reference's dtype is what it was then, the
        # arrays' dtype promoted with float32 (0-d arrays counting only when all are 0-d).
        ("    skip_scipy = False\n    expected_erfcx = scipy.special.erfcx\n",
         "    skip_scipy = False\n    expected_erfcx = scipy.special.erfcx\n"
         "\n    def _scipy1_dtype(fn):\n"
         "        def ret(*args):\n"
         "            arrays = [np.asarray(a) for a in args]\n"
         "            shaped = [a for a in arrays if a.ndim] or arrays\n"
         "            return np.asarray(fn(*args), dtype=np.result_type(*[a.dtype for a in shaped], np.float32))\n"
         "        return ret\n"
         "    (expected_erf, expected_erfc, expected_erfinv, expected_erfcinv, expected_erfcx, expected_gamma,\n"
         "     expected_gammaln, expected_psi, expected_tri_gamma, expected_j0, expected_j1, expected_jv,\n"
         "     expected_i0, expected_i1, expected_iv) = map(_scipy1_dtype, (\n"
         "        expected_erf, expected_erfc, expected_erfinv, expected_erfcinv, expected_erfcx, expected_gamma,\n"
         "        expected_gammaln, expected_psi, expected_tri_gamma, expected_j0, expected_j1, expected_jv,\n"
         "        expected_i0, expected_i1, expected_iv))\n")],
    "tensor/tests/test_nlinalg.py": [("from numpy.testing import dec, ", "from numpy.testing import ")],
    "tensor/tests/test_slinalg.py": [("from numpy.testing import dec, ", "from numpy.testing import "),
                                     # SciPy 1.15 removed scipy.linalg.kron: its code, as a helper
                                     ("import numpy as np\n", "import numpy as np\n\n\n"
                                      "def _scipy_kron(a, b):  # SciPy < 1.15's scipy.linalg.kron\n"
                                      "    o = np.outer(a, b).reshape(a.shape + b.shape)\n"
                                      "    return np.concatenate(np.concatenate(o, axis=1), axis=1)\n"),
                                     ("scipy.linalg.kron(", "_scipy_kron(")],
    "scan_module/tests/test_scan.py": [("from numpy.testing import dec\n", "from unittest import skipIf\n"),
                                       ("@dec.skipif(", "@skipIf("),
                                       # NumPy 2.4 refuses float() of a 1-d array of one
                                       # element ("%f" % array([2])), which NumPy 1 read.
                                       ('print("sum %f" % _sum)', 'print("sum %f" % _sum.item())')],
    # NumPy 2 removed np.product (np.prod) and np.cast (above).
    # NumPy 1.23 stopped reading a list holding slices or an array as a tuple of them
    # (x[[0, mask]] += 1, x[[slice(1, -1)] * 3]): the NumPy references, read as tuples.
    "tensor/tests/test_subtensor.py": [("np.product(", "np.prod("),
                                       ("        x[idx] += a\n",
                                        "        x[tuple(idx) if isinstance(idx, list) else idx] += a\n"),
                                       ("x[[slice(1, -1)] * x.ndim])", "x[(slice(1, -1),) * x.ndim])")],
    "tensor/tests/test_extra_ops.py": [("np.product(", "np.prod("), _NUMPY_CAST, ("np.cast[", "_np_cast["),
                                       _NUMPY1_UNIQUE, ("np.unique(", "_np1_unique(")],
    "tensor/nnet/tests/test_nnet.py": [_NUMPY_CAST, ("np.cast[", "_np_cast[")],
    "tests/test_gradient.py": [_NUMPY_CAST, ("np.cast[", "_np_cast[")],
    "compile/tests/test_shared.py": [("np.float(", "float(")],
    # NumPy 1.23 stopped reading a list of slices as a tuple of them (x[[slice(0, 2)]]).
    "tensor/signal/tests/test_pool.py": [("[l][region]", "[l][tuple(region)]")],
    # NumPy 2 removed np.MAXDIMS (its limit is now 64 dimensions), and refuses a Python
    # int out of a dtype's range (-1 as uint8), which NumPy 1 wrapped around.
    "tensor/tests/test_elemwise.py": [("np.MAXDIMS", "64"),
                                      ("np.array((-1,), dtype=dtype)[0]",
                                       "np.array((-1,)).astype(dtype)[0]")],
    # NumPy 2 (NEP 50) keeps an int8 scalar int8 when a Python int is added (128 + int8(1)
    # overflows); NumPy 1, Theano's, widened it. The reference's shapes, read as int8
    # constants (T.constant(1) is int8, as in Theano), become Python ints.
    "tensor/nnet/tests/test_conv.py": [
        ("[T.get_scalar_constant_value(\n                T.as_tensor_variable(x)) for x in image_shape]",
         "[int(T.get_scalar_constant_value(\n                T.as_tensor_variable(x))) for x in image_shape]"),
        ("[T.get_scalar_constant_value(\n                T.as_tensor_variable(x)) for x in filter_shape]",
         "[int(T.get_scalar_constant_value(\n                T.as_tensor_variable(x))) for x in filter_shape]")],
}

#: Where the renamed tests find what the harness placed (not about Python or NumPy):
#: {file under symnb_tests: [(text, replacement)]}, applied as the environment fixes are.
HARNESS_FIXES = {
    # ``theano.tests.unittest_tools.verify_grad`` after ``import theano`` (the test module
    # reached as an attribute of the package): the renamed ``symnb_tests`` is imported.
    "tensor/tests/test_extra_ops.py": [("import symnb\n", "import symnb\nimport symnb_tests.tests.unittest_tools\n")],
    # The MRG31k3p reference samples (TEST_DATA) are in symnb_tests/sandbox, not in symnb.
    "sandbox/tests/test_rng_mrg.py": [("os.path.split(symnb.__file__)[0]", "os.path.split(symnb_tests.__file__)[0]"),
                                      ("import symnb\n", "import symnb\nimport symnb_tests\n")],
}

#: What symnb does not have, by design, that the files use (sparse tensors, the graph
#: optimizer's internals, in-place and BLAS ops), and why. Such a module is a stand-in, and
#: a test that uses it is reported skipped with the reason (lacking_names.py).
MISSING_MODULES = {
    # symnb.sparse has Theano's basic sparse API; the rest of theano.sparse (the ops its
    # __getattr__ refuses) and theano.sparse.opt's C implementations it lacks by design.
    "symnb.sparse.*": "a theano.sparse op beyond the basic API symnb.sparse has (its XLA programs "
                      "hold sparse matrices dense: docs/porting.md)",
    "symnb.sparse.opt": "Theano's C implementations of sparse ops and their rewrites "
                        "(symnb.sparse.opt), which symnb does not have by design: XLA compiles "
                        "the program",
    "symnb.gof.opt": "Theano's graph optimizer (symnb.gof.opt), which symnb does not have by "
                     "design: XLA optimizes the program",
    "symnb.tensor.blas": "Theano's BLAS ops (symnb.tensor.blas), which symnb does not have by "
                         "design: XLA chooses the BLAS calls",
    "symnb.tensor.inplace": "Theano's in-place ops (symnb.tensor.inplace), which symnb does not "
                            "have by design: XLA decides buffer reuse",
    "symnb.tensor.blas_c": "Theano's C BLAS ops (symnb.tensor.blas_c), which symnb does not have "
                           "by design: XLA chooses the BLAS calls",
    # Names rather than modules, decided the same way: what they are is absent by design.
    "symnb.gof.DualLinker": "Theano's DualLinker, which runs a graph's C and Python "
                            "implementations side by side to compare them: symnb has no C code "
                            "by design (XLA lowers every op)",
    "symnb.tensor.nnet.sigmoid_inplace": "Theano's in-place ops (sigmoid_inplace), which symnb "
                                         "does not have by design: XLA decides buffer reuse",
    "symnb.tensor.nnet.corr": "Theano's C implementation of the convolution (CorrMM), which symnb "
                              "does not have by design: XLA lowers every convolution",
    "symnb.tensor.nnet.corr3d": "Theano's C implementation of the 3-d convolution (Corr3dMM), which "
                                "symnb does not have by design: XLA lowers every convolution",
    "symnb.gof.CLinker": "Theano's C linker (gof.CLinker), which symnb does not have by design: "
                         "XLA compiles every program",
    # Attributes of Theano's Scan op that are its internals (symnb's Scan refuses each,
    # saying why: symnb.core.absent.ABSENT_ATTRIBUTES), decided where a test reads one.
    "symnb.scan_module.scan_op.Scan.fn": "Theano's compiled step function of a Scan (Scan.fn: "
                                         "its storage and optimized graph), which symnb does not "
                                         "have by design: the loop compiles into the function's "
                                         "XLA program",
    "symnb.scan_module.scan_op.Scan.destroy_map": "Theano's in-place Scan outputs (destroy_map), "
                                                  "which symnb does not have by design: XLA decides "
                                                  "buffer reuse",
    "symnb.scan_module.scan_op.Scan.var_mappings": "the index maps of Theano's Scan input layout "
                                                   "(var_mappings: mit-mot, mit-sot, sit-sot, shared, "
                                                   "nit-sot inputs), which symnb's loop does not have "
                                                   "by design: its layout is its own",
    "symnb.scan_module.scan_op.Scan._scan_savemem_visited": "the mark of Theano's ScanSaveMem "
                                                            "optimizer, which symnb does not have "
                                                            "by design: XLA allocates the loop's "
                                                            "buffers",
    **{f"symnb.tensor.nnet.sigm.{name}": "the helpers of Theano's sigmoid graph rewrites "
                                         f"(sigm.{name}): optimizer internals, which symnb does not "
                                         "have by design (XLA optimizes the program)"
       for name in ("compute_mul", "is_1pexp", "parse_mul_tree", "perform_sigm_times_exp",
                    "register_local_1msigmoid", "simplify_mul")},
}


def download(dest: Path) -> tuple[Path, Path]:
    """Theano's test files and test helpers (the members of its sdist under a ``tests``
    folder of the ``theano`` package, nothing else) under ``dest``, and a folder with the
    tests' requirements. Returns ``(the extracted theano folder, the requirements' folder)``."""
    sdist = pip_download(f"theano=={VERSION}", dest, "--no-binary", ":all:")
    root = f"Theano-{VERSION}/theano/"
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if m.isfile()
                   and (_is_test_file(m.name, root) or m.name[len(root):] in TEST_DATA)]
        archive.extractall(dest, members=members,
                           **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return dest / root, pip_install(REQUIREMENTS, dest / "site")


def _is_test_file(name: str, root: str) -> bool:
    """Whether the sdist member ``name`` is in a ``tests`` folder of the ``theano`` package."""
    return name.startswith(root) and "tests" in PurePosixPath(name[len(root):]).parts[:-1]


#: A dotted name with a ``tests`` part, after the rename: ``symnb.tensor.tests.test_basic``,
#: ``symnb.tests`` (not ``symnb_tests``, nor a name merely starting with "tests").
_TEST_MODULE = re.compile(r"\bsymnb((?:\.\w+)*?\.tests)\b")


def rename_test_imports(text: str) -> str:
    """``symnb.X.tests...`` (a renamed Theano test module or helper) becomes
    ``symnb_tests.X.tests...``: the ported tests, not symnb, hold it. A file's ``import
    symnb`` also binds ``symnb_tests``: Theano's tests reach tests by their dotted names
    through the name ``import theano`` bound (``theano.tests.unittest_tools.fetch_seed()``,
    ``eval(self.__class__.__module__ + '.' + name)`` in test_basic's makers), and renamed,
    those modules are in symnb_tests, which nothing else binds."""
    text = _TEST_MODULE.sub(TESTS_PACKAGE + r"\1", text)
    if "\nimport symnb_tests\n" not in text:
        text = text.replace("\nimport symnb\n", "\nimport symnb\nimport symnb_tests\n", 1)
    return text


def port_theano(theano_tests: Path, dest: Path) -> Path:
    """The renamed tests in ``dest/symnb_tests`` (a package at every level), with the test
    imports sent there and the environment fixes applied; returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    package = port(theano_tests, dest / TESTS_PACKAGE)
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        renamed = rename_test_imports(text)
        if renamed != text:
            path.write_text(renamed, encoding="utf-8")
    for folder in [package, *(p for p in package.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()  # Theano's own __init__ (library code) is not copied
    apply_fixes(package, ENVIRONMENT_FIXES)
    apply_fixes(package, HARNESS_FIXES)
    return dest


def run_suite(ported: Path, site: Path, files: list[str] = PUBLIC_API_FILES,
              timeout: float = 3000, force_imports: bool = False) -> dict:
    """Run ``files`` (paths in Theano's layout) on symnb, in one pytest process.
    ``force_imports``: the diagnosis of lacking_names.py (each test stops where it first
    uses a name symnb lacks), not the suite's own outcome."""
    plugin_dir = Path(__file__).resolve().parent
    return run_pytest(ported, [f"{TESTS_PACKAGE}/{f}" for f in files], [site, plugin_dir],
                      timeout=timeout,
                      env={"SYMNB_PORT_MISSING_MODULES": json.dumps(MISSING_MODULES),
                           "SYMNB_PORT_FORCE_IMPORTS": "1" if force_imports else "0"},
                      # nose collected plain classes named test_... too (test_shared_options)
                      options=["-p", "lacking_names", "-p", "nose_compat",
                               "-o", "python_classes=Test test"])


def per_file(result: dict, files: list[str] = PUBLIC_API_FILES) -> dict[str, dict[str, int]]:
    """The counts by outcome of each test file (Theano's path), from ``run_suite``'s result."""
    return counts_per_file(result, {f"{TESTS_PACKAGE}.{f.removesuffix('.py').replace('/', '.')}": f
                                    for f in files})


def cause(message: str) -> str:
    """What a failure stopped at, to count failures by cause: the first line of its message
    (``AttributeError: module 'symnb.tensor' has no attribute 'raw_random'``), an assertion's
    as "AssertionError" (its text is the test's values)."""
    first = message.strip().splitlines()[0] if message.strip() else "(no message)"
    if first.startswith(("assert ", "AssertionError")):
        return "AssertionError (a value the test compares differs)"
    return first[:160]


def causes(result: dict) -> Counter:
    """The failures and collection errors of ``run_suite``'s result, counted by cause."""
    return Counter(cause(message) for _, message in result["failures"])


def missing_names(ported: Path, files: list[str] = PUBLIC_API_FILES) -> dict[str, list[str]]:
    """``{file: [the symnb names it uses that symnb lacks]}``, found by reading the code, not
    running it: what each ``from symnb.X import a`` and ``import symnb.X`` names, and each
    attribute of a module alias (``T.verify_grad`` after ``import symnb.tensor as T``). A
    test file that stops at its first missing import shows the rest of its needs here.
    Imports symnb from this checkout (and the modules named), so call it in a process of
    its own (``python tests/theano_compat/theano_suite.py`` does)."""
    if str(SRC) not in sys.path:
        sys.path.insert(0, str(SRC))
    return {f: _missing_in(ast.parse((ported / TESTS_PACKAGE / f).read_text(encoding="utf-8")))
            for f in files}


def _missing_in(tree: ast.Module) -> list[str]:
    aliases, missing = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "symnb":
                    missing.append(_lacks(alias.name))
                    aliases[alias.asname or "symnb"] = alias.name if alias.asname else "symnb"
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "symnb":
            for alias in node.names:
                missing.append(_lacks(node.module, alias.name))
                if _module(f"{node.module}.{alias.name}") is not None:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            missing.append(_lacks(aliases[node.value.id], node.attr))
    return sorted(set(filter(None, missing)))


def _lacks(module: str, name: str | None = None) -> str | None:
    """``module`` (or ``module.name``) when symnb lacks it, else None."""
    found = _module(module)
    if found is None:
        return module
    if name is None or hasattr(found, name) or _module(f"{module}.{name}") is not None:
        return None
    return f"{module}.{name}"


def _module(name: str):
    try:
        return importlib.import_module(name)
    except Exception:  # missing, or failing to import (the name is then what is lacking)
        return None


def prepare(work: Path) -> tuple[Path, Path]:
    """The ported tests and the requirements' folder under ``work``, reusing what an earlier
    call left there (delete ``work/ported`` to port again after changing the fixes)."""
    theano_tests, site = work / "download" / f"Theano-{VERSION}" / "theano", work / "download" / "site"
    if not site.exists():
        theano_tests, site = download(work / "download")
    ported = work / "ported"
    if not ported.exists():
        port_theano(theano_tests, ported)
    return ported, site


if __name__ == "__main__":  # python tests/theano_compat/theano_suite.py [--force-imports] [WORK_DIR] [FILE ...]
    import tempfile

    arguments = sys.argv[1:]
    force = "--force-imports" in arguments
    arguments = [a for a in arguments if a != "--force-imports"]
    work = Path(arguments[0]) if arguments else Path(tempfile.mkdtemp())
    files = arguments[1:] or PUBLIC_API_FILES
    work.mkdir(parents=True, exist_ok=True)
    ported, site = prepare(work)
    result = run_suite(ported, site, files, timeout=36000, force_imports=force)
    print(result["counts"])
    print("per file (test_theano_suite.py's EXPECTED):" if not force else "per file, imports forced:")
    for name, counts in per_file(result, files).items():
        print(f"    {name!r}: {counts},")
    for reason, count in sorted(result["skips"].items()):
        print(f"skipped {count}: {reason}")
    lacking = missing_names(ported, files + [UNITTEST_TOOLS])
    for name, count in Counter(n for names in lacking.values() for n in names).most_common():
        print(f"used by {count} files, lacking: {name}")
    for text, count in causes(result).most_common():
        print(f"{count} stopped at: {text}")
    for name, message in result["failures"]:
        print(f"{name}: {message[:300]}")
