"""Theano 1.0's ``theano.compile`` names: ``function`` (the function, over the module's
name), ``pfunc``, ``shared``, ``get_default_mode``, the input errors."""

import os
import subprocess
import sys
from pathlib import Path

import inspect

import numpy as np
import pytest

import symnb as sn
import symnb.compile as C
import symnb.tensor as T
from symnb.compile.sharedvalue import SharedVariable, shared


def _x():
    return T.dvector("x", test_value=np.zeros(3))


def test_compile_function_is_the_function_before_and_after_its_module_loads():
    # A fresh interpreter: the submodule symnb/compile/function.py loads at the first compile.
    code = ("import sys, numpy as np, symnb.tensor as T\n"
            "from symnb.compile import function\n"
            "assert 'jax' not in sys.modules and 'symnb.compile.function' not in sys.modules\n"
            "x = T.dvector('x', test_value=np.zeros(2))\n"
            "print(function([x], x * 2)(np.array([1., 2.])))\n"
            "import symnb.compile, symnb.compile.function as m\n"
            "assert symnb.compile.function is function and m is function\n"
            "from symnb.compile.function import Function\n"
            "assert type(symnb.compile.function([x], x)) is Function\n")
    env = dict(os.environ, PYTHONPATH=str(Path(sn.__file__).parents[1]))  # this checkout's symnb
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                            env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[2.", "4.]"]


def test_compile_function_is_sn_function():
    assert C.function is sn.function
    x = _x()
    np.testing.assert_allclose(C.function([x], T.exp(x))(np.arange(3.0)), np.exp(np.arange(3.0)))


def test_pfunc_with_updates_and_givens():
    from symnb.compile import pfunc
    from symnb.compile.pfunc import pfunc as same

    assert inspect.unwrap(pfunc) is same
    x, y = _x(), _x()
    acc = shared(np.zeros(3), name="acc")
    f = pfunc([x], acc + y, updates=[(acc, acc + x)], givens={y: 2 * x})
    np.testing.assert_allclose(f(np.ones(3)), 2 * np.ones(3))
    np.testing.assert_allclose(acc.get_value(), np.ones(3))


def test_pfunc_refuses_what_it_does_not_do():
    x = _x()
    with pytest.raises(NotImplementedError, match="output_keys"):
        C.pfunc([x], x, output_keys=["a"])
    with pytest.raises(C.UnusedInputError):
        C.pfunc([x, _x()], x)  # Theano's default on_unused_input: 'raise'
    C.pfunc([x, _x()], x, on_unused_input="ignore")


def test_missing_input_error():
    x, y = _x(), _x()
    with pytest.raises(C.MissingInputError):
        C.function([x], x + y)


def test_shared_in_compile_and_sharedvalue():
    assert inspect.unwrap(C.shared) is shared is inspect.unwrap(sn.shared)
    assert C.SharedVariable is SharedVariable
    v = C.shared(np.arange(4.0), name="v")
    assert isinstance(v, SharedVariable)
    np.testing.assert_array_equal(v.get_value(), np.arange(4.0))


def test_get_default_mode_follows_the_mode_flag():
    with sn.config.change_flags(mode="FAST_COMPILE"):
        assert C.get_default_mode() is C.get_mode("FAST_COMPILE")
    with sn.config.change_flags(mode="DebugMode"):
        assert isinstance(C.get_default_mode(), C.DebugMode)
    from symnb.compile.mode import get_default_mode
    assert get_default_mode is inspect.unwrap(C.get_default_mode)


def test_gof_missing_input_error_and_compile_config_are_symnbs():
    assert sn.gof.MissingInputError is C.MissingInputError
    assert C.config is sn.config
