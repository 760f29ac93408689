"""NanGuardMode: the first node holding NaN, Inf or a big value, named by its line."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import NanGuardMode
from symnb.compile.nanguard import NanGuardError


def test_seed_inf_input_of_dot_names_the_line():
    x = T.matrix()
    w = sn.shared(np.random.randn(5, 7).astype(sn.config.floatX))
    y = T.dot(x, w)
    fun = sn.function([x], y, mode=NanGuardMode(nan_is_error=True, inf_is_error=True, big_is_error=True))
    with np.errstate(over="ignore"):
        infa = np.tile((np.asarray(100.) ** 1000000).astype(sn.config.floatX), (3, 5))
    with pytest.raises(NanGuardError) as info:
        fun(infa)
    message = str(info.value)
    assert "y = T.dot(x, w)" in message
    assert "Inf" in message and "input #0" in message and "(3, 5)" in message
    assert "[id A]" not in message  # a debugprint's ids: internal, shown under 'high' only
    with sn.config.change_flags(exception_verbosity="high"), pytest.raises(NanGuardError) as info:
        fun(infa)
    assert "dot [id A]" in str(info.value)  # the node's debugprint
    assert len(message.splitlines()) < 60


def test_first_nan_in_execution_order():
    with sn.config.change_flags(optimizer=None):
        x = T.vector("x")
        logs = T.log(x)
        doubled = logs * 2
        total = doubled.sum()
        f = sn.function([x], total, mode=NanGuardMode())
    assert f(np.array([1.0, 2.0], "float32")) == pytest.approx(2 * np.log(2))
    with pytest.raises(NanGuardError, match=r"(?s)NaN in output #0 'logs'.*logs = T.log\(x\)"):
        f(np.array([-1.0, 2.0], "float32"))


def test_big_values_and_switches():
    x = T.vector("x")
    scaled = x * 1e12
    guarded = sn.function([x], scaled, mode=NanGuardMode(big_is_error=True))
    with pytest.raises(NanGuardError, match="big value"):
        guarded(np.ones(2, "float32"))
    relaxed = sn.function([x], scaled, mode=NanGuardMode(big_is_error=False))
    np.testing.assert_allclose(relaxed(np.ones(2, "float32")), 1e12)
    plain = sn.function([x], T.log(x))  # no guard: NaN flows through at full speed
    assert np.isnan(plain(np.array([-1.0], "float32")))[0]


def test_failed_call_leaves_shared_variables_unchanged():
    w = sn.shared(np.ones(2, "float32"), name="w")
    x = T.vector("x")
    step = sn.function([x], (w * x).sum(), updates=[(w, w * T.log(x))], mode=NanGuardMode())
    step(np.full(2, np.e, "float32"))
    np.testing.assert_allclose(w.get_value(), [1, 1], rtol=1e-6)
    with pytest.raises(NanGuardError):
        step(np.array([-1.0, 1.0], "float32"))
    np.testing.assert_allclose(w.get_value(), [1, 1], rtol=1e-6)
