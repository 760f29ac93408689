"""Always-on test values: computed as graphs are built, lazily when inputs lack them."""

import warnings

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.core.graph.errors import MissingTestValueError, TestValueError


def test_tag_and_attribute_are_the_same_value():
    x = T.matrix("features")
    x.tag.test_value = np.random.rand(3, 2)  # float64 into floatX: same kind, accepted
    assert x.test_value is x.tag.test_value
    assert x.test_value.dtype == np.float32 and x.test_value.shape == (3, 2)
    y = x * 2
    np.testing.assert_allclose(y.tag.test_value, x.test_value * 2)


def test_fully_known_static_shape_gets_a_generated_value():
    x = T.matrix("x", shape=(2, 3))
    assert x.test_value.shape == (2, 3) and x.test_value.dtype == np.float32
    s = T.iscalar("n")
    assert s.test_value.dtype == np.int32 and s.test_value.shape == ()


def test_generated_values_differ_between_variables_of_one_type():
    a, b = T.scalar("a"), T.scalar("b")
    assert a.test_value != b.test_value
    assert bool((a < b).test_value) != bool((b < a).test_value)
    assert np.all((a - b).test_value != 0)
    unnamed = [T.matrix(shape=(2, 3)) for _ in range(3)]  # one line, no names
    values = [v.test_value for v in unnamed]
    assert not np.array_equal(values[0], values[1]) and not np.array_equal(values[1], values[2])
    for value in values + [a.test_value]:
        assert value.dtype == np.float32 and np.all((value > 0.1) & (value < 0.9))
    flags = [T.tensor("bool", shape=(64,)).test_value for _ in range(2)]
    assert flags[0].any() and not flags[0].all() and not np.array_equal(*flags)


def test_generated_integers_are_one_a_valid_index_length_and_divisor():
    n, i = T.iscalar("n"), T.lscalar("i")
    assert n.test_value == 1 and i.test_value == 1
    x = T.matrix("x", shape=(2, 5))
    assert x[i].test_value.shape == (5,) and T.arange(n).test_value.shape == (1,)


def test_generated_values_are_reproducible_across_processes(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "program.py"
    script.write_text(
        "import symnb.tensor as T\n"
        "a, b = T.scalar('a'), T.dvector('b', shape=(3,))\n"
        "loop = [T.scalar() for _ in range(2)]\n"
        "print(repr(a.test_value.item()), b.test_value.tolist(), [v.test_value.item() for v in loop])\n")
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                           cwd=str(_repository_root())).stdout for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].strip()


def _repository_root():
    from pathlib import Path

    return Path(__file__).resolve().parents[2]


def test_pending_until_the_input_value_is_set():
    x = T.vector("x")
    y = T.exp(x) + 1
    with pytest.raises(MissingTestValueError, match="'x'"):
        y.test_value
    x.tag.test_value = np.array([0.0, 1.0], dtype="float32")
    np.testing.assert_allclose(y.test_value, np.exp([0.0, 1.0]) + 1, rtol=1e-6)


def test_bad_test_values_are_refused_with_clear_errors():
    x = T.matrix("x", shape=(None, 3))
    with pytest.raises(ValueError, match=r"expected shape \(\?, 3\), got \(2, 4\)"):
        x.tag.test_value = np.zeros((2, 4))
    with pytest.raises(ValueError, match="expected 2 dimension"):
        x.tag.test_value = np.zeros(3)
    n = T.lvector("n")
    with pytest.raises(TypeError, match="float64.*does not fit"):
        n.tag.test_value = np.array([1.5])


def test_seed_shape_error_at_build_time_names_line_and_shapes():
    x = T.vector()
    x.tag.test_value = np.array([1, 2], dtype=sn.config.floatX)
    y = T.vector()
    y.tag.test_value = np.array([3, 4, 5], dtype=sn.config.floatX)
    z = x + x
    np.testing.assert_array_equal(z.tag.test_value, [2, 4])
    with pytest.raises(TestValueError) as info:
        z = z + y
    message = str(info.value)
    assert "z = z + y" in message
    assert "(2,)" in message and "(3,)" in message
    assert "z = x + x" in message  # where the first input was built
    assert "y = T.vector()" in message
    assert len(message.splitlines()) < 60
    # the traceback starts at the user's line: no library frame is in front of it
    frames = [f for f in info.traceback if "test_test_values" in str(f.path)]
    assert frames and frames[-1].statement.lines[-1].strip() == "z = z + y"


@pytest.mark.parametrize("mode", ["warn", "ignore", "off"])
def test_modes_that_do_not_raise(mode):
    with sn.config.change_flags(compute_test_value=mode):
        x = T.vector("x", test_value=np.ones(2, "float32"))
        y = T.vector("y", test_value=np.ones(3, "float32"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            z = x + y
        assert bool(caught) == (mode == "warn")
        if mode == "warn":
            assert caught[0].filename == __file__
            assert "z = x + y" in str(caught[0].message)
        assert z.owner is not None


def test_seed_values_of_constants_and_shared():
    y = T.matrix("y", test_value=np.ones((3, 2), "float32") * 2)
    b = T.ones((3, 2))
    c = sn.shared(np.ones((3, 2)))
    np.testing.assert_allclose((y * b + c).tag.test_value, np.full((3, 2), 3.0))
    data = T.matrix("data", dtype="int64")
    data.tag.test_value = np.random.randint(0, 10, size=(100, 100))
    maximum = data.max()
    assert maximum.tag.test_value == data.test_value.max() == 9
    assert maximum.dtype == "int64"


def test_large_values_are_dropped_beyond_the_budget_and_recomputed():
    with sn.config.change_flags(test_value_memory_mb=8):
        x = T.matrix("x", test_value=np.ones((512, 1024), "float32"))  # 2 MB each
        steps = [x]
        for _ in range(10):
            steps.append(steps[-1] * 2)
        kept = [s._test_value is not None for s in steps[1:]]
        assert not all(kept) and kept[-1]
        np.testing.assert_array_equal(steps[1].test_value, np.full((512, 1024), 2.0))
        np.testing.assert_array_equal((steps[2] + 1).test_value, np.full((512, 1024), 5.0))


def test_dropped_values_lend_their_memory_only_when_nobody_holds_them():
    # Dropped values nobody holds are computed into again (core/test_value.py's spares);
    # a value the user holds, or a view of it, is never written over.
    with sn.config.change_flags(test_value_memory_mb=2):
        start = np.random.default_rng(0).uniform(size=(512, 1024)).astype("float32")  # 2 MB
        x = T.matrix("x", test_value=start)
        y = T.tanh(x * 1.5)
        held, view = y.test_value, (y * 2).test_value[:3]
        held_copy, view_copy = held.copy(), view.copy()
        expected = np.tanh(start * np.float32(1.5))
        for _ in range(12):
            y = T.tanh(y * 1.5)
            expected = np.tanh(expected * np.float32(1.5))
            np.testing.assert_array_equal(y.test_value, expected)
        np.testing.assert_array_equal(held, held_copy)
        np.testing.assert_array_equal(view, view_copy)
        assert (y > 0.5).test_value.dtype == np.bool_  # another dtype: its own buffer
        np.testing.assert_array_equal((y > 0.5).test_value, expected > 0.5)


def test_deep_graph_does_not_hit_the_recursion_limit():
    x = T.vector("x")
    y = x
    for _ in range(10_000):
        y = y + 1
    x.tag.test_value = np.zeros(2, "float32")
    np.testing.assert_array_equal(y.test_value, [10_000, 10_000])


def test_a_constant_takes_its_own_value_as_test_value_as_in_theano():
    # Theano's test_compute_test_value_grad sets tag.test_value on constants (their own
    # value) before a nested scan; a different value would disagree with the constant.
    c = T.as_tensor_variable(np.asarray(0, dtype="float32"))
    c.tag.test_value = np.asarray(0, dtype="float32")
    np.testing.assert_array_equal(c.tag.test_value, np.float32(0))
    v = T.constant(np.array([1.5, 2.0]))
    v.tag.test_value = [1.5, 2.0]
    with pytest.raises(TypeError, match="cannot be set to a different one"):
        v.tag.test_value = [1.5, 3.0]
    np.testing.assert_array_equal(v.tag.test_value, [1.5, 2.0])
