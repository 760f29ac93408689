"""Elementwise lowering rules where XLA's and NumPy's special values differ (fuzz findings)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode

BASES = [-np.inf, -0.0, 0.0, 4.0, -4.0, np.inf, np.nan]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on (-4) ** 0.5: the values tested
@pytest.mark.parametrize("optimizer", ["fast_run", "fast_compile", None])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_power_of_one_half_is_numpys(dtype, optimizer):
    # NumPy computes x ** 0.5 as sqrt(x) when the exponent is one value: -inf ** 0.5 is
    # NaN and -0.0 ** 0.5 is -0.0 (C's pow: +inf and +0.0). XLA's pow gave +inf.
    x = T.tensor(dtype, shape=(None,), name="x", test_value=np.array(BASES, dtype))
    e = T.tensor(dtype, shape=(), name="e", test_value=np.array(0.5, dtype))
    values = np.array(BASES, dtype)
    with np.errstate(all="ignore"):
        expected = [values ** 0.5, np.power(values, np.array(0.5, dtype))]
    f = sn.function([x, e], [x ** 0.5, x ** e], mode=Mode(optimizer=optimizer))
    for got, want in zip(f(values, np.array(0.5, dtype)), expected):
        np.testing.assert_array_equal(got, want)
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


@pytest.mark.parametrize("optimizer", ["fast_compile", None])
def test_power_with_an_exponent_array_is_cs_pow(optimizer):
    # With several exponent values NumPy uses C's pow, even where they are all 0.5.
    dtype = "float64"
    x = T.tensor(dtype, shape=(None,), name="x", test_value=np.array([-np.inf, -0.0]))
    e = T.tensor(dtype, shape=(None,), name="e", test_value=np.array([0.5, 0.5]))
    f = sn.function([x, e], x ** e, mode=Mode(optimizer=optimizer))
    got = f(np.array([-np.inf, -0.0]), np.array([0.5, 0.5]))
    np.testing.assert_array_equal(got, np.power(np.array([-np.inf, -0.0]), np.array([0.5, 0.5])))
    assert not np.signbit(got[1])


def test_the_lowering_table_is_keyed_by_the_rows_names():
    from symnb.core.tensor.elemwise import ELEMWISE_OPS
    from symnb.core.tensor.elemwise_specs import SPECS
    from symnb.lower_xla.registry import lower
    from symnb.lower_xla.rules import elemwise as rules

    import jax.numpy as jnp

    names = {row.name for row in SPECS}
    assert set(rules.JAX_FUNCTIONS) <= names - {"switch", "cast"}
    # A row's JAX function defaults to jnp.<name>: the table lists only the others.
    assert all(getattr(jnp, name, None) is not fn for name, fn in rules.JAX_FUNCTIONS.items())
    assert all(rules.jax_function(name) is not None for name in names - {"switch", "cast"})
    assert rules.jax_function("exp") is jnp.exp and rules.jax_function("identity")(3) == 3
    default = lower.dispatch(object)
    assert all(lower.dispatch(cls) is not default for cls in ELEMWISE_OPS)
    # One row, one rule: a row's JAX function is what the compiled program computes.
    x = T.vector("x", test_value=np.array([0.25, 4.0], "float32"))
    f = sn.function([x], [T.sqrt(x), T.log1p(x)])
    np.testing.assert_allclose(f(np.array([0.25, 4.0], "float32")),
                               [np.sqrt([0.25, 4.0]), np.log1p([0.25, 4.0])], rtol=1e-6)
