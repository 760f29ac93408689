"""Theano's names for the parts of a loop on the ``Scan`` op (``op.inputs``, ``op.outputs``,
``inner_seqs``/``outer_seqs``, ``inner_non_seqs``/``outer_non_seqs``), the Theano internals
it refuses with the reason (``op.fn``...), and the ``outputs_info`` spellings Theano 1.0
accepts (``inplace``, ``taps=None``)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.absent import ABSENT_ATTRIBUTES, NotInSymnbError
from symnb.scan_module.scan_op import Scan
from tests.reference import assert_same


def _loop():
    x, h0, w = T.matrix("x"), T.vector("h0"), T.vector("w")
    out, _ = sn.scan(lambda xt, xt1, h, w: h * w + xt + xt1,
                     sequences=dict(input=x, taps=[0, 1]), outputs_info=h0, non_sequences=w)
    return (x, h0, w), out


def test_the_parts_of_a_loop_by_theano_names():
    (x, h0, w), out = _loop()
    node = out.owner
    op = node.op
    assert isinstance(op, Scan) and op.n_seqs == 1 and op.n_outs == 1
    assert op.inputs == op.inner.inputs and op.outputs == op.inner.outputs
    # inner inputs: the two taps of x, the state, then w
    assert [v.name for v in op.inner_seqs(op.inputs)] == ["x[t]", "x[t+1]"]
    assert op.inner_non_seqs(op.inputs) == [op.inputs[3]]
    assert op.outer_seqs(node) == [x] and op.outer_seqs(node.inputs) == [x]
    assert op.outer_non_seqs(node) == [w]
    # the step graph computes the step: one step by hand against NumPy
    f = sn.function(op.inputs, op.outputs[0])
    a, b, h, v = (np.arange(3, dtype="float32") + k for k in range(4))
    assert_same(f(a, b, h, v), h * v + a + b, "one step")


@pytest.mark.parametrize("name", sorted(ABSENT_ATTRIBUTES["symnb.scan_module.scan_op.Scan"]))
def test_theano_internals_are_refused_with_the_reason(name):
    _, out = _loop()
    with pytest.raises(NotInSymnbError) as info:
        getattr(out.owner.op, name)
    why = ABSENT_ATTRIBUTES["symnb.scan_module.scan_op.Scan"][name]
    assert why in str(info.value) and f"Scan.{name}" in str(info.value)
    assert info.value.theano_name == f"symnb.scan_module.scan_op.Scan.{name}"
    assert getattr(out.owner.op, name, "default") == "default"  # an AttributeError


def test_other_missing_attributes_are_plain_attribute_errors():
    _, out = _loop()
    with pytest.raises(AttributeError, match="'Scan' object has no attribute 'no_such'") as info:
        out.owner.op.no_such
    assert not isinstance(info.value, NotInSymnbError)


def test_inplace_in_outputs_info_is_ignored_as_in_theano_1():
    u0, u1, x0 = T.vector("u0"), T.vector("u1"), T.scalar("x0")
    out, _ = sn.scan(lambda a, b, h: h * 0.5 + a * b, sequences=[u0, u1],
                     outputs_info=[dict(initial=x0, inplace=u1)])
    a, b = np.array([1, 2, 3], "float32"), np.array([4, 5, 6], "float32")
    h, expected = np.float32(2), []
    for ai, bi in zip(a, b):
        h = h * np.float32(0.5) + ai * bi
        expected.append(h)
    assert_same(sn.function([u0, u1, x0], out)(a, b, 2), np.array(expected, "float32"), "inplace")


def test_taps_none_with_an_initial_state_reads_t_minus_1():
    x0 = T.vector("x0")
    with pytest.warns(UserWarning, match=r"taps=None; using taps \[-1\]") as record:
        out, _ = sn.scan(lambda h: h * 2, outputs_info=dict(initial=x0, taps=None), n_steps=3)
    assert record[0].filename == __file__  # the user's line
    value = np.array([1, -2], "float32")
    assert_same(sn.function([x0], out)(value), np.stack([value * 2, value * 4, value * 8]), "taps")


def test_unknown_keys_of_outputs_info_still_raise():
    with pytest.raises(KeyError, match="unknown key"):
        sn.scan(lambda h: h, outputs_info=dict(initial=T.vector(), tap=[-1]), n_steps=2)


def test_tensor_opt_assert_is_theanos_assert_op():
    x = T.vector("x")
    assert T.opt.assert_ is T.opt.assert_op
    f = sn.function([x], T.opt.assert_(x, T.all(x > 0)))
    assert_same(f(np.array([1, 2], "float32")), np.array([1, 2], "float32"), "assert_")
    with pytest.raises(AssertionError):
        f(np.array([1, -2], "float32"))
