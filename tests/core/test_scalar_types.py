"""symnb.scalar's types and output types preferences: Theano 1.0's semantics
(theano/scalar/basic.py), checked against the table Theano wrote and NumPy's promotion."""

import numpy as np
import pytest

import symnb.tensor as T
from symnb import scalar


def test_scalar_types_are_one_object_per_dtype_and_equal_by_dtype():
    assert scalar.get_scalar_type("float64") is scalar.float64
    assert scalar.Scalar("int8") == scalar.int8 and hash(scalar.Scalar("int8")) == hash(scalar.int8)
    assert scalar.float32 != scalar.float64
    assert scalar.float32 in scalar.float_types and scalar.complex64 in scalar.complex_types
    assert scalar.bool in scalar.discrete_types and scalar.uint16 in scalar.integer_types


def test_a_scalar_type_makes_a_0d_tensor_of_its_dtype():
    x = scalar.float64("x")
    assert x.type == T.TensorType("float64", ()) and x.name == "x"


@pytest.mark.parametrize("inputs, expected", [
    # Theano's table: 8 and 16 bits to float32, 32 and 64 bits to float64.
    (("int8",), "float32"), (("bool",), "float32"), (("uint16",), "float32"),
    (("int32",), "float64"), (("int64",), "float64"), (("uint64",), "float64"),
    (("float32",), "float32"), (("float64",), "float64"), (("float16",), "float16"),
    (("int8", "float32"), "float32"), (("int32", "float32"), "float64"),
    (("complex64",), "complex64"),
])
def test_upgrade_to_float(inputs, expected):
    (out,) = scalar.upgrade_to_float(*[scalar.get_scalar_type(d) for d in inputs])
    assert out == scalar.get_scalar_type(expected)


def test_the_no_complex_preferences_refuse_complex_inputs():
    for preference in (scalar.upgrade_to_float_no_complex, scalar.upcast_out_no_complex,
                       scalar.int_out_nocomplex, scalar.float_out_nocomplex):
        with pytest.raises(TypeError, match="complex"):
            preference(scalar.float32, scalar.complex64)
    with pytest.raises(TypeError, match="complex"):
        scalar.same_out_nocomplex(scalar.complex128)
    assert scalar.upgrade_to_float_no_complex(scalar.int16) == (scalar.float32,)
    assert scalar.same_out_nocomplex(scalar.int16) == (scalar.int16,)


@pytest.mark.parametrize("dtypes", [("int8", "float32"), ("int32", "float32"), ("uint8", "int8"),
                                    ("int64", "float16"), ("bool", "bool")])
def test_upcast_out_is_numpys_promotion(dtypes):
    (out,) = scalar.upcast_out(*[scalar.get_scalar_type(d) for d in dtypes])
    assert out.dtype == str(np.result_type(*dtypes))


def test_the_bool_rules():
    with pytest.raises(TypeError, match="bool"):
        scalar.upcast_out_nobool(scalar.bool, scalar.bool)
    with pytest.raises(TypeError, match="bool"):
        scalar.same_out_nobool(scalar.bool)
    assert scalar.upcast_out_min8(scalar.bool, scalar.bool) == (scalar.int8,)
    assert scalar.same_out_min8(scalar.bool) == (scalar.int8,)
    assert scalar.same_out(scalar.bool) == (scalar.bool,)


def test_fixed_and_transferred_output_types():
    assert scalar.float_out(scalar.int8) == (scalar.float64,)
    assert scalar.int_out(scalar.float32) == (scalar.int64,)
    assert scalar.upgrade_to_float64(scalar.float32) == (scalar.float64,)
    assert scalar.real_out(scalar.complex64) == (scalar.float32,)
    assert scalar.specific_out(scalar.int32)(scalar.float64) == (scalar.int32,)
    # transfer_type: an int takes that input's type, None the promoted one.
    assert scalar.transfer_type(1, None)(scalar.int8, scalar.float32) == [scalar.float32, scalar.float32]
    assert scalar.transfer_type(0)(scalar.int8, scalar.float32) == [scalar.int8]
    assert scalar.transfer_type(1) == scalar.transfer_type(1) != scalar.transfer_type(0)
    with pytest.raises(TypeError):
        scalar.same_out_float_only(scalar.int32)
    lookup = scalar.unary_out_lookup({scalar.int8: scalar.int32})
    assert lookup(scalar.int8) == [scalar.int32]
    with pytest.raises(TypeError):
        lookup(scalar.int16)


def test_upcast_keeps_its_numpy_rule():
    assert scalar.upcast("int8", "float32") == "float32"
    assert scalar.upcast("int32", "float32") == "float64"
    assert scalar.Scalar.upcast(scalar.int8, scalar.uint8) == "int16"
