"""Run a Theano library's own test suite on symnb, ported by renaming ``theano`` to ``symnb``.

The one home of what Lasagne's and Keras's harnesses share: fetching a release from the
package index (:func:`pip_download`, :func:`pip_install`), the rename (:func:`port`), the
environment fixes a port needs on today's Python and NumPy (:func:`apply_fixes`), and running
its tests in one pytest process with symnb from this checkout (:func:`run_pytest`), read back
as counts, failures and skip reasons.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def pip_download(spec: str, dest: Path, *extra: str) -> Path:
    """Download ``spec`` (no dependencies) into ``dest``; the downloaded file."""
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.iterdir())
    subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps", "-q", "-d",
                    str(dest), *extra], check=True, timeout=300)
    (new,) = set(dest.iterdir()) - before
    return new


def pip_install(specs: list[str], target: Path) -> Path:
    """Install ``specs`` (no dependencies: name each one) into the folder ``target``, which
    goes on the suite's ``PYTHONPATH``: nothing is installed into the running environment."""
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                    str(target), *specs], check=True, timeout=600)
    return target


def apply_fixes(ported: Path, fixes: dict) -> None:
    """Replace each fix's text (which must be there) in the ported copy:
    ``{relative path: [(text, replacement), ...]}``."""
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


def run_pytest(ported: Path, tests: list[str], paths: list[Path], *, env: dict | None = None,
               options: list[str] = (), python_files: str = "test*py", timeout: float = 600) -> dict:
    """Run ``tests`` (paths inside ``ported``) in one pytest process, with symnb from this
    checkout and ``paths`` on ``PYTHONPATH``, test files named as ``python_files`` says, ignoring the project's own pytest settings.

    ``-c`` names an ini file of our own (the library's ``setup.cfg`` options, such as pep8 or
    coverage plug-ins, are left out). Returns the counts by outcome, the failures' ids and
    messages, the skip reasons, and pytest's output.
    """
    ini = ported / "symnb_port_pytest.ini"
    ini.write_text(f"[pytest]\npython_files = {python_files}\n")
    report = ported / "report.xml"
    report.unlink(missing_ok=True)
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in [SRC, ported, *paths]),
                    JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(ported),
         "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--tb=short",
         "--continue-on-collection-errors", "-W", "ignore::DeprecationWarning",
         f"--junitxml={report}", *options, *tests],
        cwd=ported, env=full_env, capture_output=True, text=True, timeout=timeout)
    if not report.exists():
        raise RuntimeError(f"The suite did not run:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return outcomes(report, proc.stdout)


def counts_per_file(result: dict, modules: dict[str, str]) -> dict[str, dict[str, int]]:
    """The counts by outcome of each test file, from :func:`outcomes`' ``outcomes``;
    ``modules`` maps each file's dotted module name to the file. A case goes to the
    longest module its name starts with; one without a name (pytest's own internal
    error) belongs to no file."""
    counts: dict[str, Counter] = {f: Counter() for f in modules.values()}
    for name, outcome in result["outcomes"]:
        found = [m for m in modules if name is not None and (name == m or name.startswith((m + ".", m + "::")))]
        if found:
            counts[modules[max(found, key=len)]][outcome] += 1
    return {f: dict(c) for f, c in counts.items()}


def worse_than(expected: dict[str, dict[str, int]], got: dict[str, dict[str, int]]) -> dict:
    """The files of a ratchet ``expected`` that did worse in ``got``: fewer passed, or more
    failed and errors together, ``{file: (expected, got)}``."""
    worse = {}
    for name, wanted in expected.items():
        counts = got[name]
        not_passed = counts.get("failed", 0) + counts.get("error", 0)
        if counts.get("passed", 0) < wanted.get("passed", 0) or \
                not_passed > wanted.get("failed", 0) + wanted.get("error", 0):
            worse[name] = (wanted, counts)
    return worse


def outcomes(report: Path, output: str) -> dict:
    """Counts by outcome, failures ``[(id, message)]``, skip reasons and each test's outcome
    ``[(id, outcome)]`` from a JUnit XML file."""
    counts: Counter = Counter()
    failures, skips, each = [], Counter(), []
    for case in ET.parse(report).getroot().iter("testcase"):
        # A module that failed to import has no class name: its name is the module's.
        name = f"{case.get('classname')}::{case.get('name')}" if case.get("classname") else case.get("name")
        tags = {child.tag: child for child in case}
        if "failure" in tags or "error" in tags:
            kind = "failed" if "failure" in tags else "error"
            failures.append((name, _failure_message(tags["failure" if kind == "failed" else "error"])))
        elif "skipped" in tags:
            kind = "skipped"
            skips[_skip_reason(tags["skipped"])] += 1
        else:
            kind = "passed"
        counts[kind] += 1
        each.append((name, kind))
    return {"counts": dict(counts), "failures": failures, "skips": dict(skips), "outcomes": each,
            "output": output}


def _failure_message(element: ET.Element) -> str:
    """A failure's message; for a module that failed to import (pytest's message is only
    "collection failure"), the exception's line from the traceback (``E   ImportError: ...``)."""
    message = element.get("message", "")
    if message == "collection failure":
        lines = [line[1:].strip() for line in (element.text or "").splitlines() if line.startswith("E ")]
        return lines[0] if lines else message
    return message


def _skip_reason(skipped: ET.Element) -> str:
    """A skip's reason. A skipped collection (a test module) is written with the message
    "collection skipped" and the report's ``(path, line, reason)`` tuple as text."""
    message = skipped.get("message", "")
    if message == "collection skipped":
        try:
            return ast.literal_eval(skipped.text or "")[2].removeprefix("Skipped: ")
        except (ValueError, SyntaxError, TypeError, IndexError):
            return message
    return message
