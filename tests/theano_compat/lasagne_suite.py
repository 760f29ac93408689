"""Run Lasagne's own test suite on symnb, ported by renaming ``theano`` to ``symnb``.

Lasagne's code is not part of this project: :func:`download` fetches a release from the
package index (with ``mock``, its test requirement), :func:`port` copies it into a
temporary folder renaming ``theano`` to ``symnb`` in every Python file and path (Lasagne's
``theano_extensions`` becomes ``symnb_extensions``), and :func:`run_suite` runs its tests
there, unchanged, in one pytest process. ``python tests/theano_compat/lasagne_suite.py
SOURCE_DIR`` runs the same on a checkout (Lasagne's GitHub master, for instance).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
MOCK = "mock==5.2.0"  # Lasagne's test requirement (5.x: a Mock spec does not run properties)


def _pip_download(spec: str, dest: Path, *extra: str) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.iterdir())
    subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps", "-q", "-d",
                    str(dest), *extra], check=True, timeout=300)
    (new,) = set(dest.iterdir()) - before
    return new


def download(dest: Path, version: str = "0.1") -> tuple[Path, Path]:
    """Lasagne's source release (its sdist ships ``lasagne/tests``) unpacked under
    ``dest``, and the ``mock`` wheel its tests import."""
    sdist = _pip_download(f"lasagne=={version}", dest, "--no-binary", ":all:")
    with tarfile.open(sdist) as archive:
        # The "data" filter (Python 3.11.4+) refuses links and paths out of dest.
        archive.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    mock_wheel = _pip_download(MOCK, dest, "--only-binary", ":all:")
    return dest / f"Lasagne-{version}", mock_wheel


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


def apply_fixes(ported: Path, fixes: dict) -> None:
    """Replace each fix's text (which must be there) in the ported copy."""
    for relative, pairs in fixes.items():
        path = ported / relative
        text = path.read_text(encoding="utf-8")
        for old, new in pairs:
            if old not in text:
                raise ValueError(f"{relative}: {old!r} not found: the fix no longer applies")
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")


def port(source: Path, dest: Path) -> Path:
    """A copy of ``source`` with ``theano`` renamed ``symnb`` (files, folders, Python text)."""
    shutil.copytree(source, dest)
    for root, dirs, files in os.walk(dest, topdown=False):
        for name in dirs + files:
            if "theano" in name:
                os.rename(Path(root, name), Path(root, name.replace("theano", "symnb")))
    for path in dest.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "theano" in text:
            path.write_text(text.replace("theano", "symnb"), encoding="utf-8")
    return dest


def run_suite(ported: Path, mock_wheel: Path, timeout: float = 600) -> dict:
    """Run ``lasagne/tests`` in ``ported`` with symnb from this checkout, in one process.

    Lasagne's ``setup.cfg`` options (coverage, pep8, doctests of its modules) and its
    top-level ``conftest.py`` (a hook older pytest spelled differently) are left out:
    ``-c`` names an ini file with Lasagne's ``python_files`` only, and ``--confcutdir``
    keeps the conftest files of ``lasagne/tests``. Returns the counts by outcome, the
    failures' ids and messages, and the skip reasons.
    """
    ini = ported / "symnb_lasagne_pytest.ini"
    ini.write_text("[pytest]\npython_files = test*py\n")
    report = ported / "report.xml"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(ported), str(mock_wheel)]),
               JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(ported),
         "--confcutdir", str(ported / "lasagne" / "tests"), "-p", "no:cacheprovider",
         "-p", "no:xdist", "-q", "--tb=short", "--continue-on-collection-errors", "-W", "ignore::DeprecationWarning",
         f"--junitxml={report}", "lasagne/tests"],
        cwd=ported, env=env, capture_output=True, text=True, timeout=timeout)
    if not report.exists():
        raise RuntimeError(f"Lasagne's suite did not run:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return _outcomes(report, proc.stdout)


def _outcomes(report: Path, output: str) -> dict:
    counts: Counter = Counter()
    failures, skips = [], Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        tags = {child.tag: child for child in case}
        if "failure" in tags or "error" in tags:
            kind = "failed" if "failure" in tags else "error"
            counts[kind] += 1
            failures.append((name, tags["failure" if "failure" in tags else "error"].get("message", "")))
        elif "skipped" in tags:
            counts["skipped"] += 1
            skips[tags["skipped"].get("message", "")] += 1
        else:
            counts["passed"] += 1
    return {"counts": dict(counts), "failures": failures, "skips": dict(skips), "output": output}


if __name__ == "__main__":  # python tests/theano_compat/lasagne_suite.py LASAGNE_CHECKOUT WORK_DIR
    import tempfile

    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    wheel = _pip_download(MOCK, work, "--only-binary", ":all:")
    ported = port(Path(sys.argv[1]), work / "ported")
    apply_fixes(ported, NUMPY2_FIXES_MASTER)
    result = run_suite(ported, wheel, timeout=3000)
    print(result["counts"])
    for name, message in result["failures"]:
        print(f"{name}: {message[:300]}")
