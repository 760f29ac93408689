"""lower_xla/packed_outputs.py: several small outputs of one dtype returned in one
buffer on the fast path, split into views the caller owns; every value against NumPy."""

import textwrap

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.lower_xla.packed_outputs import LIMIT, OutputLayout
from tests.lower_xla.frozen_sources import run_child


def _logp_and_grad():
    """A normal log density of a vector and its gradient (PyMC3's logp_dlogp_function's
    shape: a scalar, then a vector as long as the input), and the maximum."""
    x = T.dvector("x")
    logp = (-0.5 * (x - 1.5) ** 2).sum()
    return x, [logp, sn.grad(logp, x), x.max()]


def _numpy(value):
    return [(-0.5 * (value - 1.5) ** 2).sum(), -(value - 1.5), value.max()]


def test_the_layout_places_static_outputs_around_the_one_vector_of_unknown_length():
    x, outputs = _logp_and_grad()
    layout = OutputLayout.of(outputs)
    assert layout.parts == ((0, 1, ()), (1, -1, (-1,)), (-1, None, ()))
    packed = np.arange(7.0)  # 1 + a length-5 vector + 1
    views = layout.split(packed)
    assert [v.shape for v in views] == [(), (5,), ()]
    np.testing.assert_array_equal(views[1], [1, 2, 3, 4, 5])
    assert (views[0], views[2]) == (0.0, 6.0)
    # Parts of static lengths only, in order.
    m = T.dmatrix("m")
    fixed = [T.specify_shape(m, (2, 3)), m.sum(), T.specify_shape(m[0], (3,))]
    assert OutputLayout.of(fixed).parts == ((0, 6, (2, 3)), (6, 7, ()), (7, 10, (3,)))


@pytest.mark.parametrize("outputs, why", [
    (lambda x, m: [x.sum()], "one output"),
    (lambda x, m: [x.sum(), T.cast(x, "float32")], "dtypes differ"),
    (lambda x, m: [x * 2, x + 1], "two lengths unknown"),
    (lambda x, m: [x.sum(), m * 2], "a matrix of unknown shape"),
    (lambda x, m: [x.sum(), T.zeros((LIMIT + 1,), "float64")], "too many values"),
])
def test_outputs_that_cannot_be_packed_have_no_layout(outputs, why):
    x, m = T.dvector("x"), T.dmatrix("m")
    assert OutputLayout.of(outputs(x, m)) is None, why


def test_a_packed_call_returns_numpys_values_as_separate_writable_arrays():
    x, outputs = _logp_and_grad()
    fast = sn.function([x], outputs)
    full = sn.function([x], outputs, profile=True)  # the full path: the unpacked program
    assert fast._program.packed is not None
    assert fast._invoke.__module__ == "symnb.compile.fast_path"
    value = np.linspace(-1.0, 2.0, 5)
    for f in (fast, full):
        got = f(value)
        assert isinstance(got, list) and [g.shape for g in got] == [(), (5,), ()]
        for g, want in zip(got, _numpy(value)):
            assert isinstance(g, np.ndarray) and g.dtype == np.float64 and g.flags.writeable
            np.testing.assert_allclose(g, want, rtol=1e-15)
        got[0][...] = 99.0  # each output is the caller's: writing one changes no other
        got[1][:] = 7.0
        np.testing.assert_allclose(got[2], value.max())
        np.testing.assert_allclose(f(value)[1], -(value - 1.5), rtol=1e-15)  # nor the next call
    # Other lengths (a new trace each), and by keyword (the full path).
    for n in (1, 3, 8):
        value = np.linspace(0.0, 1.0, n)
        for got, want in zip(fast(value), _numpy(value)):
            np.testing.assert_allclose(got, want, rtol=1e-15)
        for got, want in zip(fast(x=value), _numpy(value)):
            np.testing.assert_allclose(got, want, rtol=1e-15)


def test_outputs_too_large_for_one_buffer_come_back_as_they_are():
    x, outputs = _logp_and_grad()
    f = sn.function([x], outputs)
    value = np.linspace(-3.0, 3.0, LIMIT + 10)  # the trace returns the list of outputs
    for got, want in zip(f(value), _numpy(value)):
        assert got.flags.writeable
        np.testing.assert_allclose(got, want, rtol=1e-15)
    small = np.linspace(-3.0, 3.0, 4)  # then a small call packs again
    for got, want in zip(f(small), _numpy(small)):
        np.testing.assert_allclose(got, want, rtol=1e-15)


def test_a_bad_argument_of_a_packed_function_names_the_input():
    x, outputs = _logp_and_grad()
    f = sn.function([x], outputs)
    with pytest.raises(TypeError, match="input 'x' expects 1 dimension"):
        f(np.ones((2, 2)))
    with pytest.raises(TypeError, match="input 'x' expects"):
        f(np.ones(3, dtype=np.complex128))


# A second process reads the packed executable back from the disk cache: no trace, and
# the same values (the layout is the compiled function's, not a trace's).
_CHILD = textwrap.dedent("""
    import json
    import numpy as np
    import symnb as sn, symnb.tensor as T
    from symnb.lower_xla.cache import program_cache
    from symnb.lower_xla.executable_cache import counts
    x = T.dvector("x")
    logp = (-0.5 * (x - 1.5) ** 2).sum()
    f = sn.function([x], [logp, sn.grad(logp, x), x.max()])
    got = f(np.linspace(-1.0, 2.0, 5))
    print(json.dumps(dict(results=[g.tolist() for g in got], hits=counts.hits,
                          traces=program_cache.traces, packed=f._program.packed is not None)))
""")


def test_a_second_process_runs_the_packed_executable_without_tracing(tmp_path):
    runs = [run_child(tmp_path, _CHILD) for _ in range(2)]
    assert runs[0]["packed"] and (runs[0]["hits"], runs[1]["hits"], runs[1]["traces"]) == (0, 1, 0)
    for run in runs:
        for got, want in zip(run["results"], _numpy(np.linspace(-1.0, 2.0, 5))):
            np.testing.assert_allclose(got, want, rtol=1e-15)


def test_a_packed_trace_that_needs_a_value_specializes_and_returns_the_list():
    """A length computed from an argument's value: the packed trace fails (nothing ran),
    the function specializes on the value (the full path's program) and the call returns
    the outputs as that program gives them."""
    n = T.lscalar("n")
    x = T.dscalar("x")
    f = sn.function([n, x], [T.cast(T.arange(n), "float64") * x, x * 2])
    assert f._program.packed is not None
    for length in (3, 5, 3):
        got = f(np.int64(length), np.float64(1.5))
        np.testing.assert_array_equal(got[0], np.arange(length) * 1.5)
        np.testing.assert_array_equal(got[1], 3.0)
        assert all(g.flags.writeable for g in got)


def test_a_packed_function_reading_a_shared_variable_sees_its_new_value():
    """The fast path of a function with shared variables (their locks held) runs the
    packed program too; a value set between calls is the next call's."""
    x = T.dvector("x")
    mu = sn.shared(np.float64(1.5), name="mu")
    logp = (-0.5 * (x - mu) ** 2).sum()
    f = sn.function([x], [logp, sn.grad(logp, x)])
    assert f._program.packed is not None and f._invoke.__name__ == "positional"
    value = np.linspace(-1.0, 2.0, 5)
    for m in (1.5, 0.5):
        mu.set_value(np.float64(m))
        got = f(value)
        np.testing.assert_allclose(got[0], (-0.5 * (value - m) ** 2).sum(), rtol=1e-15)
        np.testing.assert_allclose(got[1], -(value - m), rtol=1e-15)
        got[1][:] = 0.0  # the caller's copy
        np.testing.assert_allclose(f(value)[1], -(value - m), rtol=1e-15)
