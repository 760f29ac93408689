"""What a scan step may return: Theano's forms (outputs; outputs, updates; outputs,
until; updates, until; outputs, updates, until; updates as a dict, an OrderedDict or a
list of pairs), each checked against a NumPy loop; anything else is refused on the
user's scan(...) line, naming what the step returned and the accepted forms."""

import collections

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.scan import scan, scan_until, steps_run

VALUES = np.array([1.0, 2.0, 3.0, 4.0])


def numpy_loop(stop_above=None):
    """The reference: h doubles plus x[t]; total adds x[t]; the loop stops after the
    first step whose h exceeds ``stop_above``."""
    hs, h, total = [], 0.0, 10.0
    for value in VALUES:
        h, total = 2 * h + value, total + value
        hs.append(h)
        if stop_above is not None and h > stop_above:
            break
    return np.array(hs), total


UPDATE_SPELLINGS = {
    "dict": lambda total, xt: {total: total + xt},
    "OrderedDict": lambda total, xt: collections.OrderedDict([(total, total + xt)]),
    "list of pairs": lambda total, xt: [(total, total + xt)],
    "tuple of pairs": lambda total, xt: ((total, total + xt),),
}


@pytest.mark.parametrize("spelling", sorted(UPDATE_SPELLINGS))
@pytest.mark.parametrize("form", ["outputs, updates", "[outputs], updates", "outputs, updates, until"])
def test_theano_forms_give_the_numpy_loop(spelling, form):
    total = sn.shared(np.float64(10.0), name="total")
    x = T.dvector("x")
    updates_of = UPDATE_SPELLINGS[spelling]
    stops = "until" in form

    def step(xt, h):
        new_h = 2 * h + xt
        updates = updates_of(total, xt)
        until = scan_until(new_h > 5)
        return {"outputs, updates": (new_h, updates),
                "[outputs], updates": ([new_h], updates),
                "outputs, updates, until": (new_h, updates, until)}[form]

    h, updates = scan(step, sequences=x, outputs_info=np.float64(0.0))
    assert list(updates) == [total]
    outputs = [h, steps_run(h)] if stops else [h]
    f = sn.function([x], outputs, updates=updates)
    expected_h, expected_total = numpy_loop(stop_above=5 if stops else None)
    got = f(VALUES)
    if stops:
        assert int(got[1]) == len(expected_h)
        np.testing.assert_allclose(got[0][:len(expected_h)], expected_h)
    else:
        np.testing.assert_allclose(got[0], expected_h)
    assert total.get_value() == expected_total


@pytest.mark.parametrize("spelling", sorted(UPDATE_SPELLINGS))
def test_updates_and_until(spelling):
    total = sn.shared(np.float64(10.0), name="total")
    x = T.dvector("x")
    _, updates = scan(lambda xt: (UPDATE_SPELLINGS[spelling](total, xt), scan_until(total + xt > 12)),
                      sequences=x)
    sn.function([x], [], updates=updates)(VALUES)
    expected = 10.0
    for value in VALUES:  # 11, then 13 > 12: stops
        expected += value
        if expected > 12:
            break
    assert total.get_value() == expected == 13.0


def test_outputs_and_no_updates():
    """``return h, []`` and ``return h, {}``: Theano reads an empty list as no updates."""
    x = T.dvector("x")
    expected, _ = numpy_loop()
    for empty in ([], {}, ()):
        h, updates = scan(lambda xt, h: (2 * h + xt, empty), sequences=x, outputs_info=np.float64(0.0))
        assert not updates
        np.testing.assert_allclose(sn.function([x], h)(VALUES), expected)


def test_outputs_and_until():
    x = T.dvector("x")
    h, _ = scan(lambda xt, h: ([2 * h + xt], scan_until(2 * h + xt > 5)), sequences=x,
                outputs_info=np.float64(0.0))
    expected, _ = numpy_loop(stop_above=5)
    f = sn.function([x], [h, steps_run(h)])
    values, steps = f(VALUES)
    assert int(steps) == len(expected)
    np.testing.assert_allclose(values[:len(expected)], expected)


def refusal(step, **scan_args) -> str:
    with pytest.raises(TypeError) as info:
        scan(step, **scan_args)
    assert isinstance(info.value, sn.SymnbError)
    message = str(info.value)
    assert "scan(step, " in message, message  # the user's line
    assert "outputs, updates, scan_until(c)" in message, message  # the accepted forms
    return message


def test_updates_inside_the_outputs_list_are_refused_naming_the_structure():
    """``((outs, updates), scan_until(c))``: NumPy read the dict as an object array
    ("unsupported dtype 'object'") before."""
    total = sn.shared(np.float64(10.0), name="total")
    x = T.dvector("x")

    def step(xt, h):
        new_h = 2 * h + xt
        return (new_h, {total: total + xt}), scan_until(new_h > 5)

    message = refusal(step, sequences=x, outputs_info=np.float64(0.0))
    assert "returned ((new_h, {total: ...}), scan_until(new_h > 5))" in message, message
    assert "item #0" in message and "not inside their list" in message, message
    assert "object" not in message, message


@pytest.mark.parametrize("returned, what", [
    (lambda h, total: None, "returned None"),
    (lambda h, total: "h", "returned a str"),
    (lambda h, total: (h, scan_until(h > 1), {total: h}), "scan_until(c) must come last"),
    (lambda h, total: (h, {total: h}, [(total, h)]), "several updates"),
    (lambda h, total: ([h], h), "not in one place"),
    (lambda h, total: [h, [h, {total: h}]], "item #1"),
])
def test_malformed_returns_are_refused(returned, what):
    total = sn.shared(np.float64(10.0), name="total")

    def step(h):
        return returned(2 * h, total)

    assert what in refusal(step, outputs_info=np.float64(1.0), n_steps=3)
