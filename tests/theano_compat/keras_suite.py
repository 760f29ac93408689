"""Run Keras 2.2.4's own test suite on symnb, its Theano backend ported by renaming only.

Keras's code is not part of this project: :func:`download` fetches its source release from
the package index (the sdist ships ``tests/``) and installs the packages it imports into a
folder of their own; :func:`port_keras` renames ``theano`` to ``symnb`` everywhere (Keras's
``theano_backend.py`` becomes ``symnb_backend.py``, selected by ``KERAS_BACKEND=symnb``) and
applies :data:`ENVIRONMENT_FIXES`, the changes today's Python, NumPy, PyYAML, h5py, SciPy
and pytest need on any backend (``docs/porting.md`` lists them); :func:`run_suite` runs test
folders there in one pytest process, where a test that needs TensorFlow, CNTK or sparse
tensors (:data:`MISSING_MODULES`) is reported skipped with the reason
(``ported_suite_skips.py``). ``python tests/theano_compat/keras_suite.py [WORK_DIR]
[TEST_PATH ...]`` runs it by hand and prints the counts, skip reasons and failures.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

from tests.theano_compat.ported_suite import apply_fixes, pip_download, pip_install, port, run_pytest

VERSION = "2.2.4"
#: What Keras 2.2.4 and its tests import, beyond what symnb's test extras bring (NumPy,
#: SciPy, pytest), each named (``pip install --no-deps``): pandas (``tests/keras/engine/
#: test_training.py`` imports it) and the three packages pandas imports.
REQUIREMENTS = ["six==1.17.0", "pyyaml>=6,<7", "h5py>=3.10,<4", "keras_applications==1.0.8",
                "keras_preprocessing==1.1.2", "pandas>=2.1,<3", "python-dateutil>=2.8.2,<3",
                "pytz>=2020.1", "tzdata>=2022.7"]

#: The changes today's Python (3.10+), NumPy (2), PyYAML (6), h5py (3), SciPy and pytest (8)
#: need, on any backend, none about Theano: {file: [(text, replacement)]}, each text found
#: (every occurrence replaced). docs/porting.md lists them with their reasons.
ENVIRONMENT_FIXES = {
    # collections.Iterable moved to collections.abc (removed from collections in Python 3.10);
    # NumPy 2 removed the np.Inf alias.
    "keras/callbacks.py": [("from collections import Iterable", "from collections.abc import Iterable"),
                           ("np.Inf", "np.inf")],
    "keras/utils/io_utils.py": [
        # NumPy 2 removed np.string_ (np.bytes_ is the same type).
        ("np.string_", "np.bytes_"),
        # h5py 2 stored a list of bytes as NumPy stores it, fixed-length bytes (read back as
        # bytes); h5py 3 stores variable-length strings, read back as str. Store the array
        # Keras already made (np.asarray of the list) so that the list reads back as bytes.
        ("            else:\n                self.data.attrs[attr] = val\n",
         "            else:\n                self.data.attrs[attr] = data_npy\n")],
    "keras/engine/saving.py": [
        # PyYAML 6 requires a Loader. PyYAML 3's yaml.load (which Keras 2.2.4 called) was the
        # unsafe loader, and Keras's YAML needs it: yaml.dump writes a tuple (input shapes) as
        # !!python/tuple, which FullLoader reads, and a NumPy array (a Constant initializer's
        # value) as !!python/object/apply, which only UnsafeLoader reads.
        ("yaml.load(yaml_string)", "yaml.load(yaml_string, Loader=yaml.UnsafeLoader)"),
        # h5py 3 reads a string attribute as str (h5py 2: bytes, which Keras decodes); a model
        # saved into a dict (pickling) still gives bytes. _utf8 takes both, as tf.keras does.
        ("    h5py = None\n",
         "    h5py = None\n\n\ndef _utf8(text):\n"
         "    return text.decode('utf8') if isinstance(text, bytes) else text\n"),
        ("json.loads(model_config.decode('utf-8'))", "json.loads(_utf8(model_config))"),
        ("json.loads(training_config.decode('utf-8'))", "json.loads(_utf8(training_config))"),
        ("model_weights_group['keras_version'].decode('utf8')", "_utf8(model_weights_group['keras_version'])"),
        ("model_weights_group['backend'].decode('utf8')", "_utf8(model_weights_group['backend'])"),
        ("f.attrs['keras_version'].decode('utf8')", "_utf8(f.attrs['keras_version'])"),
        ("f.attrs['backend'].decode('utf8')", "_utf8(f.attrs['backend'])"),
        # h5py 2 stored a list of bytes (layer and weight names) as fixed-length bytes: store
        # the array Keras made, as in io_utils.py, so that the names read back as bytes.
        ("        group.attrs[name] = data\n", "        group.attrs[name] = data_npy\n"),
        # NumPy 2.2 refuses the truth value of an empty array (NumPy 1: False, with a
        # DeprecationWarning): a layer without weights has an empty array of weight names.
        ("        weight_names = layer_weights['weight_names']\n        if weight_names:",
         "        weight_names = layer_weights['weight_names']\n        if len(weight_names):")],
    # NumPy 1.23+ refuses a list of slices as an index (convert_kernel flips a NumPy kernel).
    "keras/utils/conv_utils.py": [("np.copy(kernel[slices])", "np.copy(kernel[tuple(slices)])")],
    # SciPy 1.12 removed scipy.misc.logsumexp (scipy.special.logsumexp since SciPy 0.19):
    # the NumPy reference of the backend tests.
    "tests/keras/backend/reference_operations.py": [("sp.misc.logsumexp", "sp.special.logsumexp")],
    # NumPy 1.25+ makes np.argmax a C dispatcher without __code__; the test marshals a NumPy
    # function's code (a Python function in the NumPy Keras 2.2.4 ran on). np.argmax's Python
    # implementation is that function (same name, so the same test id).
    "tests/keras/utils/generic_utils_test.py": [("[activations.softmax, np.argmax,",
                                                 "[activations.softmax, np.argmax._implementation,")],
    # NumPy 2.2 refuses the truth value of an empty array (NumPy 1: False; a one-element
    # array: its value). A list has the truth value NumPy 1 gave (a longer array raised; the
    # list's False fails the assert as well).
    "tests/keras/constraints_test.py": [("assert not l2[l2 < m]", "assert not l2[l2 < m].tolist()"),
                                        ("assert not l2[l2 > m * 2 + 1e-5]",
                                         "assert not l2[l2 > m * 2 + 1e-5].tolist()")],
    # NumPy's vectorised float32 exp (NumPy 1.22+ on AVX-512 and AVX2 machines) is 1 ulp off
    # the correctly rounded exp(-1) that NumPy 1.14's libm call gave, which breaks the test's
    # rtol=1e-7 against symnb's (and Theano's) alpha * expm1(x): the reference is computed
    # in float64 and rounded once, as libm did.
    "tests/keras/activations_test.py": [
        ("    true_result = (np.exp(negative_values) - 1) * scale * alpha",
         "    true_result = (np.exp(negative_values.astype('float64')).astype(K.floatx()) - 1) * scale * alpha")],
    # pytest 8 removed pytest.warns(None) (record every warning); the standard library's
    # recorder does the same (pytest's recorder also turned every warning filter to "always").
    "tests/keras/engine/test_training.py": [
        ("import threading\n", "import threading\nimport warnings\n"),
        ("with pytest.warns(None) as w:",
         "with warnings.catch_warnings(record=True) as w:\n        warnings.simplefilter('always')")],
}

#: The modules Keras's tests use that this run lacks, and what a test using one needs: such
#: a test is reported skipped with that reason (ported_suite_skips.py says when).
MISSING_MODULES = {"tensorflow": "TensorFlow, not installed", "cntk": "CNTK, not installed"}


def download(dest: Path) -> tuple[Path, Path]:
    """Keras's source release unpacked under ``dest`` and a folder with its requirements."""
    sdist = pip_download(f"keras=={VERSION}", dest, "--no-binary", ":all:")
    with tarfile.open(sdist) as archive:
        archive.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return dest / f"Keras-{VERSION}", pip_install(REQUIREMENTS, dest / "site")


def port_keras(source: Path, dest: Path) -> Path:
    """The renamed copy, with the environment fixes and a Keras home that selects symnb."""
    ported = port(source, dest)
    apply_fixes(ported, ENVIRONMENT_FIXES)
    home = ported / "keras_home"
    home.mkdir()
    (home / "keras.json").write_text(json.dumps({"backend": "symnb", "floatx": "float32",
                                                 "epsilon": 1e-07, "image_data_format": "channels_last"}))
    return ported


def run_suite(ported: Path, site: Path, tests: list[str], timeout: float = 1500) -> dict:
    """Run ``tests`` (paths under ``ported``, e.g. ``tests/keras/backend``) on symnb."""
    plugin_dir = Path(__file__).resolve().parent
    return run_pytest(ported, tests, [site, plugin_dir], timeout=timeout,
                      env={"KERAS_BACKEND": "symnb", "KERAS_HOME": str(ported / "keras_home"),
                           "SYMNB_PORT_MISSING_MODULES": json.dumps(MISSING_MODULES)},
                      options=["-p", "ported_suite_skips"], python_files="test_*.py *_test.py")


def prepare(work: Path) -> tuple[Path, Path]:
    """The ported copy and the requirements' folder under ``work``, reusing what an earlier
    call left there: delete ``work/ported`` to port again (after changing the fixes), and
    ``work/download`` to download again (after changing the requirements)."""
    source, site = work / "download" / f"Keras-{VERSION}", work / "download" / "site"
    if not site.exists():
        source, site = download(work / "download")
    ported = work / "ported"
    if not ported.exists():
        port_keras(source, ported)
    return ported, site


if __name__ == "__main__":  # python tests/theano_compat/keras_suite.py [WORK_DIR] [TESTS ...]
    import tempfile

    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    ported, site = prepare(work)
    result = run_suite(ported, site, sys.argv[2:] or ["tests/keras"], timeout=3000)
    print(result["counts"])
    for reason, count in sorted(result["skips"].items()):
        print(f"skipped {count}: {reason}")
    for name, message in result["failures"]:
        print(f"{name}: {message[:300]}")
