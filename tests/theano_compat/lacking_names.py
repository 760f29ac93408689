"""A pytest plug-in for the Theano suite: names and modules that symnb lacks are bound to
:class:`Lacking` stand-ins, so that a test module imports and each test stops where it
*uses* one. Two kinds:

- **lacking by design** (always): a module of ``SYMNB_PORT_MISSING_MODULES`` (JSON
  ``{module: why}``: ``symnb.sparse``, ``symnb.tensor.inplace``...), imported or read as an
  attribute, is a stand-in, and a test that uses it (calls it, reads its truth, iterates...)
  is reported skipped: ``uses symnb.sparse: needs sparse tensors ...``. A module importing
  ``symnb.tensor.inplace`` for one of its tests thus keeps its other tests; a use at the
  module's top level skips the module, with the same reason.
- **any other lacking name** (a diagnosis, never CI's run: ``SYMNB_PORT_FORCE_IMPORTS=1``):
  an attribute a symnb module lacks (``T.verify_grad``) or a symnb module that does not exist
  (``symnb.compat``) is a stand-in too, and its use raises ``AttributeError: symnb lacks
  symnb.tensor.verify_grad``; failures counted by that message say how many tests each
  missing name holds back. Without the diagnosis such a name raises as it always does.

A stand-in's attributes are stand-ins (``T.verify_grad.E_grad`` read at a module's top
level imports); using it in any other way raises (or skips). A Theano name symnb refuses
with its reason (``NotInSymnbError``: ``T.nlinalg``) keeps its refusal unless it is lacking
by design. Names with double underscores are never stand-ins (probes such as ``__path__``).
Load it before the suite's modules (``-p lacking_names``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
import types

import pytest

import symnb  # noqa: F401  (its namespaces, patched before any test module imports them)
from symnb.core.absent import NotInSymnbError

BY_DESIGN = json.loads(os.environ.get("SYMNB_PORT_MISSING_MODULES", "{}"))
FORCE = os.environ.get("SYMNB_PORT_FORCE_IMPORTS") == "1"


def lacking_by_design(name: str) -> str | None:
    """The module of :data:`BY_DESIGN` that ``name`` is, or is in (the longest: a
    submodule's reason before its package's). A key ``'package.*'`` stands for the names
    ``package`` refuses with its reason (``NotInSymnbError``: ``_wanted`` decides that):
    the part of a Theano module symnb does not have, while the rest of it runs."""
    matches = [m for m in BY_DESIGN if name == m or name.startswith(m + ".")
               or (m.endswith(".*") and name.startswith(m[:-1]))]
    return max(matches, key=len) if matches else None


def _refused_by_design(name: str, refusal: BaseException | None) -> bool:
    """Whether ``name``, under a ``'package.*'`` key of :data:`BY_DESIGN`, is a name its
    module refuses with its reason (``refusal``)."""
    return isinstance(refusal, NotInSymnbError)


class Lacking:
    """Stands for the symnb name ``name``, which symnb lacks: reading an attribute gives a
    stand-in, any other use skips the test (lacking by design) or raises AttributeError."""

    def __init__(self, name: str) -> None:
        self._lacking_name = name

    def _refuse(self, *args, **kwargs):
        module = lacking_by_design(self._lacking_name)
        if module is not None:
            raise pytest.skip.Exception(f"uses {module}: needs {BY_DESIGN[module]}",
                                        allow_module_level=True)
        raise AttributeError(f"symnb lacks {self._lacking_name}")

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return Lacking(f"{self._lacking_name}.{attribute}")

    def __mro_entries__(self, bases):
        self._refuse()

    @property
    def __name__(self) -> str:
        # Theano's sparse tests name a test class after the op they check (op.__name__)
        # at their top level: reading it is no use of the op.
        return self._lacking_name.rpartition(".")[2]

    def __repr__(self) -> str:
        return f"<symnb lacks {self._lacking_name}>"

    def __str__(self) -> str:
        # Theano's str of a function-like op is its name (str(inplace.add_inplace) is
        # "add_inplace"): test makers name their test classes so (test_basic's
        # makeBroadcastTester), and a test using the op then skips, as it should.
        return self._lacking_name.rpartition(".")[2]

    # isinstance(op, T.blas.Dot22) is a use too (Python asks the second argument).
    __call__ = __bool__ = __iter__ = __getitem__ = __len__ = __index__ = __eq__ = _refuse
    __instancecheck__ = __subclasscheck__ = _refuse
    __hash__ = object.__hash__


def _wanted(name: str, refusal: BaseException | None = None) -> bool:
    """Whether the lacking ``name`` gets a stand-in (``refusal``: symnb's own error)."""
    if name.rpartition(".")[2].startswith("__"):
        return False
    by_design = lacking_by_design(name)
    if by_design is not None and by_design.endswith(".*"):
        return _refused_by_design(name, refusal)
    return by_design is not None or (FORCE and not isinstance(refusal, NotInSymnbError))


class _LackingGetattr:
    """A symnb module's ``__getattr__``: its own first, then a stand-in where wanted."""

    def __init__(self, module: str, original) -> None:
        self.module, self.original = module, original

    def __call__(self, name: str):
        refusal = AttributeError(f"module {self.module!r} has no attribute {name!r}")
        if self.original is not None:
            try:
                return self.original(name)
            except AttributeError as error:
                refusal = error
        if _wanted(f"{self.module}.{name}", refusal):
            submodule = _submodule(self.module, name)
            return submodule if submodule is not None else Lacking(f"{self.module}.{name}")
        raise refusal


def _submodule(package: str, name: str) -> types.ModuleType | None:
    """The submodule ``package.name`` when it exists but is not imported yet (``from
    symnb.compile import function`` imports it: a stand-in must not hide it)."""
    path = getattr(sys.modules.get(package), "__path__", None)
    if path is None or importlib.machinery.PathFinder.find_spec(f"{package}.{name}", path) is None:
        return None
    return importlib.import_module(f"{package}.{name}")


class _LackingModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on ``sys.meta_path``: a symnb module that no other finder finds, where wanted,
    is a stand-in module (a package, so that its submodules are stand-ins too)."""

    def find_spec(self, name, path=None, target=None):
        if _is_symnb(name) and _wanted(name):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__getattr__ = _LackingGetattr(spec.name, None)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def _is_symnb(name: str) -> bool:
    return name == "symnb" or name.startswith("symnb.")


def patch_loaded() -> None:
    """Give each symnb module imported so far the stand-in ``__getattr__``."""
    for name, module in list(sys.modules.items()):
        if _is_symnb(name) and isinstance(module, types.ModuleType) \
                and not isinstance(module.__dict__.get("__getattr__"), _LackingGetattr):
            module.__getattr__ = _LackingGetattr(name, module.__dict__.get("__getattr__"))


class _LackingByDesign(_LackingModules):
    """First on ``sys.meta_path``: a module lacking by design is the stand-in even where
    symnb has a module of that name (``symnb.sparse`` exists, holding types no variable
    has, so that PyMC3 imports; Theano's tests of sparse tensors still lack them)."""

    def find_spec(self, name, path=None, target=None):
        if any(name == module or name.startswith(module + ".") for module in BY_DESIGN):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None


sys.meta_path.insert(0, _LackingByDesign())
sys.meta_path.append(_LackingModules())
for _key in BY_DESIGN:  # a module whose refused names are stand-ins: its __getattr__ patched
    if _key.endswith(".*"):
        importlib.import_module(_key[:-2])
patch_loaded()


def pytest_collectstart(collector):
    patch_loaded()  # the symnb modules imported since


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that stopped at an attribute symnb refuses (``NotInSymnbError`` of an
    object's attribute, ``op.fn`` of a Scan) that is lacking by design is skipped with the
    reason: decided by the exception, where the test used the name."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or call.excinfo is None:
        return
    name = getattr(call.excinfo.value, "theano_name", None)
    module = lacking_by_design(name) if isinstance(call.excinfo.value, NotInSymnbError) \
        and name else None
    if module is not None:
        path, line = item.reportinfo()[:2]
        report.outcome = "skipped"
        report.longrepr = (str(path), (line or 0) + 1, f"Skipped: uses {module}: needs "
                                                        f"{BY_DESIGN[module]}")
