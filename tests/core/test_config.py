"""sn.config: defaults, SYMNB_FLAGS, change_flags, and loud errors for typos."""

import os
import subprocess
import sys

import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.config import Config, ConfigError


def test_defaults():
    fresh = Config()
    assert fresh.floatX == "float32" and fresh.optimizer == "fast_run"
    assert fresh.compute_test_value == "raise" and fresh.exception_verbosity == "medium"
    assert fresh.device == "auto" and fresh.traceback__limit == 8


def test_flag_string_like_theano():
    flags = Config("floatX=float64, device=cpu,optimizer=None,exception_verbosity=high,"
                   "traceback.limit=3,profile=True")
    assert flags.floatX == "float64" and flags.device == "cpu" and flags.optimizer is None
    assert flags.exception_verbosity == "high" and flags.traceback__limit == 3
    assert flags.profile is True


@pytest.mark.parametrize("text,message", [
    ("floatx=float64", "unknown config flag 'floatx'"),
    ("floatX=float128", "bad value for config flag 'floatX'"),
    ("optimizer=fast", "bad value for config flag 'optimizer'"),
    ("traceback.limit=-1", "non-negative"),
    ("floatX", "not of the form name=value"),
])
def test_bad_flags_are_errors(text, message):
    with pytest.raises(ConfigError, match=message):
        Config(text)


def test_assignment_is_validated_and_change_flags_restores():
    with pytest.raises(ConfigError, match="compute_test_value"):
        sn.config.compute_test_value = "loud"
    with pytest.raises(AttributeError, match="unknown config flag 'flaotX'"):
        sn.config.flaotX
    with sn.config.change_flags(floatX="float64", optimizer=None):
        assert T.vector("x").dtype == "float64"
        assert sn.config.optimizer is None
    assert sn.config.floatX == "float32" and sn.config.optimizer == "fast_run"


def test_symnb_flags_environment_variable():
    code = "import symnb; print(symnb.config.floatX, symnb.config.optimizer)"
    env = dict(os.environ, SYMNB_FLAGS="floatX=float64,optimizer=fast_compile")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["float64", "fast_compile"]
    env["SYMNB_FLAGS"] = "floatX=float16,nonsense=1"
    failed = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert failed.returncode != 0 and "unknown config flag 'nonsense'" in failed.stderr


@pytest.mark.parametrize("spelling", ["cpu", "gpu", "cuda", "cuda0", "gpu0", "gpu1", "auto", "CUDA0"])
def test_device_accepts_theano_spellings(spelling):
    assert Config(f"device={spelling}").device == spelling.lower()


@pytest.mark.parametrize("bad", ["tpu", "gpu-1", "cuda:0", "cpu0", ""])
def test_device_refuses_other_names(bad):
    with pytest.raises(ConfigError, match="'cpu', 'gpu', 'gpuN', 'cuda', 'cudaN' or 'auto'"):
        Config().device = bad


def test_change_flags_refuses_an_unknown_flag_when_called_naming_the_one_meant():
    # Refused at the call, before any ``with``: a decorator or a stored context manager
    # with a misspelled flag must not wait to be entered.
    with pytest.raises(TypeError) as info:
        sn.config.change_flags(floatX="float64", optimzer=None)
    assert isinstance(info.value, ConfigError)
    assert "change_flags() got an unexpected keyword argument 'optimzer' (did you mean " \
           "'optimizer'?); it accepts: " in str(info.value)
    assert "floatX" in str(info.value).partition("it accepts: ")[2]
    assert sn.config.floatX == "float32" and sn.config.optimizer == "fast_run"


def test_theano_linker_and_optimizer_flags_are_accepted_with_theano_choices():
    import symnb

    # Theano's defaults without a C++ compiler (symnb compiles none): cxx '' and linker 'vm'.
    assert symnb.config.cxx == "" and symnb.config.linker == "vm"
    assert symnb.config.on_opt_error == "warn" and symnb.config.compute_test_value_opt == "off"
    assert symnb.config.scan.allow_output_prealloc is True
    with symnb.change_flags(on_opt_error="raise", linker="py"):
        assert symnb.config.on_opt_error == "raise" and symnb.config.linker == "py"
    assert symnb.config.on_opt_error == "warn"
    with pytest.raises(ConfigError, match="linker"):
        symnb.config.linker = "gcc"


def test_configdefaults_bit_widths_are_the_platforms():
    import struct

    import numpy as np

    import symnb

    assert symnb.configdefaults.python_int_bitwidth() == np.dtype(np.intc).itemsize * 8 * (
        struct.calcsize("l") // np.dtype(np.intc).itemsize)
    assert symnb.configdefaults.local_bitwidth() == np.dtype(np.intp).itemsize * 8
