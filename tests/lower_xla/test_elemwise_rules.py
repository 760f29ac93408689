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



TRANSCENDENTAL = {"exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh"}
SPECIALS = np.array([-np.inf, -4.0, -1.5, -0.0, 0.0, 0.25, 1.5, 4.0, np.inf, np.nan])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy on the special values tested
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_run_as_lax_primitives_compute_what_numpy_does(dtype):
    # Float inputs of one shape run as jax.lax primitives (cheaper to trace than
    # jax.numpy's wrappers); an input that broadcasts sends the node to jax.numpy.
    # Both give NumPy's values, signs of zeros included.
    from symnb.core.tensor.elemwise_specs import SPECS
    from symnb.lower_xla.rules.elemwise import LAX_FUNCTIONS

    values = [SPECIALS.astype(dtype), np.roll(SPECIALS, 3).astype(dtype)]
    x, y = T.tensor(dtype, shape=(None,), name="x"), T.tensor(dtype, shape=(None,), name="y")
    one = T.tensor(dtype, shape=(1,), name="one")
    rows = [row for row in SPECS if row.name in LAX_FUNCTIONS]
    assert len(rows) == len(LAX_FUNCTIONS)
    for row in rows:
        build = getattr(T, row.name)
        same, broadcast = [x, y][:row.nin], [x, one][:row.nin] if row.nin == 2 else [one]
        f = sn.function([x, y, one], [build(*same), build(*broadcast)],
                        on_unused_input="ignore", mode=Mode(optimizer=None))
        got = f(values[0], values[1], values[1][:1])
        with np.errstate(all="ignore"):
            want = [row.numpy_fn(*values[:row.nin]),
                    row.numpy_fn(*([values[0], values[1][:1]][:row.nin] if row.nin == 2
                                   else [values[1][:1]]))]
        for got_one, want_one in zip(got, want):
            want_one = np.asarray(want_one).astype(got_one.dtype)
            # Exact where IEEE rounds exactly; transcendental functions within a few ulps.
            ulps = 0 if row.name not in TRANSCENDENTAL else 4
            np.testing.assert_allclose(got_one, want_one, rtol=ulps * np.finfo(dtype).eps,
                                       atol=0, err_msg=row.name)
            if got_one.dtype.kind == "f":
                numbers = ~np.isnan(want_one)
                np.testing.assert_array_equal(np.signbit(got_one[numbers]),
                                              np.signbit(want_one[numbers]), err_msg=row.name)


def test_float_rows_of_one_shape_trace_as_primitives_without_jnp_wrappers():
    import jax

    x, y = T.vector("x"), T.vector("y")
    f = sn.function([x, y], T.tanh(x * y + x), mode=Mode(optimizer=None))
    values = np.array([0.5, -1.0], "float32")
    jaxpr = str(jax.make_jaxpr(f.as_jax()[0])({}, values, values))
    assert "pjit" not in jaxpr and "tanh" in jaxpr  # no nested jit of jnp's wrappers
    np.testing.assert_allclose(f(values, values), np.tanh(values * values + values), rtol=1e-6)
