"""Bool values used as numbers keep NumPy's NaN (fuzz finding).

XLA's simplifier rewrites ``convert(mask) * y`` into ``select(mask, y, 0)`` and
``convert(mask) / y`` into ``select(mask, 1 / y, 0)``: ``False * inf`` and ``False / 0``
came back 0 at every optimizer level, where NumPy gives NaN. Every lowering rule now
converts through ``symnb.lower_xla.convert.as_dtype``.
"""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode
from tests.reference import assert_same, theano_true_divide

MASK = np.array([False, True, False, True])
SPECIAL = [np.inf, np.inf, np.nan, 0.0]


@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile", None])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("build, reference", [
    (lambda m, y: m * y, lambda m, y: m * y),
    (lambda m, y: m / y, lambda m, y: m / y),
    (lambda m, y: y / m, lambda m, y: y / m),
    (lambda m, y: T.cast(m, y.dtype) * y, lambda m, y: m.astype(y.dtype) * y),
    (lambda m, y: T.dot(m, y), lambda m, y: np.dot(m, y)),
    (lambda m, y: T.true_div(m, 0), lambda m, y: theano_true_divide(m, 0)),
], ids=["mul", "div", "div-by-mask", "cast-mul", "dot", "div-by-zero-constant"])
def test_a_mask_times_inf_or_over_zero_is_nan_where_false(build, reference, dtype, optimizer):
    values = np.array(SPECIAL, dtype)
    m = T.tensor("bool", shape=(None,), name="m", test_value=MASK)
    y = T.tensor(dtype, shape=(None,), name="y", test_value=values)
    with np.errstate(all="ignore"):
        out = build(m, y)
        expected = np.asarray(reference(MASK, values))
    f = sn.function([m, y], out, mode=Mode(optimizer=optimizer), on_unused_input="ignore")
    assert_same(f(MASK, values), expected, f"compiled ({optimizer})")
    assert_same(out.test_value, expected, "test value")
