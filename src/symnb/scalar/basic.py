"""``symnb.scalar.basic``: Theano's ``theano.scalar.basic`` names extensions use: the
scalar types (``float64``, ``Scalar``, ``get_scalar_type``), the output types
preferences (``upgrade_to_float``...), the dtype rule of Python numbers
(``autocast_float``, ``autocast_float_as``, ``autocast_int``), the scalar op classes (``ScalarOp``,
``UnaryScalarOp``, ``BinaryScalarOp``) and the scalar ops symnb has as tensor ops
(``exp``, ``sgn``, ``add``...). symnb's scalars are 0-d tensors: a scalar op called on
tensors applies elementwise (``T.Elemwise(op)``). The code lives in
``symnb.core.tensor.scalar_types``, ``scalar_op`` and ``scalar_basic``.
"""

# ruff: noqa: F401
import numpy as np

from symnb.core.tensor.scalar_types import Scalar as Scalar
from symnb.core.tensor.scalar_types import get_scalar_type as get_scalar_type
from symnb.core.tensor.scalar_types import upcast as upcast
from symnb.core.tensor.autocast import NumpyAutocaster as NumpyAutocaster
from symnb.core.tensor.autocast import autocast_int as autocast_int
from symnb.core.tensor.autocast import autocast_float as autocast_float
from symnb.core.tensor.autocast import autocast_float_as as autocast_float_as
from symnb.core.tensor.scalar_types import bool as bool
from symnb.core.tensor.scalar_types import int8 as int8
from symnb.core.tensor.scalar_types import int16 as int16
from symnb.core.tensor.scalar_types import int32 as int32
from symnb.core.tensor.scalar_types import int64 as int64
from symnb.core.tensor.scalar_types import uint8 as uint8
from symnb.core.tensor.scalar_types import uint16 as uint16
from symnb.core.tensor.scalar_types import uint32 as uint32
from symnb.core.tensor.scalar_types import uint64 as uint64
from symnb.core.tensor.scalar_types import float16 as float16
from symnb.core.tensor.scalar_types import float32 as float32
from symnb.core.tensor.scalar_types import float64 as float64
from symnb.core.tensor.scalar_types import complex64 as complex64
from symnb.core.tensor.scalar_types import complex128 as complex128
from symnb.core.tensor.scalar_types import int_types as int_types
from symnb.core.tensor.scalar_types import uint_types as uint_types
from symnb.core.tensor.scalar_types import float_types as float_types
from symnb.core.tensor.scalar_types import complex_types as complex_types
from symnb.core.tensor.scalar_types import integer_types as integer_types
from symnb.core.tensor.scalar_types import discrete_types as discrete_types
from symnb.core.tensor.scalar_types import continuous_types as continuous_types
from symnb.core.tensor.scalar_types import all_types as all_types
from symnb.core.tensor.scalar_types import upcast_out as upcast_out
from symnb.core.tensor.scalar_types import upcast_out_nobool as upcast_out_nobool
from symnb.core.tensor.scalar_types import upcast_out_min8 as upcast_out_min8
from symnb.core.tensor.scalar_types import upgrade_to_float as upgrade_to_float
from symnb.core.tensor.scalar_types import upgrade_to_float64 as upgrade_to_float64
from symnb.core.tensor.scalar_types import same_out as same_out
from symnb.core.tensor.scalar_types import same_out_nobool as same_out_nobool
from symnb.core.tensor.scalar_types import same_out_min8 as same_out_min8
from symnb.core.tensor.scalar_types import upcast_out_no_complex as upcast_out_no_complex
from symnb.core.tensor.scalar_types import same_out_float_only as same_out_float_only
from symnb.core.tensor.scalar_types import transfer_type as transfer_type
from symnb.core.tensor.scalar_types import specific_out as specific_out
from symnb.core.tensor.scalar_types import int_out as int_out
from symnb.core.tensor.scalar_types import float_out as float_out
from symnb.core.tensor.scalar_types import upgrade_to_float_no_complex as upgrade_to_float_no_complex
from symnb.core.tensor.scalar_types import same_out_nocomplex as same_out_nocomplex
from symnb.core.tensor.scalar_types import int_out_nocomplex as int_out_nocomplex
from symnb.core.tensor.scalar_types import float_out_nocomplex as float_out_nocomplex
from symnb.core.tensor.scalar_types import unary_out_lookup as unary_out_lookup
from symnb.core.tensor.scalar_types import real_out as real_out
from symnb.core.tensor.scalar_op import ScalarOp as ScalarOp
from symnb.core.tensor.scalar_op import UnaryScalarOp as UnaryScalarOp
from symnb.core.tensor.scalar_op import BinaryScalarOp as BinaryScalarOp
from symnb.core.tensor.scalar_basic import TensorScalarOp as TensorScalarOp
from symnb.core.tensor.scalar_basic import add as add
from symnb.core.tensor.scalar_basic import mul as mul
from symnb.core.tensor.scalar_basic import sub as sub
from symnb.core.tensor.scalar_basic import true_div as true_div
from symnb.core.tensor.scalar_basic import int_div as int_div
from symnb.core.tensor.scalar_basic import floor_div as floor_div
from symnb.core.tensor.scalar_basic import mod as mod
from symnb.core.tensor.scalar_basic import pow as pow
from symnb.core.tensor.scalar_basic import maximum as maximum
from symnb.core.tensor.scalar_basic import minimum as minimum
from symnb.core.tensor.scalar_basic import neg as neg
from symnb.core.tensor.scalar_basic import abs_ as abs_
from symnb.core.tensor.scalar_basic import sgn as sgn
from symnb.core.tensor.scalar_basic import floor as floor
from symnb.core.tensor.scalar_basic import ceil as ceil
from symnb.core.tensor.scalar_basic import round_half_to_even as round_half_to_even
from symnb.core.tensor.scalar_basic import round_half_away_from_zero as round_half_away_from_zero
from symnb.core.tensor.scalar_basic import exp as exp
from symnb.core.tensor.scalar_basic import log as log
from symnb.core.tensor.scalar_basic import log1p as log1p
from symnb.core.tensor.scalar_basic import expm1 as expm1
from symnb.core.tensor.scalar_basic import sqrt as sqrt
from symnb.core.tensor.scalar_basic import sqr as sqr
from symnb.core.tensor.scalar_basic import sin as sin
from symnb.core.tensor.scalar_basic import cos as cos
from symnb.core.tensor.scalar_basic import tan as tan
from symnb.core.tensor.scalar_basic import tanh as tanh
from symnb.core.tensor.scalar_basic import erf as erf
from symnb.core.tensor.scalar_basic import identity as identity
from symnb.core.tensor.scalar_basic import eq as eq
from symnb.core.tensor.scalar_basic import neq as neq
from symnb.core.tensor.scalar_basic import lt as lt
from symnb.core.tensor.scalar_basic import le as le
from symnb.core.tensor.scalar_basic import gt as gt
from symnb.core.tensor.scalar_basic import ge as ge
from symnb.core.tensor.scalar_basic import and_ as and_
from symnb.core.tensor.scalar_basic import or_ as or_
from symnb.core.tensor.scalar_basic import xor as xor
from symnb.core.tensor.scalar_basic import invert as invert
from symnb.core.tensor.scalar_basic import isnan as isnan
from symnb.core.tensor.scalar_basic import isinf as isinf
from symnb.core.tensor.scalar_basic import switch as switch
from symnb.core.tensor.scalar_basic import clip as clip
from symnb.core.tensor.scalar_basic import Add as Add
from symnb.core.tensor.scalar_basic import Mul as Mul
from symnb.core.tensor.scalar_basic import Sub as Sub
from symnb.core.tensor.scalar_basic import TrueDiv as TrueDiv
from symnb.core.tensor.scalar_basic import IntDiv as IntDiv
from symnb.core.tensor.scalar_basic import Mod as Mod
from symnb.core.tensor.scalar_basic import Pow as Pow
from symnb.core.tensor.scalar_basic import Maximum as Maximum
from symnb.core.tensor.scalar_basic import Minimum as Minimum
from symnb.core.tensor.scalar_basic import Neg as Neg
from symnb.core.tensor.scalar_basic import Abs as Abs
from symnb.core.tensor.scalar_basic import Sgn as Sgn
from symnb.core.tensor.scalar_basic import Floor as Floor
from symnb.core.tensor.scalar_basic import Ceil as Ceil
from symnb.core.tensor.scalar_basic import RoundHalfToEven as RoundHalfToEven
from symnb.core.tensor.scalar_basic import RoundHalfAwayFromZero as RoundHalfAwayFromZero
from symnb.core.tensor.scalar_basic import Exp as Exp
from symnb.core.tensor.scalar_basic import Log as Log
from symnb.core.tensor.scalar_basic import Log1p as Log1p
from symnb.core.tensor.scalar_basic import Expm1 as Expm1
from symnb.core.tensor.scalar_basic import Sqrt as Sqrt
from symnb.core.tensor.scalar_basic import Sqr as Sqr
from symnb.core.tensor.scalar_basic import Sin as Sin
from symnb.core.tensor.scalar_basic import Cos as Cos
from symnb.core.tensor.scalar_basic import Tan as Tan
from symnb.core.tensor.scalar_basic import Tanh as Tanh
from symnb.core.tensor.scalar_basic import Erf as Erf
from symnb.core.tensor.scalar_basic import Identity as Identity
from symnb.core.tensor.scalar_basic import EQ as EQ
from symnb.core.tensor.scalar_basic import NEQ as NEQ
from symnb.core.tensor.scalar_basic import LT as LT
from symnb.core.tensor.scalar_basic import LE as LE
from symnb.core.tensor.scalar_basic import GT as GT
from symnb.core.tensor.scalar_basic import GE as GE
from symnb.core.tensor.scalar_basic import AND as AND
from symnb.core.tensor.scalar_basic import OR as OR
from symnb.core.tensor.scalar_basic import XOR as XOR
from symnb.core.tensor.scalar_basic import Invert as Invert
from symnb.core.tensor.scalar_basic import IsNan as IsNan
from symnb.core.tensor.scalar_basic import IsInf as IsInf
from symnb.core.tensor.scalar_basic import Switch as Switch
from symnb.core.tensor.scalar_basic import Clip as Clip
from symnb.core.graph.traceback_filter import entry_points as _entry_points

# theano.scalar.basic's hyperbolic, inverse trigonometric, log2/log10/exp2 and angle ops
from symnb.core.tensor.scalar_trig import (
    Inv as Inv, inv as inv, Cosh as Cosh, Sinh as Sinh, ArcSin as ArcSin, ArcCos as ArcCos, ArcTan as ArcTan, ArcTan2 as ArcTan2, ArcSinh as ArcSinh, ArcCosh as ArcCosh, ArcTanh as ArcTanh, Log2 as Log2, Log10 as Log10, Exp2 as Exp2, Deg2Rad as Deg2Rad, Rad2Deg as Rad2Deg, cosh as cosh, sinh as sinh, arcsin as arcsin, arccos as arccos, arctan as arctan, arctan2 as arctan2, arcsinh as arcsinh, arccosh as arccosh, arctanh as arctanh, log2 as log2, log10 as log10, exp2 as exp2, deg2rad as deg2rad, rad2deg as rad2deg,
)


def constant(x, name=None, dtype=None):
    """Theano's ``theano.scalar.constant(x, name=None, dtype=None)``: a scalar constant, of
    Theano's dtype for a Python number (56 is int8, 56.0 floatX). symnb's scalars are 0-d
    tensors, so it is ``T.constant``'s; a value that is not 0-d is refused."""
    from symnb.core.tensor.basic import constant as _tensor_constant

    out = _tensor_constant(x, dtype=dtype, name=name)
    if out.ndim != 0:
        raise TypeError(f"scalar.constant: {x!r} is not a scalar (it has {out.ndim} dimensions)")
    return out



# Theano's NumPy helpers of round_half_away_from_zero (its tests' reference; plain NumPy,
# no graph): floor(a + 0.5) above 0, ceil(a - 0.5) else, element by element.
def round_half_away_from_zero_(a):
    """Theano's scalar reference of ``round_half_away_from_zero``."""
    if a > 0:
        return np.floor(a + 0.5)
    return np.ceil(a - 0.5)


round_half_away_from_zero_vec64 = np.vectorize(round_half_away_from_zero_,
                                               doc="round_half_away_from_zero_vec64")
round_half_away_from_zero_vec32 = np.vectorize(round_half_away_from_zero_,
                                               doc="round_half_away_from_zero_vec32",
                                               otypes=["float32"])


def round_half_away_from_zero_vec(a):
    """Theano's array reference of ``round_half_away_from_zero`` (float32 stays float32)."""
    if getattr(a, "dtype", None) == np.float32:
        return round_half_away_from_zero_vec32(a)
    return round_half_away_from_zero_vec64(a)


__all__ = ['constant', 'round_half_away_from_zero_vec', 'Scalar', 'get_scalar_type', 'upcast', 'NumpyAutocaster', 'autocast_int', 'autocast_float', 'autocast_float_as', 'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float16', 'float32', 'float64', 'complex64', 'complex128', 'int_types', 'uint_types', 'float_types', 'complex_types', 'integer_types', 'discrete_types', 'continuous_types', 'all_types', 'upcast_out', 'upcast_out_nobool', 'upcast_out_min8', 'upgrade_to_float', 'upgrade_to_float64', 'same_out', 'same_out_nobool', 'same_out_min8', 'upcast_out_no_complex', 'same_out_float_only', 'transfer_type', 'specific_out', 'int_out', 'float_out', 'upgrade_to_float_no_complex', 'same_out_nocomplex', 'int_out_nocomplex', 'float_out_nocomplex', 'unary_out_lookup', 'real_out', 'ScalarOp', 'UnaryScalarOp', 'BinaryScalarOp', 'TensorScalarOp', 'add', 'mul', 'sub', 'true_div', 'int_div', 'floor_div', 'mod', 'pow', 'maximum', 'minimum', 'neg', 'abs_', 'sgn', 'floor', 'ceil', 'round_half_to_even', 'round_half_away_from_zero', 'exp', 'log', 'log1p', 'expm1', 'sqrt', 'sqr', 'sin', 'cos', 'tan', 'tanh', 'erf', 'identity', 'eq', 'neq', 'lt', 'le', 'gt', 'ge', 'and_', 'or_', 'xor', 'invert', 'isnan', 'isinf', 'switch', 'clip', 'Add', 'Mul', 'Sub', 'TrueDiv', 'IntDiv', 'Mod', 'Pow', 'Maximum', 'Minimum', 'Neg', 'Abs', 'Sgn', 'Floor', 'Ceil', 'RoundHalfToEven', 'RoundHalfAwayFromZero', 'Exp', 'Log', 'Log1p', 'Expm1', 'Sqrt', 'Sqr', 'Sin', 'Cos', 'Tan', 'Tanh', 'Erf', 'Identity', 'EQ', 'NEQ', 'LT', 'LE', 'GT', 'GE', 'AND', 'OR', 'XOR', 'Invert', 'IsNan', 'IsInf', 'Switch', 'Clip', 'Inv', 'inv', 'Cosh', 'Sinh', 'ArcSin', 'ArcCos', 'ArcTan', 'ArcTan2', 'ArcSinh', 'ArcCosh', 'ArcTanh', 'Log2', 'Log10', 'Exp2', 'Deg2Rad', 'Rad2Deg', 'cosh', 'sinh', 'arcsin', 'arccos', 'arctan', 'arctan2', 'arcsinh', 'arccosh', 'arctanh', 'log2', 'log10', 'exp2', 'deg2rad', 'rad2deg']

# Public entry points: an error they raise shows the user's line first.
_entry_points(globals())
