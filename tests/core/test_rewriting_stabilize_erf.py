"""Theano's error-function stabilizations (``core/rewriting/stabilize_erf.py``): compiled,
``log(1 + erf(x))``, ``log(1 - erf(x))`` and ``log(erfc(x))`` equal SciPy's ``log_ndtr``
over the whole real line, where the written forms give -inf; the skew-normal
log-density written as PyMC3 writes it equals ``scipy.stats.skewnorm.logpdf``."""

import numpy as np
import pytest
import scipy.special as ss
import scipy.stats as st

import symnb as sn
import symnb.tensor as T
from symnb.core.rewriting.stabilize_erf import REWRITES
from symnb.core.tensor.stable_forms_erf import LOG_ERFC_THRESHOLD
from tests.rewriting_helpers import applied

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")

_SQRT2 = np.sqrt(2.0)


def _log_erfc_reference(x):
    """log(erfc(x)) = log(2 * Phi(-x * sqrt(2))), finite for every x (SciPy's log_ndtr)."""
    return ss.log_ndtr(-np.asarray(x, dtype="float64") * _SQRT2) + np.log(2.0)


# (written expression, its reference, the rewrites it takes, NumPy's value as written)
_CASES = {
    "log_one_plus_erf": (lambda x: T.log(1 + T.erf(x)), lambda v: _log_erfc_reference(-v),
                         ["local_log_one_plus_erf"], lambda v: np.log(1 + ss.erf(v))),
    "log_erf_plus_one": (lambda x: T.log(T.erf(x) + 1), lambda v: _log_erfc_reference(-v),
                         ["local_log_one_plus_erf"], lambda v: np.log(ss.erf(v) + 1)),
    "log_one_minus_erf": (lambda x: T.log(1 - T.erf(x)), _log_erfc_reference,
                          ["local_log_one_minus_erf"], lambda v: np.log(1 - ss.erf(v))),
    "log_erfc": (lambda x: T.log(T.erfc(x)), _log_erfc_reference, ["local_log_erfc"],
                 lambda v: np.log(ss.erfc(v))),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_float64_over_minus_40_to_40_equals_scipy(case):
    written, reference, rewrites, as_written = _CASES[case]
    # Dense around both thresholds and where the written forms reach 0.
    values = np.unique(np.concatenate([np.linspace(-40, 40, 1601), np.linspace(26.3, 26.8, 101),
                                       -np.linspace(26.3, 26.8, 101), [0.0, 5.9, -5.9]]))
    x = T.dvector("x")
    f = sn.function([x], written(x))
    got = f(values)
    # The log's form, or 1 + erf(x) -> erfc(-x) first and then log(erfc)'s: the pass
    # meets the nodes in either order.
    assert set(applied(f.maker.fgraph)) & ({"local_log_erfc"} | set(rewrites))
    assert np.isfinite(got).all(), values[~np.isfinite(got)]
    np.testing.assert_allclose(got, reference(values), rtol=1e-12, atol=1e-14)
    # The written form is what the tail needed the rewrites for: NumPy gives -inf there.
    with np.errstate(divide="ignore"):
        assert np.isneginf(as_written(values)).any()


@pytest.mark.parametrize("case", sorted(_CASES))
def test_float32_equals_scipy(case):
    written, reference, _, _ = _CASES[case]
    values = np.linspace(-20, 20, 801).astype("float32")
    x = T.fvector("x")
    f = sn.function([x], written(x))
    got = f(values)
    assert got.dtype == np.float32 and np.isfinite(got).all(), values[~np.isfinite(got)]
    np.testing.assert_allclose(got, reference(values), rtol=2e-6, atol=2e-6)


def test_the_written_graph_and_its_test_value_are_kept():
    # The graph as built is what was written; its test value is NumPy's -inf, the compiled
    # value finite: the rewrites say where they keep values (as log(softmax(x)) does).
    x = T.dscalar("x", test_value=np.float64(-10.0))
    with np.errstate(divide="ignore"):
        y = T.log(1 + T.erf(x))
    assert [type(v.owner.op).__name__ for v in (y, y.owner.inputs[0])] == ["Log", "Add"]
    assert np.isneginf(y.test_value)
    got = sn.function([x], y)(-10.0)
    np.testing.assert_allclose(got, _log_erfc_reference(10.0), rtol=1e-13)
    for rewrite in REWRITES:
        assert not rewrite.exact and rewrite.domain, rewrite


def test_log_erfc_keeps_the_written_value_below_the_threshold():
    # Below the threshold the switch returns log(erfc(x)) itself: bit for bit the compiled
    # log(erfc(x)) with the rewrite excluded.
    values = np.linspace(-5, LOG_ERFC_THRESHOLD["float64"] - 1e-9, 301)
    x = T.dvector("x")
    with_rewrite = sn.function([x], T.log(T.erfc(x)))(values)
    without = sn.function([x], T.log(T.erfc(x)),
                          mode=sn.compile.mode.get_default_mode().excluding("local_log_erfc"))(values)
    np.testing.assert_array_equal(with_rewrite, without)


def _skew_normal_logp(value, mu, tau, alpha):
    """PyMC3 3.9.3's ``SkewNormal.logp`` (``pymc3/distributions/continuous.py``), as written."""
    return (T.log(1 + T.erf(((value - mu) * T.sqrt(tau) * alpha) / T.sqrt(2)))
            + (-tau * (value - mu) ** 2 + T.log(tau / np.pi / 2.0)) / 2.0)


@pytest.mark.parametrize("alpha, mu, sd", [(10.0, 0.0, 1.0), (-7.5, 2.0, 0.5), (50.0, -1.0, 3.0),
                                           (0.5, 0.0, 1.0)])
def test_skew_normal_logp_equals_scipy_at_extreme_values(alpha, mu, sd):
    values = mu + sd * np.array([-40.0, -10.0, -5.0, -3.0, -1.0, 0.0, 0.5, 2.0, 8.0, 30.0])
    value = T.dvector("value")
    a, m, s = T.dscalar("alpha"), T.dscalar("mu"), T.dscalar("sd")
    # PyMC3 runs with floatX=float64: its np.pi is then a float64 constant. T.sqrt(2) is
    # float32 (sqrt of the int8 2, Theano's rule), as it was in PyMC3 on Theano: the
    # erf's argument carries float32's rounding of sqrt(2), a relative 3e-8.
    with sn.config.change_flags(floatX="float64"):
        f = sn.function([value, m, s, a], _skew_normal_logp(value, m, s ** -2, a))
    got = f(values, mu, sd, alpha)
    expected = st.skewnorm.logpdf(values, alpha, mu, sd)
    assert np.isfinite(expected).all()
    np.testing.assert_allclose(got, expected, rtol=1e-7)


def test_debugmode_notes_the_values_changed_in_the_tail_and_finds_nothing_else():
    # Neither branch of the switch computes an inf where the other is taken (each reads x
    # clamped to its side), so DebugMode's finiteness check passes; the tail values that
    # differ from the written -inf are a note naming the rewrite and its domain.
    from symnb.compile.debugmode import DebugModeNote

    values = np.array([-40.0, -26.0, -10.0, 0.0, 5.0, 30.0])
    x = T.dvector("x")
    with pytest.warns(DebugModeNote, match="local_(log_erfc|log_one_plus_erf|one_plus_erf)"):
        got = sn.function([x], T.log(1 + T.erf(x)), mode="DebugMode")(values)
    np.testing.assert_allclose(got, _log_erfc_reference(-values), rtol=1e-12)


@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile", None])
@pytest.mark.parametrize("dtype, span, rtol", [("float64", 40.0, 1e-11), ("float32", 15.0, 2e-5)])
def test_gradients_are_finite_and_equal_scipy(optimizer, dtype, span, rtol):
    # sn.grad differentiates the stable forms (as log(sigmoid) and friends): the
    # derivative of log(erfc(x)) is -2 / (sqrt(pi) * erfcx(x)), finite everywhere,
    # where the written form's gradient is 0 / 0 in the tail.
    values = np.linspace(-span, span, 401).astype(dtype)
    x = T.vector("x", dtype=dtype)
    for written, sign in ((lambda v: T.log(1 + T.erf(v)), -1.0), (lambda v: T.log(T.erfc(v)), 1.0),
                          (lambda v: T.log(1 - T.erf(v)), 1.0)):
        g = sn.function([x], sn.grad(written(x).sum(), x), mode=sn.Mode(optimizer=optimizer))
        got = g(values)
        expected = -sign * 2.0 / (np.sqrt(np.pi) * ss.erfcx(sign * values.astype("float64")))
        assert got.dtype == np.dtype(dtype) and np.isfinite(got).all()
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)
