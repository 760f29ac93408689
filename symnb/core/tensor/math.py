"""Public elementwise functions: ``T.add``, ``T.exp``, ``T.switch`` ...

Each is one op instance applied to operands promoted as NumPy 2 does (``switch``'s
condition takes no part in the promotion, as in ``np.where``). ``log``, ``log1p`` and
``true_div`` build the unstable forms of :mod:`symnb.core.tensor.stable_forms` as their
stable equivalents.
"""

from __future__ import annotations

from typing import Any

from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.basic import as_tensor_args, as_tensor_variable
from symnb.core.tensor.variable import TensorVariable


def _function(op: ew.Elemwise, name: str, doc: str):
    probe = type(op).dtype_like or type(op).numpy_fn

    def apply(*operands: Any) -> TensorVariable:
        return op(*as_tensor_args(*operands, numpy_fn=probe))

    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = doc
    return apply


def _stabilized_function(op: ew.Elemwise, name: str, doc: str):
    """Like ``_function``, but a written form listed in
    :mod:`symnb.core.tensor.stable_forms` (``log(sigmoid(x))``, ``1 / (1 + exp(-x))``
    ...) is built as its stable equivalent."""
    probe = type(op).dtype_like or type(op).numpy_fn

    def apply(*operands: Any) -> TensorVariable:
        # Imported here: stable_forms needs the reduction and shape ops, which use this module.
        from symnb.core.tensor.stable_forms import stable_equivalent

        inputs = as_tensor_args(*operands, numpy_fn=probe)
        stable = stable_equivalent(op, inputs)
        return stable if stable is not None else op(*inputs)

    apply.__name__ = apply.__qualname__ = name
    apply.__doc__ = doc + _STABLE_NOTE
    return apply


_STABLE_NOTE = ("\n\nA numerically unstable form (see :mod:`symnb.core.tensor.stable_forms`) "
                "is built as its stable equivalent, whose gradient is stable too.")


_FUNCTIONS = {
    # name: (op class, doc)
    "add": (ew.Add, "x + y, elementwise with broadcasting."),
    "sub": (ew.Sub, "x - y."),
    "mul": (ew.Mul, "x * y."),
    "true_div": (ew.TrueDiv, "x / y (integers give float64, as in NumPy)."),
    "floor_div": (ew.FloorDiv, "x // y."),
    "mod": (ew.Mod, "x % y (sign of y, as in NumPy)."),
    "pow": (ew.Pow, "x ** y."),
    "maximum": (ew.Maximum, "Elementwise maximum (NaN propagates)."),
    "minimum": (ew.Minimum, "Elementwise minimum (NaN propagates)."),
    "neg": (ew.Neg, "-x."),
    "abs": (ew.Abs, "|x|."),
    "sign": (ew.Sign, "Sign of x (-1, 0 or 1)."),
    "round": (ew.Round, "Round half to even, as NumPy."),
    "floor": (ew.Floor, "Floor of x."),
    "ceil": (ew.Ceil, "Ceiling of x."),
    "exp": (ew.Exp, "e ** x."),
    "log": (ew.Log, "Natural logarithm."),
    "log1p": (ew.Log1p, "log(1 + x), accurate near 0."),
    "expm1": (ew.Expm1, "exp(x) - 1, accurate near 0."),
    "sqrt": (ew.Sqrt, "Square root."),
    "square": (ew.Square, "x * x."),
    "sin": (ew.Sin, "Sine."),
    "cos": (ew.Cos, "Cosine."),
    "tanh": (ew.Tanh, "Hyperbolic tangent."),
    "sigmoid": (ew.Sigmoid, "1 / (1 + exp(-x)), computed without overflow."),
    "softplus": (ew.Softplus, "log(1 + exp(x)), computed without overflow."),
    "erf": (ew.Erf, "The error function."),
    "eq": (ew.Eq, "x == y, a bool tensor."),
    "neq": (ew.Neq, "x != y, a bool tensor."),
    "lt": (ew.Lt, "x < y, a bool tensor."),
    "le": (ew.Le, "x <= y, a bool tensor."),
    "gt": (ew.Gt, "x > y, a bool tensor."),
    "ge": (ew.Ge, "x >= y, a bool tensor."),
    "and_": (ew.And, "x & y: logical and for bools, bitwise for integers."),
    "or_": (ew.Or, "x | y: logical or for bools, bitwise for integers."),
    "xor": (ew.Xor, "x ^ y: logical xor for bools, bitwise for integers."),
    "invert": (ew.Invert, "~x: logical not for bools, bitwise not for integers."),
    "isnan": (ew.IsNan, "True where x is NaN."),
    "isinf": (ew.IsInf, "True where x is +-inf."),
    "clip": (ew.Clip, "x limited to [a_min, a_max]."),
}

#: The functions whose written forms may be unstable (the outermost node of a form).
_STABILIZED = {"log", "log1p", "true_div"}

globals().update({
    name: (_stabilized_function if name in _STABILIZED else _function)(cls(), name, doc)
    for name, (cls, doc) in _FUNCTIONS.items()
})


def switch(cond: Any, a: Any, b: Any) -> TensorVariable:
    """Elementwise choice: where ``cond`` is true take ``a``, else ``b`` (both computed).

    The dtype is NumPy's ``np.where(cond, a, b)``: ``a`` and ``b`` are promoted together
    (a Python scalar taking its weak dtype next to the other branch), ``cond`` takes no
    part, so ``switch(int32_cond, x_float32, 0.5)`` is float32 and ``switch(c, 1, 2)``
    int64.
    """
    a, b = as_tensor_args(a, b)
    return _SWITCH(as_tensor_variable(cond), a, b)


_SWITCH = ew.Switch()

where = switch
divide = globals()["true_div"]
bitwise_not = globals()["invert"]


def identity(x: Any) -> TensorVariable:
    """A copy of x (an explicit node, e.g. to name an intermediate)."""
    return ew.Identity()(as_tensor_variable(x))


def stop_gradient(x: Any) -> TensorVariable:
    """x for values; a constant for differentiation (no gradient flows through it)."""
    return ew.StopGradient()(as_tensor_variable(x))


def cast(x: Any, dtype: Any) -> TensorVariable:
    """x converted to ``dtype`` (no node when it already has that dtype)."""
    x = as_tensor_variable(x)
    op = ew.Cast(dtype)
    if x.dtype == op.dtype:
        return x
    return op(x)


__all__ = list(_FUNCTIONS) + ["switch", "where", "divide", "bitwise_not", "identity", "stop_gradient", "cast"]
