"""The wheel and the sdist hold what a release needs: the LICENSE, ``py.typed``, the
widgets' JavaScript and CSS; the sdist also every test file, the docs, the notebooks and
the benchmarks, so that the tests run from it. Built offline (no build isolation) with the
build system ``pyproject.toml`` names, which must be installed (the test extra lists it)."""

import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _build_system_missing() -> str | None:
    """Why the offline build cannot run here, or None."""
    from packaging.requirements import Requirement

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for requirement in map(Requirement, [*requires, "build"]):
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            return f"{requirement.name} is not installed (pip install -e '.[test]')"
        if not requirement.specifier.contains(version, prereleases=True):
            return f"the build needs {requirement}, {version} is installed"
    return None


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    why = _build_system_missing()
    if why:
        pytest.skip(f"cannot build the wheel and sdist offline: {why}")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, text=True)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def tracked_files(folder: str, suffix: str = "") -> set[str]:
    """The repository's files under ``folder`` as git lists them (what a clone has)."""
    listed = subprocess.run(["git", "ls-files", folder], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: cannot list the repository's files")
    return {line for line in listed.stdout.splitlines() if line.endswith(suffix)}


def test_the_wheel_holds_the_license_the_type_marker_and_the_widgets_front_end(dist):
    wheel, _ = dist
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "symnb/py.typed" in names
    static = {name for name in names if name.startswith("symnb/widgets/static/")}
    expected = {path.removeprefix("src/") for path in tracked_files("src/symnb/widgets/static")}
    assert static == expected and static


def test_the_sdist_holds_every_test_doc_notebook_and_benchmark(dist):
    _, sdist = dist
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    for folder in ("tests", "docs", "notebooks", "bench", "src"):
        missing = tracked_files(folder) - names
        assert missing == set(), f"the sdist lacks {sorted(missing)[:10]}"
    assert {"LICENSE", "CHANGELOG.md", "README.md", "pyproject.toml"} <= names


def test_the_tests_run_from_the_unpacked_sdist(dist, tmp_path):
    _, sdist = dist
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path, filter="data")
    (unpacked,) = tmp_path.iterdir()
    run = [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-q"]
    collected = subprocess.run([*run, "--collect-only", "tests"], cwd=unpacked,
                               capture_output=True, text=True)
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert " error" not in collected.stdout.splitlines()[-1]
    # Files that read the sdist's own docs and README, and its own package (pythonpath=src).
    ran = subprocess.run([*run, "tests/test_docs_paths.py", "tests/test_porting_doc.py"],
                         cwd=unpacked, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert " passed" in ran.stdout.splitlines()[-1]
