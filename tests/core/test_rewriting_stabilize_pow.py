"""The log of a difference of powers in log space (``core/tensor/stable_forms_pow.py``):
compiled, ``log(q ** u - q ** v)`` equals the exact value (Python's ``decimal``, 50
digits, which neither underflows nor flushes subnormals) where the written form is -inf
on XLA's CPU; PyMC3's discrete Weibull log-density, written as PyMC3 writes it, equals
the exact one at the point of PyMC3's test that failed; a negative base keeps the
written value; the gradient is finite and equals central differences."""

from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.rewriting_helpers import applied

pytestmark = pytest.mark.filterwarnings("error::symnb.core.rewriting.RewriteFailureWarning")


def exact_log_pow_difference(q: float, u: float, v: float) -> float:
    """log(q ** u - q ** v) to 50 digits, rounded to a float."""
    with localcontext() as context:  # 50 digits, exponents down to 10 ** -999999999999999999
        context.prec, context.Emin, context.Emax = 50, MIN_EMIN, MAX_EMAX
        dq = Decimal(float(q))
        return float((dq ** Decimal(float(u)) - dq ** Decimal(float(v))).ln())


def discrete_weibull_logp(q, beta, value):
    """PyMC3 3.9.3's DiscreteWeibull.logp, as written (its ``bound`` is a switch)."""
    logp = T.log(T.pow(q, T.pow(value, beta)) - T.pow(q, T.pow(value + 1, beta)))
    inside = T.and_(T.and_(T.ge(value, 0), T.gt(q, 0)), T.and_(T.lt(q, 1), T.gt(beta, 0)))
    return T.switch(inside, logp, -np.inf)


def test_discrete_weibull_at_pymc3s_failing_point_equals_the_exact_value():
    q, beta = T.dscalar("q"), T.dscalar("beta")
    value = T.lvector("value")
    with np.errstate(all="ignore"):
        f = sn.function([q, beta, value], discrete_weibull_logp(q, beta, value))
    assert "local_log_pow_difference" in applied(f.maker.fgraph)
    values = np.arange(0, 6)
    for qv, bv in [(0.5, 10.0), (0.1, 0.5), (0.9, 2.0), (1e-3, 3.0), (0.5, 1.0)]:
        got = f(qv, bv, values)
        want = [exact_log_pow_difference(qv, x ** bv, (x + 1) ** bv) for x in values]
        np.testing.assert_allclose(got, want, rtol=1e-13, err_msg=f"q={qv}, beta={bv}")
    # q = 0.5, beta = 10, value = 2: 0.5 ** 1024 is subnormal, 0 in XLA's CPU programs
    # (the written form's -inf); SciPy's test reference, NumPy's written form, is -709.78.
    assert f(0.5, 10.0, np.array([2]))[0] == pytest.approx(1024 * np.log(0.5), rel=1e-14)
    assert np.isneginf(f(1.5, 1.0, values)).all()  # outside PyMC3's bound: still -inf


def test_a_negative_base_keeps_the_written_value():
    q, u, v = T.dscalar("q"), T.dvector("u"), T.dvector("v")
    f = sn.function([q, u, v], T.log(q ** u - q ** v))
    assert "local_log_pow_difference" in applied(f.maker.fgraph)
    us, vs = np.array([2.0, 4.0, 1.0]), np.array([3.0, 1.0, 2.0])
    with np.errstate(invalid="ignore"):
        want = np.log((-0.5) ** us - (-0.5) ** vs)  # finite, NaN, NaN: log of a negative
    np.testing.assert_array_equal(np.isnan(f(-0.5, us, vs)), np.isnan(want))
    np.testing.assert_allclose(f(-0.5, us, vs)[0], want[0], rtol=1e-15)
    with np.errstate(divide="ignore"):
        assert np.isneginf(f(0.0, np.array([1.0]), np.array([2.0]))).all()  # log(0 - 0)


def test_the_gradient_is_finite_and_equals_central_differences():
    q, u, v = (T.dscalar(name, test_value=value) for name, value in zip("quv", (0.3, 1.5, 2.5)))
    y = T.log(q ** u - q ** v)
    grad = sn.function([q, u, v], sn.grad(y, [q, u, v]))
    value = sn.function([q, u, v], y)
    # Where the written difference underflows to 0 the written gradient is inf or NaN.
    for point in [(0.5, 1024.0, 59049.0), (0.3, 1.5, 2.5), (0.9, 0.2, 7.0)]:
        got = np.array(grad(*point))
        assert np.isfinite(got).all(), (point, got)
        eps = 1e-6 * np.maximum(1.0, np.abs(point))
        finite = [(value(*(point + e * np.eye(3)[i])) - value(*(point - e * np.eye(3)[i]))) / (2 * e)
                  for i, e in enumerate(eps)]
        np.testing.assert_allclose(got, finite, rtol=1e-6)
    # On the written branch's side (q < 0) the log-space branch adds no NaN: the
    # derivative in q is the written form's, (2q - 3q**2) / (q**2 - q**3). (Those in the
    # exponents are NaN, as the written form's own: q ** u has none for q < 0.)
    assert grad(-0.5, 2.0, 3.0)[0] == pytest.approx((2 * -0.5 - 3 * 0.25) / (0.25 + 0.125), rel=1e-14)


def test_the_written_graph_and_its_test_value_are_kept():
    q = T.dscalar("q", test_value=np.float64(0.5))
    u = T.dscalar("u", test_value=np.float64(1024.0))
    v = T.dscalar("v", test_value=np.float64(59049.0))
    y = T.log(q ** u - q ** v)
    assert [type(y.owner.op).__name__, type(y.owner.inputs[0].owner.op).__name__] == ["Log", "Sub"]
    # NumPy keeps the subnormal: the test value is the exact -709.78 and the compiled
    # program, whose CPU flushes it, gives the same through the log-space form.
    assert y.test_value == pytest.approx(1024 * np.log(0.5), rel=1e-14)
    assert sn.function([q, u, v], y)(0.5, 1024.0, 59049.0) == pytest.approx(y.test_value, rel=1e-14)
