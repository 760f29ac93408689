"""Theano's scalar types and the output-type rules of scalar ops (``theano.scalar``'s
``Scalar``, ``float64``..., ``upgrade_to_float``...), NumPy only.

A scalar op (:mod:`symnb.core.tensor.scalar_op`) states its output types from its input
types with an ``output_types_preference``: a function of :class:`Scalar` types returning
a tuple of them, as in Theano 1.0. symnb has no scalar variables of their own kind: a
scalar is a 0-d tensor, and ``Scalar('float64')()`` makes one (Theano's
``theano.scalar.float64()``).

Promotion is NumPy 2's (:func:`upcast`), which for these 0-d types is the table Theano's
``Scalar.upcast`` used (int8 with float32 gives float32, int32 with float32 float64).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from symnb.core.graph.config import config
from symnb.core.tensor.basic import tensor
from symnb.core.tensor.elemwise_specs import UPGRADE_TO_FLOAT

__all__ = [
    "Scalar", "get_scalar_type", "upcast",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
    "int_types", "uint_types", "float_types", "complex_types", "integer_types",
    "discrete_types", "continuous_types", "all_types", "complex_dtypes", "continuous_dtypes",
    "float_dtypes", "integer_dtypes", "discrete_dtypes", "all_dtypes", "int_dtypes", "uint_dtypes",
    "upcast_out", "upcast_out_nobool", "upcast_out_min8", "upgrade_to_float",
    "upgrade_to_float64", "same_out", "same_out_nobool", "same_out_min8",
    "upcast_out_no_complex", "same_out_float_only", "transfer_type", "specific_out",
    "int_out", "float_out", "upgrade_to_float_no_complex", "same_out_nocomplex",
    "int_out_nocomplex", "float_out_nocomplex", "unary_out_lookup", "real_out",
]

_builtin_bool = bool


def upcast(dtype: Any, *dtypes: Any) -> str:
    """The promoted dtype of ``dtype`` and ``dtypes`` (``'floatX'`` means config.floatX)."""
    names = [config.floatX if d == "floatX" else d for d in (dtype, *dtypes)]
    return str(np.result_type(*[np.dtype(d) for d in names]))


class Scalar:
    """The type of a scalar of ``dtype`` (Theano's ``theano.scalar.Scalar``). Calling it
    makes a 0-d tensor variable of that dtype."""

    __props__ = ("dtype",)
    ndim = 0

    def __init__(self, dtype: Any) -> None:
        self.dtype = str(np.dtype(config.floatX if dtype == "floatX" else dtype))

    def __eq__(self, other: object) -> _builtin_bool:
        return type(other) is Scalar and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash((Scalar, self.dtype))

    def __repr__(self) -> str:
        return self.dtype

    __str__ = __repr__

    @staticmethod
    def upcast(*types: "Scalar") -> str:
        """The promoted dtype of ``types`` (Theano's ``Scalar.upcast``)."""
        return upcast(*[t.dtype for t in types])

    def make_variable(self, name: str | None = None) -> Any:
        """A 0-d symbolic tensor of this dtype."""
        return tensor(self.dtype, (), name=name)

    __call__ = make_variable


_types: dict[str, Scalar] = {}


def get_scalar_type(dtype: Any) -> Scalar:
    """The :class:`Scalar` of ``dtype`` (one object per dtype, as Theano's cache)."""
    key = str(np.dtype(config.floatX if dtype == "floatX" else dtype))
    found = _types.get(key)
    if found is None:
        found = _types[key] = Scalar(key)
    return found


bool = get_scalar_type("bool")  # noqa: A001  (Theano's name)
int8 = get_scalar_type("int8")
int16 = get_scalar_type("int16")
int32 = get_scalar_type("int32")
int64 = get_scalar_type("int64")
uint8 = get_scalar_type("uint8")
uint16 = get_scalar_type("uint16")
uint32 = get_scalar_type("uint32")
uint64 = get_scalar_type("uint64")
float16 = get_scalar_type("float16")
float32 = get_scalar_type("float32")
float64 = get_scalar_type("float64")
complex64 = get_scalar_type("complex64")
complex128 = get_scalar_type("complex128")

int_types = int8, int16, int32, int64
uint_types = uint8, uint16, uint32, uint64
float_types = float16, float32, float64
complex_types = complex64, complex128
integer_types = int_types + uint_types
discrete_types = (bool,) + integer_types
continuous_types = float_types + complex_types
all_types = discrete_types + continuous_types

# Theano's theano.tensor.*_dtypes: the same groups as lists of dtype names.
complex_dtypes = [t.dtype for t in complex_types]
continuous_dtypes = [t.dtype for t in continuous_types]
float_dtypes = [t.dtype for t in float_types]
integer_dtypes = [t.dtype for t in integer_types]
discrete_dtypes = [t.dtype for t in discrete_types]
all_dtypes = [t.dtype for t in all_types]
int_dtypes = [t.dtype for t in int_types]
uint_dtypes = [t.dtype for t in uint_types]


# -- output types preferences (Theano 1.0's, theano/scalar/basic.py) ----------------------

def _refuse_complex(types: tuple[Scalar, ...]) -> None:
    if any(t in complex_types for t in types):
        raise TypeError(f"complex argument not supported (input types {list(types)})")


def upcast_out(*types: Scalar) -> tuple[Scalar]:
    """One output of the inputs' promoted type."""
    return (get_scalar_type(Scalar.upcast(*types)),)


def upcast_out_nobool(*types: Scalar) -> tuple[Scalar]:
    """``upcast_out``, refusing a bool result."""
    out = upcast_out(*types)
    if out[0] == bool:
        raise TypeError("bool output not supported")
    return out


def upcast_out_min8(*types: Scalar) -> tuple[Scalar]:
    """``upcast_out``, int8 where that is bool."""
    out = upcast_out(*types)
    return (int8,) if out[0] == bool else out


#: The float type each discrete type is computed in by ``upgrade_to_float`` (the table
#: the tensor ops' rows use too).
_TO_FLOAT = {get_scalar_type(d): get_scalar_type(f) for d, f in UPGRADE_TO_FLOAT.items()}


def upgrade_to_float(*types: Scalar) -> tuple[Scalar]:
    """Integers become float32 (8 and 16 bits) or float64 (32 and 64 bits), then the
    promoted type: no precision is lost."""
    return (get_scalar_type(Scalar.upcast(*[_TO_FLOAT.get(t, t) for t in types])),)


def upgrade_to_float64(*types: Scalar) -> tuple[Scalar]:
    """float64, whatever the inputs (as SciPy computes)."""
    return (float64,)


def same_out(type: Scalar) -> tuple[Scalar]:  # noqa: A002  (Theano's parameter name)
    """The input's type."""
    return (type,)


def same_out_nobool(type: Scalar) -> tuple[Scalar]:  # noqa: A002
    """The input's type, refusing bool."""
    if type == bool:
        raise TypeError("bool input not supported")
    return (type,)


def same_out_min8(type: Scalar) -> tuple[Scalar]:  # noqa: A002
    """The input's type, int8 for bool."""
    return (int8,) if type == bool else (type,)


def upcast_out_no_complex(*types: Scalar) -> tuple[Scalar]:
    """``upcast_out``, refusing complex inputs."""
    _refuse_complex(types)
    return upcast_out(*types)


def same_out_float_only(type: Scalar) -> tuple[Scalar]:  # noqa: A002
    """The input's type, which must be a float."""
    if type not in float_types:
        raise TypeError("only float type are supported")
    return (type,)


def int_out(*types: Scalar) -> tuple[Scalar]:
    """int64."""
    return (int64,)


def float_out(*types: Scalar) -> tuple[Scalar]:
    """float64."""
    return (float64,)


def upgrade_to_float_no_complex(*types: Scalar) -> tuple[Scalar]:
    """``upgrade_to_float``, refusing complex inputs."""
    _refuse_complex(types)
    return upgrade_to_float(*types)


def same_out_nocomplex(type: Scalar) -> tuple[Scalar]:  # noqa: A002
    """The input's type, refusing complex."""
    _refuse_complex((type,))
    return (type,)


def int_out_nocomplex(*types: Scalar) -> tuple[Scalar]:
    """int64, refusing complex inputs."""
    _refuse_complex(types)
    return (int64,)


def float_out_nocomplex(*types: Scalar) -> tuple[Scalar]:
    """float64, refusing complex inputs."""
    _refuse_complex(types)
    return (float64,)


def real_out(type: Scalar) -> tuple[Scalar]:  # noqa: A002
    """The real type of a complex input (complex64 -> float32), else the input's."""
    return ({complex64: float32, complex128: float64}.get(type, type),)


class _ByProps:
    """Equal and hashable by ``__props__`` (the preferences below are op properties)."""

    __props__: tuple[str, ...] = ()

    def _props(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__props__)

    def __eq__(self, other: object) -> _builtin_bool:
        return type(other) is type(self) and other._props() == self._props()

    def __hash__(self) -> int:
        return hash((type(self), self._props()))


class transfer_type(_ByProps):  # noqa: N801  (Theano's name)
    """Outputs typed after inputs: an int ``i`` gives input ``i``'s type, None the
    promoted type, a string that string (Theano's ``transfer_type(*transfer)``)."""

    __props__ = ("transfer",)

    def __init__(self, *transfer: int | str | None) -> None:
        if not all(t is None or isinstance(t, (int, str)) for t in transfer):
            raise TypeError(f"transfer_type takes ints, strings or None, got {transfer!r}")
        self.transfer = transfer

    def __str__(self) -> str:
        return f"transfer_type{{{self.transfer}}}"

    def __call__(self, *types: Scalar) -> list[Any]:
        promoted = upcast_out(*types)[0]
        return [promoted if t is None else t if isinstance(t, str) else types[t]
                for t in self.transfer]


class specific_out(_ByProps):  # noqa: N801
    """Fixed output types, whatever the inputs (Theano's ``specific_out(*spec)``)."""

    __props__ = ("spec",)

    def __init__(self, *spec: Scalar) -> None:
        self.spec = spec

    def __call__(self, *types: Scalar) -> tuple[Scalar, ...]:
        return self.spec


class unary_out_lookup:  # noqa: N801
    """Output types looked up in a table of input types (Theano's: a TypeError for a
    type the table lacks)."""

    def __init__(self, type_table: dict) -> None:
        self.tbl = type_table

    def __call__(self, *types: Scalar) -> list[Any]:
        key: Any = types[0] if len(types) == 1 else types
        try:
            found = self.tbl[key]
        except Exception:
            raise TypeError(f"no output type for input types {list(types)}") from None
        return found if isinstance(key, (list, tuple)) else [found]

    def __eq__(self, other: object) -> _builtin_bool:
        return type(other) is type(self) and other.tbl == self.tbl

    def __hash__(self) -> int:
        return hash(type(self))  # the table is not hashable (Theano's choice)


#: What the preferences above are: a function of input types giving output types.
Preference = Callable[..., Any]
