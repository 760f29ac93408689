"""Indexing, set/inc_subtensor and nonzero: NumPy perform path and XLA path against NumPy."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import TestValueError
from symnb.compile.dynamic_shapes import check_dynamic_shapes
from symnb.lower_xla.registry import DynamicShapeError
from symnb.core.graph.basic import toposort
from tests.reference import check_paths
from tests.reference import scaled_normal as _values

DTYPES = ["float32", "float64", "int32"]


BASIC = [
    1, -1, (1, 2), (-1, -2, 0), slice(1, 3), slice(None, None, -1), (slice(3, 0, -2), slice(None), 1),
    (Ellipsis, 1), (None, 0), (slice(None), None, slice(None, None, 2)), (Ellipsis, None),
    slice(5, 1), slice(10, 20), slice(-100, 100), (), (slice(None, None, -3), -1, slice(-1, None, -1)),
    (0, Ellipsis, 0), Ellipsis,
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", BASIC, ids=[repr(i) for i in BASIC])
def test_basic_indexing(index, dtype, rng):
    x = _values(rng, (4, 5, 3), dtype)
    check_paths(lambda v: v[index], [x], lambda a: a[index])


@pytest.mark.parametrize("shape,index", [
    ((0, 3), (slice(None), 1)), ((0, 3), slice(1, None)), ((1, 1), 0), ((1, 1), (slice(None), -1)),
    ((1,), slice(None, None, -1)), ((), ()), ((), None), ((2, 0), (1, slice(None, None, -1))),
])
def test_edge_shapes(shape, index, rng):
    x = _values(rng, shape, "float32")
    check_paths(lambda v: v[index], [x], lambda a: a[index])


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_symbolic_integer_index(dtype, rng):
    x = _values(rng, (4, 5), "float64")
    for i in [0, 3, -1, -4]:
        if dtype == "uint8" and i < 0:
            continue
        k = np.array(i, dtype=dtype)
        check_paths(lambda v, j: v[j], [x, k], lambda a, j: a[j])
        check_paths(lambda v, j: v[::-1, j], [x, k], lambda a, j: a[::-1, j])
        check_paths(lambda v, j: v[1:, j, None], [x, k], lambda a, j: a[1:, j, None])


def test_constant_tensor_with_run_time_index(rng):
    table = _values(rng, (4, 3), "float32")
    rows = np.array([2, 0, 2])
    check_paths(lambda j: T.constant(table)[j], [np.int64(-1)], lambda j: table[j])
    check_paths(lambda r: T.constant(table)[r, 1:], [rows], lambda r: table[r, 1:])
    y = _values(rng, (3,), "float32")

    def set_ref(j, w):
        out = table.copy()
        out[j] = w
        return out

    check_paths(lambda j, w: T.set_subtensor(T.constant(table)[j], w), [np.int64(-3), y], set_ref)

    def inc_ref(r, w):
        out = table.copy()
        np.add.at(out, (r, 0), w)
        return out

    check_paths(lambda r, w: T.inc_subtensor(T.constant(table)[r, 0], w), [rows, y], inc_ref)


def test_symbolic_slice_bounds_on_the_numpy_path(rng):
    x = T.matrix("x", test_value=_values(rng, (5, 4), "float32"))
    i = T.lscalar("i", test_value=np.int64(1))
    j = T.lscalar("j", test_value=np.int64(-1))
    step = T.lscalar("step", test_value=np.int64(-2))
    value = x.test_value
    np.testing.assert_array_equal(x[i:j].test_value, value[1:-1])
    np.testing.assert_array_equal(x[::step, i:].test_value, value[::-2, 1:])
    np.testing.assert_array_equal(x[j:i:step].test_value, value[-1:1:-2])
    assert x[i:j].type.shape == (None, None)


def test_slice_bounds_from_shapes_compile(rng):
    x = T.matrix("x", shape=(None, 6))
    out = x[: x.shape[0] // 2, 1: x.shape[1] - 1]
    value = _values(rng, (5, 6), "float32")
    np.testing.assert_array_equal(sn.function([x], out)(value), value[:2, 1:-1])


def test_run_time_slice_bounds_specialize_the_program(rng):
    x = T.matrix("x")
    i = T.lscalar("i")
    f = sn.function([x, i], x[i:])
    value = _values(rng, (3, 3), "float32")
    np.testing.assert_array_equal(f(value, 1), value[1:])
    np.testing.assert_array_equal(f(value, 2), value[2:])
    np.testing.assert_array_equal(f(value, 1), value[1:])
    assert f._static == (1,)


def test_run_time_slice_bounds_from_a_vector_split_the_program():
    # No fixed size, so never specialized on: the slice runs on the host.
    x = T.matrix("x")
    v = T.lvector("v")
    f = sn.function([x, v], x[v[0]:])
    values = np.arange(12, dtype="float32").reshape(4, 3)
    for start in (1, 3):
        np.testing.assert_array_equal(f(values, np.array([start])), values[start:])


def test_static_shapes():
    x = T.matrix("x", shape=(4, 5))
    i = T.lscalar("i", test_value=np.int64(0))
    assert x[1:3].type.shape == (2, 5)
    assert x[::-1].type.shape == (4, 5)
    assert x[None, :, 0].type.shape == (1, 4)
    assert x[7:].type.shape == (0, 5)
    assert x[i].type.shape == (5,)
    assert x[i:].type.shape == (None, 5)
    assert x[[0, 1, 1]].type.shape == (3, 5)
    assert x[:, [[0], [1]]].type.shape == (4, 2, 1)
    assert x[..., None].type.shape == (4, 5, 1)
    assert T.matrix("y", shape=(None, 5))[1:, ::2].type.shape == (None, 3)
    assert x[T.ivector("v")].type.shape == (None, 5)
    assert x[T.matrix("m", dtype="bool")].type.shape == (None,)


ADVANCED = [
    ([0, 2, -1],), ([0, 1], [2, 3]), (slice(None), [0, 0, 4]), ([1, 2], slice(None), [0, 2]),
    (slice(None), [[0], [1]], [0, 2]), (1, slice(None), [0, 2]), (slice(None), 1, [0, 2]),
    (Ellipsis, [0, 1]), ([0, 1], None, [0, 1]), (slice(None, None, -1), [4, 0]), ([],),
    ([[1, 2], [3, 0]], slice(1, None), None), ([-1, -2], Ellipsis, [2, 1]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", ADVANCED, ids=[repr(i) for i in ADVANCED])
def test_advanced_indexing_with_constants(index, dtype, rng):
    x = _values(rng, (4, 5, 3), dtype)
    check_paths(lambda v: v[index], [x], lambda a: a[index])


@pytest.mark.parametrize("idx_dtype", ["int64", "int32", "uint8", "int8"])
def test_advanced_indexing_with_symbolic_arrays(idx_dtype, rng):
    x = _values(rng, (4, 5, 3), "float32")
    rows = np.array([3, 0, 0, 2], dtype=idx_dtype)
    cols = np.array([[1], [2]], dtype=idx_dtype)
    check_paths(lambda v, r: v[r], [x, rows], lambda a, r: a[r])
    check_paths(lambda v, r: v[r, 1:, ::-1], [x, rows], lambda a, r: a[r, 1:, ::-1])
    check_paths(lambda v, r, c: v[r, c], [x, rows, cols], lambda a, r, c: a[r, c])
    check_paths(lambda v, r, c: v[r, :, c], [x, rows, cols], lambda a, r, c: a[r, :, c])
    check_paths(lambda v, c: v[:, c, 0], [x, cols], lambda a, c: a[:, c, 0])
    check_paths(lambda v, r: v[r[:0]], [x, rows], lambda a, r: a[r[:0]])


def test_constant_and_computed_masks_compile(rng):
    x = _values(rng, (3, 4), "float64")
    mask = x > 0
    check_paths(lambda v: v[mask], [x], lambda a: a[mask])
    check_paths(lambda v: v[mask.nonzero()], [x], lambda a: a[mask.nonzero()])
    check_paths(lambda v: v[:, mask[0]], [x], lambda a: a[:, mask[0]])
    check_paths(lambda v: v[T.constant(mask).nonzero()], [x], lambda a: a[mask.nonzero()])
    check_paths(lambda v: v[:, T.gt(T.constant(mask[1]), 0)], [x], lambda a: a[:, mask[1]])


def test_run_time_masks_on_the_numpy_path(rng):
    value = _values(rng, (3, 4, 2), "float32")
    mask_value = value[..., 0] > 0
    x = T.tensor3("x", test_value=value)
    mask = T.matrix("mask", dtype="bool", test_value=mask_value)
    np.testing.assert_array_equal(x[mask].test_value, value[mask_value])
    np.testing.assert_array_equal(x[mask.nonzero()].test_value, value[mask_value.nonzero()])
    np.testing.assert_array_equal(x[:, mask[0]].test_value, value[:, mask_value[0]])
    np.testing.assert_array_equal(T.nonzero_values(x).test_value, value[value.nonzero()])


def test_nonzero(rng):
    value = (rng.normal(size=(3, 4)) > 0).astype("int8")
    m = T.matrix("m", dtype="int8", test_value=value)
    rows, cols = m.nonzero()
    expected = np.nonzero(value)
    for var, ref in zip((rows, cols), expected):
        assert var.dtype == "int64" and var.type.shape == (None,)
        np.testing.assert_array_equal(var.test_value, ref)
    matrix = m.nonzero(return_matrix=True)
    assert matrix.type.shape == (2, None)
    np.testing.assert_array_equal(matrix.test_value, np.array(expected))
    np.testing.assert_array_equal(T.flatnonzero(m).test_value, np.flatnonzero(value))
    (single,) = T.vector("v", test_value=np.array([0, 1.5, 0, 2], "float32")).nonzero()
    np.testing.assert_array_equal(single.test_value, [1, 3])
    assert T.matrix("e", shape=(0, 3)).nonzero()[0].type.shape == (0,)
    with pytest.raises(ValueError, match="0-d"):
        T.scalar("s").nonzero()


def test_nonzero_of_constants_compiles(rng):
    value = (rng.normal(size=(3, 4)) > 0).astype("float32")
    np.testing.assert_array_equal(T.constant(value).nonzero()[1].eval(), np.nonzero(value)[1])
    np.testing.assert_array_equal(T.constant(value).nonzero(return_matrix=True).eval(),
                                  np.array(np.nonzero(value)))
    np.testing.assert_array_equal(T.flatnonzero(T.constant(value)).eval(), np.flatnonzero(value))


# -- set_subtensor / inc_subtensor -----------------------------------------------------

SET_CASES = [
    # index, shape of y
    ((slice(1, 3),), (5,)), ((slice(1, 3),), ()), ((slice(None, None, -1), 2), (4,)),
    ((slice(3, 0, -2), slice(None)), (2, 1)), ((1, None), (1, 5)), ((Ellipsis, -1), (1,)),
    (([0, 2, 3],), (3, 5)), (([0, 2, 3],), (5,)), ((slice(None), [4, 0]), (4, 1)),
    (([1, 2], [0, 3]), ()), (([1, 2], slice(None), None), (2, 5, 1)), ((slice(5, 1),), ()),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index,y_shape", SET_CASES, ids=[repr(c) for c in SET_CASES])
def test_set_and_inc_subtensor(index, y_shape, dtype, rng):
    x, y = _values(rng, (4, 5), dtype), _values(rng, y_shape, dtype)

    def set_ref(a, b):
        out = a.copy()
        out[index] = b
        return out

    def inc_ref(a, b):
        out = a.copy()
        np.add.at(out, index, b)
        return out

    check_paths(lambda v, w: T.set_subtensor(v[index], w), [x, y], set_ref)
    check_paths(lambda v, w: T.inc_subtensor(v[index], w), [x, y], inc_ref)


@pytest.mark.parametrize("dtype", DTYPES)
def test_inc_subtensor_accumulates_repeated_indices(dtype, rng):
    x = _values(rng, (4, 3), dtype)
    idx = np.array([0, 2, 0, 0, 3])
    y = _values(rng, (5, 3), dtype)

    def ref(a, i, b):
        out = a.copy()
        np.add.at(out, i, b)
        return out

    check_paths(lambda v, i, w: T.inc_subtensor(v[i], w), [x, idx, y], ref)
    check_paths(lambda v, i: T.inc_subtensor(v[i, 1], 1), [x, idx],
                lambda a, i: ref(a, (i, 1), np.ones((), dtype)))


def test_set_subtensor_values_and_dtypes(rng):
    x = T.matrix("x", test_value=_values(rng, (3, 3), "float32"))
    assert T.set_subtensor(x[0], 0).dtype == "float32"
    assert T.set_subtensor(x[0], T.dvector("d", test_value=np.ones(3))).dtype == "float32"
    assert T.inc_subtensor(x[0], T.ivector("i", test_value=np.ones(3, "int32"))).dtype == "float32"
    ints = T.imatrix("ints", test_value=np.zeros((2, 2), "int32"))
    with pytest.raises(TypeError, match="cannot store float32 values"):
        T.set_subtensor(ints[0], T.vector("f", test_value=np.ones(2, "float32")))
    with pytest.raises(TypeError, match="cannot store float32 values"):
        T.set_subtensor(ints[0], 0.5)


def test_set_subtensor_errors(rng):
    x = T.matrix("x", shape=(3, 4))
    with pytest.raises(TypeError, match=r"first argument must be the result of indexing.*'x', an input"):
        T.set_subtensor(x, 0)
    doubled = x * 2
    with pytest.raises(TypeError, match="doubled.*computed by Elemwise"):
        T.inc_subtensor(doubled, 1)
    with pytest.raises(ValueError, match=r"y \(float32 \(3,\)\) cannot be broadcast to x\[1:\], of static shape \(2, 4\)"):
        T.set_subtensor(x[1:], T.vector("y", shape=(3,)))
    with pytest.raises(TypeError, match="cannot be broadcast"):  # more dimensions: Theano's TypeError
        T.set_subtensor(x[0], T.matrix("big", shape=(2, 4)))
    # unknown static shapes: the test values catch it, on the user's line
    z = T.matrix("z", test_value=np.zeros((3, 4), "float32"))
    w = T.vector("w", test_value=np.zeros(3, "float32"))
    with pytest.raises(TestValueError, match=r"w of shape \(3,\) cannot be broadcast to z\[1:\], of shape \(2, 4\)"):
        T.set_subtensor(z[1:], w)


# -- the seed example and run-time masks -------------------------------------------------

def _seed_function():
    data = T.matrix("data")
    mask = T.matrix("mask", dtype="int8")
    indices = mask.nonzero()
    output = T.set_subtensor(data[indices], 0)
    return sn.function([data, mask], output)


def test_seed_masked_set_subtensor_zeroes_the_diagonal():
    f = _seed_function()
    toy_mask = np.zeros((3, 3), dtype="int8")
    np.fill_diagonal(toy_mask, 1)
    toy_data = np.arange(9, dtype="float32").reshape(3, 3)
    expected = toy_data.copy()
    expected[toy_mask.nonzero()] = 0
    result = f(toy_data, toy_mask)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, expected)
    # the same compiled program on other masks and shapes: padding never leaks
    for mask_value in [np.zeros((3, 3), "int8"), np.ones((3, 3), "int8"), np.eye(4, 2, dtype="int8")]:
        data_value = np.arange(mask_value.size, dtype="float32").reshape(mask_value.shape) + 1
        expected = data_value.copy()
        expected[mask_value.nonzero()] = 0
        np.testing.assert_array_equal(f(data_value, mask_value), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_run_time_masks_in_set_and_inc_subtensor(dtype, rng):
    x = _values(rng, (4, 5), dtype)
    m = (rng.normal(size=(4, 5)) > 0)
    row_mask = np.array([True, False, True, True])

    def ref(a, mask, b, op):
        out = a.copy()
        if op == "set":
            out[mask] = b
        else:
            np.add.at(out, mask.nonzero() if getattr(mask, "dtype", None) == bool else mask, b)
        return out

    check_paths(lambda v, k: T.set_subtensor(v[k], 7), [x, m], lambda a, k: ref(a, k, 7, "set"))
    check_paths(lambda v, k: T.inc_subtensor(v[k.nonzero()], 2), [x, m], lambda a, k: ref(a, k, 2, "inc"))
    # one value per selected position: y's length is the run-time count
    y = _values(rng, (int(m.sum()),), dtype)
    check_paths(lambda v, k, w: T.set_subtensor(v[k.nonzero()], w), [x, m, y],
                lambda a, k, w: ref(a, k, w, "set"))
    check_paths(lambda v, k, w: T.inc_subtensor(v[k], w), [x, m, y], lambda a, k, w: ref(a, k, w, "inc"))
    rows = _values(rng, (3, 5), dtype)
    check_paths(lambda v, k, w: T.set_subtensor(v[k], w), [x, row_mask, rows],
                lambda a, k, w: ref(a, k, w, "set"))
    check_paths(lambda v, k: T.set_subtensor(v[k, 1:], 0), [x, row_mask],
                lambda a, k: ref(a, (k.nonzero()[0], slice(1, None)), 0, "set"))
    check_paths(lambda v, k: T.inc_subtensor(v[:, k[0]], 1), [x, m],
                lambda a, k: ref(a, (slice(None), k[0].nonzero()[0]), 1, "inc"))


def test_mask_of_smaller_shape_than_data_keeps_padding_out(rng):
    # nonzero of a 2x2 mask indexes a 3x3 tensor: its padding must not land in-bounds
    x = T.matrix("x")
    m = T.matrix("m", dtype="int8")
    f = sn.function([x, m], T.inc_subtensor(x[m.nonzero()], 1))
    mask = np.array([[0, 1], [0, 0]], "int8")
    expected = np.zeros((3, 3), "float32")
    expected[0, 1] = 1
    np.testing.assert_array_equal(f(np.zeros((3, 3), "float32"), mask), expected)


def test_seed_with_int64_data_as_written():
    # The seed passes np.arange(9) (int64) for a floatX matrix: integers that convert
    # exactly are accepted, as Python scalars are, and the output stays float32.
    f = _seed_function()
    result = f(np.arange(9).reshape(3, 3), np.eye(3, dtype="int8"))
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, [[0, 1, 2], [3, 0, 5], [6, 7, 0]])


def _build_and_call(inputs, output, *values):
    f = sn.function(inputs, output, on_unused_input="ignore")
    return f(*values)


@pytest.mark.parametrize("use", ["read", "mask_read", "output", "arith"])
def test_run_time_nonzero_lengths_are_refused_in_one_program_and_split(use):
    x = T.matrix("x")
    mask = T.matrix("mask", dtype="int8")
    if use == "read":
        selected = x[mask.nonzero()]
        outputs, match = [selected], r"mask.nonzero\(\) depends on the values of mask"
    elif use == "mask_read":
        selected = x[T.gt(mask, 0)]
        outputs, match = [selected.sum()], r"x\[.*\] has a length that depends on the values"
    elif use == "output":
        outputs, match = list(mask.nonzero()), "it is an output of the function"
    else:
        outputs, match = [mask.nonzero()[0] + 1], r"used .*by Elemwise\{add"
    nodes = toposort(outputs, [x, mask])
    with pytest.raises(DynamicShapeError, match=match):
        check_dynamic_shapes(nodes, outputs)
    # The function splits there: the lengths are computed on the host (split_program.py).
    values = np.arange(6, dtype="float32").reshape(2, 3)
    given = np.array([[1, 0, 1], [0, 0, 1]], "int8")
    expected = {"read": [values[given.nonzero()]], "mask_read": [values[given > 0].sum()],
                "output": list(given.nonzero()), "arith": [given.nonzero()[0] + 1]}[use]
    results = _build_and_call([x, mask], outputs, values, given)
    for result, reference in zip(results, expected, strict=True):
        np.testing.assert_array_equal(result, reference)


def test_allowed_nonzero_uses_pass_the_check():
    x = T.matrix("x")
    mask = T.matrix("mask", dtype="int8")
    outputs = [T.set_subtensor(x[mask.nonzero()], 0), T.inc_subtensor(x[T.gt(mask, 0)], 1),
               x[T.constant(np.eye(2)).nonzero()]]
    check_dynamic_shapes(toposort(outputs, [x, mask]), outputs)


# -- errors ------------------------------------------------------------------------------

def test_out_of_range_index_at_build_time():
    x = T.matrix("x", shape=(None, 3))
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 1 of x, which has length 3"):
        x[0, 5]
    with pytest.raises(IndexError, match=r"index -4 is out of bounds for axis 1 of x"):
        x[:, -4]
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 1 of x"):
        x[:, [0, 3]]
    with pytest.raises(IndexError, match="too many indices: x has 2 dimension"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="only integers, slices"):
        x[T.scalar("f")]
    with pytest.raises(IndexError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match="slice bounds must be integer"):
        x[:T.scalar("f")]
    with pytest.raises(IndexError, match="boolean index mask does not match x along axis 1"):
        x[:, T.vector("mask", dtype="bool", shape=(4,))]
    with pytest.raises(IndexError, match="cannot be broadcast together"):
        x[[0, 1], [0, 1, 2]]


def test_out_of_range_index_at_test_value_time(rng):
    x = T.matrix("x", test_value=np.zeros((2, 3), "float32"))
    with pytest.raises(TestValueError, match=r"index 3 is out of bounds for axis 1 of x, which has length 3") as info:
        bad = x[:, 3]  # noqa: F841
    assert "bad = x[:, 3]" in str(info.value)
    i = T.lscalar("i", test_value=np.int64(-3))
    with pytest.raises(TestValueError, match=r"index -3 in i is out of bounds for axis 0 of x"):
        x[i]
    rows = T.lvector("rows", test_value=np.array([0, 2]))
    with pytest.raises(TestValueError, match=r"index 2 in rows is out of bounds for axis 0 of x"):
        T.inc_subtensor(x[rows], 1)
    mask = T.vector("mask", dtype="bool", test_value=np.array([True, False, True]))
    with pytest.raises(TestValueError, match="boolean index mask does not match x along axis 0"):
        x[mask]


def test_display_names():
    x = T.tensor3("x")
    i = T.lscalar("i")
    assert x[1:i, ::-1, None].owner.op.display_name() == "Subtensor{1:?, ::-1, None}"
    assert x[T.ivector("v"), ..., 0].owner.op.display_name() == "AdvancedSubtensor{[], ..., 0}"
    assert T.set_subtensor(x[0], 1).owner.op.display_name() == "IncSubtensor{set; 0}"
    assert T.inc_subtensor(x[T.matrix("m", dtype="bool")], 1).owner.op.display_name() == \
        "AdvancedBooleanIncSubtensor{inc; mask2d}"


def _evaluated_shape(var, input_shapes):
    node = var.owner
    shape = node.op.infer_shape(node, input_shapes)[0]
    return tuple(s if isinstance(s, int) else int(s.test_value) for s in shape)


def test_infer_shape_matches_numpy():
    value = np.zeros((7, 5), "float32")
    x = T.matrix("x", test_value=value)
    x_shape = (x.shape[0], x.shape[1])
    for start, stop, step in [(None, None, -1), (-9, 3, 2), (6, -9, -3), (2, 10, None), (9, 0, -1),
                              (0, 0, 1), (-3, None, -2), (None, -2, 3)]:
        parts = [None if v is None else T.lscalar(test_value=np.int64(v)) for v in (start, stop, step)]
        sliced = x[slice(*parts), 1:]
        shapes = [x_shape] + [()] * (len(sliced.owner.inputs) - 1)
        assert _evaluated_shape(sliced, shapes) == value[start:stop:step, 1:].shape
    mask = T.matrix("mask", dtype="bool", test_value=value == 0)
    rows = T.lvector("rows", test_value=np.array([1, 2, 2]))
    for var, expected in [(x[mask], (35,)), (x[rows, ::2], (3, 3)), (x[:, rows[:, None], None], (7, 3, 1, 1))]:
        shapes = [x_shape] + [tuple(v.shape[k] for k in range(v.ndim)) for v in var.owner.inputs[1:]]
        assert _evaluated_shape(var, shapes) == expected
    (nz, _) = mask.nonzero()
    assert int(nz.owner.op.infer_shape(nz.owner, [x_shape])[0][0].test_value) == 35
