"""Every concrete Op has its NumPy perform, infer_shape, an XLA lowering rule (unless its
outputs' lengths depend on the values: it runs on the host), and (when differentiable) a
gradient rule. A new Op missing one of them fails here."""

import symnb  # noqa: F401  (imports every op module)
import symnb.lower_xla  # noqa: F401  (registers every lowering rule)
from symnb.core.graph.op import Op
from symnb.core.tensor.elemwise import Elemwise
from symnb.core.tensor.elemwise import GRADIENTS
from symnb.lower_xla.registry import lower


def _concrete_op_classes():
    found, stack = [], [Op]
    while stack:
        cls = stack.pop()
        subclasses = cls.__subclasses__()
        stack.extend(subclasses)
        # An op written in Python only (as_op's) is an extension, run from the program
        # as Python: tests/lower_xla/test_python_op.py checks it.
        if not subclasses and cls.__module__.startswith("symnb.") and not cls.perform_only:
            found.append(cls)
    return found


def missing_pieces(cls):
    default_rule = lower.dispatch(object)
    missing = []
    # An op whose outputs' lengths depend on the values (Unique) runs on the host between
    # two XLA programs (compile/split_program.py): XLA can hold no rule for it.
    if lower.dispatch(cls) is default_rule and not cls.length_from_values:
        missing.append("lowering rule")
    if cls.perform is Op.perform:
        missing.append("perform")
    if cls.infer_shape is Op.infer_shape:
        missing.append("infer_shape")
    differentiable = cls.differentiable if isinstance(cls.differentiable, bool) else True
    if differentiable and not cls.discrete_outputs:  # (zeros: sn.grad's, no L_op asked)
        # An elementwise op made from a row has its gradient rule in GRADIENTS; one with
        # an L_op of its own (Elemwise(scalar_op)'s: the scalar op's grad) needs none.
        if issubclass(cls, Elemwise) and cls.L_op is Elemwise.L_op and cls not in GRADIENTS:
            missing.append("gradient rule (its row in elemwise_specs.SPECS)")
        elif cls.L_op is Op.L_op:
            missing.append("L_op")
    return missing


def test_every_op_is_complete():
    classes = _concrete_op_classes()
    assert len(classes) > 60
    incomplete = {f"{c.__module__}.{c.__name__}": m for c in classes if (m := missing_pieces(c))}
    assert not incomplete, f"ops missing pieces: {incomplete}"


def test_the_check_catches_an_incomplete_op():
    class Half(Op):
        def perform(self, node, inputs):
            return [inputs[0] / 2]

    assert missing_pieces(Half) == ["lowering rule", "infer_shape", "L_op"]
