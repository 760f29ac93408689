"""T.round's modes, as Theano 1.0's: ``None`` and 'half_to_even' (NumPy's rounding),
'half_away_from_zero' (C's ``round``), on both paths against references of their own."""

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from tests.reference import check_paths

HALVES = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5]
# next to halves (0.49999997 is the float32 just below 0.5: floor(x + 0.5) rounds it up),
# signed zeros, non-finite values and large whole numbers
AWKWARD = [np.nextafter(np.float32(0.5), np.float32(0)), -np.nextafter(np.float32(0.5), np.float32(0)),
           0.0, -0.0, -0.3, 2.7, -2.7, 1e7 + 1, 2.0 ** 24 - 1, np.inf, -np.inf, np.nan]


def _by_decimal(rounding):
    """Rounding of each element, exact (decimal arithmetic), in the input's dtype."""
    def reference(x):
        def one(v):
            if not np.isfinite(v):
                return v
            whole = float(Decimal(float(v)).quantize(Decimal(1), rounding=rounding))
            return np.copysign(whole, v)  # -0.3 rounds to -0.0, as C's round
        return np.vectorize(one, otypes=[x.dtype])(x).astype(x.dtype)
    return reference


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_modes_against_exact_decimal_rounding(dtype):
    values = np.array(HALVES + AWKWARD, dtype=dtype)
    even, away = _by_decimal(ROUND_HALF_EVEN), _by_decimal(ROUND_HALF_UP)  # UP: away from 0
    check_paths(lambda x: T.round(x, mode="half_away_from_zero"), [values], away)
    check_paths(lambda x: T.round(x, mode="half_to_even"), [values], even)
    check_paths(T.round, [values], even)                 # Theano 1.0's default
    check_paths(lambda x: x.round("half_away_from_zero"), [values], away)
    check_paths(T.round_half_away_from_zero, [values], away)
    check_paths(T.round_half_to_even, [values], even)
    assert not np.array_equal(away(values[:8]), even(values[:8]))  # the test tells them apart


def test_integers_are_already_round():
    values = np.array([-3, 0, 7], dtype="int32")
    for mode in (None, "half_to_even", "half_away_from_zero"):
        check_paths(lambda x: T.round(x, mode), [values], lambda v: v.copy())


def test_the_gradient_is_zero():
    x = T.dvector("x", test_value=np.array([0.2, 1.5, -2.5]))
    for mode in ("half_to_even", "half_away_from_zero"):
        g = sn.function([x], sn.grad(T.round(x, mode).sum() + x.sum(), x))
        np.testing.assert_array_equal(g(np.array([0.2, 1.5, -2.5])), [1.0, 1.0, 1.0])


def test_an_unknown_mode_is_refused_naming_the_accepted_ones():
    x = T.dvector("x")
    with pytest.raises(ValueError, match=r"round: mode='half_up' is not a rounding mode; the modes "
                                         r"are 'half_to_even', 'half_away_from_zero'"):
        T.round(x, mode="half_up")
