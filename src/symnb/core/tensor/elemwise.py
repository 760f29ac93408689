"""Elementwise ops: NumPy broadcasting, NumPy 2 dtype rules, one small class per op,
made from its row of :mod:`symnb.core.tensor.elemwise_specs`.

The output dtype of each op is NumPy's own answer for the input dtypes (asked once
per dtype combination on empty arrays), so ``int32 / int32`` is float64 and
``x_float32 > 0.5`` is bool, exactly as in NumPy.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from symnb.core.graph.errors import build_error
from symnb.core.graph.basic import Apply, Variable
from symnb.core.graph.config import config
from symnb.core.graph.op import Op
from symnb.core.tensor.basic import as_tensor_args, as_tensor_variable
from symnb.core.tensor.elemwise_specs import SPECS, ElemwiseSpec, spec
from symnb.core.graph.type import TensorType, describe_shape

__all__ = ["Elemwise", "DimensionMismatch", "broadcast_static_shapes", "dimension_mismatch_message",
           "ELEMWISE_OPS", "ROW_SCALAR_OPS", "GRADIENTS", "Cast", "broadcasting", "install_scalar_elemwise"]


class BroadcastError(ValueError):
    """Static shapes that cannot broadcast."""


class DimensionMismatch(ValueError):
    """Input shapes of an elementwise node that do not broadcast.

    Not a ``SymnbError``: it says what failed, and the layer that catches it says where
    (a build error, a test value's report, or a compiled function's ``NodeFailure``).

    Raised by lowering rules, which name inputs by position (a compiled program may
    serve several equal graphs); ``with_names`` rewords it for the graph that failed.
    """

    def __init__(self, shapes: Sequence[tuple]) -> None:
        self.shapes = [tuple(s) for s in shapes]
        super().__init__(dimension_mismatch_message(self.shapes, [f"input #{i}" for i in range(len(shapes))]))

    def with_names(self, names: Sequence[str]) -> str:
        return dimension_mismatch_message(self.shapes, names)


def broadcast_static_shapes(shapes: Sequence[tuple[int | None, ...]]) -> tuple[int | None, ...]:
    """NumPy broadcasting of static shapes (``None`` = unknown); raise when impossible."""
    # Fast paths for the common cases: one operand, or operands of one shape next to
    # scalars (``y * 2.0``), with no length-1 axis to broadcast.
    shaped = [s for s in shapes if s] or [shapes[0]]
    first = shaped[0]
    if len(shaped) == 1 or all(s == first for s in shaped):
        if 1 not in first:
            return tuple(first)
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result: list[int | None] = []
    for axis in range(ndim):
        known = {s[axis] for s in padded if s[axis] is not None and s[axis] != 1}
        if len(known) > 1:
            raise BroadcastError(axis)
        if known:
            result.append(known.pop())
        elif all(s[axis] == 1 for s in padded):
            result.append(1)
        else:
            result.append(None)
    return tuple(result)


def dimension_mismatch_message(shapes: Sequence[tuple], names: Sequence[str]) -> str:
    """Theano's wording, with names: which inputs disagree on which axis."""
    names = [f"({n})" if " " in n else n for n in names]  # (x * 2).shape, not x * 2.shape
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    for axis in range(ndim):
        lengths = [(i, s[axis]) for i, s in enumerate(padded) if s[axis] not in (None, 1)]
        if len({n for _, n in lengths}) > 1:
            (i, a), (j, b) = lengths[0], next(x for x in lengths if x[1] != lengths[0][1])
            return (f"Input dimension mis-match: {names[i]}.shape{describe_shape(shapes[i])} and "
                    f"{names[j]}.shape{describe_shape(shapes[j])} differ on axis {axis - ndim} "
                    f"(input[{i}].shape[{axis - (ndim - len(shapes[i]))}] = {a}, "
                    f"input[{j}].shape[{axis - (ndim - len(shapes[j]))}] = {b})")
    return "shapes do not broadcast: " + ", ".join(describe_shape(s) for s in shapes)


class Elemwise(Op):
    """Base class: each subclass is made from a row of ``elemwise_specs.SPECS`` (its
    ``spec``), which gives the attributes below."""

    spec: ElemwiseSpec
    nin: int = 2
    #: The NumPy reference function.
    numpy_fn: Callable[..., Any]
    #: The NumPy function whose dtype rule this op follows (default: ``numpy_fn``).
    dtype_like: Callable[..., Any] | None = None
    #: Theano's scalar-op name, shown as ``Elemwise{name,no_inplace}``.
    scalar_name: str = ""
    #: ``perform`` converts the inputs to the output dtype before calling ``numpy_fn``
    #: (as the lowering does), for functions written for floats only.
    float_inputs: bool = False

    #: The fusion rewrite may fuse it into a ``Composite`` (an op made from a row).
    fusable = True
    #: Bool and integer inputs only give ``config.floatX`` (the row's flag: ``true_div``).
    discrete_gives_floatx = False

    def __new__(cls, *args: Any, **kwargs: Any) -> "Elemwise":
        # Theano's ``Elemwise(scalar_op, inplace_pattern=None, name=None)``: the op applying
        # a scalar op elementwise, whose class scalar_elemwise.py installs (it is built
        # on this one). A row's class is made with no arguments.
        if cls is Elemwise:
            if _from_scalar_op is None:
                raise TypeError("Elemwise(scalar_op) needs symnb.core.tensor imported")
            cls = _from_scalar_op
        return super().__new__(cls)

    @property
    def scalar_op(self) -> Any:
        """Theano's scalar op that this elementwise op applies (``T.neg``'s is
        ``theano.scalar.neg``, ``sigmoid``'s ``sigm.scalar_sigmoid``): the row's, which
        scalar_basic.py registers in :data:`ROW_SCALAR_OPS`."""
        op = ROW_SCALAR_OPS.get(self.spec.name)
        if op is None:
            raise AttributeError(f"{self.display_name()} has no scalar_op: Theano had no scalar "
                                 f"op of its own for symnb's {self.spec.name!r}")
        return op

    def display_name(self) -> str:
        return f"Elemwise{{{self.scalar_name},no_inplace}}"

    @property
    def name(self) -> str:
        """Theano's ``op.name`` of the ops ``T`` defines (``T.mul.name`` is
        ``'Elemwise{mul,no_inplace}'``, as Theano's graph-structures page prints it)."""
        return self.display_name()

    def public_name(self) -> str:
        return self.scalar_name

    def computes_in(self, node: Apply) -> str | None:
        """Double for Theano's integer division (its C code divides in double, then
        rounds to floatX); the inputs' own dtype for a comparison (bool) and for a real
        result of complex inputs (``abs``: cast to the real output, a complex input would
        lose its imaginary part); else None (the output's)."""
        inputs = np.result_type(*(v.type.numpy_dtype for v in node.inputs))
        if self.discrete_gives_floatx and inputs.kind in "biu":
            return "float64"
        out = node.outputs[0].type
        if out.dtype == "bool" or (inputs.kind == "c" and out.numpy_dtype.kind != "c"):
            return str(inputs)
        return None

    def output_dtype(self, dtypes: tuple[str, ...]) -> str:
        if self.discrete_gives_floatx and all(np.dtype(d).kind in "biu" for d in dtypes):
            return config.floatX  # read when the node is made, as Theano does
        return _numpy_result_dtype(type(self), dtypes)

    #: Theano's ``add(*xs)`` and ``mul(*xs)``: the op takes any number of operands,
    #: applied left to right (one node per pair; one operand is returned as it is).
    variadic: bool = False
    #: How many leading operands take no part in the promotion (``switch``'s condition,
    #: as in ``np.where``).
    unpromoted_leading: int = 0

    def __call__(self, *inputs: Any, name: str | None = None, return_list: bool = False) -> Any:
        if not self.variadic or len(inputs) == 2:
            return super().__call__(*inputs, name=name, return_list=return_list)
        if not inputs:
            raise build_error(f"{self.scalar_name} takes at least one operand", TypeError)
        operands = as_tensor_args(*inputs)  # promoted together, as NumPy promotes them
        if len(operands) == 1:
            return operands[0]
        result = operands[0]
        for operand in operands[1:-1]:
            result = super().__call__(result, operand)
        return super().__call__(result, operands[-1], name=name, return_list=return_list)

    def make_node(self, *inputs: Any) -> Apply:
        # A Python number is a constant of Theano's dtype (as_tensor_args), then the
        # operands are promoted as NumPy promotes arrays: ``T.exp`` is this op's
        # instance, called on anything.
        lead = self.unpromoted_leading
        inputs = [as_tensor_variable(v) for v in inputs[:lead]] + list(as_tensor_args(*inputs[lead:]))
        if len(inputs) != self.nin:
            raise TypeError(f"{self.scalar_name} takes {self.nin} input(s), got {len(inputs)}")
        dtype = self.output_dtype(tuple(v.type.dtype for v in inputs))
        return Apply(self, inputs, [TensorType(dtype, self.output_shape(inputs))])

    def output_shape(self, inputs: Sequence[Variable]) -> tuple[int | None, ...]:
        """The static shape of the outputs: the inputs' broadcast (a build error naming
        them when they cannot broadcast)."""
        shapes = [v.type.shape for v in inputs]
        try:
            return broadcast_static_shapes(shapes)
        except BroadcastError:
            raise build_error(DimensionMismatch(shapes), op=self, inputs=inputs) from None

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if self.float_inputs:
            dtype = node.outputs[0].type.numpy_dtype
            inputs = [np.asarray(a, dtype=dtype) for a in inputs]
        result = broadcasting(self.numpy_fn, inputs)
        return [np.asarray(result, dtype=node.outputs[0].type.numpy_dtype)]

    @property
    def nonfinite_raises_flag(self) -> bool:  # type: ignore[override]
        # IEEE arithmetic makes NaN or Inf from finite values only by raising the invalid,
        # overflow or divide flag, which NumPy checks after each ufunc call and cast.
        return type(self).perform is Elemwise.perform and isinstance(self.numpy_fn, np.ufunc)

    def perform_into(self, node: Apply, inputs: Sequence[np.ndarray], out: np.ndarray
                     ) -> list[np.ndarray] | None:
        """``perform``, writing the output into ``out`` (an array of the output's dtype
        and the inputs' broadcast shape, overlapping none of them); None when this op
        cannot: its NumPy function is not a ufunc, or computes in another dtype than
        the output's (then writing into ``out`` could round differently)."""
        fn = self.numpy_fn
        if not isinstance(fn, np.ufunc) or fn.nout != 1 or self.float_inputs \
                or self.dtype_like is not None or node.outputs[0].type.numpy_dtype != out.dtype:
            return None
        fn(*inputs, out=out)
        return [out]

    def infer_shape(self, node: Apply, input_shapes: Sequence[tuple]) -> list[tuple]:
        out_static = node.outputs[0].type.shape
        ndim = len(out_static)
        padded = [(1,) * (ndim - len(s)) + tuple(s) for s in input_shapes]
        # An input whose static length is 1 broadcasts, whatever form its entry has (a
        # symbolic constant 1 from a reshape's shape vector): max(1, n) would be 1 at n = 0.
        static = [(1,) * (ndim - v.type.ndim) + tuple(v.type.shape) for v in node.inputs]
        shape = []
        for axis in range(ndim):
            if out_static[axis] is not None:
                shape.append(out_static[axis])
                continue
            candidates = [s[axis] for s, known in zip(padded, static)
                          if not (isinstance(s[axis], int) and s[axis] == 1) and known[axis] != 1]
            if not candidates:  # every input has length 1 there (ints: a host callback's)
                shape.append(1)
                continue
            if all(isinstance(n, int) for n in candidates):  # lengths known as numbers
                shape.append(max(candidates))
                continue
            length = candidates[0]
            for other in candidates[1:]:
                length = _maximum(length, other)
            shape.append(length)
        return [tuple(shape)]

    def L_op(self, inputs, outputs, output_grads):
        from symnb.core.tensor.broadcast import sum_to_shape

        rule = GRADIENTS.get(type(self))
        if rule is None:
            return super().L_op(inputs, outputs, output_grads)
        grads = rule(inputs, outputs[0], output_grads[0])
        # Integer inputs get their gradient too (a float one: Theano's continuous
        # extension); sn.grad gives zeros itself where the output is integer-valued.
        if self.nin == 1:  # nothing was broadcast
            return list(grads)
        return [None if g is None else sum_to_shape(g, x) for g, x in zip(grads, inputs)]


def broadcasting(fn: Callable[..., Any], inputs: Sequence[np.ndarray]) -> Any:
    """``fn(*inputs)``, NumPy's broadcast failure raised as :class:`DimensionMismatch`."""
    try:
        return fn(*inputs)
    except ValueError as err:
        if "broadcast" in str(err):
            raise DimensionMismatch([np.shape(a) for a in inputs]) from None
        raise


@lru_cache(maxsize=None)
def _numpy_result_dtype(op_class: type, dtypes: tuple[str, ...]) -> str:
    fn = op_class.dtype_like or op_class.numpy_fn
    with np.errstate(all="ignore"):
        probe = fn(*(np.zeros(0, dtype=d) for d in dtypes))
    return str(np.asarray(probe).dtype)


# -- the ops: one class per row of elemwise_specs.SPECS ------------------------------------

#: The op class of each row, by the row's name.
_CLASSES: dict[str, type[Elemwise]] = {}


def _op_class(name: str) -> type[Elemwise]:
    """The op class of the row ``name``."""
    row = spec(name)
    _CLASSES[name] = type(row.op_name, (Elemwise,), {
        "__doc__": row.doc,
        "__module__": __name__,
        "spec": row,
        "nin": row.nin,
        "numpy_fn": staticmethod(row.numpy_fn),
        "dtype_like": staticmethod(row.dtype_like) if row.dtype_like is not None else None,
        "scalar_name": row.theano_name,
        "differentiable": row.differentiable,
        "discrete_outputs": row.discrete_outputs,
        "float_inputs": row.float_inputs,
        "discrete_gives_floatx": row.discrete_gives_floatx,
    })
    return _CLASSES[name]


# Bound one by one, so that readers and tools see each name.
Add = _op_class("add")
Add.variadic = True
Sub = _op_class("sub")
Mul = _op_class("mul")
Mul.variadic = True
TrueDiv = _op_class("true_div")
FloorDiv = _op_class("floor_div")
Mod = _op_class("mod")
Pow = _op_class("pow")
Maximum = _op_class("maximum")
Minimum = _op_class("minimum")
Neg = _op_class("neg")
Abs = _op_class("abs")
Sign = _op_class("sign")
RoundHalfToEven = _op_class("round_half_to_even")
RoundHalfAwayFromZero = _op_class("round_half_away_from_zero")
Floor = _op_class("floor")
Ceil = _op_class("ceil")
Trunc = _op_class("trunc")
Exp = _op_class("exp")
Log = _op_class("log")
Log1p = _op_class("log1p")
Expm1 = _op_class("expm1")
Sqrt = _op_class("sqrt")
Square = _op_class("square")
Sin = _op_class("sin")
Cos = _op_class("cos")
Tan = _op_class("tan")
Tanh = _op_class("tanh")
Sigmoid = _op_class("sigmoid")
Softplus = _op_class("softplus")
Erf = _op_class("erf")
Identity = _op_class("identity")
StopGradient = _op_class("stop_gradient")
Eq = _op_class("eq")
Neq = _op_class("neq")
Lt = _op_class("lt")
Le = _op_class("le")
Gt = _op_class("gt")
Ge = _op_class("ge")
And = _op_class("and_")
Or = _op_class("or_")
Xor = _op_class("xor")
Invert = _op_class("invert")
IsNan = _op_class("isnan")
IsInf = _op_class("isinf")
Switch = _op_class("switch")
Switch.unpromoted_leading = 1
Clip = _op_class("clip")


class Cast(Elemwise):
    """Convert to ``dtype`` (NumPy ``astype`` semantics)."""

    __props__ = ("dtype",)
    spec = spec("cast")
    nin = 1
    scalar_name = "cast"

    def __init__(self, dtype: Any) -> None:
        self.dtype = str(np.dtype(dtype))

    def display_name(self) -> str:
        return f"Elemwise{{Cast{{{self.dtype}}}}}"

    def output_dtype(self, dtypes: tuple[str, ...]) -> str:
        return self.dtype

    def perform(self, node: Apply, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [np.asarray(inputs[0]).astype(self.dtype)]


_CLASSES["cast"] = Cast

#: The op class of every row, in the rows' order (each row has one: checked here).
ELEMWISE_OPS: tuple[type[Elemwise], ...] = tuple(_CLASSES[row.name] for row in SPECS)

#: Theano's scalar op of each row, by the row's name (``Elemwise.scalar_op``): filled by
#: scalar_basic.py, which builds its scalar ops on this module's rows.
ROW_SCALAR_OPS: dict[str, Any] = {}

#: The class ``Elemwise(scalar_op)`` makes (Theano's way of making an elementwise op from
#: a scalar op): installed by ``scalar_elemwise.py``, which builds on this module.
_from_scalar_op: type[Elemwise] | None = None


def install_scalar_elemwise(op_class: type[Elemwise]) -> None:
    """Make ``Elemwise(scalar_op, ...)`` build an ``op_class``."""
    global _from_scalar_op
    _from_scalar_op = op_class


#: The gradient rule of each differentiable op class (``Elemwise.L_op`` reads it here),
#: registered by elemwise_grad.py: its rules build with math's functions, which are made
#: from these classes.
GRADIENTS: dict[type, Callable] = {}


def _maximum(a: Any, b: Any) -> Variable:
    """``T.maximum(a, b)`` of two lengths (math.py makes T.maximum from this module)."""
    return Maximum()(*as_tensor_args(a, b))
