"""A pytest plug-in for ported suites: a test module that imports a package this run does not
install (``SYMNB_SKIP_MODULES_IMPORTING``, comma-separated, e.g. ``tensorflow,cntk``) is
reported skipped, naming the package, instead of failing its collection."""

import os

import pytest

_NOT_INSTALLED = tuple(filter(None, os.environ.get("SYMNB_SKIP_MODULES_IMPORTING", "").split(",")))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if not (report.failed and isinstance(collector, pytest.Module) and report.longrepr):
        return
    text = str(report.longrepr)
    for package in _NOT_INSTALLED:
        if f"No module named '{package}'" in text:
            report.outcome = "skipped"
            report.longrepr = (str(collector.path), 0, f"Skipped: needs {package}, not installed")
            return
