"""``TensorType``: a dtype and a static shape (``None`` for an unknown length)."""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

import numpy as np

__all__ = ["TensorType", "DTYPES", "canonical_dtype", "is_float", "is_integer", "is_bool", "describe_shape"]

DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)

_ndim_names = {0: "scalar", 1: "vector", 2: "matrix", 3: "tensor3", 4: "tensor4"}


def is_float(dtype: str) -> bool:
    return dtype.startswith("float") or dtype.startswith("complex")


def is_integer(dtype: str) -> bool:
    return dtype.startswith("int") or dtype.startswith("uint")


def is_bool(dtype: str) -> bool:
    return dtype == "bool"


def describe_shape(shape: Iterable[int | None]) -> str:
    """``(2, 3)`` for a concrete shape, ``(?, 3)`` where a length is unknown."""
    parts = ["?" if s is None else str(s) for s in shape]
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"


_canonical_dtypes: dict[Any, str] = {}


def canonical_dtype(dtype: Any) -> str:
    """The dtype's NumPy name (``'float32'``), checked to be one symnb supports."""
    try:
        return _canonical_dtypes[dtype]
    except (KeyError, TypeError):
        pass
    name = str(np.dtype(dtype))
    if name not in DTYPES:
        raise TypeError(f"unsupported dtype {name!r}; symnb supports {', '.join(DTYPES)}")
    try:
        _canonical_dtypes[dtype] = name
    except TypeError:  # unhashable dtype-like
        pass
    return name


def _checked_length(length: Any, shape: tuple) -> int | None:
    if length is None:
        return None
    if int(length) != length or length < 0:
        raise ValueError(f"static shape entries must be None or lengths >= 0, got {shape}")
    return int(length)


class TensorType:
    """The type of a tensor variable: immutable, equal and hashable by (dtype, shape).

    Types are interned: building the same type twice returns the same object, which
    keeps graph construction cheap (thousands of nodes share a handful of types).
    """

    __slots__ = ("dtype", "shape", "numpy_dtype", "_hash")
    _interned: dict[tuple, "TensorType"] = {}

    # Registered by the tensor package, which sits above the IR (``register_variables``):
    # the class of this type's variables (``TensorVariable``: NumPy's operators and
    # methods), of its constants, and the function that makes a symbolic input of a type
    # (``make_input(type, name=None, test_value=None, shape=None)``).
    variable_type: type = None  # type: ignore[assignment]
    constant_type: type = None  # type: ignore[assignment]
    make_input: Callable[..., Any] = None  # type: ignore[assignment]

    @classmethod
    def register_variables(cls, variable_type: type, constant_type: type,
                           make_input: Callable[..., Any]) -> None:
        """Install the tensor package's variable classes and its input constructor."""
        cls.variable_type = variable_type
        cls.constant_type = constant_type
        cls.make_input = staticmethod(make_input)

    def __new__(cls, dtype: Any, shape: Iterable[int | None] = (),
                broadcastable: Iterable[bool] | None = None, name: str | None = None) -> "TensorType":
        # ``name``: Theano's label for a type, shown only in its own printouts; accepted so
        # that TensorType(dtype, broadcastable, name=...) runs, and not kept (types are
        # interned: equal types are one object).
        if broadcastable is not None:  # Theano's keyword: TensorType(dtype, broadcastable=...)
            if tuple(shape):
                raise TypeError("TensorType: give shape or broadcastable, not both")
            shape = tuple(1 if b else None for b in broadcastable)
        shape = tuple(shape)
        if shape and all(isinstance(n, (bool, np.bool_)) for n in shape):
            # Theano's TensorType(dtype, broadcastable): True is a length-1 axis.
            shape = tuple(1 if n else None for n in shape)
        key = (dtype, shape)
        try:
            return cls._interned[key]
        except (KeyError, TypeError):
            pass
        name = canonical_dtype(dtype)
        checked = tuple(_checked_length(n, shape) for n in shape)
        self = object.__new__(cls)
        object.__setattr__(self, "dtype", name)
        object.__setattr__(self, "shape", checked)
        object.__setattr__(self, "numpy_dtype", np.dtype(name))
        object.__setattr__(self, "_hash", hash((name, checked)))
        try:
            cls._interned[key] = self
        except TypeError:
            pass
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("TensorType is immutable")

    def __reduce__(self):
        return (TensorType, (self.dtype, self.shape))

    # ``T.dmatrix('x')`` (Theano: ``TensorType('float64', (False, False))('x')``): the
    # registered constructor, handed over by a C-level getter so that no frame of this
    # class stands between the user's line and an error it raises.
    __call__ = property(lambda self: functools.partial(self.make_input, self),
                        doc="``type(name=None, test_value=None, shape=None)``: a new symbolic "
                            "input of this type; ``shape`` may give lengths this type leaves "
                            "unknown (``T.fmatrix('x', shape=(None, 3))``).")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return tuple(s == 1 for s in self.shape)

    @property
    def fully_known(self) -> bool:
        return None not in self.shape

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TensorType)
                and self.dtype == other.dtype and self.shape == other.shape)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"TensorType({self.dtype}, shape={describe_shape(self.shape)})"

    def short(self) -> str:
        """A compact form for messages: ``float32 (?, 3)``."""
        return f"{self.dtype} {describe_shape(self.shape)}"

    @property
    def kind_name(self) -> str:
        return _ndim_names.get(self.ndim, f"tensor{self.ndim}")

    def clone(self, dtype: Any = None, shape: Iterable[int | None] | None = None) -> "TensorType":
        return TensorType(self.dtype if dtype is None else dtype, self.shape if shape is None else shape)

    def accepts_shape(self, shape: tuple[int, ...]) -> bool:
        """True when a concrete array shape fits this type's static shape."""
        if len(shape) != self.ndim:
            return False
        return all(s is None or s == n for s, n in zip(self.shape, shape))

    @staticmethod
    def values_eq(a: Any, b: Any, force_same_dtype: bool = True) -> bool:
        """Theano's ``TensorType.values_eq``: see :func:`symnb.core.graph.values_eq.values_eq`."""
        from symnb.core.graph.values_eq import values_eq

        return values_eq(a, b, force_same_dtype)

    @staticmethod
    def values_eq_approx(a: Any, b: Any, allow_remove_inf: bool = False,
                         allow_remove_nan: bool = False, rtol: float | None = None,
                         atol: float | None = None) -> bool:
        """Theano's ``TensorType.values_eq_approx``: see
        :func:`symnb.core.graph.values_eq.values_eq_approx`."""
        from symnb.core.graph.values_eq import values_eq_approx

        return values_eq_approx(a, b, allow_remove_inf, allow_remove_nan, rtol, atol)

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Theano's ``TensorType.may_share_memory``: for two NumPy arrays, NumPy's answer;
        False for anything else."""
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return False

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> np.ndarray:
        """Theano's ``TensorType.filter``: ``data`` as an array of this type, or TypeError.
        ``strict``: only an array of exactly this dtype; ``allow_downcast``: any cast;
        otherwise a cast that loses nothing (NumPy's safe casting, or, for Python
        numbers and lists, values that convert exactly), as Theano."""
        dtype = self.numpy_dtype
        if strict and not (isinstance(data, np.ndarray) and data.dtype == dtype):
            raise TypeError(f"{self.short()} is strict: expected an array of dtype {dtype}, "
                            f"got {type(data).__name__}")
        array = np.asarray(data)
        if array.dtype != dtype:
            converted = np.asarray(data, dtype=dtype) if allow_downcast else None
            if converted is None and np.can_cast(array.dtype, dtype, casting="safe"):
                converted = array.astype(dtype)
            if converted is None and not isinstance(data, np.ndarray):
                with np.errstate(all="ignore"):
                    attempt = array.astype(dtype)
                if np.array_equal(attempt, array, equal_nan=array.dtype.kind in "fc"):
                    converted = attempt
            if converted is None:
                raise TypeError(f"{self.short()}: casting {array.dtype} to {dtype} could lose "
                                f"information; pass allow_downcast=True to round it")
            array = converted
        if not self.accepts_shape(array.shape):
            raise TypeError(f"{self.short()}: got an array of shape {describe_shape(array.shape)}")
        return array

    def mismatch(self, value: np.ndarray) -> str | None:
        """Why ``value`` is not of this type (None when it is)."""
        if str(value.dtype) != self.dtype:
            return f"expected dtype {self.dtype}, got {value.dtype}"
        if value.ndim != self.ndim:
            return (f"expected {self.ndim} dimension(s) {describe_shape(self.shape)}, "
                    f"got {value.ndim} with shape {describe_shape(value.shape)}")
        if not self.accepts_shape(value.shape):
            return f"expected shape {describe_shape(self.shape)}, got {describe_shape(value.shape)}"
        return None
