"""compile/plan.py: a compiled function is made once, from a frozen plan of what it
computes and how it is called; nothing is set on it afterwards but the program a call
re-specializes (``Function._set_program``)."""

import dataclasses

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.plan import FunctionPlan

#: What a call may replace (a program specialized on values, or rebuilt without donation).
REBUILT = {"_program", "_invoke", "_static", "_donating"}


def _function():
    x, k = T.vector("x"), T.lscalar("k")
    s = sn.shared(np.zeros(3, "float32"), name="s")
    f = sn.function([sn.In(x, strict=True), sn.In(k, value=1, name="position")], [x[k] * 2],
                    updates=[(s, s + x)], name="f")
    return f, s


def test_the_plan_is_frozen_and_holds_no_mutable_container():
    f, s = _function()
    plan = f.plan
    assert isinstance(plan, FunctionPlan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.inputs = ()
    for field in dataclasses.fields(plan):
        assert not isinstance(getattr(plan, field.name), (list, dict, set)), field.name
    with pytest.raises(TypeError):
        plan.construction["name"] = "g"  # read-only: copy() and pickling rebuild from it
    assert plan.updated_shared == (s,) and plan.read_shared == ()
    assert plan.names == ("x", "position") and plan.defaults[1] == 1


def test_the_call_uses_the_plans_argument_checks_as_made():
    """sn.In's options (strict, a default, a keyword) are in the plan the call is made
    from: nothing replaces a check after construction."""
    f, s = _function()
    assert f._call_spec.checks.checkers is f.plan.checkers
    assert f._call_spec.names is f.plan.names and f._call_spec.defaults is f.plan.defaults
    x = np.array([1.0, 2.0, 3.0], "float32")
    np.testing.assert_array_equal(f(x)[0], np.float32(4.0))  # position defaults to 1
    np.testing.assert_array_equal(f(x, position=2)[0], np.float32(6.0))
    np.testing.assert_array_equal(s.get_value(), 2 * x)
    with pytest.raises(TypeError, match="input 'x' is strict: it takes arrays of dtype float32 only"):
        f(x.astype("float64"))


def test_nothing_is_set_on_a_function_after_construction():
    f, _ = _function()
    for name in set(vars(f)) - REBUILT:
        with pytest.raises(AttributeError, match="made once from its plan"):
            setattr(f, name, getattr(f, name))
    with pytest.raises(AttributeError, match="'patched' cannot be set after construction"):
        f.patched = True
    # The attributes that mirror the plan are the plan's.
    assert tuple(f.inputs) == f.plan.inputs and tuple(f.outputs) == f.plan.outputs
    assert tuple(f.updated_shared) == f.plan.updated_shared
    assert tuple(f._program_inputs) == f.plan.program_inputs


def test_a_call_that_specializes_replaces_only_the_program():
    """A length computed from an input's value: the first call specializes the program
    on it (and then on each new value); every other attribute stays the object it was."""
    n = T.lscalar("n")
    f = sn.function([n], T.arange(n).sum())
    before = {name: value for name, value in vars(f).items() if name not in REBUILT}
    program = f._program
    assert int(f(5)) == 10 and int(f(4)) == 6  # NumPy: sum(range(5)), sum(range(4))
    assert f._program is not program and f._static == (0,)
    after = {name: value for name, value in vars(f).items() if name not in REBUILT}
    assert after.keys() == before.keys()
    assert all(after[name] is before[name] for name in before)
