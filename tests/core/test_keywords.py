"""``symnb.core.graph.keywords``: the one message for keywords a callable does not take."""

import inspect

import pytest

from symnb.core.graph.keywords import checked_keywords, did_you_mean, unexpected_keywords_message


def test_did_you_mean_a_close_spelling_or_a_hint_among_the_choices():
    assert did_you_mean("stdev", ["size", "avg", "std"]) == " (did you mean 'std'?)"
    assert did_you_mean("mean", ["size", "avg", "std"], {"mean": "avg"}) == " (did you mean 'avg'?)"
    assert did_you_mean("mean", ["size", "std"], {"mean": "avg"}) == ""  # the hint is not a choice
    assert did_you_mean("xyzzy", ["size", "avg", "std"]) == ""


def test_the_message_names_each_keyword_then_the_accepted_ones():
    assert unexpected_keywords_message("f", ["lo"], ["low", "high"]) == (
        "f() got an unexpected keyword argument 'lo' (did you mean 'low'?); it accepts: low, high")
    assert unexpected_keywords_message("f", ["lo", "zz"], ["low", "high"]) == (
        "f() got unexpected keyword arguments 'lo' (did you mean 'low'?), 'zz'; "
        "it accepts: low, high")


class Draws:
    @checked_keywords({"mean": "avg"})
    def normal(self, size=None, avg=0.0, *, std=1.0):
        return size, avg, std


def test_a_checked_method_keeps_its_signature_and_refuses_unknown_keywords():
    assert list(inspect.signature(Draws.normal).parameters) == ["self", "size", "avg", "std"]
    assert Draws().normal(3, avg=2.0, std=4.0) == (3, 2.0, 4.0)
    with pytest.raises(TypeError, match=r"^Draws\.normal\(\) got an unexpected keyword argument "
                                        r"'mean' \(did you mean 'avg'\?\); it accepts: size, avg, std$"):
        Draws().normal(3, mean=2.0)


def test_checking_a_function_that_takes_any_keyword_is_refused():
    with pytest.raises(TypeError, match="takes \\*\\*kwargs"):
        checked_keywords()(lambda size=None, **_: size)
