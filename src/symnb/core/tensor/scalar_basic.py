"""Theano's scalar ops that symnb has as tensor ops (``theano.scalar.exp``, ``add``,
``sgn``, ``switch``...): each a :class:`TensorScalarOp` standing for a row of
:mod:`symnb.core.tensor.elemwise_specs`.

Called on tensors (as the grads of scalar ops call them: ``gz * sgn(x)``) one builds
its row's op (``T.exp``, ``T.sign``), which rewrites, fusion and printers know. In
``T.Elemwise(op)`` it computes with its row's NumPy function and lowers through its
row's rule. Made with an ``output_types_preference`` (``Exp(upgrade_to_float)``), it
types its outputs so, and is then an ``Elemwise(op)`` node; without one it types them
as its row does (NumPy's rules). A subclass that redefines ``impl`` is computed with its
own ``impl`` (and run from compiled programs as Python): the row no longer says what it
computes.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor import math
from symnb.core.tensor.scalar_op import BinaryScalarOp, ScalarOp, UnaryScalarOp
from symnb.core.tensor.scalar_types import get_scalar_type

__all__ = [
    "TensorScalarOp", "ROW_OP_CLASSES",
    "add", "mul", "sub", "true_div", "int_div", "floor_div", "mod", "pow", "maximum", "minimum",
    "neg", "abs_", "sgn", "floor", "ceil", "round_half_to_even", "round_half_away_from_zero",
    "exp", "log", "log1p", "expm1", "sqrt", "sqr", "sin", "cos", "tan", "tanh", "erf",
    "identity", "eq", "neq", "lt", "le", "gt", "ge", "and_", "or_", "xor", "invert", "isnan",
    "isinf", "switch", "clip", "scalar_sigmoid", "scalar_softplus",
    "Add", "Mul", "Sub", "TrueDiv", "IntDiv", "Mod", "Pow", "Maximum", "Minimum", "Neg", "Abs",
    "Sgn", "Floor", "Ceil", "RoundHalfToEven", "RoundHalfAwayFromZero", "Exp", "Log", "Log1p",
    "Expm1", "Sqrt", "Sqr", "Sin", "Cos", "Tan", "Tanh", "Erf", "Identity", "EQ", "NEQ", "LT",
    "LE", "GT", "GE", "AND", "OR", "XOR", "Invert", "IsNan", "IsInf", "Switch", "Clip",
    "ScalarSigmoid", "ScalarSoftplus",
]

#: The tensor op of each row, by the row's name (Cast, made per dtype, is not one).
_ROW_OPS: dict[str, ew.Elemwise] = {cls.spec.name: cls() for cls in ew.ELEMWISE_OPS if cls is not ew.Cast}


class TensorScalarOp(ScalarOp):
    """A scalar op computed as the row ``row`` of ``elemwise_specs`` (see the module)."""

    row: str = ""

    @property
    def row_op(self) -> ew.Elemwise:
        """The tensor op of the row (``Exp()``)."""
        return _ROW_OPS[self.row]

    def keeps_row(self) -> bool:
        """Whether the row computes this op: its class keeps symnb's ``impl``."""
        return type(self).impl is TensorScalarOp.impl

    def impl(self, *inputs: Any) -> Any:
        return _row_function(self.row, len(inputs))(*inputs)

    def array_impl(self, nin: int) -> Callable[..., Any] | None:
        return _row_function(self.row, nin) if self.keeps_row() else None

    def output_types(self, types: Sequence[Any]) -> Sequence[Any]:
        if getattr(self, "output_types_preference", None) is not None:
            return super().output_types(types)
        dtypes = [t.dtype for t in types]
        dtype = functools.reduce(lambda a, b: self.row_op.output_dtype((a, b)), dtypes) \
            if self.nin < 0 else self.row_op.output_dtype(tuple(dtypes))
        return (get_scalar_type(dtype),)

    def __call__(self, *inputs: Any, name: str | None = None, return_list: bool = False) -> Any:
        if not self.keeps_row() or getattr(self, "output_types_preference", None) is not None:
            return super().__call__(*inputs, name=name, return_list=return_list)
        out = getattr(math, self.row)(*inputs)
        if name is not None:
            out.name = name
        return [out] if return_list else out

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_gradients: Sequence[Variable]) -> list:
        if type(self).grad is not ScalarOp.grad:  # a subclass's own grad
            return self.grad(inputs, output_gradients)
        (g,) = output_gradients
        if self.nin < 0 and len(inputs) != 2:  # add / mul of any number of inputs
            if self.row == "add":
                return [g] * len(inputs)
            return [math.mul(g, *inputs[:i], *inputs[i + 1:]) for i in range(len(inputs))]
        rule = ew.GRADIENTS.get(type(self.row_op))
        if rule is None:  # no gradient flows through the row (comparisons, rounding)
            return [None] * len(inputs)
        return list(rule(list(inputs), outputs[0], g))


def _row_function(row: str, nin: int) -> Callable[..., Any]:
    """The row's NumPy function on arrays (``add``/``mul`` folded over ``nin`` inputs)."""
    op = _ROW_OPS[row]
    if nin == op.nin:
        return op.numpy_fn
    return lambda *arrays: functools.reduce(op.numpy_fn, arrays)


def _row_class(class_name: str, row: str, base: type[ScalarOp]) -> type[TensorScalarOp]:
    """The scalar op class of the row ``row``, named as Theano's (``Sgn`` for sign)."""
    return type(class_name, (TensorScalarOp, base), {
        "__module__": __name__, "row": row,
        "__doc__": f"Theano's scalar {class_name}: symnb's ``T.{row}`` on scalars."})


Add = _row_class("Add", "add", ScalarOp)
Mul = _row_class("Mul", "mul", ScalarOp)
Sub = _row_class("Sub", "sub", BinaryScalarOp)
TrueDiv = _row_class("TrueDiv", "true_div", BinaryScalarOp)
IntDiv = _row_class("IntDiv", "floor_div", BinaryScalarOp)
Mod = _row_class("Mod", "mod", BinaryScalarOp)
Pow = _row_class("Pow", "pow", BinaryScalarOp)
Maximum = _row_class("Maximum", "maximum", BinaryScalarOp)
Minimum = _row_class("Minimum", "minimum", BinaryScalarOp)
Neg = _row_class("Neg", "neg", UnaryScalarOp)
Abs = _row_class("Abs", "abs", UnaryScalarOp)
Sgn = _row_class("Sgn", "sign", UnaryScalarOp)
Floor = _row_class("Floor", "floor", UnaryScalarOp)
Ceil = _row_class("Ceil", "ceil", UnaryScalarOp)
RoundHalfToEven = _row_class("RoundHalfToEven", "round_half_to_even", UnaryScalarOp)
RoundHalfAwayFromZero = _row_class("RoundHalfAwayFromZero", "round_half_away_from_zero", UnaryScalarOp)
Exp = _row_class("Exp", "exp", UnaryScalarOp)
Log = _row_class("Log", "log", UnaryScalarOp)
Log1p = _row_class("Log1p", "log1p", UnaryScalarOp)
Expm1 = _row_class("Expm1", "expm1", UnaryScalarOp)
Sqrt = _row_class("Sqrt", "sqrt", UnaryScalarOp)
Sqr = _row_class("Sqr", "square", UnaryScalarOp)
Sin = _row_class("Sin", "sin", UnaryScalarOp)
Cos = _row_class("Cos", "cos", UnaryScalarOp)
Tan = _row_class("Tan", "tan", UnaryScalarOp)
Tanh = _row_class("Tanh", "tanh", UnaryScalarOp)
Erf = _row_class("Erf", "erf", UnaryScalarOp)
Identity = _row_class("Identity", "identity", UnaryScalarOp)
EQ = _row_class("EQ", "eq", BinaryScalarOp)
NEQ = _row_class("NEQ", "neq", BinaryScalarOp)
LT = _row_class("LT", "lt", BinaryScalarOp)
LE = _row_class("LE", "le", BinaryScalarOp)
GT = _row_class("GT", "gt", BinaryScalarOp)
GE = _row_class("GE", "ge", BinaryScalarOp)
AND = _row_class("AND", "and_", BinaryScalarOp)
OR = _row_class("OR", "or_", BinaryScalarOp)
XOR = _row_class("XOR", "xor", BinaryScalarOp)
Invert = _row_class("Invert", "invert", UnaryScalarOp)
IsNan = _row_class("IsNan", "isnan", UnaryScalarOp)
IsInf = _row_class("IsInf", "isinf", UnaryScalarOp)
Switch = _row_class("Switch", "switch", ScalarOp)
Clip = _row_class("Clip", "clip", ScalarOp)
Switch.nin = Clip.nin = 3
# Theano kept these two in theano.tensor.nnet.sigm (symnb.tensor.nnet.sigm names them).
ScalarSigmoid = _row_class("ScalarSigmoid", "sigmoid", UnaryScalarOp)
ScalarSoftplus = _row_class("ScalarSoftplus", "softplus", UnaryScalarOp)

#: Every class above (the lowering registers its row's rule for each).
ROW_OP_CLASSES: tuple[type[TensorScalarOp], ...] = tuple(
    cls for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, TensorScalarOp) and cls is not TensorScalarOp)

# Theano's instances (typed as their rows: see the module).
add = Add(name="add")
mul = Mul(name="mul")
sub = Sub(name="sub")
true_div = TrueDiv(name="true_div")
int_div = IntDiv(name="int_div")
floor_div = int_div
mod = Mod(name="mod")
pow = Pow(name="pow")  # noqa: A001  (Theano's name)
maximum = Maximum(name="maximum")
minimum = Minimum(name="minimum")
neg = Neg(name="neg")
abs_ = Abs(name="abs_")
sgn = Sgn(name="sgn")
floor = Floor(name="floor")
ceil = Ceil(name="ceil")
round_half_to_even = RoundHalfToEven(name="round_half_to_even")
round_half_away_from_zero = RoundHalfAwayFromZero(name="round_half_away_from_zero")
exp = Exp(name="exp")
log = Log(name="log")
log1p = Log1p(name="log1p")
expm1 = Expm1(name="expm1")
sqrt = Sqrt(name="sqrt")
sqr = Sqr(name="sqr")
sin = Sin(name="sin")
cos = Cos(name="cos")
tan = Tan(name="tan")
tanh = Tanh(name="tanh")
erf = Erf(name="erf")
identity = Identity(name="identity")
eq = EQ(name="eq")
neq = NEQ(name="neq")
lt = LT(name="lt")
le = LE(name="le")
gt = GT(name="gt")
ge = GE(name="ge")
and_ = AND(name="and_")
or_ = OR(name="or_")
xor = XOR(name="xor")
invert = Invert(name="invert")
isnan = IsNan(name="isnan")
isinf = IsInf(name="isinf")
switch = Switch(name="switch")
clip = Clip(name="clip")
scalar_sigmoid = ScalarSigmoid(name="scalar_sigmoid")
scalar_softplus = ScalarSoftplus(name="scalar_softplus")

# Each row's tensor op answers ``op.scalar_op`` with its scalar op, as Theano's Elemwise.
ew.ROW_SCALAR_OPS.update({op.row: op for op in (
    add, mul, sub, true_div, int_div, mod, pow, maximum, minimum, neg, abs_, sgn, floor, ceil,
    round_half_to_even, round_half_away_from_zero, exp, log, log1p, expm1, sqrt, sqr, sin, cos,
    tan, tanh, erf, identity, eq, neq, lt, le, gt, ge, and_, or_, xor, invert, isnan, isinf,
    switch, clip, scalar_sigmoid, scalar_softplus)})
