"""``symnb.change_flags`` / ``symnb.configparser.change_flags`` (Theano 1.0's) and the
``unittests.rseed`` flag."""

import pytest

import symnb as sn
from symnb.configparser import change_flags
from symnb.core.graph.config import ConfigError


def test_change_flags_is_one_function_in_both_homes():
    assert sn.change_flags is change_flags


def test_change_flags_as_a_block_with_keywords_and_a_mapping():
    before = sn.config.floatX, sn.config.unittests.rseed
    with change_flags({"unittests.rseed": 7}, floatX="float64"):
        assert (sn.config.floatX, sn.config.unittests.rseed) == ("float64", 7)
    assert (sn.config.floatX, sn.config.unittests.rseed) == before


def test_change_flags_as_a_decorator_on_each_call():
    @change_flags(floatX="float16")
    def read_floatx():
        return sn.config.floatX

    assert read_floatx() == "float16"
    assert read_floatx() == "float16"
    assert sn.config.floatX != "float16"


def test_unknown_flag_is_refused_when_the_block_is_made():
    with pytest.raises(TypeError, match="flaotX"):
        change_flags(flaotX="float64")


def test_unittests_rseed_default_666_and_values():
    assert sn.config.unittests.rseed == 666
    with change_flags({"unittests.rseed": "12"}):
        assert sn.config.unittests.rseed == 12
    with change_flags({"unittests.rseed": "random"}):
        assert sn.config.unittests.rseed == "random"
    with pytest.raises(ConfigError, match="integer seed"):
        sn.config.unittests.rseed = "abc"


def test_cycle_detection_takes_theanos_values():
    assert sn.config.cycle_detection == "regular"
    with change_flags(cycle_detection="fast"):
        assert sn.config.cycle_detection == "fast"
    with pytest.raises(ConfigError, match="regular"):
        sn.config.cycle_detection = "slow"


def test_gcc_cxxflags_is_accepted_and_unused():
    # PyMC3's import appends a warning option to it; symnb compiles through XLA.
    assert sn.config.gcc.cxxflags == ""
    with change_flags({"gcc.cxxflags": "-O3"}):
        assert sn.config.gcc.cxxflags == "-O3"


def test_config_var_list_reads_and_sets_flags_as_theanos_config_params():
    from symnb.configparser import _config_var_list

    params = {p.fullname: p for p in _config_var_list}
    assert {"floatX", "compute_test_value", "warn.round", "gcc.cxxflags"} <= set(params)
    param = params["floatX"]
    old = param.__get__(True, None)
    assert old == sn.config.floatX
    try:
        param.__set__(None, "float64" if old == "float32" else "float32")
        assert sn.config.floatX != old
    finally:
        param.__set__(None, old)
    assert sn.config.floatX == old
