"""compile/fast_path.py: the common call, written out in one closure, behaves exactly as
the full path (``Function._call_in_full``, which a profiled function always takes)."""

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def _both(inputs, output):
    """The same graph compiled twice: once taking the fast path, once the full path."""
    fast = sn.function(inputs, output)
    full = sn.function(inputs, output, profile=True)
    assert fast._invoke.__module__ == "symnb.compile.fast_path"
    assert full._invoke.__module__ == "symnb.compile.function"  # _call_in_full, held weakly
    return fast, full


def test_a_one_output_program_returns_its_output_bare_through_run_and_call():
    v = T.vector("v")
    f = sn.function([v], v * 2 + 1)
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(f(x), x * 2 + 1)
    program = f._program
    assert program.bare and program.plain
    # One convention: a program of one output and no update returns that output,
    # whichever way it is called (no list made to be unwrapped again).
    for runs in (program.run, program.call):
        np.testing.assert_array_equal(np.asarray(runs(x)), x * 2 + 1)
    # A list of one output too (the function then returns a list of it); several
    # outputs, or updates: the program returns a list.
    listed = sn.function([v], [v * 2])
    assert listed._program.bare
    np.testing.assert_array_equal(listed(x)[0], x * 2)
    assert isinstance(listed(x), list) and len(listed(x)) == 1
    assert not sn.function([v], [v * 2, v + 1])._program.bare
    s = sn.shared(np.zeros(4, "float32"), name="s")
    assert not sn.function([v], v * 2, updates=[(s, s + v)])._program.bare


@pytest.mark.parametrize("n_inputs", [1, 2, 3])
def test_fast_and_full_paths_compute_the_same_owned_arrays(n_inputs):
    variables = [T.vector(f"x{i}") for i in range(n_inputs)]
    output = variables[0] * 2
    for v in variables[1:]:
        output = output + v
    fast, full = _both(variables, output)
    args = [np.arange(5, dtype="float32") + i for i in range(n_inputs)]
    expected = args[0] * 2 + sum(args[1:], np.zeros(5, "float32"))
    for f in (fast, full):
        result = f(*args)
        np.testing.assert_array_equal(result, expected)
        assert isinstance(result, np.ndarray) and result.flags.writeable
        result[0] = -1  # the caller owns it: the next call is unaffected
        np.testing.assert_array_equal(f(*args), expected)
        by_name = f(**{f"x{i}": a for i, a in enumerate(args)})
        np.testing.assert_array_equal(by_name, expected)
        converted = f(*[a.astype(int).tolist() for a in args])  # integer lists: converted
        np.testing.assert_array_equal(converted, expected)


def test_an_input_returned_as_it_is_is_a_copy_the_caller_owns():
    v = T.vector("v")
    fast, full = _both([v], v)
    x = np.arange(3, dtype="float32")
    for f in (fast, full):
        result = f(x)
        result[:] = 7
        np.testing.assert_array_equal(x, [0, 1, 2])


@pytest.mark.parametrize("call", [
    lambda f: f(),
    lambda f: f(np.ones(3, "float32"), np.ones(3, "float32")),
    lambda f: f(w=np.ones(3, "float32")),
    lambda f: f(None),
    lambda f: f(np.ones((2, 2), "float32")),
    lambda f: f(np.ones(3)),
    lambda f: f(np.ones(3, "float32"), v=np.ones(3, "float32")),
])
def test_bad_calls_get_the_same_error_on_both_paths(call):
    v = T.vector("v")
    fast, full = _both([v], v * 2)
    with pytest.raises(TypeError) as on_fast:
        call(fast)
    with pytest.raises(TypeError) as on_full:
        call(full)
    assert str(on_fast.value) == str(on_full.value)


def test_a_length_from_an_argument_specializes_through_the_fast_path():
    n = T.iscalar("n")
    f = sn.function([n], T.arange(n) * 2)
    for length in (3, 5, 3):
        np.testing.assert_array_equal(f(np.int32(length)), np.arange(length) * 2)


@pytest.mark.parametrize("n_inputs", [1, 3])
def test_a_bad_call_on_the_fast_path_shows_only_the_users_frames(n_inputs):
    import traceback

    variables = [T.vector(f"x{i}") for i in range(n_inputs)]
    f = sn.function(variables, sum(variables[1:], variables[0] * 2))
    args = [np.ones(2, "float32")] * (n_inputs - 1) + [np.ones((2, 2), "float32")]
    with pytest.raises(TypeError, match=f"input 'x{n_inputs - 1}' expects 1 dimension") as caught:
        f(*args)
    files = [frame.filename for frame in traceback.extract_tb(caught.value.__traceback__)]
    assert files == [__file__]


def test_a_function_of_no_input_takes_the_fast_path():
    f = sn.function([], T.constant(np.arange(3, dtype="float32")) * 2)
    assert f._invoke.__module__ == "symnb.compile.fast_path"
    np.testing.assert_array_equal(f(), [0.0, 2.0, 4.0])
    with pytest.raises(TypeError, match=r"takes 0 argument\(s\) \(\), got 1"):
        f(1)


@pytest.mark.parametrize("outputs", ["one", "two"])
def test_a_float64_function_takes_the_fast_path_with_or_without_global_x64(outputs):
    """A float64 program runs with 64-bit types enabled: the fast path enters that scope
    only when they are off where it is called (a user's ``jax_enable_x64``, or JAX's
    default), and both give the float64 values NumPy gives, as the full path does."""
    import jax

    x = T.dvector("x")
    y = T.exp(x) / 3
    f = sn.function([x], y if outputs == "one" else [y, (x ** 2).sum()])
    full = sn.function([x], y if outputs == "one" else [y, (x ** 2).sum()], profile=True)
    assert f._invoke.__module__ == "symnb.compile.fast_path"
    value = np.linspace(0.0, 1.0, 7)
    expected = np.exp(value) / 3
    was = jax.config.jax_enable_x64
    try:
        for enabled in (False, True, False):
            jax.config.update("jax_enable_x64", enabled)
            for fn in (f, full):
                got = fn(value) if outputs == "one" else fn(value)[0]
                assert got.dtype == np.float64
                np.testing.assert_allclose(got, expected, rtol=1e-15)  # not float32's 1e-7
                if outputs == "two":
                    np.testing.assert_allclose(fn(value)[1], (value ** 2).sum(), rtol=1e-15)
        assert jax.config.jax_enable_x64 is False  # the global setting left as it was set
    finally:
        jax.config.update("jax_enable_x64", was)
