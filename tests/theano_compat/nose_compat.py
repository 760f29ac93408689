"""A pytest plug-in running the nose idioms that Theano 1.0's tests use and pytest 8+ no
longer runs (Theano ran its tests with nose):

- **test generators**: a test function or method that yields ``(check, arg, ...)`` tuples
  (nose ran ``check(arg, ...)`` for each); pytest 4 stopped running them and pytest 9
  refuses the module. Here each such generator is one test that runs every yielded check
  in turn, stopping at the first that fails (the failure names the check and its
  arguments). A unittest ``TestCase``'s generator methods are left alone: nose did not
  run them either.
- **setup/teardown of plain test classes**: nose called a plain class's ``setup`` (or
  ``setUp``) before each of its tests and ``teardown`` (``tearDown``) after; pytest 8
  removed that (it calls ``setup_method``). A ``unittest.TestCase`` is pytest's own
  business and keeps its ``setUp``.
- **a test class made in another module** (``SigmoidTester = makeBroadcastTester(...)`` in
  ``test_sigm.py``, whose class statement is in ``test_basic.py``): nose collected it as a
  subclass of the module it was found in (nose's ``transplant_class``: the same class with
  that module's ``__module__``), and Theano's testers rely on it (their ``setUp`` evaluates
  ``self.__class__.__module__ + '.' + name``). Here too: such a class is collected as a
  subclass made in the module that holds it.
- **which classes are tests**: nose's ``Selector.wantClass`` excluded every class whose
  name starts with ``_`` (unless it declares ``__test__``), a ``unittest.TestCase`` too:
  Theano's abstract testers (``_HVStackTester``, whose subclasses give it ``op_class``)
  rely on it. pytest collects every ``TestCase``; here such a class is not collected.
"""

from __future__ import annotations

import functools
import inspect
import unittest

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
    if isinstance(obj, type) and not _nose_wants_class(obj):
        return []
    if isinstance(collector, pytest.Module) and isinstance(obj, type) \
            and obj.__module__ != collector.obj.__name__ and _is_test_class(collector, name, obj):
        return collector.ihook.pytest_pycollect_makeitem(
            collector=collector, name=name, obj=_transplant(obj, collector.obj, name))
    if not (inspect.isgeneratorfunction(obj) and collector.funcnamefilter(name)):
        return None
    owner = collector.obj
    if isinstance(owner, type) and issubclass(owner, unittest.TestCase):
        return None
    setattr(owner, name, _each_yielded_check(obj))
    return pytest.Function.from_parent(collector, name=name)


def _nose_wants_class(cls) -> bool:
    """nose 1.3.7's rule (``Selector.wantClass``) as far as pytest's own does not cover
    it: a declared ``__test__`` decides; otherwise a name starting with ``_`` is no test."""
    declared = getattr(cls, "__test__", None)
    return bool(declared) if declared is not None else not cls.__name__.startswith("_")


def _is_test_class(collector, name, obj) -> bool:
    return issubclass(obj, unittest.TestCase) or collector.classnamefilter(name)


def _transplant(cls, module, name):
    """nose's ``transplant_class``: ``cls`` as a subclass whose ``__module__`` is the module
    it was collected from, bound there under ``name`` so that the module's dotted name
    reaches it."""
    moved = type(cls.__name__, (cls,), {"__module__": module.__name__,
                                        "__qualname__": cls.__qualname__})
    setattr(module, name, moved)
    return moved


def _each_yielded_check(generator_function):
    """A test that runs each ``(check, *args)`` that ``generator_function`` yields."""

    @functools.wraps(generator_function)
    def run_each(*self):  # a bound method's instance, or nothing for a function
        for number, step in enumerate(generator_function(*self)):
            check, *args = step if isinstance(step, tuple) else (step,)
            try:
                check(*args)
            except Exception as error:
                error.add_note(f"in the generated check #{number}: {_describe(check)}{_short(args)}")
                raise

    del run_each.__wrapped__  # pytest reads the signature: the generator's `self` is bound
    return run_each


def _describe(check) -> str:
    return getattr(check, "__qualname__", None) or getattr(check, "description", None) or repr(check)


def _short(args) -> str:
    text = repr(tuple(args))
    return text if len(text) <= 300 else text[:300] + "...)"


@pytest.fixture(autouse=True)
def _nose_setup_of_plain_classes(request):
    """Call a plain test class's nose-style ``setup``/``setUp`` before its test and
    ``teardown``/``tearDown`` after."""
    instance = request.instance
    if instance is None or isinstance(instance, unittest.TestCase):
        yield
        return
    _call_first(instance, "setup", "setUp")
    yield
    _call_first(instance, "teardown", "tearDown")


def _call_first(instance, *names) -> None:
    for name in names:
        method = getattr(instance, name, None)
        if callable(method):
            method()
            return
