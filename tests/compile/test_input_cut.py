"""A function's inputs cut the graph, as in Theano: ``sn.function([z], out)`` is the graph
between ``z`` and ``out``. What lies above an input (a random draw, a shared variable
with a default update, a variable without a value) is no part of it: not required, not
captured, not updated, its test values not computed. Outputs, explicit updates, default
updates and givens are all walked with that cut."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile.construction import MissingInputError
from symnb.errors import MissingTestValueError
from symnb.tensor.shared_randomstreams import RandomStreams

SHAPE = (2, 3)


def _matrix(name):
    return T.matrix(name, test_value=np.ones(SHAPE, "float32"))


def _value(seed):
    return np.random.default_rng(seed).standard_normal(SHAPE).astype("float32")


def _counter(name="c"):
    c = sn.shared(np.float64(0.0), name=name)
    c.default_update = c + 1
    return c


def test_vae_decoder_takes_z_and_leaves_the_stream_above_it_alone():
    srng = RandomStreams(seed=5)
    x = _matrix("x")
    eps = srng.normal(x.shape)
    z = x + eps
    decode = sn.function([z], T.tanh(z))   # Theano's VAE scripts: x is not needed
    sample = sn.function([x], eps)         # draws from the same stream (and advances it)
    state = eps.rng.get_value()
    expected = sample(_value(0))
    eps.rng.set_value(state)
    for seed in (1, 2):
        z_value = _value(seed)
        np.testing.assert_allclose(decode(z_value), np.tanh(z_value), rtol=1e-6)
    np.testing.assert_array_equal(eps.rng.get_value(), state)  # decode drew nothing
    np.testing.assert_array_equal(sample(_value(0)), expected)
    assert decode.updated_shared == [] and decode.read_shared == []


def test_a_draw_also_read_below_the_cut_advances_its_stream_each_call():
    srng = RandomStreams(seed=6)
    x = _matrix("x")
    eps = srng.normal(SHAPE)
    z = x + eps
    f = sn.function([z], [T.tanh(z), eps * 2])
    z_value = _value(3)
    states, draws = [], []
    for _ in range(3):
        states.append(eps.rng.get_value())
        out, doubled = f(z_value)
        np.testing.assert_allclose(out, np.tanh(z_value), rtol=1e-6)
        draws.append(doubled)
    assert f.updated_shared == [eps.rng]
    assert not np.array_equal(states[0], states[1]) and not np.array_equal(states[1], states[2])
    assert not np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[1], draws[2])
    # The values drawn are those of the stream's own draws, call after call.
    eps.rng.set_value(states[0])
    alone = sn.function([], eps)
    for doubled in draws:
        np.testing.assert_array_equal(alone() * 2, doubled)


def test_a_draw_below_the_cut_whose_size_reads_above_it_needs_that_input():
    """The draw is part of the function and its size reads x: x is missing (as in Theano)."""
    srng = RandomStreams(seed=7)
    x = _matrix("x")
    eps = srng.normal(x.shape)
    z = x + eps
    with pytest.raises(MissingInputError, match="'x'"):
        sn.function([z], [T.tanh(z), eps])


def test_outputs_needing_a_draw_below_the_cut_advance_the_stream():
    srng = RandomStreams(seed=8)
    x = _matrix("x")
    h = 2 * x
    noise = srng.uniform(h.shape)       # its size reads h, the input: below the cut
    f = sn.function([h], h + noise)
    h_value = _value(4)
    first, second = f(h_value), f(h_value)
    for out in (first, second):
        assert np.all((out - h_value >= -1e-6) & (out - h_value < 1 + 1e-6))
    assert not np.array_equal(first, second)
    assert f.updated_shared == [noise.rng]


def test_a_shared_variable_above_an_input_is_neither_captured_nor_updated():
    c = _counter()
    x = T.dmatrix("x", test_value=np.ones(SHAPE))
    h = c * x
    f = sn.function([h], h + 1)
    h_value = _value(5).astype("float64")
    np.testing.assert_array_equal(f(h_value), h_value + 1)
    assert c.get_value() == 0.0
    assert f.updated_shared == [] and f.read_shared == []
    # An update the user lists is applied, wherever its target is read.
    g = sn.function([h], h + 1, updates={c: c + 10})
    g(h_value)
    assert c.get_value() == 10.0


def test_an_update_expression_is_cut_by_the_inputs():
    srng = RandomStreams(seed=9)
    acc = sn.shared(np.float64(0.0), name="acc")
    x = T.dmatrix("x", test_value=np.ones(SHAPE))
    eps = srng.normal(x.shape, dtype="float64")
    drawn = x + eps
    f = sn.function([drawn], drawn.sum(), updates={acc: acc + drawn.sum()})
    value = _value(6).astype("float64")
    state = eps.rng.get_value()
    assert f(value) == pytest.approx(value.sum())
    f(value)
    assert acc.get_value() == pytest.approx(2 * value.sum())
    np.testing.assert_array_equal(eps.rng.get_value(), state)
    assert f.updated_shared == [acc]


def test_givens_are_walked_with_the_same_cut():
    srng = RandomStreams(seed=10)
    x = _matrix("x")
    eps = srng.normal(x.shape)
    z = x + eps
    q = _matrix("q")
    # A replaced variable: what was above it is not read (nor its stream advanced).
    g = sn.function([q], T.tanh(z), givens={z: q})
    state = eps.rng.get_value()
    np.testing.assert_allclose(g(_value(11)), np.tanh(_value(11)), rtol=1e-6)
    np.testing.assert_array_equal(eps.rng.get_value(), state)
    assert g.updated_shared == []
    # A replacement above an input is not reached: what it reads is not needed.
    unbound = _matrix("unbound")
    h = sn.function([z], T.tanh(z), givens={x: unbound})
    np.testing.assert_allclose(h(_value(12)), np.tanh(_value(12)), rtol=1e-6)
    # A replacement that is reached reads a draw: its stream is part of the function.
    u = srng.uniform(SHAPE)
    k = sn.function([z], T.tanh(z) + q, givens={q: u})
    z_value = _value(16)
    first, second = k(z_value), k(z_value)
    for out in (first, second):
        assert np.all((out - np.tanh(z_value) >= -1e-6) & (out - np.tanh(z_value) < 1 + 1e-6))
    assert not np.array_equal(first, second) and k.updated_shared == [u.rng]


def test_the_ancestors_of_an_input_need_no_test_value():
    x = T.matrix("x")                  # no test value, lengths unknown: none can be made
    with sn.config.change_flags(compute_test_value="off"):
        z = T.exp(x) + 1
    with pytest.raises(MissingTestValueError):
        z.test_value
    f = sn.function([z], T.tanh(z) * 2)
    z_value = _value(13)
    np.testing.assert_allclose(f(z_value), np.tanh(z_value) * 2, rtol=1e-6)
    assert x.owner is None and x._test_value is None  # still nothing computed above the cut


def test_an_input_computed_in_the_graph_keeps_its_name_in_errors():
    x = _matrix("x")
    z = T.exp(x)
    z.name = "z"
    unnamed = T.exp(x)   # named by its creation line, as every variable is
    for var, label in ((z, "z"), (unnamed, "unnamed")):
        f = sn.function([var], var * 2)
        with pytest.raises(TypeError, match=f"input '{label}' expects 2 dimension"):
            f(np.ones(3, "float32"))          # a vector for a matrix
        assert f.inputs[0].owner is None
        np.testing.assert_array_equal(f.inputs[0].test_value, np.exp(np.ones(SHAPE, "float32")))


def test_eval_at_an_interior_variable_does_not_advance_the_stream_above_it():
    srng = RandomStreams(seed=14)
    x = _matrix("x")
    eps = srng.normal(x.shape)
    z = x + eps
    state = eps.rng.get_value()
    z_value = _value(15)
    np.testing.assert_allclose(T.tanh(z).eval({z: z_value}), np.tanh(z_value), rtol=1e-6)
    np.testing.assert_array_equal(eps.rng.get_value(), state)


def test_an_input_an_ifelse_holds_in_a_branch_cuts_the_branch():
    """``ifelse`` copies into a branch what only that branch reads; the function's input
    cuts that copy too (the branch reads the argument, not what is above it: x1 is not
    needed), as in Theano, whose ifelse held no copies."""
    x0, x1 = T.vector("x0"), T.scalar("x1")
    held = x1 + 1
    chosen = sn.ifelse(T.any(x0), held * 2, x0.sum())
    f = sn.function([x0, held], chosen)
    np.testing.assert_allclose(f(np.ones(2, "float32"), np.float32(7)), 7 * 2)
    np.testing.assert_allclose(f(np.array([0, 0], "float32"), np.float32(7)), 0)
    shared_by_both = x1 * 3
    picked = sn.ifelse(T.any(x0), shared_by_both + 1, shared_by_both - 1)
    f = sn.function([x0, shared_by_both], picked)
    np.testing.assert_allclose(f(np.ones(2, "float32"), np.float32(5)), 5 + 1)
    np.testing.assert_allclose(f(np.zeros(2, "float32"), np.float32(5)), 5 - 1)


def _held_in_a_branch():
    x = T.vector("x", test_value=np.arange(3, dtype="float32"))
    w = sn.shared(np.array([1.0, -2.0, 0.5], "float32"), name="w")
    c = T.iscalar("c", test_value=np.int32(1))
    h = T.exp(x)  # only the then branch reads h: ifelse copies its computation in
    return x, w, c, h, sn.ifelse(c, (h * w).sum(), (x ** 2).sum())


def test_a_gradient_is_cut_where_the_branch_it_differentiates_was_cut():
    """The gradient's IfElse holds copies of the forward branch; the input cuts them too:
    d/dw sum(h * w) is the given h, not exp(x)."""
    x, w, c, h, cost = _held_in_a_branch()
    g = sn.function([h, c, x], sn.grad(cost, w))
    h0, x0 = np.array([5.0, 6.0, 7.0], "float32"), np.ones(3, "float32")
    np.testing.assert_allclose(g(h0, 1, x0), h0)
    np.testing.assert_allclose(g(h0, 0, x0), np.zeros(3))
    f = sn.function([h, c, x], cost)
    np.testing.assert_allclose(f(h0, 1, x0), h0 @ w.get_value(), rtol=1e-6)
    np.testing.assert_allclose(f(h0, 0, x0), 3.0)


@pytest.mark.parametrize("how", ["givens", "clone"])
def test_a_replacement_reaches_the_copies_in_a_branch(how):
    """``givens`` and ``sn.clone(replace=...)`` replace a variable the branch copied, as
    the graph was written (they used to leave the copy computing exp(x))."""
    x, w, c, h, cost = _held_in_a_branch()
    if how == "givens":
        f = sn.function([x, c], cost, givens={h: x * 10})
    else:
        f = sn.function([x, c], sn.clone(cost, replace={h: x * 10}))
    x0 = np.array([1.0, 2.0, 3.0], "float32")
    np.testing.assert_allclose(f(x0, 1), (x0 * 10) @ w.get_value(), rtol=1e-6)
    np.testing.assert_allclose(f(x0, 0), (x0 ** 2).sum(), rtol=1e-6)
