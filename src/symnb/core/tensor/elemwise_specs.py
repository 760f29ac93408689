"""One row per elementwise op: everything the core knows about it, in one place.

Each :class:`ElemwiseSpec` row gives an op's public name, arity, NumPy reference, dtype
rule, gradient rule, operator symbol and docstring. Derived from the rows:

- the op classes (``symnb.core.tensor.elemwise``: ``Add``, ``Exp``...);
- the public functions and their docstrings (``symnb.core.tensor.math``: ``T.add``...);
- the gradient registry (``elemwise.GRADIENTS``);
- the operator symbols both printers write (``pprint``'s ``(x + y)`` and the names of
  fused ``Composite`` nodes);
- and, keyed by the row's ``name``, the lowering (``symnb/lower_xla/rules/elemwise.py``),
  which refuses to load when a row has no rule.

To add an elementwise op: add its row here, bind its class in ``elemwise.py`` and its
function in ``math.py`` (one line each, so that tools see the names), and give its JAX
function in the lowering table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


__all__ = ["ElemwiseSpec", "SPECS", "spec", "UPGRADE_TO_FLOAT", "upgraded_to_float"]

#: Theano's ``upgrade_to_float``: the float dtype a bool or integer input of a
#: float-valued op (``sqrt``, ``exp``...) is computed in, holding every value exactly:
#: float32 for 8 and 16 bits, float64 for 32 and 64 (NumPy gives float16 for 8 bits).
UPGRADE_TO_FLOAT = {"bool": "float32", "int8": "float32", "int16": "float32",
                    "uint8": "float32", "uint16": "float32", "int32": "float64",
                    "int64": "float64", "uint32": "float64", "uint64": "float64"}


def upgraded_to_float(numpy_fn: Callable[..., Any]) -> Callable[..., Any]:
    """``numpy_fn``'s dtype rule on inputs first upgraded by :data:`UPGRADE_TO_FLOAT`
    (Theano's rule: ``sqrt`` of int8 is float32)."""
    def dtype_like(*arrays: np.ndarray) -> Any:
        return numpy_fn(*(a.astype(UPGRADE_TO_FLOAT.get(a.dtype.name, a.dtype)) for a in arrays))
    dtype_like.__name__ = f"upgraded_{getattr(numpy_fn, '__name__', 'fn')}"
    return dtype_like


@dataclass(frozen=True)
class ElemwiseSpec:
    """What defines one elementwise op."""

    #: The public function (``T.add``), and the row's key everywhere (the lowering too).
    name: str
    #: The Op class (``Add``).
    op_name: str
    nin: int
    #: The NumPy reference (None for ``cast``, whose op computes ``astype`` itself).
    numpy_fn: Callable[..., Any] | None
    #: The public function's docstring (and the op class's).
    doc: str
    #: Theano's scalar-op name, shown as ``Elemwise{name,no_inplace}`` (default ``name``).
    scalar_name: str = ""
    #: The NumPy function whose dtype rule the op follows (default ``numpy_fn``).
    dtype_like: Callable[..., Any] | None = None
    #: ``perform`` converts the inputs to the output dtype before calling ``numpy_fn`` (as
    #: the lowering does), for functions written for floats only.
    float_inputs: bool = False
    #: The name of its gradient rule in ``elemwise_grad.RULES`` (``rule(inputs, output, g)``:
    #: one gradient per input as if nothing were broadcast); None for an op through which no
    #: gradient flows. A name, not the function: the rules build with the public functions,
    #: which are made from these rows; elemwise_grad.py registers them (elemwise.GRADIENTS).
    grad: str | None = None
    #: The operator printers write: infix for two inputs (``+``), prefix for one (``-``).
    symbol: str | None = None
    #: The public function builds the unstable written forms it ends as their stable
    #: equivalents (see ``stable_forms``): ``log(sigmoid(x))``, ``1 / (1 + exp(-x))``.
    stabilized: bool = False
    #: Bool and integer inputs only give ``config.floatX`` (Theano's ``TrueDiv``: ``x / 2``
    #: of an int32 ``x`` is float32 under floatX=float32), computed in float64 and rounded
    #: to it, as Theano's C code does (``((double)x) / y``).
    discrete_gives_floatx: bool = False

    @property
    def theano_name(self) -> str:
        return self.scalar_name or self.name

    @property
    def differentiable(self) -> bool:
        """Whether the gradient reaches the inputs: through a rule, or as zeros through an
        op whose output is always bool (Theano's comparisons, bitwise ops, ``isnan``:
        ``sn.grad`` gives the zeros for every integer-valued output, no rule needed)."""
        return self.grad is not None or self.discrete_outputs

    @property
    def discrete_outputs(self) -> bool:
        """Whether the output is always bool or integer (:data:`BOOL_VALUED`): the op
        class's ``Op.discrete_outputs``."""
        return self.name in BOOL_VALUED


#: The rows whose output is bool whatever the inputs (or integer, for the bitwise ops on
#: integers): connected for the gradient, which is zeros through them (Theano).
BOOL_VALUED = frozenset({"eq", "neq", "lt", "le", "gt", "ge", "and_", "or_", "xor", "invert",
                         "isnan", "isinf"})


def _sigmoid(x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(x):  # |x| would drop the imaginary part: the formula itself
        return 1 / (1 + np.exp(-x))
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(np.zeros((), dtype=x.dtype), x)


def _round_half_away_from_zero(x: np.ndarray) -> np.ndarray:
    """C's ``round``: halves go away from zero (Theano's compiled ``round_half_away_from_zero``).

    ``x - trunc(x)`` is exact, so 0.49999997 stays 0 (``floor(x + 0.5)``, Theano's Python
    fallback, rounds the sum up to 1 in float32). Integers are already round."""
    x = np.asarray(x)
    if x.dtype.kind == "c":  # each part rounded, as np.round does
        return _round_half_away_from_zero(x.real) + 1j * _round_half_away_from_zero(x.imag)
    if x.dtype.kind != "f":
        return np.round(x)
    whole = np.trunc(x)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, and inf stays inf
        away = np.abs(x - whole) >= 0.5
    return np.where(away, whole + np.sign(x), whole)


_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(x):  # Theano's (SciPy's) erf of a complex number, not of its real part
        from scipy.special import erf

        return erf(x)
    return np.asarray(_erf_scalar(np.asarray(x, dtype=np.float64)), dtype=np.float64)


def _switch(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(cond.astype(bool), a, b)


def _where_dtype(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(cond, a, b)


def _identity(x: np.ndarray) -> np.ndarray:
    return np.array(x, copy=True)


S = ElemwiseSpec
SPECS: tuple[ElemwiseSpec, ...] = (
    # arithmetic
    S("add", "Add", 2, np.add, "x + y, elementwise with broadcasting.", grad="add", symbol="+"),
    S("sub", "Sub", 2, np.subtract, "x - y.", grad="sub", symbol="-"),
    S("mul", "Mul", 2, np.multiply, "x * y.", grad="mul", symbol="*"),
    S("true_div", "TrueDiv", 2, np.true_divide,
      "x / y (bool and integer inputs give config.floatX, as in Theano).",
      grad="true_div", symbol="/", stabilized=True, discrete_gives_floatx=True),
    S("floor_div", "FloorDiv", 2, np.floor_divide, "x // y.", scalar_name="int_div",
      grad="zero", symbol="//"),
    S("mod", "Mod", 2, np.mod, "x % y (sign of y, as in NumPy).", grad="mod", symbol="%"),
    S("pow", "Pow", 2, np.power, "x ** y.", grad="pow", symbol="**"),
    S("maximum", "Maximum", 2, np.maximum, "Elementwise maximum (NaN propagates).", grad="maximum"),
    S("minimum", "Minimum", 2, np.minimum, "Elementwise minimum (NaN propagates).", grad="minimum"),
    S("neg", "Neg", 1, np.negative, "-x.", grad="neg", symbol="-"),
    S("abs", "Abs", 1, np.absolute, "The absolute value ``|x|``.", grad="abs"),
    S("sign", "Sign", 1, np.sign, "Sign of x (-1, 0 or 1).", scalar_name="sgn", grad="zero"),  # Theano: sgn
    S("round_half_to_even", "RoundHalfToEven", 1, np.round, "Round half to even, as NumPy.",
      grad="zero"),
    S("round_half_away_from_zero", "RoundHalfAwayFromZero", 1, _round_half_away_from_zero,
      "Round half away from zero, as C's round.", dtype_like=np.round, grad="zero"),
    # Theano's floor, ceil and trunc upgrade integers to floats (NumPy 2 keeps them).
    S("floor", "Floor", 1, np.floor, "Floor of x.", dtype_like=upgraded_to_float(np.floor),
      float_inputs=True, grad="zero"),
    S("ceil", "Ceil", 1, np.ceil, "Ceiling of x.", dtype_like=upgraded_to_float(np.ceil),
      float_inputs=True, grad="zero"),
    S("trunc", "Trunc", 1, np.trunc, "x rounded toward zero.", dtype_like=upgraded_to_float(np.trunc),
      float_inputs=True, grad="zero"),
    # transcendental
    S("exp", "Exp", 1, np.exp, "e ** x.", dtype_like=upgraded_to_float(np.exp), float_inputs=True, grad="exp"),
    S("log", "Log", 1, np.log, "Natural logarithm.", dtype_like=upgraded_to_float(np.log), float_inputs=True, grad="log", stabilized=True),
    S("log1p", "Log1p", 1, np.log1p, "log(1 + x), accurate near 0.", dtype_like=upgraded_to_float(np.log1p), float_inputs=True, grad="log1p", stabilized=True),
    S("expm1", "Expm1", 1, np.expm1, "exp(x) - 1, accurate near 0.", dtype_like=upgraded_to_float(np.expm1), float_inputs=True, grad="expm1"),
    S("sqrt", "Sqrt", 1, np.sqrt, "Square root.", dtype_like=upgraded_to_float(np.sqrt), float_inputs=True, grad="sqrt"),
    S("square", "Square", 1, np.square, "x * x.", scalar_name="sqr", grad="square"),
    S("sin", "Sin", 1, np.sin, "Sine.", dtype_like=upgraded_to_float(np.sin), float_inputs=True, grad="sin"),
    S("cos", "Cos", 1, np.cos, "Cosine.", dtype_like=upgraded_to_float(np.cos), float_inputs=True, grad="cos"),
    S("tan", "Tan", 1, np.tan, "Tangent.", dtype_like=upgraded_to_float(np.tan), float_inputs=True, grad="tan"),
    S("tanh", "Tanh", 1, np.tanh, "Hyperbolic tangent.", dtype_like=upgraded_to_float(np.tanh), float_inputs=True, grad="tanh"),
    # Computed in the float dtype Theano's upgrade_to_float gives their input (bool ->
    # float32, int32 -> float64): -x is an error for bools, and abs(int8(-128)) wraps.
    S("sigmoid", "Sigmoid", 1, _sigmoid, "1 / (1 + exp(-x)), computed without overflow.",
      dtype_like=upgraded_to_float(np.exp), float_inputs=True, grad="sigmoid"),
    S("softplus", "Softplus", 1, _softplus, "log(1 + exp(x)), computed without overflow.",
      dtype_like=upgraded_to_float(np.exp), float_inputs=True, grad="softplus"),
    S("erf", "Erf", 1, _erf, "The error function.", dtype_like=upgraded_to_float(np.exp),
      float_inputs=True, grad="erf"),
    S("identity", "Identity", 1, _identity, "A copy of x (an explicit node, e.g. to name an "
      "intermediate).", grad="identity"),
    # The identity for values; for differentiation a constant (the seeds' block_gradient).
    S("stop_gradient", "StopGradient", 1, _identity, "x for values; a constant for "
      "differentiation (no gradient flows through it).", scalar_name="disconnected_grad"),
    # comparisons and logic: no gradient
    S("eq", "Eq", 2, np.equal, "x == y, a bool tensor."),
    S("neq", "Neq", 2, np.not_equal, "x != y, a bool tensor."),
    S("lt", "Lt", 2, np.less, "x < y, a bool tensor."),
    S("le", "Le", 2, np.less_equal, "x <= y, a bool tensor."),
    S("gt", "Gt", 2, np.greater, "x > y, a bool tensor."),
    S("ge", "Ge", 2, np.greater_equal, "x >= y, a bool tensor."),
    S("and_", "And", 2, np.bitwise_and, "x & y: logical and for bools, bitwise for integers.",
      symbol="&"),
    S("or_", "Or", 2, np.bitwise_or, "x | y: logical or for bools, bitwise for integers.", symbol="|"),
    S("xor", "Xor", 2, np.bitwise_xor, "x ^ y: logical xor for bools, bitwise for integers.",
      symbol="^"),
    S("invert", "Invert", 1, np.invert, "~x: logical not for bools, bitwise not for integers.",
      symbol="~"),
    S("isnan", "IsNan", 1, np.isnan, "True where x is NaN."),
    S("isinf", "IsInf", 1, np.isinf, "True where x is +-inf."),
    # three inputs
    S("switch", "Switch", 3, _switch, """Elementwise choice: where ``cond`` is true take ``a``,
    else ``b`` (both computed).

    The dtype is NumPy's ``np.where(cond, a, b)``: ``a`` and ``b`` are promoted together
    (a Python number a constant of Theano's dtype for it), ``cond`` takes no part, so
    ``switch(int32_cond, x_float32, 0.5)`` is float32 and ``switch(c, 1, 2)`` int8.""", dtype_like=_where_dtype, grad="switch"),
    S("clip", "Clip", 3, np.clip, "x limited to [a_min, a_max].", grad="clip"),
    # an op of its own (the target dtype is a parameter): elemwise.Cast
    S("cast", "Cast", 1, None, "x converted to ``dtype`` (NumPy's ``astype``; no node when it "
      "already has that dtype).", grad="cast"),
)
del S

_BY_NAME = {row.name: row for row in SPECS}


def spec(name: str) -> ElemwiseSpec:
    """The row named ``name`` (``"add"``)."""
    return _BY_NAME[name]
