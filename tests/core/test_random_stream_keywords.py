"""Random streams take Theano's keywords and refuse any other, naming it: a misspelled
keyword once drew from the default distribution (``normal(mean=5.0)``: N(0, 1))."""

import inspect

import numpy as np
import pytest

import symnb as sn
from symnb.sandbox.rng_mrg import MRG_RandomStreams

METHODS = ["uniform", "normal", "binomial", "random_integers", "choice", "permutation",
           "multinomial"]


def test_normal_with_numpy_names_is_refused_naming_theanos():
    with pytest.raises(TypeError) as info:
        sn.RandomStreams(3).normal(size=(1000,), mean=5.0, stdev=0.01)
    assert str(info.value) == (
        "RandomStreams.normal() got unexpected keyword arguments 'mean' (did you mean 'avg'?), "
        "'stdev' (did you mean 'std'?); it accepts: size, avg, std, ndim, dtype")


def test_normal_with_theanos_names_draws_that_normal():
    draws = sn.RandomStreams(3).normal(size=(1000,), avg=5.0, std=0.01).test_value
    assert abs(draws.mean() - 5.0) < 4 * 0.01 / np.sqrt(1000)
    assert 0.009 < draws.std() < 0.011


def test_uniform_with_a_misspelled_bound_is_refused():
    with pytest.raises(TypeError, match=r"'lo' \(did you mean 'low'\?\)"):
        sn.RandomStreams(3).uniform(lo=2.0)
    draws = sn.RandomStreams(3).uniform(size=(1000,), low=2.0, high=3.0).test_value
    assert draws.min() >= 2.0 and draws.max() < 3.0


@pytest.mark.parametrize("cls", [sn.RandomStreams, MRG_RandomStreams])
@pytest.mark.parametrize("method", METHODS)
def test_every_method_refuses_an_unknown_keyword_listing_its_own(cls, method):
    bound = getattr(cls(3), method)
    accepted = [name for name in inspect.signature(bound).parameters]
    with pytest.raises(TypeError) as info:
        bound(size=(2,), zz_misspelled=1)
    message = str(info.value)
    assert "unexpected keyword argument 'zz_misspelled'" in message
    assert message.endswith("it accepts: " + ", ".join(accepted))


def test_theanos_random_streams_have_no_nstreams():
    with pytest.raises(TypeError, match="'nstreams'"):
        sn.RandomStreams(3).uniform((2,), nstreams=4)


@pytest.mark.parametrize("method, args", [
    ("uniform", dict(low=2.0, high=3.0)), ("normal", dict(avg=1.0, std=2.0)),
    ("binomial", dict(n=3, p=0.25)), ("multinomial", dict(n=4, pvals=[0.2, 0.8])),
    ("choice", dict(a=5)),
])
def test_mrg_accepts_nstreams_and_ignores_target(method, args):
    """``target`` changes nothing; ``nstreams`` is taken (it lays the values out over that
    many MRG streams, as in Theano: tests/core/test_mrg31k3p.py)."""
    plain = getattr(MRG_RandomStreams(7), method)((4,), **args).test_value
    given = getattr(MRG_RandomStreams(7), method)((4,), target="cpu", **args).test_value
    np.testing.assert_array_equal(given, plain)
    spread = getattr(MRG_RandomStreams(7), method)((4,), nstreams=16, **args).test_value
    assert spread.shape == plain.shape and spread.dtype == plain.dtype


def test_mrg_truncate_is_honoured_and_binomials_old_prob_refused():
    wide = MRG_RandomStreams(7).normal((10_000,), std=3.0, truncate=False).test_value
    truncated = MRG_RandomStreams(7).normal((10_000,), std=3.0, truncate=True).test_value
    assert np.abs(wide).max() > 6 and np.abs(truncated).max() < 6
    draws = MRG_RandomStreams(7).normal((4,), truncate=False).test_value
    np.testing.assert_array_equal(draws, MRG_RandomStreams(7).normal((4,)).test_value)
    with pytest.raises(TypeError, match="'prob'"):  # RandomStreams' old name, not MRG's
        MRG_RandomStreams(7).binomial((4,), prob=0.5)
