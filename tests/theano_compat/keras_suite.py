"""Run Keras 2.2.4's own test suite on symnb, its Theano backend ported by renaming only.

Keras's code is not part of this project: :func:`download` fetches its source release from
the package index (the sdist ships ``tests/``) and installs the packages it imports into a
folder of their own; :func:`port_keras` renames ``theano`` to ``symnb`` everywhere (Keras's
``theano_backend.py`` becomes ``symnb_backend.py``, selected by ``KERAS_BACKEND=symnb``) and
applies :data:`ENVIRONMENT_FIXES`, the changes today's Python, NumPy, PyYAML and h5py need on
any backend (``docs/porting.md`` lists them); :func:`run_suite` runs test folders there in one
pytest process. ``python tests/theano_compat/keras_suite.py [WORK_DIR] [TEST_PATH ...]`` runs
it by hand and prints the counts and failures.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

from tests.theano_compat.ported_suite import apply_fixes, pip_download, pip_install, port, run_pytest

VERSION = "2.2.4"
#: What Keras 2.2.4 and its tests import, beyond what symnb's test extras bring (NumPy,
#: SciPy, pytest). pandas: ``tests/keras/engine/test_training.py`` imports it.
REQUIREMENTS = ["six==1.17.0", "pyyaml>=6,<7", "h5py>=3.10,<4", "keras_applications==1.0.8",
                "keras_preprocessing==1.1.2", "pandas>=2.1,<3"]

#: Python 3.10+, NumPy 2, PyYAML 6 and h5py 3 fixes, none about Theano: {file: [(text, new)]}.
ENVIRONMENT_FIXES = {
    # collections.Iterable moved to collections.abc (removed from collections in Python 3.10).
    "keras/callbacks.py": [("from collections import Iterable", "from collections.abc import Iterable")]
    # NumPy 2 removed the np.Inf alias.
    + [("np.Inf", "np.inf")],
    # NumPy 2 removed np.string_ (np.bytes_ is the same type).
    "keras/utils/io_utils.py": [("np.string_", "np.bytes_")],
    # PyYAML 6 requires a Loader; Keras's YAML is plain data.
    "keras/engine/saving.py": [("yaml.load(yaml_string)", "yaml.load(yaml_string, Loader=yaml.SafeLoader)")],
}

#: The optional packages a test module may import that this run does not install: such a
#: module is reported skipped, with the reason, instead of as a collection error.
NOT_INSTALLED = ("tensorflow", "cntk")


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
                           "SYMNB_SKIP_MODULES_IMPORTING": ",".join(NOT_INSTALLED)},
                      options=["-p", "optional_imports_skip"], python_files="test_*.py *_test.py")


if __name__ == "__main__":  # python tests/theano_compat/keras_suite.py [WORK_DIR] [TESTS ...]
    import tempfile

    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    if (work / "ported").exists():
        ported, site = work / "ported", work / "download" / "site"
    else:
        source, site = download(work / "download")
        ported = port_keras(source, work / "ported")
    result = run_suite(ported, site, sys.argv[2:] or ["tests/keras"], timeout=3000)
    print(result["counts"])
    for reason, count in result["skips"].items():
        print(f"skipped {count}: {reason}")
    for name, message in result["failures"]:
        print(f"{name}: {message[:300]}")
