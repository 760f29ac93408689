"""Public elementwise functions: ``T.add``, ``T.exp``, ``T.switch`` ...

Each is one op instance applied to operands promoted as NumPy 2 does (``switch``'s
condition takes no part in the promotion, as in ``np.where``); its name and docstring
come from the op's row in :mod:`symnb.core.tensor.elemwise_specs`. Every function builds
what was written: the unstable forms of :mod:`symnb.core.tensor.stable_forms` (rows
marked ``stabilized``: ``log``, ``log1p``, ``true_div``) are made stable by the
``stabilize`` rewrite pass when a function is compiled, and by ``sn.grad`` for the
gradients it builds.
"""

from __future__ import annotations

from typing import Any, Callable

from symnb.core.tensor import elemwise as ew
from symnb.core.graph.basic import Variable
from symnb.core.graph.config import config
from symnb.core.graph.errors import build_error
from symnb.core.tensor.basic import as_tensor_variable

__all__ = [
    "add", "sub", "mul", "true_div", "floor_div", "mod", "pow", "maximum", "minimum", "neg",
    "abs", "sign", "round", "round_half_to_even", "round_half_away_from_zero", "floor", "ceil", "trunc",
    "exp", "log", "log1p", "expm1", "sqrt", "square",
    "sin", "cos", "tan", "tanh", "sigmoid", "softplus", "erf", "identity", "stop_gradient", "eq", "neq",
    "lt", "le", "gt", "ge", "and_", "or_", "xor", "invert", "isnan", "isinf", "clip", "switch",
    "where", "divide", "bitwise_not", "tensor_copy", "cast",
]

_STABLE_NOTE = ("\n\nA numerically unstable form (see :mod:`symnb.core.tensor.stable_forms`) "
                "is kept as written in the graph; compiling rewrites it to its stable "
                "equivalent, and ``sn.grad`` differentiates that equivalent.")


def _function(op_class: type[ew.Elemwise]) -> ew.Elemwise:
    """The public function of an op class: the op's instance, as in Theano (``T.tanh`` is
    an ``Elemwise`` op; a class attribute ``fn = T.tanh`` stays the op, never becomes a
    method), named and documented by its row. Calling it promotes the operands as NumPy 2
    does (``Elemwise.make_node``)."""
    row = op_class.spec
    op = op_class()
    object.__setattr__(op, "__name__", row.name)
    object.__setattr__(op, "__qualname__", row.name)
    object.__setattr__(op, "__doc__", row.doc + (_STABLE_NOTE if row.stabilized else ""))
    return op


add = _function(ew.Add)  # variadic: add(*xs), as in Theano (Elemwise.variadic)
sub = _function(ew.Sub)
mul = _function(ew.Mul)  # variadic: mul(*xs)
true_div = _function(ew.TrueDiv)
floor_div = _function(ew.FloorDiv)
mod = _function(ew.Mod)
pow = _function(ew.Pow)
maximum = _function(ew.Maximum)
minimum = _function(ew.Minimum)
neg = _function(ew.Neg)
abs = _function(ew.Abs)
sign = _function(ew.Sign)
round_half_to_even = _function(ew.RoundHalfToEven)
round_half_away_from_zero = _function(ew.RoundHalfAwayFromZero)
floor = _function(ew.Floor)
ceil = _function(ew.Ceil)
trunc = _function(ew.Trunc)
exp = _function(ew.Exp)
log = _function(ew.Log)
log1p = _function(ew.Log1p)
expm1 = _function(ew.Expm1)
sqrt = _function(ew.Sqrt)
square = _function(ew.Square)
sin = _function(ew.Sin)
cos = _function(ew.Cos)
tan = _function(ew.Tan)
tanh = _function(ew.Tanh)
sigmoid = _function(ew.Sigmoid)
softplus = _function(ew.Softplus)
erf = _function(ew.Erf)
identity = _function(ew.Identity)
stop_gradient = _function(ew.StopGradient)
eq = _function(ew.Eq)
neq = _function(ew.Neq)
lt = _function(ew.Lt)
le = _function(ew.Le)
gt = _function(ew.Gt)
ge = _function(ew.Ge)
and_ = _function(ew.And)
or_ = _function(ew.Or)
xor = _function(ew.Xor)
invert = _function(ew.Invert)
isnan = _function(ew.IsNan)
isinf = _function(ew.IsInf)
clip = _function(ew.Clip)

divide = true_div
bitwise_not = invert
tensor_copy = identity  # Theano's name for the copy node (TensorVariable.copy builds it)

# Written out: their arguments are not all promoted together.

#: ``T.round``'s modes, by name: Theano's.
_ROUND_MODES = {"half_to_even": round_half_to_even, "half_away_from_zero": round_half_away_from_zero}


def round(a: Any, mode: str | None = None) -> Variable:
    """``a`` rounded to whole numbers: halves to the even neighbour (``mode=None`` or
    ``'half_to_even'``, NumPy's and Theano 1.0's default) or away from zero
    (``'half_away_from_zero'``, C's ``round``)."""
    function = _ROUND_MODES.get(mode if mode is not None else "half_to_even")
    if function is None:
        accepted = ", ".join(repr(name) for name in _ROUND_MODES)
        raise build_error(f"round: mode={mode!r} is not a rounding mode; the modes are "
                          f"{accepted} (None means 'half_to_even')", ValueError)
    return function(a)


def _documented_by(op_class: type[ew.Elemwise]) -> Callable[[Callable], Callable]:
    def document(function: Callable) -> Callable:
        function.__doc__ = op_class.spec.doc
        return function

    return document


switch = _function(ew.Switch)  # the condition takes no part in the promotion (unpromoted_leading)


where = switch


@_documented_by(ew.Cast)
def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` (``'floatX'``: ``config.floatX``, as Theano's ``cast``)."""
    if isinstance(dtype, str) and dtype == "floatX":
        dtype = config.floatX
    x = as_tensor_variable(x)
    op = ew.Cast(dtype)
    if x.dtype == op.dtype:
        return x
    return op(x)
