"""lower_xla/rules/python_op.py: ops written in Python only (perform, no lowering rule)
run inside compiled programs through a host callback. Values against NumPy, gradients
against finite differences; errors at the user's line; shared variables, NanGuardMode,
scan, var.eval() and the disk cache."""

import json
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.compile import NanGuardMode
from symnb.compile.ops import as_op
from symnb.lower_xla.registry import holds_host_ops, runs_on_host
from tests.python_ops import (
    AtMostThreeRows, CubeOp, DoubleOp, DoubleOpTyped, FirstElement, FirstElementClaimingSameShape,
    FirstElementFixed, double, numpy_dot_shape,
)

_SOURCES = os.path.dirname(os.path.dirname(sn.__file__))


@as_op(itypes=[T.fmatrix, T.fmatrix], otypes=[T.fmatrix], infer_shape=numpy_dot_shape)
def numpy_dot(a, b):
    return np.dot(a, b)


@as_op(itypes=[T.TensorType("float64", (3,))], otypes=[T.TensorType("float64", (3,))])
def reversed3(x):
    return x[::-1]


def test_double_op_runs_in_the_compiled_function_for_any_shape():
    x = T.dmatrix("x", test_value=np.ones((2, 2)))
    y = DoubleOp()(x)
    f = sn.function([x], y + 1)
    assert runs_on_host(y.owner.op) and holds_host_ops(f.maker.fgraph.toposort())
    for shape in [(2, 2), (3, 5), (0, 4)]:
        value = np.random.default_rng(0).normal(size=shape)
        out = f(value)
        assert out.dtype == np.float64
        np.testing.assert_array_equal(out, double(value) + 1)


def test_itypes_double_op_and_as_op_run_compiled():
    value = np.arange(12.0).reshape(3, 4)
    x = T.dmatrix("x", test_value=np.ones((1, 1)))
    np.testing.assert_array_equal(sn.function([x], DoubleOpTyped()(x))(value), double(value))
    a, b = T.fmatrix("a", test_value=np.ones((2, 3), "float32")), T.fmatrix("b", test_value=np.ones((3, 2), "float32"))
    f = sn.function([a, b], numpy_dot(a, b) * 2)
    av = np.linspace(-1, 1, 20, dtype="float32").reshape(4, 5)
    bv = np.linspace(0, 2, 15, dtype="float32").reshape(5, 3)
    out = f(av, bv)
    assert out.dtype == np.float32 and out.shape == (4, 3)
    np.testing.assert_allclose(out, 2 * av @ bv, rtol=1e-6)


def test_as_op_without_infer_shape_runs_when_its_otypes_fix_the_shape():
    x = T.TensorType("float64", (3,))("x", test_value=np.ones(3))
    value = np.array([1.0, 2.0, 5.0])
    np.testing.assert_array_equal(sn.function([x], reversed3(x) * 3)(value), value[::-1] * 3)


def test_fixed_output_shapes_takes_the_test_values_shape():
    x = T.dvector("x", test_value=np.ones(2))
    f = sn.function([x], FirstElementFixed()(x) + 1)
    np.testing.assert_array_equal(f(np.array([4.0, 5.0, 6.0])), [5.0])


def test_gradient_through_a_python_op_matches_finite_differences():
    x = T.dvector("x", test_value=np.ones(3))
    cost = (CubeOp()(x) * T.sin(x)).sum()
    f = sn.function([x], [cost, sn.grad(cost, x)])
    value = np.array([0.3, -1.2, 2.0])
    eps = 1e-6
    reference = lambda v: (v ** 3 * np.sin(v)).sum()
    numeric = np.array([reference(value + eps * e) - reference(value - eps * e)
                        for e in np.eye(3)]) / (2 * eps)
    c, g = f(value)
    np.testing.assert_allclose(c, reference(value), rtol=1e-12)
    np.testing.assert_allclose(g, numeric, rtol=1e-6)


def test_a_failing_perform_is_reported_at_the_users_line_not_as_a_jax_traceback(caplog, capfd):
    x = T.dmatrix("x", test_value=np.ones((2, 2)))
    y = AtMostThreeRows()(x)  # the line the error names
    f = sn.function([x], y.sum())
    assert f(np.ones((3, 2))) == 12.0
    with caplog.at_level(logging.DEBUG), pytest.raises(sn.SymnbError) as info:
        f(np.ones((5, 2)))
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert message.startswith("ValueError in AtMostThreeRows while running the compiled function: "
                              "takes at most 3 rows, got 5")
    assert "y = AtMostThreeRows()(x)  # the line the error names" in message
    assert "float64 (5, 2)" in message  # the input's shape in this call
    assert "Traceback" not in message and "pure_callback" not in message
    assert info.value.call_values.inputs[0].shape == (5, 2)
    # JAX's own log of the callback's exception is left out: the error says it all.
    assert "pure_callback failed" not in caplog.text + capfd.readouterr().err
    # The function still runs afterwards.
    assert f(np.ones((1, 2))) == 4.0


def test_a_failed_call_leaves_shared_variables_as_they_were():
    w = sn.shared(np.array([1.0, 2.0]), name="w")
    x = T.dmatrix("x", test_value=np.ones((2, 2)))
    f = sn.function([x], [], updates=[(w, w + AtMostThreeRows()(x).sum(axis=0))])
    f(np.zeros((2, 2)))
    np.testing.assert_array_equal(w.get_value(), [3.0, 4.0])
    with pytest.raises(ValueError, match="takes at most 3 rows"):
        f(np.zeros((4, 2)))
    np.testing.assert_array_equal(w.get_value(), [3.0, 4.0])
    f(np.ones((1, 2)))
    np.testing.assert_array_equal(w.get_value(), [5.0, 6.0])


def test_a_perform_breaking_its_declared_shape_is_an_error_naming_both():
    x = T.dvector("x", test_value=np.ones(2))
    f = sn.function([x], FirstElementClaimingSameShape()(x))
    with pytest.raises(ValueError, match=r"FirstElementClaimingSameShape.perform returned shape "
                                         r"\(1,\) for output 0; the compiled program expects \(4,\) "
                                         r"\(from its infer_shape"):
        f(np.ones(4))


def test_an_op_whose_shapes_only_running_gives_runs_between_two_programs():
    # Theano's documentation writes ops with make_node and perform only; Theano ran them
    # and took the shapes they made. The function runs such a node on the host.
    x = T.dvector("x", test_value=np.ones(2))
    y = FirstElement()(x)
    np.testing.assert_array_equal(y.test_value, [1.0])  # its test value is computed
    f = sn.function([x], [y * 2, T.exp(x).sum()])
    for value in (np.array([3.0, 4.0]), np.array([-1.0, 0.5, 2.0])):
        first, total = f(value)
        np.testing.assert_array_equal(first, value[:1] * 2)
        np.testing.assert_allclose(total, np.exp(value).sum())


def test_inside_a_loop_such_an_op_is_refused_saying_what_to_add():
    xs = T.dmatrix("xs", test_value=np.ones((3, 2)))
    rows, _ = sn.scan(lambda row: FirstElement()(row) * 2, sequences=[xs])
    with pytest.raises(ValueError, match="only running it gives its output shapes") as info:
        sn.function([xs], rows)
    assert "infer_shape(node, input_shapes)" in str(info.value)
    assert "not inside a loop body" in str(info.value)


def test_inside_scan_and_in_eval():
    xs = T.dmatrix("xs", test_value=np.ones((3, 2)))
    rows, _ = sn.scan(lambda row, total: total + DoubleOp()(row), sequences=[xs],
                      outputs_info=[T.zeros((2,), dtype="float64")])
    value = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(sn.function([xs], rows)(value), np.cumsum(double(value), axis=0))
    x = T.dvector("x", test_value=np.ones(2))
    np.testing.assert_array_equal((DoubleOp()(x) - 1).eval({x: np.array([1.0, 4.0])}), [1.0, 7.0])


def test_nanguard_names_the_python_op_that_made_a_nan():
    class Log(DoubleOp):
        def perform(self, node, inputs, output_storage):
            with np.errstate(invalid="ignore"):
                output_storage[0][0] = np.log(inputs[0])

    x = T.dvector("x", test_value=np.ones(2))
    f = sn.function([x], Log()(x) * 2, mode=NanGuardMode(nan_is_error=True, inf_is_error=True,
                                                          big_is_error=False))
    np.testing.assert_allclose(f(np.array([1.0, np.e])), [0.0, 2.0])
    with pytest.raises(sn.SymnbError, match="NaN in output #0 .* of Log"):
        f(np.array([-1.0, 1.0]))


_CHILD = textwrap.dedent("""
    import json
    import numpy as np
    import symnb as sn, symnb.tensor as T
    from symnb.compile.ops import as_op
    from symnb.lower_xla.executable_cache import counts

    # A NumPy function, so nothing in the op's key is the user's: only its being run
    # as Python keeps the program off the disk cache.
    negative = as_op(itypes=[T.dvector], otypes=[T.dvector],
                     infer_shape=lambda node, shapes: shapes)(np.negative)
    w = sn.shared(np.array([1.0, 2.0, 3.0]), name="w")
    x = T.dvector("x")
    f = sn.function([x], negative(x).sum(), updates=[(w, w + negative(x))])
    out = float(f(np.array([0.5, 1.0, 2.0])))
    print(json.dumps(dict(out=out, w=w.get_value().tolist(), hits=counts.hits,
                          writes=counts.writes)))
""")


def test_a_program_with_a_python_op_is_kept_on_no_disk_cache(tmp_path):
    script = tmp_path / "python_op.py"
    script.write_text(_CHILD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([_SOURCES, os.environ.get("PYTHONPATH", "")]),
               SYMNB_FLAGS=f"compile_cache_min_seconds=0,compile_cache_dir={tmp_path / 'cache'}")
    for _ in range(2):  # the second process finds nothing kept, and computes the same
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        run = json.loads(done.stdout.strip().splitlines()[-1])
        assert run["hits"] == 0 and run["writes"] == 0
        assert run["out"] == -3.5 and run["w"] == [0.5, 1.0, 1.0]
    executables = tmp_path / "cache" / f"symnb-{sn.__version__}" / "executables"
    assert not executables.exists() or not os.listdir(executables)


def test_the_disk_cache_key_refuses_an_op_run_as_python():
    from symnb.lower_xla.executable_cache import program_bytes

    negative = as_op(itypes=[T.dvector], otypes=[T.dvector])(np.negative)  # NumPy's own function
    x = T.dvector("x", test_value=np.ones(2))
    assert program_bytes((negative,)) is None
    assert program_bytes((T.exp(x).owner.op,)) is not None


@pytest.mark.parametrize("dtype", ["float64", "int64", "uint64", "complex128", "float32", "int8"])
def test_values_of_every_width_come_back_bit_for_bit_from_a_large_program(dtype):
    # Large enough that XLA runs the callback on a thread of its own, where JAX's global
    # setting (no 64-bit types) would convert a float64 result: see python_op.py.
    n = 1_000_000
    rng = np.random.default_rng(1)
    # Integers beyond 32 bits where the dtype holds them; floats with float64's digits.
    value = (rng.normal(size=n) * 1e3).astype(dtype) if np.dtype(dtype).kind in "fc" else \
        rng.integers(0, 2 ** 40 if np.dtype(dtype).itemsize == 8 else 60, size=n).astype(dtype)
    if dtype == "complex128":
        value = value + 1j * rng.normal(size=n)
    x = T.tensor(dtype, shape=(None,), name="x", test_value=value[:3])
    f = sn.function([x], [DoubleOp()(x), DoubleOp()(x)[::-1]])
    doubled, backwards = f(value)
    assert doubled.dtype == np.dtype(dtype) and backwards.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(doubled, double(value))
    np.testing.assert_array_equal(backwards, double(value)[::-1])


def test_an_op_with_two_outputs_of_two_dtypes():
    divmod_op = as_op(itypes=[T.lvector, T.lvector], otypes=[T.lvector, T.dvector],
                      infer_shape=lambda node, shapes: [shapes[0], shapes[0]])(
        lambda a, b: (a // b, (a % b).astype("float64") / b))
    a, b = T.lvector("a", test_value=np.array([7, 9])), T.lvector("b", test_value=np.array([2, 4]))
    quotient, fraction = divmod_op(a, b)
    f = sn.function([a, b], [quotient * 2, fraction])
    av, bv = np.array([2 ** 40 + 3, 17, -5]), np.array([3, 5, 2])
    q, r = f(av, bv)
    assert q.dtype == np.int64 and r.dtype == np.float64
    np.testing.assert_array_equal(q, (av // bv) * 2)
    np.testing.assert_array_equal(r, (av % bv) / bv)


def test_a_float64_host_result_carries_the_index_check_flag():
    """The function's output, a float64 value computed on the host (it crosses as uint32
    words), carries the index-check flag (``x[i]``): XLA's simplifier folded the two
    bitcasts (words to float64, float64 to the flag's bytes) into a wrong shape and its
    verifier refused the program, until check_flag.pack put a barrier between them
    (PyMC3's ADVI, whose loss passes through a Python scalar op)."""
    import symnb.scalar as scalar

    class PyIdentity(scalar.UnaryScalarOp):
        def impl(self, x):
            return x

        def grad(self, inputs, grads):
            return grads

    identity = T.Elemwise(PyIdentity(scalar.upgrade_to_float, name="py_identity"))
    x = T.dvector("x")
    x.tag.test_value = np.array([1.0, 2.0])
    i = T.lscalar("i")
    i.tag.test_value = 1
    with sn.config.change_flags(floatX="float64"):
        f = sn.function([x, i], identity(x[i] * 2.0))
    assert f(np.array([1.5, 2.25]), 1) == 4.5
    assert f(np.array([1.5, 2.25]), -2) == 3.0
    with pytest.raises(IndexError):
        f(np.array([1.5, 2.25]), 2)


class PlusMinus(sn.Op):
    """x + 1 and x - 1, written as Theano's documentation writes multi-output ops: its
    grad tests for a DisconnectedType output gradient, as Theano's contract gives."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return sn.Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 1
        output_storage[1][0] = inputs[0] - 1

    def infer_shape(self, node, input_shapes):
        return [input_shapes[0], input_shapes[0]]

    def grad(self, inputs, output_grads):
        from symnb.gradient import DisconnectedType
        used = [g for g in output_grads if not isinstance(g.type, DisconnectedType)]
        total = used[0]
        for g in used[1:]:
            total = total + g
        return [total]


def test_a_users_grad_gets_disconnected_type_for_an_unused_output():
    x = T.dvector("x")
    plus, minus = PlusMinus()(x)
    value = np.array([0.5, -2.0, 3.0])
    f = sn.function([x], [sn.grad((plus * x).sum(), x), sn.grad((plus + minus * 3).sum(), x)])
    only_plus, both = f(value)
    np.testing.assert_allclose(only_plus, (value + 1) + value)   # d/dx (x + 1) x
    np.testing.assert_allclose(both, np.full(3, 4.0))           # d/dx (x + 1) + 3 (x - 1)
