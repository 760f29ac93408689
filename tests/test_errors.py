"""``symnb.errors``: every error class symnb defines is public there (as ``jax.errors``),
and ``except sn.SymnbError`` catches what symnb raises about a graph."""

import importlib
import inspect
import pkgutil
import subprocess
import sys

import numpy as np
import pytest

import symnb as sn
import symnb.errors
import symnb.tensor as T

#: Exception classes that never reach the user's code, each caught inside symnb (and why
#: they are not exported).
INTERNAL = {
    "symnb.lower_xla.rules.extra_ops.MultiIndexOutOfBounds": "a ValueError raised in the program, reported as GraphRuntimeError naming the node",
    "symnb.lower_xla.rules.basic_theano_ops.ChooseOutOfRange": "a ValueError raised in the program (choose's mode='raise'), reported as GraphRuntimeError naming the node",
    "symnb.core.graph.errors.MethodNotDefined": "Theano's gof.utils.MethodNotDefined: the NotImplementedError of an op "
                                                "method a subclass did not define (a programming error, not the user's input)",
    "symnb.core.graph.errors.PerformNotDefined": "MethodNotDefined raised by Op.perform itself: an op built to be "
                                                 "differentiated or rewritten; its node keeps no test value (Theano's)",
    "symnb.core.tensor.elemwise.BroadcastError": "caught by the static-shape checks that say which inputs",
    "symnb.core.tensor.elemwise.DimensionMismatch": "becomes a TestValueError or GraphRuntimeError naming the node",
    "symnb.lower_xla.registry.StaticValueRequired": "the compiled function specializes, or raises GraphRuntimeError",
    "symnb.lower_xla.interpreter.NodeFailure": "becomes the compiled function's GraphRuntimeError",
    "symnb.lower_xla.checks.FailedCheck": "becomes the check's IndexOutOfBoundsError or AssertionFailedError",
    "symnb.lower_xla.cache.ChangedShape": "the compiled function rebuilds its program",
    "symnb.lower_xla.executable_cache._Uncacheable": "the program is not cached",
    "symnb.core.failed_call._Found": "ends the replay of a failed call",
    "symnb.lower_xla.rules.python_op.PythonOpFailed": "stops the program; the call raises the node's GraphRuntimeError",
    "symnb.lower_xla.rules.python_op.ShapesUnknown": "becomes the compiled function's GraphRuntimeError",
    "symnb.magics.cell_variables.SymgraphUsageError": "becomes IPython's UsageError for %%symgraph",
    "symnb.compile.split_buckets._NotExact": "caught where buckets are decided: the program is "
                                             "compiled per length, saying why",
    "symnb.tests.unittest_tools.WrongValue": "Theano's test helper's assertion (utt.assert_allclose), "
                                             "raised in test suites written for Theano",
}

_FRONT_ENDS = ("IPython", "ipywidgets", "anywidget")


def _modules():
    """Every symnb module (those of the front ends only when their packages are installed)."""
    for info in pkgutil.walk_packages(sn.__path__, "symnb."):
        try:
            yield importlib.import_module(info.name)
        except ImportError as err:
            if err.name is None or err.name.partition(".")[0] not in _FRONT_ENDS:
                raise


def defined_exception_classes() -> dict[str, type]:
    """``{qualified name: class}`` of every exception (and warning) class symnb defines."""
    found = {}
    for module in [sn, *_modules()]:
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) \
                    and value.__module__ == module.__name__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_symnb_error_is_public_in_symnb_errors():
    defined = defined_exception_classes()
    symnb_errors = {name: cls for name, cls in defined.items() if issubclass(cls, sn.SymnbError)}
    missing = [name for name, cls in symnb_errors.items()
               if getattr(symnb.errors, cls.__name__, None) is not cls or cls.__name__ not in symnb.errors.__all__]
    assert missing == []
    exported = {getattr(symnb.errors, name) for name in symnb.errors.__all__}
    assert {cls for cls in exported if issubclass(cls, sn.SymnbError)} == set(symnb_errors.values())


def test_every_other_exception_class_is_exported_or_internal():
    """A new error class must join the hierarchy (or be exported, or shown to be internal)."""
    exported = set(symnb.errors.__all__)
    others = sorted(name for name, cls in defined_exception_classes().items()
                    if cls.__name__ not in exported and name not in INTERNAL)
    assert others == []
    assert sorted(set(INTERNAL) - set(defined_exception_classes())) == [], "stale entries"


def test_the_module_lists_only_exception_classes_once():
    names = symnb.errors.__all__
    assert len(names) == len(set(names))
    assert all(inspect.isclass(getattr(symnb.errors, name))
               and issubclass(getattr(symnb.errors, name), Exception) for name in names)
    non_hierarchy = [name for name in names if not issubclass(getattr(symnb.errors, name), sn.SymnbError)]
    assert all(issubclass(getattr(symnb.errors, name), Warning) for name in non_hierarchy
               if name != "PerformContractError")


def test_symnb_error_is_at_the_top_level():
    assert sn.SymnbError is symnb.errors.SymnbError
    assert sn.errors is symnb.errors
    assert {"SymnbError", "errors"} <= set(sn.__all__)


def test_except_symnb_error_catches_a_shape_mismatch():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    y = T.matrix("y", test_value=np.ones((4, 5), "float32"))
    try:
        T.dot(x, y)
    except sn.SymnbError as err:
        caught = err
    else:
        pytest.fail("a dot of (2, 3) and (4, 5) test values was built")
    assert isinstance(caught, symnb.errors.TestValueError) and isinstance(caught, ValueError)
    assert "(2, 3)" in str(caught) and "(4, 5)" in str(caught)


def test_importing_symnb_errors_imports_no_jax_nor_a_front_end():
    code = ("import sys, symnb.errors; "
            "print(sorted(m for m in ('jax', 'IPython', 'ipywidgets', 'anywidget') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
