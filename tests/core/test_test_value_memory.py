"""Test values dropped to save memory (``test_value_memory_mb``) are computed again when
read, the same: on the values the node first ran on, random draws included; a node
never runs on a value that is not there."""

import tracemalloc

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.core.graph import test_value_memory
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op
from symnb.tensor.shared_randomstreams import RandomStreams

NO_LIMIT = 100_000  # MB: nothing is dropped


# -- the RBM sampler of Theano's deep-learning tutorial ------------------------------------

def rbm_gibbs_chain(n_steps, n_chains=20, n_visible=784, n_hidden=50, seed=1234):
    """The tutorial's sampling graph: ``n_steps`` Gibbs steps v -> h -> v over a chain
    of ``n_chains`` visible vectors, each step drawing binomial samples."""
    rng = np.random.RandomState(seed)
    W = sn.shared(rng.uniform(-0.1, 0.1, (n_visible, n_hidden)).astype("float32"), name="W")
    hbias = sn.shared(np.zeros(n_hidden, "float32"), name="hbias")
    vbias = sn.shared(np.zeros(n_visible, "float32"), name="vbias")
    chain_start = sn.shared(rng.binomial(1, 0.5, (n_chains, n_visible)).astype("float32"),
                            name="chain_start")
    srng = RandomStreams(seed)

    def sample(pre_activation):
        mean = T.nnet.sigmoid(pre_activation)
        return [pre_activation, mean, srng.binomial(size=mean.shape, n=1, p=mean, dtype="float32")]

    def gibbs_vhv(v0):
        presig_h, h_mean, h_sample = sample(T.dot(v0, W) + hbias)
        presig_v, v_mean, v_sample = sample(T.dot(h_sample, W.T) + vbias)
        return [presig_h, h_mean, h_sample, presig_v, v_mean, v_sample]

    outputs, updates = sn.scan(gibbs_vhv, outputs_info=[None] * 5 + [chain_start], n_steps=n_steps)
    return outputs, updates, srng


def test_rbm_sampler_whose_outputs_exceed_the_budget_builds_with_the_same_values():
    # Each visible output is 20 x 20 x 784 float32 (1.25 MB): beyond a 1 MB budget, so the
    # scan's outputs are dropped as soon as they are stored.
    with sn.config.change_flags(test_value_memory_mb=NO_LIMIT):
        outputs, _, _ = rbm_gibbs_chain(20)
        expected = [outputs[4][-1].test_value, outputs[5][-1].test_value, outputs[2].test_value]
    with sn.config.change_flags(test_value_memory_mb=1):
        (_, _, hid_samples, _, vis_mfs, vis_samples), updates, srng = rbm_gibbs_chain(20)
        assert not all(v._test_value is not None for v in (hid_samples, vis_mfs, vis_samples))
        last_mean = vis_mfs[-1]  # failed here: Subtensor ran on None
        last_sample = vis_samples[-1]
        # A dropped value is recomputed from the keys the draws used then, not the keys
        # the streams hold now.
        srng.seed(99)
        np.testing.assert_array_equal(last_mean.test_value, expected[0])
        np.testing.assert_array_equal(last_sample.test_value, expected[1])
        np.testing.assert_array_equal(hid_samples.test_value, expected[2])
        first_mean, first_hiddens = vis_mfs[0], hid_samples[0]
    srng.seed(1234)  # the keys the test values were drawn with
    f = sn.function([], [first_mean, first_hiddens], updates=updates)
    compiled_mean, compiled_hiddens = f()
    # The first step only: later steps' draws compare uniforms with means that XLA's dot
    # computes to within rounding of NumPy's, and one flipped sample changes all after it.
    np.testing.assert_allclose(compiled_mean, first_mean.test_value, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(compiled_hiddens, first_hiddens.test_value)


# -- never None handed to a perform ---------------------------------------------------------

class _TwoWays(Op):
    """Two outputs at once: ``x + 1`` and ``x * 2``."""

    def make_node(self, x):
        return Apply(self, [x], [x.type, x.type])

    def perform(self, node, inputs):
        (x,) = inputs
        return [x + np.float32(1), x * np.float32(2)]


class _RefusesNone(Op):
    """``x - 3``, refusing to run on a value that is not there."""

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        assert all(value is not None for value in inputs), f"perform got {inputs!r}"
        return [inputs[0] - np.float32(3)]


def test_a_node_reading_an_output_dropped_with_its_sibling_gets_its_value():
    # Two 2 MB outputs of one node exceed a 1 MB budget: storing them again drops the one
    # asked for at once. It reached the next perform as None.
    with sn.config.change_flags(test_value_memory_mb=1):
        start = np.random.default_rng(0).uniform(size=(512, 1024)).astype("float32")
        x = T.matrix("x", test_value=start)
        plus_one, twice = _TwoWays()(x)
        after = twice * 1  # drops both outputs of _TwoWays
        assert plus_one._test_value is None and twice._test_value is None
        y = _RefusesNone()(plus_one)
        z = _RefusesNone()(twice)
        np.testing.assert_array_equal(y.test_value, start + np.float32(1) - np.float32(3))
        np.testing.assert_array_equal(z.test_value, start * np.float32(2) - np.float32(3))
        np.testing.assert_array_equal(after.test_value, start * np.float32(2))


# -- the same values: a root's value set again after the graph was built -------------------

def _chain(x, length):
    steps = [x]
    for _ in range(length):
        steps.append(T.tanh(steps[-1] * 1.5))
    return steps


def _numpy_chain(value, length):
    steps = [value]
    for _ in range(length):
        steps.append(np.tanh(steps[-1] * np.float32(1.5)))
    return steps


def test_a_dropped_value_is_recomputed_from_the_input_values_it_was_computed_from():
    rng = np.random.default_rng(1)
    first, second = (rng.uniform(size=(512, 1024)).astype("float32") for _ in range(2))
    with sn.config.change_flags(test_value_memory_mb=2):
        x = T.matrix("x", test_value=first)
        steps = _chain(x, 6)
        assert steps[2]._test_value is None  # dropped
        # As in Theano, nodes built before keep the values they computed then ...
        x.tag.test_value = second
        np.testing.assert_array_equal(steps[2].test_value, _numpy_chain(first, 2)[2])
        np.testing.assert_array_equal(sn.clone(steps[3]).test_value, _numpy_chain(first, 3)[3])
        np.testing.assert_array_equal(steps[4].clone().test_value, _numpy_chain(first, 4)[4])
        # ... and nodes built now use the new value.
        np.testing.assert_array_equal(T.tanh(x * 1.5).test_value, _numpy_chain(second, 1)[1])


def test_a_dropped_draw_is_recomputed_the_same_after_the_stream_is_reseeded():
    srng = RandomStreams(5)
    with sn.config.change_flags(test_value_memory_mb=1):
        draw = srng.normal(size=(600, 600))  # 1.4 MB
        expected = draw.test_value.copy()
        later = (draw * 2) + 1  # drops the draw
        assert draw._test_value is None
        srng.seed(6)
        np.testing.assert_array_equal(draw.test_value, expected)
        np.testing.assert_array_equal(later.test_value, expected * np.float32(2) + np.float32(1))


# -- the cache: least recently used first; a long chain recomputed in bounded memory -------

class _CountedExp(Op):
    """``exp(x)``, counting its runs."""

    runs = 0

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        type(self).runs += 1
        return [np.exp(inputs[0])]


def test_a_value_read_by_every_step_stays_while_older_ones_are_dropped():
    rng = np.random.default_rng(2)
    with sn.config.change_flags(test_value_memory_mb=7):  # three 2 MB values
        x = T.matrix("x", test_value=rng.uniform(size=(512, 1024)).astype("float32"))
        _CountedExp.runs = 0
        shared_term = _CountedExp()(x)  # read by every step: the least recently used never
        steps = [x]
        for _ in range(8):
            steps.append(steps[-1] * 0.5 + shared_term)
        assert steps[1]._test_value is None  # older values were dropped ...
        assert _CountedExp.runs == 1  # ... never the one every step reads
        expected = x.test_value
        for _ in range(8):
            expected = expected * np.float32(0.5) + np.exp(x.test_value)
        np.testing.assert_allclose(steps[-1].test_value, expected, rtol=1e-6)


def test_a_long_dropped_chain_is_recomputed_holding_only_the_values_still_needed():
    # 30 values of 1 MB, a 1 MB budget: all but the newest dropped. Recomputing the one
    # before it walks the whole chain; it holds one or two values at a time, not 29.
    start = np.random.default_rng(3).uniform(size=(512, 512)).astype("float32")
    with sn.config.change_flags(test_value_memory_mb=1):
        x = T.matrix("x", test_value=start)
        steps = _chain(x, 30)
        assert all(s._test_value is None for s in steps[1:-1])
        tracemalloc.start()
        try:
            value = steps[-2].test_value
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    np.testing.assert_array_equal(value, _numpy_chain(start, 29)[29])
    assert peak < 8 * start.nbytes, f"peak {peak / 2**20:.1f} MB while recomputing"


def test_a_chain_deeper_than_the_recursion_limit_dropped_whole_is_recomputed():
    with sn.config.change_flags(test_value_memory_mb=0):  # every value but the newest dropped
        x = T.vector("x", test_value=np.zeros(4, "float32"))
        steps = [x]
        for _ in range(5000):
            steps.append(steps[-1] + 1)
        assert steps[-2]._test_value is None and steps[1]._test_value is None
        np.testing.assert_array_equal(steps[-2].test_value, np.full(4, 4999, "float32"))
        np.testing.assert_array_equal(steps[2500].test_value, np.full(4, 2500, "float32"))


def test_the_budget_takes_fractions_of_a_megabyte():
    with sn.config.change_flags(test_value_memory_mb=0.003):  # 3 KB: 4 KB values count
        x = T.vector("x", test_value=np.ones(1024, "float32"))
        steps = _chain(x, 5)
        assert steps[1]._test_value is None and steps[-1]._test_value is not None
        assert steps[1].has_test_value  # known: computed again when read
        np.testing.assert_array_equal(steps[1].test_value, _numpy_chain(x.test_value, 1)[1])


# -- a residual network over values larger than the budget builds in linear time ------------

class _CountedTanh(Op):
    """``tanh(x)``, counting its runs."""

    runs = 0

    def make_node(self, x):
        return Apply(self, [x], [x.type])

    def perform(self, node, inputs):
        type(self).runs += 1
        return [np.tanh(inputs[0])]


def test_a_residual_network_over_values_larger_than_the_budget_runs_each_node_a_few_times():
    # Each block reads its input again after three layers (``out = f(g(h(x)) + x)``), when
    # only the newest value fits the budget: reading the shortcut recomputed it from the
    # network's input, through every block before it (quadratic: 4,000 runs for 40 blocks).
    blocks, layers = 40, 4  # three in the residual branch, one after the sum
    start = np.random.default_rng(4).uniform(-1, 1, size=(64, 64)).astype("float32")  # 16 KB
    with sn.config.change_flags(test_value_memory_mb=0.01):  # 10 KB: one value at most
        _CountedTanh.runs = 0
        x = T.matrix("x", test_value=start)
        out, built = x, []
        for _ in range(blocks):
            branch = _CountedTanh()(_CountedTanh()(_CountedTanh()(out)))
            out = _CountedTanh()(branch + out)
            built += [branch, out]
        built_runs = _CountedTanh.runs
        # The memory held stays bounded: the newest value and the checkpoints.
        held = [var for var in built if var._test_value is not None]
        assert len(held) <= 1 + test_value_memory.CHECKPOINTS, f"{len(held)} values held"
        value = out.test_value
    expected = start
    for _ in range(blocks):
        expected = np.tanh(np.tanh(np.tanh(np.tanh(expected))) + expected)
    np.testing.assert_allclose(value, expected, rtol=1e-6)
    assert built_runs <= 3 * blocks * layers, f"{built_runs} runs for {blocks * layers} nodes"
