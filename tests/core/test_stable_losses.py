"""The everyday losses written the textbook way: the graph keeps what was written, so
its test values (and a function compiled with ``optimizer=None``) are the written
expression's, as NumPy computes it, infinite or NaN where it overflows; every level
that rewrites (``fast_run``, ``fast_compile``) makes the values finite and accurate for
logits up to +-1e4, and the gradients ``sn.grad`` builds are finite and accurate
everywhere (test values and every level), built from the stable forms.

References are the analytic formulas computed stably in float64 NumPy
(``np.logaddexp``, a sigmoid that never overflows), the written formulas in NumPy
(in the dtype), and ``jax.grad`` of a hand-written ``jax.nn.log_softmax`` loss for the
indexed softmax cross-entropy.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode

# The written expressions overflow in their own test values (exp(-z) at z = -1e4, the
# log of an underflowed probability): that is what was written.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

LOGITS = np.array([-1e4, -200.0, -20.0, 0.0, 20.0, 200.0, 1e4])
TARGETS = np.array([1.0, 0.0, 1.0, 0.25, 0.0, 1.0, 0.5])
LEVELS = ["fast_run", "fast_compile", None]
DTYPES = ["float32", "float64"]
# Relative to each result's scale. float32: a few ulps of the largest term; float64: the
# formulas are not the reference's, so allow some rounding beyond one ulp.
RTOL = {"float32": 2e-6, "float64": 1e-13}


def softplus(z):
    return np.logaddexp(0.0, z)


def sigmoid(z):
    return np.exp(-np.logaddexp(0.0, -z))


# name, loss (elementwise, of z), value reference, gradient reference (d loss / dz)
ELEMENTWISE = [
    ("-log(sigmoid(z))", lambda z: -T.log(T.sigmoid(z)),
     lambda z: softplus(-z), lambda z: -sigmoid(-z)),
    ("-log(1 - sigmoid(z))", lambda z: -T.log(1 - T.sigmoid(z)),
     lambda z: softplus(z), sigmoid),
    ("-log1p(-sigmoid(z))", lambda z: -T.log1p(-T.sigmoid(z)),
     lambda z: softplus(z), sigmoid),
    ("1 / (1 + exp(-z))", lambda z: 1 / (1 + T.exp(-z)),
     sigmoid, lambda z: sigmoid(z) * sigmoid(-z)),
    ("1 / (exp(-z) + 1)", lambda z: 1 / (T.exp(-z) + 1),
     sigmoid, lambda z: sigmoid(z) * sigmoid(-z)),
    ("-log(1 / (1 + exp(-z)))", lambda z: -T.log(1 / (1 + T.exp(-z))),
     lambda z: softplus(-z), lambda z: -sigmoid(-z)),
    ("-log(1 - 1 / (1 + exp(-z)))", lambda z: -T.log(1 - 1 / (1 + T.exp(-z))),
     lambda z: softplus(z), sigmoid),
    ("softplus(z)", T.softplus, softplus, sigmoid),
    ("log(1 + exp(z))", lambda z: T.log(1 + T.exp(z)), softplus, sigmoid),
    ("log1p(exp(z))", lambda z: T.log1p(T.exp(z)), softplus, sigmoid),
    ("binary_crossentropy(sigmoid(z), t)",
     lambda z: T.binary_crossentropy(T.sigmoid(z), TARGETS.astype(z.dtype)),
     lambda z: TARGETS * softplus(-z) + (1 - TARGETS) * softplus(z),
     lambda z: (1 - TARGETS) * sigmoid(z) - TARGETS * sigmoid(-z)),  # sigmoid(z) - t, no cancelling
]


def _assert_accurate(actual, expected, dtype, what, relative_to="element"):
    """Finite, of ``dtype``, and close to ``expected``: each element to its own size
    (``relative_to="element"``; a reference below the smallest normal number of
    ``dtype``, e.g. sigmoid(-200) in float32, may flush to 0), or to the largest
    (``"scale"``, for formulas that cancel terms of that size)."""
    actual = np.asarray(actual)
    assert actual.dtype == np.dtype(dtype), f"{what}: dtype {actual.dtype}, expected {dtype}"
    assert np.all(np.isfinite(actual)), f"{what}: not finite: {actual}"
    expected = np.asarray(expected, dtype="float64")
    atol = np.finfo(dtype).tiny
    if relative_to == "scale":
        atol = max(atol, RTOL[dtype] * np.abs(expected).max())
    np.testing.assert_allclose(actual, expected.astype(dtype), rtol=RTOL[dtype], atol=atol,
                               err_msg=what)


def _expit(z):
    return scipy.special.expit(z)


#: The written expressions, computed as written by NumPy in the logits' dtype (the
#: library losses, binary and categorical cross-entropy, are built stable: absent).
WRITTEN = {
    "-log(sigmoid(z))": lambda z: -np.log(_expit(z)),
    "-log(1 - sigmoid(z))": lambda z: -np.log(1 - _expit(z)),
    "-log1p(-sigmoid(z))": lambda z: -np.log1p(-_expit(z)),
    "1 / (1 + exp(-z))": lambda z: 1 / (1 + np.exp(-z)),
    "1 / (exp(-z) + 1)": lambda z: 1 / (np.exp(-z) + 1),
    "-log(1 / (1 + exp(-z)))": lambda z: -np.log(1 / (1 + np.exp(-z))),
    "-log(1 - 1 / (1 + exp(-z)))": lambda z: -np.log(1 - 1 / (1 + np.exp(-z))),
    "log(1 + exp(z))": lambda z: np.log(1 + np.exp(z)),
    "log1p(exp(z))": lambda z: np.log1p(np.exp(z)),
    "-mean(log(softmax(x))[rows, y])":
        lambda x: -np.mean(np.log(scipy.special.softmax(x, axis=1))[np.arange(len(x)), LABELS]),
    "-mean(log(softmax(x)[rows, y]))":
        lambda x: -np.mean(np.log(scipy.special.softmax(x, axis=1)[np.arange(len(x)), LABELS])),
    "-mean(log(exp(x) / sum(exp(x)))[rows, y])":
        lambda x: -np.mean(np.log(np.exp(x) / np.exp(x).sum(axis=1, keepdims=True))
                           [np.arange(len(x)), LABELS]),
    "sum(w * log(softmax(x)))":
        lambda x: (WEIGHTS.astype(x.dtype) * np.log(scipy.special.softmax(x, axis=1))).sum(),
}


def _assert_as_written(actual, name, logits, dtype, what):
    """The value of the expression as written: NumPy's in ``dtype``, inf and NaN
    included (a written form that is finite here must be accurate, as the stable one)."""
    with np.errstate(all="ignore"):
        expected = np.asarray(WRITTEN[name](logits.astype(dtype)))
    actual = np.asarray(actual)
    assert actual.dtype == np.dtype(dtype), f"{what}: dtype {actual.dtype}, expected {dtype}"
    np.testing.assert_allclose(actual, expected, rtol=RTOL[dtype] * 10,
                               atol=np.finfo(dtype).tiny, equal_nan=True, err_msg=what)


def _check_value(actual, name, reference, logits, dtype, what, stable):
    """Finite and accurate where the graph was stabilized (``stable``), else (written
    forms only) the written expression's value."""
    if stable or name not in WRITTEN:
        _assert_accurate(actual, reference, dtype, what)
    else:
        _assert_as_written(actual, name, logits, dtype, what)


def _elementwise_case(build, dtype):
    z = T.tensor(dtype, (None,), name="z", test_value=LOGITS.astype(dtype))
    loss = build(z)
    return z, loss, sn.grad(loss.sum(), z)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, build, value, gradient", ELEMENTWISE, ids=[c[0] for c in ELEMENTWISE])
def test_elementwise_loss_test_values(name, build, value, gradient, dtype):
    z, loss, g = _elementwise_case(build, dtype)
    _check_value(loss.test_value, name, value(LOGITS), LOGITS, dtype, f"{name} (test value)",
                 stable=False)
    _assert_accurate(g.test_value, gradient(LOGITS), dtype, f"d {name} (test value)")


@pytest.mark.parametrize("optimizer", LEVELS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, build, value, gradient", ELEMENTWISE, ids=[c[0] for c in ELEMENTWISE])
def test_elementwise_loss_compiled(name, build, value, gradient, dtype, optimizer):
    z, loss, g = _elementwise_case(build, dtype)
    f = sn.function([z], [loss, g], mode=Mode(optimizer=optimizer))
    got_value, got_gradient = f(LOGITS.astype(dtype))
    _check_value(got_value, name, value(LOGITS), LOGITS, dtype, f"{name} ({optimizer})",
                 stable=optimizer is not None)
    _assert_accurate(got_gradient, gradient(LOGITS), dtype, f"d {name} ({optimizer})")


# -- softmax ---------------------------------------------------------------------------

# One row of logits per value of LOGITS: [z, 0, -z / 2].
ROWS = np.stack([LOGITS, np.zeros_like(LOGITS), -LOGITS / 2], axis=1)
LABELS = np.array([2, 0, 1, 2, 1, 0, 2], dtype="int32")
ONE_HOT = np.eye(3)[LABELS]
WEIGHTS = np.random.default_rng(7).uniform(0, 1, size=ROWS.shape)


def _log_softmax(x):
    return x - np.logaddexp.reduce(x, axis=1, keepdims=True)


def _rows(x):
    return T.arange(x.shape[0])


def _mean_picked_reference(x):
    """-mean(log_softmax(x)[rows, labels]) and its gradient (softmax - one_hot) / n."""
    log_p = _log_softmax(x)
    return -log_p[np.arange(len(x)), LABELS].mean(), (np.exp(log_p) - ONE_HOT) / len(x)


def _weighted_reference(x):
    log_p = _log_softmax(x)
    return (WEIGHTS * log_p).sum(), WEIGHTS - np.exp(log_p) * WEIGHTS.sum(axis=1, keepdims=True)


def _squared_error_reference(x):
    p = np.exp(_log_softmax(x))
    g = 2 * (p - ONE_HOT)
    return ((p - ONE_HOT) ** 2).sum(), p * (g - (g * p).sum(axis=1, keepdims=True))


# name, loss of (x, labels), reference of x (value, gradient). Gradients are accurate to
# each element, except that of softmax alone: y * (g - sum(g * y)) cancels terms of the
# size of g (as JAX's does), so it is accurate to the gradient's scale.
SOFTMAX = [
    ("-mean(log(softmax(x))[rows, y])",
     lambda x, y: -T.mean(T.log(T.softmax(x))[_rows(x), y]), _mean_picked_reference),
    ("-mean(log(softmax(x)[rows, y]))",
     lambda x, y: -T.mean(T.log(T.softmax(x)[_rows(x), y])), _mean_picked_reference),
    ("-mean(log(exp(x) / sum(exp(x)))[rows, y])",
     lambda x, y: -T.mean(T.log(T.exp(x) / T.exp(x).sum(axis=1, keepdims=True))[_rows(x), y]),
     _mean_picked_reference),
    ("categorical_crossentropy(softmax(x), y)",
     lambda x, y: T.categorical_crossentropy(T.softmax(x), y).mean(), _mean_picked_reference),
    ("categorical_crossentropy(softmax(x), one_hot)",
     lambda x, y: T.categorical_crossentropy(T.softmax(x), ONE_HOT.astype(x.dtype)).mean(),
     _mean_picked_reference),
    ("sum(w * log(softmax(x)))",
     lambda x, y: (WEIGHTS.astype(x.dtype) * T.log(T.softmax(x))).sum(), _weighted_reference),
    ("sum((softmax(x) - one_hot) ** 2)",
     lambda x, y: ((T.softmax(x) - ONE_HOT.astype(x.dtype)) ** 2).sum(), _squared_error_reference),
]


def _relative_to(name):
    return "scale" if name == "sum((softmax(x) - one_hot) ** 2)" else "element"


def _softmax_case(build, dtype):
    x = T.tensor(dtype, (None, None), name="x", test_value=ROWS.astype(dtype))
    y = T.ivector("y", test_value=LABELS)
    loss = build(x, y)
    return x, y, loss, sn.grad(loss, x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, build, reference", SOFTMAX, ids=[c[0] for c in SOFTMAX])
def test_softmax_loss_test_values(name, build, reference, dtype):
    x, y, loss, g = _softmax_case(build, dtype)
    value, gradient = reference(ROWS)
    _check_value(loss.test_value, name, value, ROWS, dtype, f"{name} (test value)", stable=False)
    _assert_accurate(g.test_value, gradient, dtype, f"d {name} (test value)", _relative_to(name))


@pytest.mark.parametrize("optimizer", LEVELS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, build, reference", SOFTMAX, ids=[c[0] for c in SOFTMAX])
def test_softmax_loss_compiled(name, build, reference, dtype, optimizer):
    x, y, loss, g = _softmax_case(build, dtype)
    f = sn.function([x, y], [loss, g], mode=Mode(optimizer=optimizer), on_unused_input="ignore")
    got_value, got_gradient = f(ROWS.astype(dtype), LABELS)
    value, gradient = reference(ROWS)
    _check_value(got_value, name, value, ROWS, dtype, f"{name} ({optimizer})",
                 stable=optimizer is not None)
    _assert_accurate(got_gradient, gradient, dtype, f"d {name} ({optimizer})", _relative_to(name))


@pytest.mark.parametrize("dtype", DTYPES)
def test_indexed_log_softmax_gradient_equals_jax_grad(dtype):
    # The example: the loss was right, the gradient's first row NaN.
    xv = np.array([[200.0, 0.0, -200.0], [0.0, 1.0, 2.0]], dtype=dtype)
    labels = np.array([2, 0], dtype="int32")
    x, y = T.tensor(dtype, (None, None), name="x"), T.ivector("y")
    loss = -T.mean(T.log(T.softmax(x))[T.arange(x.shape[0]), y])
    f = sn.function([x, y], [loss, sn.grad(loss, x)])

    def jax_loss(logits):
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(logits.shape[0]), labels])

    with jax.enable_x64(True):
        expected_value, expected_gradient = jax.value_and_grad(jax_loss)(jnp.asarray(xv))
    got_value, got_gradient = f(xv, labels)
    np.testing.assert_allclose(got_value, 201.2038, rtol=1e-6)  # the value
    _assert_accurate(got_value, np.asarray(expected_value), dtype, "loss")
    _assert_accurate(got_gradient, np.asarray(expected_gradient), dtype, "gradient")


# -- the graph as built ------------------------------------------------------------------

def test_the_graph_is_as_written_and_the_stable_nodes_keep_the_users_line_and_dtype():
    z = T.vector("z")  # float32
    loss = -T.log(T.sigmoid(z))  # the loss line
    assert loss.dtype == "float32"
    assert type(loss.owner.inputs[0].owner.op).__name__ == "Log"  # as written
    f = sn.function([z], loss, mode=Mode(optimizer="fast_compile"))
    assert [step.name for step in f.maker.fgraph.history] == ["local_log_sigmoid"]
    stable = [n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "Softplus"]
    assert [n.site.line for n in stable] == ["loss = -T.log(T.sigmoid(z))  # the loss line"]
    # np.float64(1) is a strong float64 operand: the written expression is float64, and
    # so is its stable form (computed on z cast to float64).
    wide = T.log(np.float64(1) - T.sigmoid(z))
    assert wide.dtype == "float64"
    value = np.array([-3.0, 0.0, 50.0], dtype="float32")
    np.testing.assert_allclose(sn.function([z], wide)(value), -softplus(value.astype("float64")),
                               rtol=1e-15)


def test_integer_logits_keep_theanos_float_dtype():
    # exp(int32) is float64 and exp(int8) float32 (Theano's upgrade_to_float; NumPy would
    # give float16): the stable forms follow.
    for dtype, expected in [("int32", "float64"), ("int8", "float32")]:
        z = T.tensor(dtype, (None,), name="z", test_value=np.array([-100, 0, 100], dtype=dtype))
        out = T.log(1 / (1 + T.exp(-z)))
        assert out.dtype == expected
        reference = -softplus(-np.array([-100.0, 0.0, 100.0])).astype(expected)
        with np.errstate(all="ignore"):  # as written, in its dtype (exp(100) is inf in float32)
            written = np.log(1 / (1 + np.exp(-z.test_value.astype(expected))))
        np.testing.assert_allclose(out.test_value, written, rtol=1e-3)
        # XLA flushes subnormals to zero (-softplus(-100) is 3.8e-44, subnormal in float32).
        np.testing.assert_allclose(sn.function([z], out)(z.test_value), reference, rtol=1e-3,
                                   atol=np.finfo(expected).tiny)


def test_categorical_crossentropy_refuses_mismatched_ranks_with_the_line():
    p = T.softmax(T.matrix("logits"))
    with pytest.raises(TypeError, match="rank mismatch") as info:
        T.categorical_crossentropy(p, T.tensor3("t"))
    assert "test_stable_losses.py" in str(info.value)
    with pytest.raises(TypeError, match="vector of integers"):
        T.categorical_crossentropy(p, T.vector("labels"))
