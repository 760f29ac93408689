"""Gradients of elementwise ops against central finite differences (float64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.elemwise import GRADIENTS
from symnb.core.tensor.elemwise_specs import BOOL_VALUED
from symnb.gradient import GradientError, verify_grad

SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (5,)), ((1,), (3,))]

UNARY = {
    "neg": T.neg, "abs": T.abs, "exp": T.exp, "log": T.log, "log1p": T.log1p, "expm1": T.expm1,
    "sqrt": T.sqrt, "square": T.square, "sin": T.sin, "cos": T.cos, "tanh": T.tanh,
    "sigmoid": T.sigmoid, "softplus": T.softplus, "erf": T.erf, "identity": T.identity,
    "cast_f32_back": lambda x: T.cast(T.cast(x, "float32"), "float64") * 1.0,
}
BINARY = {
    "add": T.add, "sub": T.sub, "mul": T.mul, "true_div": T.true_div, "pow": T.pow,
    "maximum": T.maximum, "minimum": T.minimum, "mod": T.mod,
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_gradients(name, rng):
    x = rng.uniform(0.3, 1.5, size=(3, 4))
    if name in ("abs", "neg", "sin", "tanh", "erf"):
        x = x - 0.9
    # float32 rounding inside the graph needs a wider finite-difference step
    tol = {"eps": 1e-2, "abs_tol": 1e-2, "rel_tol": 1e-2} if name == "cast_f32_back" else {}
    verify_grad(UNARY[name], [x], rng=rng, **tol)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_gradients_with_broadcasting(name, rng):
    for shape_a, shape_b in SHAPES:
        a = rng.uniform(0.5, 1.5, size=shape_a)
        b = rng.uniform(0.5, 1.5, size=shape_b) + (0.7 if name == "mod" else 0)
        verify_grad(BINARY[name], [a, b], rng=rng)


def test_switch_and_clip_gradients(rng):
    cond = rng.uniform(size=(3, 4)) > 0.5
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    verify_grad(lambda a, b: T.switch(T.constant(cond), a, b), [a, b], rng=rng)
    x = rng.uniform(-2, 2, size=(5, 3))
    verify_grad(lambda x: T.clip(x, -0.7, 0.9), [x], rng=rng)


def _jax_grad_of(fn, *args):
    with jax.enable_x64(True):
        return [np.asarray(g) for g in jax.grad(lambda *a: jnp.sum(fn(*a)), argnums=tuple(range(len(args))))(
            *[jnp.asarray(a) for a in args])]


@pytest.mark.parametrize("name,symbolic,reference,points", [
    ("maximum ties", T.maximum, jnp.maximum, [np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])]),
    ("minimum ties", T.minimum, jnp.minimum, [np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])]),
    ("abs at 0", T.abs, jnp.abs, [np.array([0.0, -1.0, 2.0])]),
    ("pow zero base", T.pow, jnp.power, [np.array([0.0, 2.0]), np.array([2.0, 3.0])]),
    ("clip bounds", lambda x: T.clip(x, -1.0, 1.0), lambda x: jnp.clip(x, -1.0, 1.0),
     [np.array([-1.0, 0.5, 1.0, 2.0])]),
    ("floor", T.floor, jnp.floor, [np.array([0.5, 1.5])]),
    ("round", T.round, jnp.round, [np.array([0.4, 1.6])]),
    ("sign", T.sign, jnp.sign, [np.array([-0.5, 1.5])]),
])
def test_non_differentiable_points_follow_jax(name, symbolic, reference, points):
    inputs = [T.dvector(f"x{i}") for i in range(len(points))]
    grads = sn.grad(symbolic(*inputs).sum(), inputs)
    ours = sn.function(inputs, grads)(*points)
    for got, want in zip(ours, _jax_grad_of(reference, *points)):
        np.testing.assert_allclose(got, want, err_msg=name)


def test_gradient_test_values_and_site():
    x = T.dmatrix("x", test_value=np.full((2, 2), 0.5))
    y = T.tanh(x) * 3
    g = sn.grad(y.sum(), x)
    np.testing.assert_allclose(g.test_value, 3 * (1 - np.tanh(0.5) ** 2))
    assert g.owner.site.line == "g = sn.grad(y.sum(), x)"


def test_verify_grad_catches_a_wrong_rule(rng, monkeypatch):
    monkeypatch.setitem(GRADIENTS, ew.Sin, lambda inputs, out, g: [T.mul(g, T.sin(inputs[0]))])
    with pytest.raises(GradientError, match="largest absolute error"):
        verify_grad(T.sin, [rng.uniform(size=(3,))], rng=rng)


def test_every_differentiable_elemwise_op_has_a_rule():
    # (the bool-valued ops need none: sn.grad passes zeros through integer-valued outputs)
    missing = [op.__name__ for op in ew.ELEMWISE_OPS
               if op.differentiable and op not in GRADIENTS and op is not ew.Cast
               and op.spec.name not in BOOL_VALUED]
    assert not missing, f"elementwise ops without gradient rules: {missing}"
    assert ew.Cast in GRADIENTS
