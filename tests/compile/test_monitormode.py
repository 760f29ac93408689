"""MonitorMode: Theano's pre_func/post_func around each node (its debugging FAQ's
``inspect_inputs``/``inspect_outputs`` and ``detect_nan``), the storage cells they see,
and the linkers it accepts; values checked against NumPy."""

import numpy as np
import pytest

import symnb as theano
import symnb.tensor as T
from symnb.compile import Mode, WrapLinker
from symnb.compile.monitormode import MONITOR_LINKER_NAMES, MonitorMode
from symnb.gof import OpWiseCLinker
from symnb.tensor.shared_randomstreams import RandomStreams


def test_theano_faq_inspect_inputs_and_outputs_print_the_values(capsys):
    # Theano's debugging FAQ, as written there: the pre_func prints the inputs, the
    # post_func the outputs computed.
    def inspect_inputs(i, node, fn):
        print(i, node, "input(s) value(s):", [input[0] for input in fn.inputs], end="")

    def inspect_outputs(i, node, fn):
        print(" output(s) value(s):", [output[0] for output in fn.outputs])

    x = theano.tensor.dscalar("x")
    f = theano.function([x], [5 * x], mode=theano.compile.MonitorMode(
        pre_func=inspect_inputs, post_func=inspect_outputs))
    np.testing.assert_array_equal(f(3), [np.float64(5 * 3)])
    # Theano's FAQ shows 5.0 and array(5.): its rewrite local_upcast_elemwise_constant_inputs
    # cast the int8 constant 5 to float64 first; symnb keeps the constant as built (the
    # same product). docs/porting.md lists it.
    assert capsys.readouterr().out == (
        "0 Elemwise{mul,no_inplace}(5, x) input(s) value(s): [array(5, dtype=int8), array(3.)]"
        " output(s) value(s): [array(15.)]\n")


def test_pre_func_sees_empty_output_cells_that_post_func_sees_filled(rng):
    seen = []

    def pre(i, node, fn):
        assert fn.outputs == [[None]] * len(node.outputs)  # not computed yet
        seen.append((i, node, [cell[0] for cell in fn.inputs], fn.outputs))

    def post(i, node, fn):
        assert seen[-1][3] is fn.outputs  # the same cells, now filled

    x = T.dmatrix("x")
    w = theano.shared(rng.normal(size=(3, 2)), name="w")
    y = T.tanh(T.dot(x, w)).sum(axis=1) + 1
    f = theano.function([x], y, mode=MonitorMode(pre, post, optimizer=None))
    value = rng.normal(size=(4, 3))
    np.testing.assert_allclose(f(value), np.tanh(value @ w.get_value()).sum(axis=1) + 1)
    assert [i for i, *_ in seen] == list(range(len(f.nodes)))
    for _, node, inputs, outputs in seen:  # each node's outputs against its NumPy reference
        for (got,), want in zip(outputs, node.op.perform(node, inputs)):
            assert isinstance(got, np.ndarray)
            np.testing.assert_allclose(got, want)


def test_theano_faq_detect_nan_finds_the_node_that_made_it(capsys):
    def detect_nan(i, node, fn):  # Theano's FAQ (and theano.compile.monitormode)
        for output in fn.outputs:
            if (not isinstance(output[0], np.random.RandomState) and
                    np.isnan(output[0]).any()):
                print("*** NaN detected ***")
                theano.printing.debugprint(node)
                print("Inputs : %s" % [input[0] for input in fn.inputs])
                print("Outputs: %s" % [output[0] for output in fn.outputs])
                break

    x = T.dscalar("x")
    f = theano.function([x], [T.log(x) * x], mode=MonitorMode(post_func=detect_nan))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.log(0.0) * 0.0
    assert np.isnan(expected)
    np.testing.assert_array_equal(f(0), [expected])
    out = capsys.readouterr().out
    assert out.startswith("*** NaN detected ***\n") and "x" in out
    assert out.endswith("Inputs : [array(0.)]\nOutputs: [array(nan)]\n")


def test_detect_nan_reads_a_random_streams_key_cell_as_an_array():
    srng = RandomStreams(seed=4)
    cells = []
    f = theano.function([], srng.normal((3,), avg=2.0, std=1e-6, dtype="float64"),
                        mode=MonitorMode(post_func=lambda i, node, fn: cells.extend(fn.outputs)))
    drawn = f()
    np.testing.assert_allclose(drawn, [2.0] * 3, atol=1e-4)
    key, value = (cell[0] for cell in cells)
    assert key.dtype == np.uint32 and key.shape == (2,) and not np.isnan(key).any()
    np.testing.assert_array_equal(value, drawn)


@pytest.mark.parametrize("linker", [None, *MONITOR_LINKER_NAMES, OpWiseCLinker()],
                         ids=lambda linker: repr(linker) if isinstance(linker, (str, type(None)))
                         else type(linker).__name__)
def test_node_by_node_linkers_are_honoured(linker):
    calls = []
    x = T.dvector("x")
    mode = MonitorMode(pre_func=lambda i, node, fn: calls.append(("pre", i)),
                       post_func=lambda i, node, fn: calls.append(("post", i)), linker=linker)
    f = theano.function([x], T.exp(x) * x - 1, mode=mode)
    value = np.array([0.5, -2.0])
    np.testing.assert_allclose(f(value), np.exp(value) * value - 1)
    assert calls == [(k, i) for i in range(len(f.nodes)) for k in ("pre", "post")]


@pytest.mark.parametrize("linker, why", [
    ("c", "compiles the whole graph as one program"),
    ("cvm_fast", "not a linker MonitorMode knows"),
    (WrapLinker([lambda i, node, fn: fn()]), "runs each node between pre_func and post_func"),
])
def test_other_linkers_are_refused_naming_those_accepted(linker, why):
    with pytest.raises(ValueError, match=why) as caught:
        MonitorMode(post_func=print, linker=linker)
    message = str(caught.value)
    assert message.startswith(f"MonitorMode(linker={linker!r})")
    assert all(repr(name) in message for name in MONITOR_LINKER_NAMES)
    assert "OpWiseCLinker()" in message


def test_a_callback_that_replaces_a_cell_is_refused_and_an_inplace_write_too():
    x = T.dvector("x")

    def zero_the_input(i, node, fn):
        fn.inputs[0][0] = np.zeros(2)

    f = theano.function([x], T.exp(x), mode=MonitorMode(pre_func=zero_the_input))
    with pytest.raises(RuntimeError, match=r"pre_func replaced fn.inputs\[0\]\[0\] of node 0 \(Elemwise\{exp"):
        f(np.ones(2))

    def clip_the_output(i, node, fn):
        fn.outputs[0][0] = np.minimum(fn.outputs[0][0], 1.0)

    g = theano.function([x], T.exp(x), mode=MonitorMode(post_func=clip_the_output))
    with pytest.raises(RuntimeError, match=r"post_func replaced fn.outputs\[0\]\[0\]"):
        g(np.ones(2))

    def clip_in_place(i, node, fn):
        fn.outputs[0][0][:] = 0.0

    h = theano.function([x], T.exp(x), mode=MonitorMode(post_func=clip_in_place))
    with pytest.raises(ValueError, match="read-only"):
        h(np.ones(2))


def test_fn_called_in_pre_func_runs_the_node_once_and_fills_the_cells():
    seen = []

    def run_early(i, node, fn):
        fn()
        seen.append(fn.outputs[0][0])

    x = T.dvector("x")
    f = theano.function([x], T.sqrt(x), mode=MonitorMode(pre_func=run_early))
    np.testing.assert_allclose(f(np.array([4.0, 9.0])), [2.0, 3.0])
    np.testing.assert_allclose(seen[0], [2.0, 3.0])


def test_a_queried_copy_calls_its_own_callbacks():
    first, second = [], []
    mode = MonitorMode(post_func=lambda i, node, fn: first.append(i))
    copy = mode.excluding("fusion")
    copy.post_func = lambda i, node, fn: second.append(i)
    x = T.dvector("x")
    f = theano.function([x], T.exp(x) + 1, mode=copy)
    np.testing.assert_allclose(f(np.zeros(2)), [2.0, 2.0])
    assert first == [] and second == list(range(len(f.nodes)))
    g = theano.function([x], T.exp(x) + 1, mode=mode)
    np.testing.assert_allclose(g(np.zeros(2)), [2.0, 2.0])
    assert first == list(range(len(g.nodes)))


def test_monitor_mode_is_a_mode_with_default_optimizer():
    mode = MonitorMode()
    assert isinstance(mode, Mode) and mode.optimizer == "default"
    x = T.dvector("x")
    np.testing.assert_allclose(theano.function([x], x * 2, mode=mode)(np.arange(3.0)), [0, 2, 4])
