"""No public callable swallows a keyword it does not take.

``RandomStreams(3).normal(size=(1000,), mean=5.0)`` once drew N(0, 1): the method took
``**_``. The walk below visits every public name of every symnb module (the names in
``__all__``, else those without a leading underscore) and, for classes, every public
method of every symnb class in their MRO. Each callable is called with a keyword no
callable takes:

- one without ``**kwargs`` must raise ``TypeError`` (Python's own check, run for real:
  a wrapper whose signature hides a ``**kwargs`` would not);
- one with ``**kwargs`` must be listed in :data:`FORWARDERS` with a call proving it
  refuses the keyword, naming it (a new ``**kwargs`` fails the walk until it is listed),
  or in :data:`OPEN_KEYWORDS` with the reason its keywords are free names.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.sandbox.rng_mrg import MRG_RandomStreams

BOGUS = "zz_no_such_keyword"

#: The front ends: walked only when their packages are installed.
FRONT_ENDS = ("symnb.widgets", "symnb.magics")


def _x() -> Any:
    return T.vector("x", test_value=np.arange(3, dtype="float32"))


#: Public callables taking ``**kwargs``, each with a call passing BOGUS that must raise
#: ``TypeError`` naming it; ``True`` in second place: symnb writes the message, which
#: must also list the accepted keywords.
FORWARDERS: dict[str, tuple[Callable[[], Any], bool]] = {
    # forwarded whole to symnb.compile.function.function
    "symnb.compile.function": (lambda: sn.function([_x()], _x() * 2, **{BOGUS: 1}), False),
    # the module is callable: forwarded whole to symnb.core.ifelse.ifelse
    "symnb.ifelse": (lambda: sn.ifelse(T.scalar("c", test_value=np.float32(1)) > 0, _x(), _x(),
                                       **{BOGUS: 1}), False),
    # keywords are flag names, checked against the flags
    "symnb.core.graph.config.Config.change_flags": (lambda: sn.config.change_flags(**{BOGUS: 1}), True),
    # Theano's spelling of the same, forwarded to Config.change_flags
    "symnb.configparser.change_flags": (lambda: sn.change_flags(**{BOGUS: 1}), True),
    # forwarded whole to TensorVariable.__init__
    "symnb.core.tensor.random.ops.RandomVariable": (
        lambda: __import__("symnb.core.tensor.random.ops", fromlist=["_"]).RandomVariable(
            T.vector().type, **{BOGUS: 1}), False),
    # Elemwise.__new__ hands its arguments to the class it makes (Elemwise(scalar_op)'s)
    "symnb.core.tensor.elemwise.Elemwise": (
        lambda: T.Elemwise(sn.scalar.exp, **{BOGUS: 1}), False),
    # CAReduce.__new__ hands its arguments to the class it makes (CAReduce(scalar_op)'s)
    "symnb.core.tensor.reduction.CAReduce": (
        lambda: __import__("symnb.tensor.elemwise", fromlist=["_"]).CAReduce(
            sn.scalar.add, **{BOGUS: 1}), False),
    # Op.__call__ hands its other keywords to make_node, as Theano's did
    "symnb.core.graph.op.PureOp.__call__": (
        lambda: sn.tensor.nnet.crossentropy_softmax_argmax_1hot_with_bias(
            T.matrix(), T.vector(), T.ivector(), **{BOGUS: 1}), False),
    # IfElse.__new__ hands its arguments to the class it makes (Theano's IfElse(n_outs)'s)
    "symnb.core.ifelse.IfElse": (lambda: sn.ifelse.IfElse(1, **{BOGUS: 1}), False),
    # forwarded whole to GraphPicture
    "symnb.printing.svg.graph_svg": (lambda: sn.printing.graph_svg(_x(), **{BOGUS: 1}), False),
    "symnb.printing.picture.graph_picture": (lambda: sn.printing.graph_picture(_x(), **{BOGUS: 1}), False),
    # the function's one binding (CallSpec.bind), as Function's call
    "symnb.compile.split_program.SplitFunction.__call__": (
        lambda: (lambda x: sn.function([x], x[x > 0].sum())(**{BOGUS: 1}))(_x()), False),
    # Theano's: the others are theano.function's keywords, checked against them
    "symnb.core.op_from_graph.OpFromGraph": (
        lambda: (lambda x: sn.OpFromGraph([x], [x * 2], **{BOGUS: 1}))(_x()), True),
    # forwarded whole to symnb.printing.pydotprint, whose keywords are Theano's
    "symnb.d3viz.d3viz.d3write": (
        lambda: __import__("symnb.d3viz", fromlist=["_"]).d3write(_x(), "unused.dot", **{BOGUS: 1}),
        False),
    # forwarded whole to the profiled function's call (its inputs by keyword)
    "symnb.compile.profiling.stats.ProfileStats.timeline": (
        lambda: (lambda x: sn.function([x], x * 2, profile=True).profile.timeline(**{BOGUS: 1}))(_x()),
        False),
}

#: Public callables whose ``**kwargs`` are free names by design, and why.
OPEN_KEYWORDS = {
    "symnb.lower_xla.checks.require": "a lowering rule's check: the keywords are the named "
                                      "numbers its failure message shows (any name)",
    "symnb.compat.DefaultOrderedDict": "a dict: the keywords are its first keys, as dict(**kwargs)",
    "symnb.updates.OrderedUpdates": "a dict (Theano's): the keywords are its first keys, as "
                                    "OrderedDict(**kwargs)",
}


def _owned(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("symnb")


def _qualified(obj: Any) -> str:
    obj = inspect.unwrap(obj) if inspect.isfunction(obj) else obj
    if inspect.ismodule(obj):
        return obj.__name__
    return f"{obj.__module__}.{obj.__qualname__}"


def _callables(module: Any) -> Iterator[tuple[str, Any]]:
    """``(qualified name, callable)`` for the module's public names, and the public methods
    of symnb's classes among them (their symnb bases' included)."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in vars(module) if not name.startswith("_")]
    for name in names:
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            if callable(obj) and _owned(type(obj)):  # symnb.ifelse: a callable module
                yield obj.__name__, obj
        elif inspect.isclass(obj):
            if not _owned(obj) or issubclass(obj, BaseException):
                continue  # exceptions: built-in constructors (see tests/test_errors.py)
            yield _qualified(obj), obj
            for klass in obj.__mro__:
                if not _owned(klass):
                    continue
                for attr, value in vars(klass).items():
                    if attr.startswith("_") and attr != "__call__":
                        continue
                    if isinstance(value, (staticmethod, classmethod)):
                        value = value.__func__
                    if inspect.isfunction(value):
                        yield f"{klass.__module__}.{klass.__qualname__}.{attr}", value
        elif callable(obj) and _owned(obj if inspect.isfunction(obj) else type(obj)):
            yield (_qualified(obj) if inspect.isfunction(obj) else f"{module.__name__}.{name}"), obj


def _modules(front_ends: bool) -> list[Any]:
    names = ["symnb"] + [info.name for info in pkgutil.walk_packages(sn.__path__, "symnb.")]
    names = [name for name in names if not any(part.startswith("_") for part in name.split("."))]
    names = [name for name in names if name.startswith(FRONT_ENDS) == front_ends]
    return [importlib.import_module(name) for name in names]


def public_callables(front_ends: bool = False) -> dict[str, Any]:
    """Every public callable, by qualified name (one entry per object)."""
    found: dict[str, Any] = {}
    for module in _modules(front_ends):
        for name, obj in _callables(module):
            found.setdefault(name, obj)
    return found


def takes_var_keyword(obj: Any) -> bool | None:
    """Whether ``obj``'s signature has ``**kwargs`` (None: it has no signature)."""
    try:
        parameters = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return None
    return any(p.kind is p.VAR_KEYWORD for p in parameters)


def swallowers(callables: dict[str, Any]) -> list[str]:
    """The callables without ``**kwargs`` that do not raise TypeError for BOGUS."""
    found = []
    for name, obj in callables.items():
        if takes_var_keyword(obj) is not False:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                obj(**{BOGUS: 1})
        except TypeError:
            continue
        except Exception as err:  # noqa: BLE001  (reported: the body ran)
            found.append(f"{name}: {type(err).__name__}: {err}")
            continue
        found.append(f"{name}: accepted {BOGUS}=1")
    return found


def var_keyword_callables(callables: dict[str, Any]) -> set[str]:
    return {name for name, obj in callables.items() if takes_var_keyword(obj) and not _op_call(obj)}


def _op_call(obj: Any) -> bool:
    """An op instance called through ``Op.__call__``, which hands its other keywords to
    ``make_node`` (Theano's): checked once, as ``Op.__call__``'s forwarder entry; each
    ``make_node`` is walked as a method of its class."""
    from symnb.core.graph.op import Op

    return isinstance(obj, Op) and type(obj).__call__ is Op.__call__


def test_the_walk_covers_the_public_api():
    callables = public_callables()
    assert {"symnb.compile.function", "symnb.compile.mode.Mode", "symnb.compile.nanguard.NanGuardMode",
            "symnb.compile.debugmode.DebugMode", "symnb.compile.monitormode.MonitorMode",
            "symnb.core.tensor.random.streams.RandomStreams.normal",
            "symnb.sandbox.rng_mrg.MRG_RandomStreams.normal", "symnb.gof.OpWiseCLinker",
            "symnb.core.tensor.conv_api.conv2d", "symnb.core.tensor.pool_api.pool_2d",
            "symnb.core.tensor.extra_ops.cumsum"} <= set(callables)
    assert len(callables) > 500


def test_every_callable_with_var_keyword_is_a_checked_forwarder():
    found = var_keyword_callables(public_callables())
    assert sorted(found - set(FORWARDERS) - set(OPEN_KEYWORDS)) == [], (
        "these public callables take **kwargs, so a misspelled keyword may be swallowed: list "
        "their keywords, or add each to FORWARDERS with a call proving it refuses one")
    assert sorted(set(FORWARDERS) | set(OPEN_KEYWORDS)) == sorted(found), "stale entries"


@pytest.mark.parametrize("name", sorted(FORWARDERS))
def test_a_forwarder_refuses_an_unknown_keyword_naming_it(name):
    call, symnb_message = FORWARDERS[name]
    with pytest.raises(TypeError, match=BOGUS) as info:
        call()
    if symnb_message:
        assert "it accepts: " in str(info.value)


def test_every_other_public_callable_refuses_an_unknown_keyword():
    assert swallowers(public_callables()) == []


def test_the_front_ends_refuse_unknown_keywords():
    for package in ("IPython", "ipywidgets", "anywidget"):
        pytest.importorskip(package, reason=f"the widgets and magics need {package}")
    callables = public_callables(front_ends=True)
    assert {"symnb.widgets.explorer.GraphExplorer", "symnb.widgets.editor.TestValueEditor",
            "symnb.widgets.profile_view.ProfileView", "symnb.widgets.stepper.RewriteStepper",
            "symnb.magics.symgraph.SymgraphMagics"} <= set(callables)
    assert [name for name, obj in callables.items() if takes_var_keyword(obj)] == []
    assert swallowers(callables) == []


@pytest.mark.parametrize("cls", [sn.RandomStreams, MRG_RandomStreams])
def test_the_walk_finds_a_stream_method_swallowing_keywords(cls, monkeypatch):
    """The walk's own check: a ``**_`` put back into a stream method is found."""
    def normal(self, size=None, avg=0.0, std=1.0, ndim=None, dtype=None, **_):
        return None

    monkeypatch.setattr(cls, "normal", normal)
    found = var_keyword_callables(public_callables()) - set(FORWARDERS) - set(OPEN_KEYWORDS)
    assert found == {f"{cls.__module__}.{cls.__qualname__}.normal"}
