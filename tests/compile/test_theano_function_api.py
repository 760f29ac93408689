"""Theano 1.0's ``function`` API: outputs given as a dict (``output_keys``), copies
returning a list of outputs, and ``In(x, update=...)`` without an initial value."""

import copy
import pickle

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import In, MissingInputError, Out


def test_a_dict_of_outputs_returns_a_dict_by_key():
    x = T.dvector("x")
    s = sn.shared(0.0, name="s")
    f = sn.function([x], {"vec": x ** 2, "total": Out(x.sum()), "b": x[0]}, updates={s: s + 1})
    v = np.array([2.0, 3.0, 4.0])
    for g in (f, copy.deepcopy(f), pickle.loads(pickle.dumps(f)), f.copy()):
        out = g(v)
        assert isinstance(out, dict) and sorted(out) == ["b", "total", "vec"]
        np.testing.assert_allclose(out["vec"], v ** 2)
        np.testing.assert_allclose(out["total"], v.sum())
        np.testing.assert_allclose(out["b"], v[0])
    one = sn.function([x], {"only": x * 2})              # one output, no update: still a dict
    np.testing.assert_allclose(one(v)["only"], v * 2)
    with pytest.raises(TypeError, match="keys of a dict of outputs are strings"):
        sn.function([x], {1: x})


def test_a_copy_returns_a_list_of_outputs_as_theanos():
    x = T.dscalar("x")
    y = sn.shared(1.0, name="y")
    z = sn.shared(2.0, name="z")
    f = sn.function([x], x + y + z, updates={z: z * 2})
    assert np.ndim(f(1.0)) == 0                         # the original returns its output bare
    kept = f.copy(delete_updates=True)
    out = kept(1.0)
    assert isinstance(out, list) and len(out) == 1
    np.testing.assert_allclose(out[0], 1.0 + 1.0 + 4.0)  # z is 4 after f's call
    np.testing.assert_allclose(kept(1.0)[0], 6.0)        # no update in the copy
    assert isinstance(copy.copy(f)(1.0), list)
    assert sn.function([x], [], updates={z: z + x}).copy()(1.0) == []


def test_an_update_without_initial_value_names_the_missing_input_first():
    x, s = T.scalars("x", "s")
    with pytest.raises(MissingInputError, match="'s'"):
        sn.function([In(x, update=s + x)], x)
    with pytest.raises(ValueError, match=r"In\('x', update=...\): an input with an update holds "
                                         r"state, and needs its initial value="):
        sn.function([In(x, update=x * 2)], x)


def test_a_copy_shares_argument_defaults_and_copies_state_as_theanos():
    # Theano's test_function_module test_copy: a default is not copied, a state is.
    a = T.dscalar()
    x, s = T.dscalars("x", "s")
    f = sn.function([x, In(a, value=1.0, name="a"), In(s, value=0.0, update=s + a * x)], s + a * x)
    g = copy.copy(f)
    assert g.value[a] is f.value[a]
    assert g.value[s] is not f.value[s] and g.value[s] == f.value[s]
    assert f(2.0, 1.0) == 2.0 and g(2.0) == [2.0]          # in sync: s was 0 in both
    f(1.0, 2.0)                                          # f's state moves on alone
    assert f(1.0, 2.0) == 2.0 + 2.0 + 2.0 and g(1.0, 2.0) == [2.0 + 2.0]
