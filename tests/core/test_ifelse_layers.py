"""Training steps through stacked ``ifelse`` layers (Keras's Dropout and BatchNormalization
under a learning phase): the program stays linear in the number of layers, computes
each shared value once, runs only the taken branch, and its gradients are right."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import NanGuardMode
from symnb.errors import NanGuardError
from symnb.core.ifelse import IfElse
from symnb.core.tensor.assertion import AssertionFailedError
from symnb.gradient import verify_grad

SIZE = 6


def _choose(form):
    return sn.ifelse if form == "ifelse" else T.switch


def _training_step(k, form="ifelse", layer="after_dot", seed=0):
    """``k`` layers ``h = relu(h @ W_i)`` each followed by a learning-phase choice
    (``layer`` says where the dot sits), the sum as cost, and SGD updates."""
    rng = np.random.default_rng(seed)
    x = T.matrix("x", test_value=rng.normal(size=(4, SIZE)).astype("float32"))
    phase = sn.shared(np.array(1, "int8"), name="phase")
    weights = [sn.shared((rng.normal(size=(SIZE, SIZE)) * 0.4).astype("float32"), name=f"W{i}")
               for i in range(k)]
    choose = _choose(form)
    h = x
    for W in weights:
        if layer == "after_dot":  # the issue's: the dot outside, read by both branches
            h = T.nnet.relu(T.dot(h, W))
            h = choose(phase, h * 0.5, h)
        elif layer == "in_branch":  # the dot only the then branch computes
            h = choose(phase, T.tanh(T.dot(h, W)), h)
        else:  # "residual": the else branch reads nothing of the then branch's upstream
            h = T.nnet.relu(T.dot(h, W))
            h = h + choose(phase, h * 0.5, T.zeros_like(x))
    cost = h.sum()
    grads = sn.grad(cost, weights)
    f = sn.function([x], cost, updates=[(W, W - 0.1 * g) for W, g in zip(weights, grads)])
    return f, x.test_value, phase, weights


def _jax_step(layer, weights, x, phase):
    """The same step written in JAX (the reference)."""
    def cost(ws):
        h = x
        for W in ws:
            if layer == "after_dot":
                h = jax.nn.relu(h @ W)
                h = h * 0.5 if phase else h
            elif layer == "in_branch":
                h = jnp.tanh(h @ W) if phase else h
            else:
                h = jax.nn.relu(h @ W)
                h = h + (h * 0.5 if phase else jnp.zeros_like(x))
        return h.sum()

    value, grads = jax.value_and_grad(cost)(weights)
    return value, [W - 0.1 * g for W, g in zip(weights, grads)]


def _dots(f):
    return f.lowered_text("jaxpr").count("dot_general")


@pytest.mark.parametrize("layer", ["after_dot", "in_branch", "residual"])
def test_stacked_ifelse_layers_grow_linearly_like_the_switch_form(layer):
    counts = {form: [_dots(_training_step(k, form, layer)[0]) for k in range(1, 7)]
              for form in ("ifelse", "switch")}
    steps = np.diff(counts["ifelse"])
    assert (steps == steps[0]).all(), counts  # a constant number of products per layer
    for k in (4, 6):
        assert counts["ifelse"][k - 1] <= 1.5 * counts["switch"][k - 1], counts


def test_the_issues_training_step_computes_each_product_once():
    f, *_ = _training_step(4)
    text = f.lowered_text("jaxpr")
    switch, *_ = _training_step(4, "switch")
    assert text.count("dot_general") == _dots(switch) == 11  # 4 forward, 7 backward
    assert text.count("cond[") == 8  # each layer's ifelse and its gradient's
    for node in f.maker.fgraph.nodes_of(IfElse):  # the products are operands of the conds
        inner = [type(n.op).__name__ for g in node.op.inner_graphs for n in g.nodes]
        assert not {"Dot", "Tensordot"} & set(inner), inner


@pytest.mark.parametrize("layer", ["after_dot", "in_branch", "residual"])
@pytest.mark.parametrize("taken", [1, 0])
def test_training_step_values_match_jax_on_both_phases(layer, taken):
    f, x, phase, weights = _training_step(3, layer=layer)
    phase.set_value(np.array(taken, "int8"))
    start = [W.get_value() for W in weights]
    expected_cost, expected_weights = _jax_step(layer, start, x, taken)
    np.testing.assert_allclose(f(x), expected_cost, rtol=1e-5)
    for W, expected in zip(weights, expected_weights):
        np.testing.assert_allclose(W.get_value(), expected, rtol=1e-5, atol=1e-6)


def test_the_untaken_branch_runs_neither_forward_nor_backward():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    w = sn.shared(np.ones(3, "float32"), name="w")
    phase = sn.shared(np.array(0, "int8"), name="phase")
    h = x * w
    checked = T.Assert("the then branch ran")(h, T.gt(h.sum(), -5))  # fails on the values below
    out = sn.ifelse(phase, T.log(checked), h * 3)  # log of negatives: NaN if it ran
    cost = out.sum()
    f = sn.function([x], cost, updates=[(w, w - 0.1 * sn.grad(cost, w))])
    values = np.array([-1.0, -2.0, -3.0], "float32")
    np.testing.assert_allclose(f(values), (values * 3).sum())
    np.testing.assert_allclose(w.get_value(), 1 - 0.1 * 3 * values)  # d(3xw)/dw, finite
    phase.set_value(np.array(1, "int8"))
    with pytest.raises(AssertionFailedError, match="the then branch ran"):
        f(values)


def test_gradients_of_stacked_and_nested_ifelse_equal_finite_differences(rng):
    first = sn.shared(np.array(1, "int8"), name="first")
    second = sn.shared(np.array(0, "int8"), name="second")

    def network(x, W1, W2):
        h = T.tanh(T.dot(x, W1))
        h = sn.ifelse(first, sn.ifelse(second, h * 2, T.exp(h)), h)  # nested
        h = T.tanh(T.dot(h, W2))
        return sn.ifelse(first, [h * h], [h])[0] + sn.ifelse(second, h, T.zeros_like(h))  # stacked

    values = [rng.normal(size=(3, 4)), rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 2)) * 0.5]
    for flags in [(1, 0), (1, 1), (0, 1), (0, 0)]:
        first.set_value(np.array(flags[0], "int8"))
        second.set_value(np.array(flags[1], "int8"))
        verify_grad(network, values, rng=rng)


def test_nanguard_names_the_node_and_its_branch_in_a_training_step():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    w = sn.shared(np.ones(3, "float32"), name="w")
    phase = sn.shared(np.array(1, "int8"), name="phase")
    h = x * w
    out = sn.ifelse(phase, T.log(h), h * 0.5)  # the logarithm's line
    cost = out.sum()
    f = sn.function([x], cost, updates=[(w, w - 0.1 * sn.grad(cost, w))], mode=NanGuardMode())
    np.testing.assert_allclose(f(np.ones(3, "float32")), 0.0)
    with pytest.raises(NanGuardError) as info:
        f(-np.ones(3, "float32"))
    text = str(info.value)
    assert "NaN in output #0 'T.log(h)'" in text and "inside the then branch of IfElse" in text
    assert "# the logarithm's line" in text



@pytest.mark.parametrize("taken", [1, 0])
def test_a_branch_sizes_arrays_with_shapes_computed_outside(taken):
    # The shape both branches read is computed once, outside: an operand of the cond,
    # known while tracing, so the branches may size arrays with it (Keras's
    # BatchNormalization: the gradient's zeros for a parameter one branch leaves out).
    x = T.matrix("x", test_value=np.ones((4, 3), "float32"))
    phase = T.scalar("phase", dtype="uint8")
    shape = x.shape
    out = sn.ifelse(phase, T.zeros(shape) + 1, T.ones(shape) * 3)
    assert shape in out.owner.inputs
    f = sn.function([x, phase], out)
    values = np.ones((2, 5), "float32")
    np.testing.assert_array_equal(f(values, taken), np.full((2, 5), 1.0 if taken else 3.0, "float32"))


def test_a_failure_in_a_branch_names_the_node_the_branch_and_its_line():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    k = T.lscalar("k", test_value=np.int64(1))
    w = sn.shared(np.ones(3, "float32"), name="w")
    phase = T.scalar("phase", dtype="uint8")
    out = sn.ifelse(phase, x * 2, (x * w)[k] + x)  # the else branch reads x[k]
    cost = out.sum()
    f = sn.function([x, k, phase], cost, updates=[(w, w - 0.1 * sn.grad(cost, w))])
    values = np.array([1.0, 2.0, 3.0], "float32")
    np.testing.assert_allclose(f(values, 9, 1), 12.0)  # the bad index is in the untaken branch
    with pytest.raises(IndexError) as info:
        f(values, 9, 0)
    text = str(info.value)
    assert "index 9 in k is out of bounds" in text
    assert "Inside IfElse (else branch)" in text and "# the else branch reads x[k]" in text
    np.testing.assert_array_equal(w.get_value(), np.ones(3, "float32"))  # the failed call changed nothing
