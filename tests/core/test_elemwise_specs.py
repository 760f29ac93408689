"""``elemwise_specs.SPECS``: one row per elementwise op, from which the op classes, the
public functions, the gradient registry and the operator symbols of both printers come."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import math as tm
from symnb.core.tensor.composite import Composite
from symnb.core.tensor.elemwise_specs import SPECS, spec
from symnb.printing import pprint


def test_every_row_has_one_op_class_made_from_it():
    assert [cls.spec for cls in ew.ELEMWISE_OPS] == list(SPECS)
    # As many rows as op classes the module binds (a row added without its class, or a
    # class without its row, changes one count and not the other).
    bound = {value for value in vars(ew).values() if isinstance(value, type)
             and issubclass(value, ew.Elemwise) and getattr(value, "spec", None) is not None}
    assert len({row.name for row in SPECS}) == len(SPECS) == len(bound)
    for cls in ew.ELEMWISE_OPS:
        row = cls.spec
        assert cls.__name__ == row.op_name and getattr(ew, row.op_name) is cls
        assert cls.nin == row.nin and cls.scalar_name == row.theano_name
        if cls is not ew.Cast:
            assert cls.differentiable == row.differentiable and cls.__doc__ == row.doc


def test_every_row_has_its_public_function():
    for row in SPECS:
        function = getattr(tm, row.name)
        assert function.__doc__.startswith(row.doc)
        if isinstance(function, ew.Elemwise):
            # Theano's: T.tanh is the op's instance (a class attribute fn = T.tanh stays
            # the op); Op.__call__ filters the traceback.
            assert getattr(T, row.name) is function and type(function) is getattr(ew, row.op_name)
        else:
            # T's functions are the core ones behind the traceback filter (core/graph/traceback_filter.py).
            assert getattr(T, row.name).__wrapped__ is function
        if row.name not in ("switch", "cast"):  # written out: not every argument is promoted
            assert function.__name__ == row.name


def test_the_gradient_registry_is_the_rows_rules():
    from symnb.core.tensor.elemwise_grad import RULES

    assert ew.GRADIENTS == {cls: RULES[cls.spec.grad] for cls in ew.ELEMWISE_OPS
                            if cls.spec.grad is not None}
    assert ew.StopGradient not in ew.GRADIENTS and not ew.StopGradient.differentiable
    # Theano's: a comparison is connected, its gradient zeros (sn.grad's, no rule asked)
    assert ew.Lt.differentiable and ew.Lt.discrete_outputs and ew.Lt not in ew.GRADIENTS
    assert ew.Floor.differentiable and not ew.Floor.discrete_outputs  # a rule giving 0


@pytest.mark.parametrize("name, numpy_fn", [
    ("add", np.add), ("floor_div", np.floor_divide), ("exp", np.exp), ("xor", np.bitwise_xor),
    ("isinf", np.isinf), ("clip", np.clip)])
def test_the_row_gives_the_reference_and_the_dtype_rule(name, numpy_fn, rng):
    row = spec(name)
    values = [rng.integers(-3, 4, size=(2, 3)).astype("int16") for _ in range(row.nin)]
    with np.errstate(all="ignore"):
        expected = numpy_fn(*values)
    inputs = [T.tensor("int16", shape=(None, None), test_value=v) for v in values]
    with np.errstate(all="ignore"):  # its test value: x // 0
        out = getattr(T, name)(*inputs)
    assert out.dtype == str(expected.dtype)
    np.testing.assert_array_equal(out.test_value, expected)


def test_both_printers_write_the_rows_symbols():
    x, y = T.vector("x"), T.vector("y")
    expressions = {"add": "(x + y)", "sub": "(x - y)", "mul": "(x * y)", "true_div": "(x / y)",
                   "floor_div": "(x // y)", "mod": "(x % y)", "pow": "(x ** y)"}
    for name, text in expressions.items():
        assert spec(name).symbol == text[3:-3].strip()
        assert pprint(getattr(T, name)(x, y)) == text
    b, c = T.bvector("b"), T.bvector("c")
    assert pprint(T.and_(b, c)) == "(b & c)" and pprint(T.invert(b)) == "(~b)"
    assert pprint(-x) == "(-x)" and pprint(T.exp(x)) == "exp(x)"
    f = sn.function([b, c], T.invert(T.xor(b, c) | b))  # fused by the default optimizer
    (node,) = [n for n in f.nodes if isinstance(n.op, Composite)]
    assert node.op.display_name() == "Composite{(~((i0 ^ i1) | i0))}"
