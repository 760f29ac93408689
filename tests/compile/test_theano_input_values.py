"""Theano 1.0's input shortcuts (``function([(x, default)], ...)``) and ``f[key]``
(issue 38): the examples of Theano's ``library/compile/io.txt``, with its values."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def test_io_txt_value_and_state_example():
    u, x, s = T.scalars("u", "x", "s")
    inc = sn.function([u, sn.In(x, value=3), sn.In(s, update=(s + x * u), value=10.0)], [])
    assert inc(5) == []  # update s with 10 + 3 * 5
    assert inc[s] == 25.0
    inc(3, 4)  # update s with 25 + 3 * 4
    assert inc[s] == 37.0
    assert inc[x] == 3.0  # the override value of 4 was only temporary
    inc[s] = 10
    assert isinstance(inc[s], np.ndarray) and inc[s] == 10.0


def test_io_txt_access_by_name_variable_and_position():
    a, b, c = T.scalars("xys")  # the name of c is 's'
    fn = sn.function([a, b, ((c, c + a + b), 10.0)], [])
    assert fn["s"] == fn[c] == fn[2] == 10.0
    fn(1, 2)
    assert fn["s"] == 13.0
    fn["s"] = 99.0
    fn(1, 0)
    assert fn["s"] == 100.0
    fn[c] = 99.0
    fn(1, 0)
    assert fn["s"] == 100.0
    assert "s" in fn and c in fn and 0 in fn and "q" not in fn


def test_io_txt_input_shortcuts_example():
    x = T.scalar()
    y = T.scalar("y")
    z = T.scalar("z")
    w = T.scalar("w")
    fn = sn.function(inputs=[x, y, sn.In(z, value=42), ((w, w + x), 0)], outputs=x + y + z)
    with pytest.raises(TypeError, match="y"):
        fn(1)  # two required arguments
    assert fn(1, 2) == 45.0  # z is 42, w goes 0 -> 1
    assert fn(1, y=2) == 45.0  # w goes 1 -> 2
    assert fn["w"] == 2.0


@pytest.mark.parametrize("build, expected", [
    (lambda x, y: [x, ("why", y)], {"keyword": "why", "default": None}),
    (lambda x, y: [x, (y, 2.0)], {"keyword": "y", "default": 2.0}),
    (lambda x, y: [x, ("why", y, 2.0)], {"keyword": "why", "default": 2.0}),
    (lambda x, y: [x, (sn.In(y, name="why"), 2.0)], {"keyword": "why", "default": 2.0}),
], ids=["(name, r)", "(r, value)", "(name, r, value)", "(In, value)"])
def test_each_shortcut_is_theanos_in(build, expected):
    x, y = T.dscalars("x", "y")
    f = sn.function(build(x, y), x - y)
    assert f(5.0, **{expected["keyword"]: 1.0}) == 4.0
    if expected["default"] is None:
        with pytest.raises(TypeError):
            f(5.0)
    else:
        assert f(5.0) == 5.0 - expected["default"]


def test_a_state_shortcut_with_a_name():
    x, s = T.dscalars("x", "s")
    acc = sn.function([x, ("total", (s, s + x), 0.0)], s * 1)
    assert [float(acc(v)) for v in (1.0, 2.0, 3.0)] == [0.0, 1.0, 3.0]
    assert acc["total"] == 6.0


def test_tuple_inputs_refuse_updates_givens_and_profile_with_theanos_messages():
    x, y = T.dscalars("x", "y")
    w = sn.shared(np.float64(1.0), name="w")
    message = "In\\(\\) instances and tuple inputs trigger the old semantics"
    with pytest.raises(NotImplementedError, match=message):
        sn.function([(x, 1.0)], x * w, updates=[(w, w + 1)])
    with pytest.raises(NotImplementedError, match=message):
        sn.function([(x, 1.0)], x * y, givens={y: x})
    with pytest.raises(NotImplementedError, match="profiling not supported in old-style function"):
        sn.function([(x, 1.0)], x * 2, profile=True)


@pytest.mark.parametrize("spec, message", [
    ((), "Nonsensical input specification"),
    ((("x",), 1.0), "Invalid input syntax"),
    (("n", 3), "The input specification is not valid"),
    ((1.0, 2.0), "The input specification is not valid"),
], ids=["empty", "pair of one", "name and number", "numbers"])
def test_invalid_shortcuts_raise_theanos_messages(spec, message):
    x = T.dscalar("x")
    with pytest.raises(TypeError, match=message):
        sn.function([x, spec], x)


def test_a_value_set_for_an_input_with_a_default_serves_the_next_call_only():
    x, y = T.dscalars("x", "y")
    f = sn.function([x, sn.In(y, value=10.0)], x + y)
    assert f(1.0) == 11.0  # the fast path is built
    f[y] = 5.0
    assert f[y] == 5.0
    assert f(1.0) == 6.0  # the value set
    assert f[y] == 10.0 and f(1.0) == 11.0  # the default is back, as Theano refed it
    f["y"] = 5.0
    assert f(1.0, 2.0) == 3.0  # passed: the value set is dropped all the same
    assert f(1.0) == 11.0
    f[1] = 7.0
    assert f(x=1.0) == 8.0


def test_a_required_input_keeps_needing_its_argument():
    x, y = T.dscalars("x", "y")
    f = sn.function([x, y], x * y)
    assert f[y] is None
    f[y] = 3.0
    assert f[y] == 3.0
    with pytest.raises(TypeError, match="y"):
        f(2.0)  # as in Theano: a value set does not provide a required argument
    assert f[y] is None and f(2.0, 4.0) == 8.0


def test_unknown_and_ambiguous_keys():
    x, y = T.dscalar("v"), T.dscalar("v")
    f = sn.function([x, y], x + y)
    with pytest.raises(TypeError, match="Unknown input or state: nope"):
        f["nope"]
    with pytest.raises(TypeError, match="Ambiguous name: v"):
        f["v"] = 1.0
    assert f[0] is None and f[y] is None
    with pytest.raises(TypeError, match="Unknown input or state: 5"):
        f[5] = 1.0
