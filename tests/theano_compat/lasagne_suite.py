"""Run Lasagne's own test suite on symnb, ported by renaming ``theano`` to ``symnb``.

Lasagne's code is not part of this project: :func:`download` fetches a release from the
package index (with ``mock``, its test requirement), :func:`port` copies it into a
temporary folder renaming ``theano`` to ``symnb`` in every Python file and path (Lasagne's
``theano_extensions`` becomes ``symnb_extensions``), and :func:`run_suite` runs its tests
there, unchanged, in one pytest process. ``python tests/theano_compat/lasagne_suite.py
SOURCE_DIR`` runs the same on a checkout (Lasagne's GitHub master, for instance).

The package index serves Lasagne 0.1 only. Lasagne's GitHub master (commit
:data:`MASTER_COMMIT`, MIT-licensed: ``lasagne_master.LICENSE``) is kept beside this file
as ``lasagne_master.tar.xz`` (its ``lasagne`` package with its tests, ``examples`` and
``LICENSE``, 117 KB), so that CI runs its cuDNN and GpuCorrMM layers' tests
(:func:`unpack_master`) without fetching anything but ``mock``.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from tests.theano_compat.ported_suite import apply_fixes, pip_download, port, run_pytest

MOCK = "mock==5.2.0"
#: The GitHub commit of Lasagne (2019-11-20) that ``lasagne_master.tar.xz`` holds.
MASTER_COMMIT = "5d3c63cb315c50b1cbd27a6bc8664b406f34dd99"
MASTER_ARCHIVE = Path(__file__).with_name("lasagne_master.tar.xz")  # Lasagne's test requirement (5.x: a Mock spec does not run properties)


def download(dest: Path, version: str = "0.1") -> tuple[Path, Path]:
    """Lasagne's source release (its sdist ships ``lasagne/tests``) unpacked under
    ``dest``, and the ``mock`` wheel its tests import."""
    sdist = pip_download(f"lasagne=={version}", dest, "--no-binary", ":all:")
    with tarfile.open(sdist) as archive:
        # The "data" filter (Python 3.11.4+) refuses links and paths out of dest.
        archive.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    mock_wheel = pip_download(MOCK, dest, "--only-binary", ":all:")
    return dest / f"Lasagne-{version}", mock_wheel


def unpack_master(dest: Path) -> Path:
    """Lasagne's GitHub master (:data:`MASTER_COMMIT`), unpacked under ``dest`` from the
    archive kept in the repository; the checkout's folder."""
    with tarfile.open(MASTER_ARCHIVE) as archive:
        archive.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return dest / "Lasagne-master"


#: The NumPy-2 fixes Lasagne's newest code needs on any backend (docs/porting.md lists
#: them with their reasons): {file: [(text, replacement)]}. Lasagne 0.1 needs none.
NUMPY2_FIXES_MASTER = {
    # NumPy 1.23+ refuses a list of slices as an index (the tests' NumPy reference).
    "lasagne/tests/layers/test_conv.py": [
        ("output = output[slices]", "output = output[tuple(slices)]"),
        ("output[[slice(None, None, factor) for factor in factors]] = input",
         "output[tuple(slice(None, None, factor) for factor in factors)] = input")],
    # NumPy 1.18+ refuses a float as linspace's number of points.
    "lasagne/layers/special.py": [("np.linspace(-1, 1, grid_size)", "np.linspace(-1, 1, int(grid_size))")],
}


def run_suite(ported: Path, mock_wheel: Path, timeout: float = 600,
              tests: tuple[str, ...] = ("lasagne/tests",)) -> dict:
    """Run ``tests`` (paths in ``ported``; by default all of ``lasagne/tests``) with symnb
    from this checkout, in one process.

    Lasagne's ``setup.cfg`` options (coverage, pep8, doctests of its modules) and its
    top-level ``conftest.py`` (a hook older pytest spelled differently) are left out:
    ``-c`` names an ini file with Lasagne's ``python_files`` only, and ``--confcutdir``
    keeps the conftest files of ``lasagne/tests``. Returns the counts by outcome, the
    failures' ids and messages, and the skip reasons.
    """
    return run_pytest(ported, list(tests), [mock_wheel], timeout=timeout,
                      options=["--confcutdir", str(ported / "lasagne" / "tests")])


if __name__ == "__main__":  # python tests/theano_compat/lasagne_suite.py LASAGNE_CHECKOUT|master WORK_DIR
    import tempfile

    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    wheel = pip_download(MOCK, work, "--only-binary", ":all:")
    source = unpack_master(work / "source") if sys.argv[1] == "master" else Path(sys.argv[1])
    ported = port(source, work / "ported")
    apply_fixes(ported, NUMPY2_FIXES_MASTER)
    result = run_suite(ported, wheel, timeout=3000)
    print(result["counts"])
    for name, message in result["failures"]:
        print(f"{name}: {message[:300]}")
