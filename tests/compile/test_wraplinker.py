"""Per-node hooks: Mode(linker=WrapLinker([callback])) and the determinism recipe."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import Mode, WrapLinker


def test_callback_sees_every_node_with_its_values(rng):
    seen = []

    def my_callback(i, node, fn):
        inputs = [np.asarray(v) for v in fn.inputs]
        fn()
        seen.append((i, node, inputs, [np.asarray(v) for v in fn.outputs]))

    x = T.matrix("x")
    w = sn.shared(rng.normal(size=(3, 2)).astype("float32"), name="w")
    y = T.tanh(T.dot(x, w)).sum()
    f = sn.function([x], y, mode=Mode(linker=WrapLinker([my_callback]), optimizer=None))
    value = rng.normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(f(value), np.tanh(value @ w.get_value()).sum(), rtol=1e-5)
    assert [i for i, *_ in seen] == list(range(len(f.nodes)))
    assert [node for _, node, *_ in seen] == f.nodes
    # every node's outputs are what its NumPy reference computes from its inputs
    for _, node, inputs, outputs in seen:
        for got, want in zip(outputs, node.op.perform(node, inputs)):
            np.testing.assert_allclose(got, want, rtol=1e-5)


def test_seed_style_mode_subclass_and_chained_callbacks():
    order = []

    def outer(i, node, fn):
        order.append(("outer", i))
        fn()

    def inner(i, node, fn):
        order.append(("inner", i))
        fn()

    class MyWrapLinker(Mode):
        def __init__(self):
            super().__init__(linker=WrapLinker([outer, inner]), optimizer="fast_run")

    x = T.vector("x")
    f = sn.function([x], T.exp(x) * 2, mode=MyWrapLinker())
    np.testing.assert_allclose(f(np.zeros(2, "float32")), [2, 2])
    assert order == [(k, i) for i in range(len(f.nodes)) for k in ("outer", "inner")]


def test_a_callback_must_run_the_node():
    x = T.vector("x")
    f = sn.function([x], x + 1, mode=Mode(linker=WrapLinker([lambda i, node, fn: None])))
    with pytest.raises(RuntimeError, match="call fn"):
        f(np.zeros(2, "float32"))


class DeterminismCheck:
    """Recipe (from the seeds): record every node's outputs in one run, replay and compare.

        recorder = DeterminismCheck()
        f = sn.function(inputs, outputs, mode=Mode(linker=WrapLinker([recorder.record])))
        f(*args)                      # first run: record
        recorder.replaying = True
        f(*args)                      # second run: compare, raise at the first difference
    """

    def __init__(self):
        self.values = []
        self.replaying = False
        self.position = 0

    def record(self, i, node, fn):
        fn()
        outputs = [np.asarray(v).copy() for v in fn.outputs]
        if not self.replaying:
            self.values.append(outputs)
            return
        expected = self.values[self.position]
        self.position += 1
        for got, want in zip(outputs, expected):
            if not np.array_equal(got, want, equal_nan=True):
                raise AssertionError(f"node {i} ({node.op.display_name()}, built at "
                                     f"{node.site.short()}) is not deterministic")


def test_determinism_recipe(rng):
    x = T.matrix("x")
    y = T.softmax(T.dot(x, x.T)).sum(axis=1)
    recorder = DeterminismCheck()
    f = sn.function([x], y, mode=Mode(linker=WrapLinker([recorder.record])))
    value = rng.normal(size=(4, 4)).astype("float32")
    first = f(value)
    recorder.replaying = True
    np.testing.assert_array_equal(f(value), first)
    assert recorder.position == len(recorder.values) == len(f.nodes)
    recorder.position = 0
    with pytest.raises(AssertionError, match="is not deterministic"):
        f(value + 1)  # different inputs: the replay sees different values at node 0
