"""Print: prints at test-value time and each time the compiled program computes it."""

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.printing import Print


def test_seed_print_in_a_compiled_function(capsys):
    with sn.config.change_flags(compute_test_value="off"):
        x = T.vector()
        y = T.vector()
        z = x + x
        z = Print("z1")(z)
        z = z + y
        z = Print("z2")(z)
        f = sn.function([x, y], z)
    assert capsys.readouterr().out == ""
    result = f(np.array([1, 2], dtype=sn.config.floatX), np.array([1, 2], dtype=sn.config.floatX))
    np.testing.assert_array_equal(result, [3, 6])
    assert capsys.readouterr().out == "z1 __str__ = [2. 4.]\nz2 __str__ = [3. 6.]\n"
    f(np.array([0, 0], dtype=sn.config.floatX), np.array([1, 1], dtype=sn.config.floatX))
    assert capsys.readouterr().out == "z1 __str__ = [0. 0.]\nz2 __str__ = [1. 1.]\n"


def test_seed_print_attrs_shape(capsys):
    data = T.matrix("data", dtype="int64")
    identity = T.identity_like(data)
    identity = Print("identity", attrs=["shape"])(identity)
    f = sn.function([data], identity.sum())
    assert f(np.arange(9).reshape(3, 3)) == 3
    assert capsys.readouterr().out == "identity shape = (3, 3)\n"


def test_print_at_test_value_time_and_min_max(capsys):
    x = T.vector("x", test_value=np.array([3.0, -1.0, 2.0], dtype="float32"))
    y = Print("x", attrs=["min", "max"])(x) * 2
    assert capsys.readouterr().out == "x min = -1.0\nx max = 3.0\n"
    np.testing.assert_array_equal(y.test_value, [6, -2, 4])


def test_print_inside_assert_guarded_code(capsys):
    x = T.vector("x")
    checked = T.Assert("x must be positive")(x, T.all(T.gt(x, 0)))
    out = Print("checked")(checked) + 1
    f = sn.function([x], out)
    np.testing.assert_array_equal(f(np.array([1.0, 2.0], dtype="float32")), [2, 3])
    assert "checked __str__ = [1. 2.]" in capsys.readouterr().out


def test_print_passes_gradients_through():
    x = T.dvector("x", test_value=np.array([1.0, 2.0]))
    y = (Print("x", attrs=["shape"])(x) ** 2).sum()
    np.testing.assert_array_equal(sn.grad(y, x).test_value, [2.0, 4.0])


def test_print_inside_a_scan_body_prints_each_iteration_in_order(capsys):
    with sn.config.change_flags(compute_test_value="off"):
        xs = T.vector("xs")

        def step(x, total):
            return Print("total")(total + x)

        totals, _ = sn.scan(step, sequences=[xs], outputs_info=[T.constant(np.float32(0))])
        f = sn.function([xs], totals)
    np.testing.assert_array_equal(f(np.array([1, 2, 3], "float32")), [1, 3, 6])
    assert capsys.readouterr().out == "total __str__ = 1.0\ntotal __str__ = 3.0\ntotal __str__ = 6.0\n"
