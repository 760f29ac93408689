"""One binding of a call's arguments to a function's inputs (``CallSpec.bind``), the
same on every call path, with Theano's rule: a value passed is a value (``None``
included), and only an argument not passed takes its default.

A table of argument kinds (the function's second input) x call forms, each checked
against NumPy or against the error it must raise, positionally and by keyword, on the
first call of a fresh function and on later calls, through each call path: the fast
path's one-output closure, its closure for other functions, and the full path."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T

A0 = np.array([1.0, 2.0, 3.0], "float32")
Y0 = np.array([10.0, 20.0, 30.0], "float32")
DEFAULT = np.array([100.0, 200.0, 300.0], "float32")


@dataclass
class Kind:
    """A kind of argument: the function's inputs (``a``, then the argument of this
    kind), its output, and what NumPy says it computes."""

    name: str
    inputs: Callable[[Any, Any], list]  # (a, y) -> sn.function's inputs
    keyword: str  # the keyword the second argument is passed by
    reference: Callable[[np.ndarray, np.ndarray], np.ndarray]
    default: np.ndarray | None = None
    none_error: str = r"input 'y' expects float32 \(\?,\), got NoneType"
    givens: Callable[[Any, Any], dict] | None = None  # (y, z) -> givens: z replaces y
    holds_state: bool = False  # a shared variable updated: the fast path's other closure

    def function(self, path: str) -> Any:
        a, y = T.vector("a"), T.vector("y")
        z = T.vector("z")  # the argument that replaces y through givens
        output = a + y
        givens = self.givens(y, z) if self.givens is not None else None
        inputs = self.inputs(a, z if givens is not None else y)
        outputs = output if path == "one output" else [output]  # a list: the other closure
        # A profiled function takes the full path at every call (no fast path).
        return sn.function(inputs, outputs, givens=givens, profile=path == "full")


def _add(a, y):
    return a + y


def _after_a_state_input(a, y):
    """``a`` and ``y`` after an input holding internal state only (``implicit=True``: its
    value is kept in a shared variable, the default of every call): no argument."""
    s = T.scalar("s")
    return [sn.In(s, value=0.0, update=s + 1, implicit=True), a, y]


KINDS = [
    Kind("plain", lambda a, y: [a, y], "y", _add),
    Kind("In with a value", lambda a, y: [a, sn.In(y, value=DEFAULT)], "y", _add, default=DEFAULT),
    Kind("In with a value, mutable", lambda a, y: [a, sn.In(y, value=DEFAULT, mutable=True)], "y", _add,
         default=DEFAULT),
    Kind("In with a list of ints as value", lambda a, y: [a, sn.In(y, value=[100, 200, 300])], "y", _add,
         default=DEFAULT),
    Kind("In with value=None (Theano: no default)", lambda a, y: [a, sn.In(y, value=None)], "y", _add),
    Kind("In, strict", lambda a, y: [a, sn.In(y, strict=True)], "y", _add,
         none_error=r"input 'y' is strict: it takes arrays of dtype float32 only, got NoneType"),
    Kind("In, strict, with a value", lambda a, y: [a, sn.In(y, value=DEFAULT, strict=True)], "y", _add,
         default=DEFAULT,
         none_error=r"input 'y' is strict: it takes arrays of dtype float32 only, got NoneType"),
    Kind("In with a name", lambda a, y: [a, sn.In(y, value=DEFAULT, name="why")], "why", _add,
         default=DEFAULT),
    Kind("after a state input (a shared default)", _after_a_state_input, "y", _add, holds_state=True),
    Kind("givens-replaced", lambda a, z: [a, z], "z", lambda a, z: a + 3 * z,
         none_error=r"input 'z' expects float32 \(\?,\), got NoneType",
         givens=lambda y, z: {y: z * 3}),
    Kind("givens-replaced, with a value", lambda a, z: [a, sn.In(z, value=DEFAULT)], "z",
         lambda a, z: a + 3 * z, default=DEFAULT,
         none_error=r"input 'z' expects float32 \(\?,\), got NoneType",
         givens=lambda y, z: {y: z * 3}),
]

#: ``(name, call)``: ``call(f, keyword)`` calls ``f`` with ``a`` and the kind's argument.
FORMS = [
    ("by position", lambda f, k: f(A0, Y0)),
    ("by keyword", lambda f, k: f(A0, **{k: Y0})),
    ("all by keyword", lambda f, k: f(**{k: Y0, "a": A0})),
    ("None by position", lambda f, k: f(A0, None)),
    ("None by keyword", lambda f, k: f(A0, **{k: None})),
    ("None for a", lambda f, k: f(None, Y0)),
    ("missing", lambda f, k: f(A0)),
    ("missing, a by keyword", lambda f, k: f(a=A0)),
    ("nothing", lambda f, k: f()),
    ("extra by position", lambda f, k: f(A0, Y0, Y0)),
    ("extra by keyword", lambda f, k: f(A0, Y0, w=Y0)),
    ("duplicated", lambda f, k: f(A0, Y0, **{k: Y0})),
    ("duplicated a", lambda f, k: f(A0, a=A0)),
]


def expected(kind: Kind, form: str) -> np.ndarray | str:
    """What ``form`` gives for ``kind``: the value (NumPy's) or the error's text."""
    k = kind.keyword
    if form in ("by position", "by keyword", "all by keyword"):
        return kind.reference(A0, Y0)
    if form in ("None by position", "None by keyword"):
        return kind.none_error
    if form == "None for a":
        return r"input 'a' expects float32 \(\?,\), got NoneType"
    if form in ("missing", "missing, a by keyword"):
        return kind.reference(A0, kind.default) if kind.default is not None else \
            rf"(?m)missing argument\(s\): {k}$"
    if form == "nothing":
        return r"(?m)missing argument\(s\): a$" if kind.default is not None else \
            rf"(?m)missing argument\(s\): a, {k}$"
    if form == "extra by position":
        return rf"takes 2 argument\(s\) \(a, {k}\), got 3"
    if form == "extra by keyword":
        return rf"has no input named 'w'; inputs: \['a', '{k}'\]"
    if form == "duplicated":
        return rf"got multiple values for input '{k}' \(argument #1, also passed by keyword\)"
    assert form == "duplicated a"
    return r"got multiple values for input 'a' \(argument #0, also passed by keyword\)"


PATHS = ["one output", "other outputs", "full"]

#: The name of ``f._invoke`` on each path (the test checks it takes the path it names).
INVOKE = {"one output": "written_out", "other outputs": "written_out", "full": "call"}


def invoke(kind: Kind, path: str) -> str:
    """The call path ``kind``'s function takes: one with shared variables holds their
    locks, which the written-out closure does not."""
    return "positional" if kind.holds_state and path != "full" else INVOKE[path]


def check(path: str, call: Callable[[], Any], want: np.ndarray | str) -> None:
    if isinstance(want, str):
        with pytest.raises(TypeError, match=want) as info:
            call()
        where = [frame.filename for frame in traceback.extract_tb(info.value.__traceback__)]
        assert all(name == __file__ for name in where), where  # the user's lines, no symnb frame
        return
    result = call()
    np.testing.assert_array_equal(result if path == "one output" else result[0], want)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_every_kind_of_argument_binds_the_same_on_every_path(kind, path):
    for form, call in FORMS:
        f = kind.function(path)
        assert f._invoke.__name__ == invoke(kind, path)
        want = expected(kind, form)
        check(path, lambda: call(f, kind.keyword), want)  # the first call (it compiles)
        np.testing.assert_array_equal(np.asarray(f(A0, Y0)).reshape(3), kind.reference(A0, Y0))
        check(path, lambda: call(f, kind.keyword), want)  # a later call (compiled)
        assert f._invoke.__name__ == invoke(kind, path)  # still the path named
        if kind.holds_state:  # counts the calls that ran: a refused binding runs nothing
            assert f.updated_shared[0].get_value() == (1 if isinstance(want, str) else 3)


def test_a_default_is_used_only_when_not_passed_and_stays_as_given():
    y = T.vector("y")
    default = DEFAULT.copy()
    f = sn.function([sn.In(y, value=default, mutable=True)], y * 2)
    np.testing.assert_array_equal(f(), DEFAULT * 2)
    np.testing.assert_array_equal(f(Y0), Y0 * 2)
    f()[:] = -1  # the output is the caller's: the default is not written through it
    np.testing.assert_array_equal(f(), DEFAULT * 2)
    np.testing.assert_array_equal(default, DEFAULT)


def test_a_default_the_input_cannot_take_is_refused_when_the_function_is_made():
    y = T.vector("y")
    w = sn.shared(DEFAULT, name="w")
    with pytest.raises(TypeError, match=r"sn.In\('y', value=...\): the default value does not fit "
                                        r"the input: input 'y' expects float32 \(\?,\), got "
                                        r"SharedVariable"):
        sn.function([sn.In(y, value=w)], y * 2)
    with pytest.raises(TypeError, match=r"sn.In\('y', value=...\).*input 'y' expects 1 dimension"):
        sn.function([sn.In(y, value=DEFAULT[0])], y * 2)
    with pytest.raises(TypeError, match=r"sn.In\('y', value=...\).*input 'y' is strict"):
        sn.function([sn.In(y, value=DEFAULT.astype("float64"), strict=True)], y * 2)


def test_an_implicit_state_input_is_no_argument_and_a_failed_binding_leaves_it():
    s, a = T.scalar("s"), T.vector("a")
    f = sn.function([sn.In(s, value=0.0, update=s + 1, implicit=True), a], a + s)
    np.testing.assert_array_equal(f(A0), A0)  # s: 0, then 1
    for bad in (lambda: f(A0, s=1.0), lambda: f(s=1.0)):
        with pytest.raises(TypeError, match=r"has no input named 's' \('s' is internal state: an "
                                            r"sn.In with update= is not an argument\); "
                                            r"inputs: \['a'\]"):
            bad()
    with pytest.raises(TypeError, match=r"got NoneType"):
        f(None)
    np.testing.assert_array_equal(f(a=A0), A0 + 1)  # no failed call moved the state


def test_a_state_input_is_an_optional_argument_as_in_theano():
    # Theano's io page: In(w, value=0, update=w + x) is an argument too (implicit=False
    # unless the value is a container); passed, the call computes with it and the state
    # becomes its update: "fn(1, 2, w=400): w goes 400 -> 401".
    x, y, z, w = T.dscalar("x"), T.dscalar("y"), T.dscalar("z"), T.dscalar("w")
    fn = sn.function([x, y, sn.In(z, value=42.0), ((w, w + x), 0.0)], x + y + z + w)
    seen = []
    for args, kwargs in (((1.0, 2.0), {}), ((1.0,), {"y": 2.0}), ((1.0, 2.0, 3.0), {}),
                         ((1.0, 2.0), {"w": 400.0}), ((1.0, 2.0), {})):
        seen.append((float(fn(*args, **kwargs)), float(fn["w"])))
    # the value each call computes with is the state before it, or the one passed
    assert seen == [(45.0, 1.0), (46.0, 2.0), (8.0, 3.0), (445.0, 401.0), (446.0, 402.0)]
    with pytest.raises(TypeError, match="missing argument"):
        fn(1.0)
    u, xi, s = T.dscalar("u"), T.dscalar("x"), T.dscalar("s")
    inc = sn.function([u, sn.In(xi, value=3.0), sn.In(s, update=s + xi * u, value=10.0)], [])
    for args, expected in (((5.0,), 25.0), ((3.0, 4.0), 37.0), ((3.0, 4.0, 7.0), 19.0)):
        inc(*args)
        assert float(inc[s]) == expected and float(inc[xi]) == 3.0


def test_two_inputs_with_one_name_refuse_that_keyword():
    """Theano refuses an ambiguous name; binding it to the first input would be a
    silent wrong number when the user meant the second."""
    first, second = T.vector("x"), T.vector("x")
    f = sn.function([first, second], first - second)
    np.testing.assert_array_equal(f(A0, Y0), A0 - Y0)
    with pytest.raises(TypeError, match=r"has 2 inputs named 'x' \(arguments #0, #1\): pass them "
                                        r"by position, or name them apart with sn.In"):
        f(A0, x=Y0)
    g = sn.function([first, sn.In(second, name="x2")], first - second)
    np.testing.assert_array_equal(g(Y0, x2=A0), Y0 - A0)


def test_an_unnamed_input_is_passed_by_position_only():
    a, unnamed = T.vector("a"), T.vector()
    f = sn.function([a, unnamed], a * unnamed)
    np.testing.assert_array_equal(f(A0, Y0), A0 * Y0)
    with pytest.raises(TypeError, match=r"missing argument\(s\): "):
        f(a=A0)
    with pytest.raises(TypeError, match=r"has no input named 'None'"):
        f(A0, **{"None": Y0})


def test_other_entry_points_bind_as_a_call_does():
    """``lowered_text`` (and ``sharding_lines`` through it) and the model explorer's
    call values take a call's arguments: the same binding (defaults, errors)."""
    from symnb.printing.model_explorer_data import _call_inputs

    a, y = T.vector("a"), T.vector("y")
    f = sn.function([a, sn.In(y, value=DEFAULT)], a + y)
    assert f.lowered_text("jaxpr", A0) == f.lowered_text("jaxpr", A0, DEFAULT)
    with pytest.raises(TypeError, match=r"takes 2 argument\(s\) \(a, y\), got 3"):
        f.lowered_text("jaxpr", A0, Y0, Y0)
    with pytest.raises(TypeError, match=r"input 'y' expects float32 \(\?,\), got NoneType"):
        f.lowered_text("jaxpr", A0, None)
    values = _call_inputs(f, [A0])
    np.testing.assert_array_equal(values[id(f._program_inputs[1])], DEFAULT)
    with pytest.raises(TypeError, match=r"got NoneType"):
        _call_inputs(f, [A0, None])
