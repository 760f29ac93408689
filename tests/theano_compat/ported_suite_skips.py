"""A pytest plug-in for ported suites: a test that needs a module this run lacks is reported
skipped, with the reason, instead of failing.

The modules a run lacks, and why, come from ``SYMNB_PORT_MISSING_MODULES``, a JSON object
``{module: why}`` (Keras: ``{"tensorflow": "TensorFlow, not installed", ...}``). Three rules,
each decided by the code or by the exception, never by a list of test names:

- a test module whose import fails on a missing module is one skipped collection;
- a test whose code uses a name that its module bound by an optional import that failed on a
  missing module (``try: from keras.backend import tensorflow_backend as KTF`` /
  ``except ImportError: KTF = None``), or an attribute of a module so bound
  (``KTH.th_sparse_module``), is skipped when collected: :func:`missing_uses`;
- a test that stops at an ``ImportError`` raised while importing a missing module (Keras's
  ``TensorBoard`` callback re-raises ``import tensorflow``'s error with a message of its own)
  is reported skipped.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.abc
import importlib.util
import inspect
import json
import os
import sys
import textwrap
import types

import pytest

MISSING = json.loads(os.environ.get("SYMNB_PORT_MISSING_MODULES", "{}"))


class _Absent(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: a symnb module of :data:`MISSING` does not import,
    even where symnb has a module of that name (a run may treat one as absent)."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith("symnb.") and missing_module(ModuleNotFoundError(name=name)) is not None:
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None


sys.meta_path.insert(0, _Absent())


def missing_module(error: BaseException) -> str | None:
    """The missing module (a key of :data:`MISSING`) that ``error`` failed to import, if any."""
    name = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    return next((module for module in MISSING if name == module or (name or "").startswith(module + ".")), None)


def _reason(module: str, use: str = "") -> str:
    return f"uses {use}: needs {MISSING[module]}" if use else f"needs {MISSING[module]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if not (report.failed and isinstance(collector, pytest.Module) and report.longrepr):
        return
    text = str(report.longrepr)
    for module in MISSING:
        if f"No module named '{module}'" in text:
            report.outcome = "skipped"
            report.longrepr = (str(collector.path), 0, f"Skipped: {_reason(module)}")
            return


def pytest_collection_modifyitems(items):
    for item in items:
        uses = missing_uses(item)
        if uses:
            reason = "; ".join(_reason(module, use) for use, module in sorted(uses.items()))
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or call.excinfo is None:
        return
    error = call.excinfo.value
    if not isinstance(error, ImportError):
        return
    module = next(filter(None, map(missing_module, _chain(error))), None)
    if module is not None:
        path, line = item.reportinfo()[:2]
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: {_reason(module)}")


def _chain(error: BaseException):
    """``error`` and the exceptions it was raised from or while handling."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def missing_uses(item) -> dict[str, str]:
    """``{name as the test writes it: missing module}`` for each failed optional import the
    test's code uses: the test function's body, and the methods of its class it calls
    (``self._helper_bilinear``). Functions of the module are not followed: a helper that
    receives the backends as an argument and compares them with ``KC`` works without it."""
    function = getattr(item, "function", None)
    module = getattr(item, "module", None)
    if function is None or module is None:
        return {}
    uses = {}
    for node in _test_code(function, getattr(item, "cls", None)):
        path = _dotted(node)
        found = _failed_import(module, path) if path is not None else None
        if found is not None:
            uses[found[0]] = found[1]
    return uses


def _test_code(function, cls, seen=None):
    """The AST nodes of ``function``'s body and of the methods of ``cls`` it calls."""
    seen = set() if seen is None else seen
    if function in seen:
        return
    seen.add(function)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    for statement in definition.body:  # not its decorators (Keras's skipif marks use K)
        for node in ast.walk(statement):
            yield node
            if cls is not None and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("self", "cls", cls.__name__):
                method = inspect.getattr_static(cls, node.attr, None)
                method = getattr(method, "__func__", method)
                if inspect.isfunction(method):
                    yield from _test_code(method, cls, seen)


def _dotted(node) -> list[str] | None:
    """``['KTH', 'th_sparse_module']`` for ``KTH.th_sparse_module``, ``['KTF']`` for ``KTF``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _failed_import(module: types.ModuleType, path: list[str]) -> tuple[str, str] | None:
    """``(the name as written, the missing module)`` when ``path`` (a name of ``module``, then
    attributes of modules) reaches a name bound by an optional import that failed on a
    missing module: ``('KTF', 'tensorflow')`` for ``KTF.variable``."""
    for depth, name in enumerate(path):
        failed = _failed_optional_imports(module)
        if name in failed:
            return ".".join(path[:depth + 1]), failed[name]
        module = getattr(module, name, None)
        if not isinstance(module, types.ModuleType):
            return None
    return None


@functools.lru_cache(maxsize=None)
def _failed_optional_imports(module: types.ModuleType) -> dict[str, str]:
    """``{name: missing module}`` for each name ``module`` imports in a ``try`` that catches
    ``ImportError`` and that is None now because the import failed on a missing module."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return {}
    failed = {}
    for statement in tree.body:
        if not (isinstance(statement, ast.Try) and any(map(_catches_import_error, statement.handlers))):
            continue
        for name, imported in _imports(statement.body, module.__package__ or ""):
            if name in vars(module) and vars(module)[name] is None:
                missing = _import_failure(imported)
                if missing is not None:
                    failed[name] = missing
    return failed


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    types_ = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in ("ImportError", "ModuleNotFoundError") for t in types_)


def _imports(statements, package: str):
    """``(bound name, imported module)`` for the import statements among ``statements``."""
    for statement in statements:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                yield alias.asname or alias.name.split(".")[0], alias.name
        elif isinstance(statement, ast.ImportFrom):
            base = importlib.util.resolve_name("." * statement.level + (statement.module or ""), package) \
                if statement.level else statement.module
            for alias in statement.names:
                yield alias.asname or alias.name, f"{base}.{alias.name}"


@functools.lru_cache(maxsize=None)
def _import_failure(imported: str) -> str | None:
    """The missing module (a key of :data:`MISSING`) that importing ``imported`` fails on."""
    try:
        importlib.import_module(imported)
    except ModuleNotFoundError as error:
        return missing_module(error)
    except Exception:  # it fails for another reason: the test shows it
        return None
    return None
