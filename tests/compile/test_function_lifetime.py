"""When a compiled function and its program are freed. A program holds executables in
native memory that Python's garbage collector cannot see (a small one about 1.5 MB on
CPU); one the program cache dropped must go with its last function, by reference
counting, not wait for the collector's next full collection (``cache.TraceRecord``,
``Function._set_program``). A function whose program the cache dropped keeps it and runs."""

import gc
import weakref

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.lower_xla.cache import ProgramCache


def _plain():
    x, y = T.vector("x"), T.vector("y")
    return dict(inputs=[x, y], outputs=x * 3.0 + y), (np.arange(3.0, dtype="float32"),) * 2, \
        lambda a, b: a * 3 + b


def _two_outputs():
    x, y = T.vector("x"), T.vector("y")
    return dict(inputs=[x, y], outputs=[x - y, x * y]), (np.arange(3.0, dtype="float32"),) * 2, \
        lambda a, b: [a - b, a * b]


def _shared_update():  # donates its shared variable's buffer
    x = T.vector("x")
    w = sn.shared(np.ones(3, "float32"), name="w")
    return dict(inputs=[x], outputs=x * w, updates=[(w, w * 2)]), (np.arange(3.0, dtype="float32"),), \
        lambda a: a


def _checked_index():  # checks its index at run time: the full call path
    x, i = T.vector("x"), T.iscalar("i")
    return dict(inputs=[x, i], outputs=x[i]), (np.arange(3.0, dtype="float32"), np.int32(2)), \
        lambda a, i: a[i]


@pytest.mark.parametrize("graph", [_plain, _two_outputs, _shared_update, _checked_index],
                         ids=["plain", "two outputs", "shared update", "checked index"])
def test_a_dropped_function_frees_its_program_without_a_collection(graph, monkeypatch):
    cache = ProgramCache()
    monkeypatch.setattr("symnb.lower_xla.cache.program_cache", cache)
    arguments, args, expected = graph()
    gc.collect()
    gc.disable()  # only reference counting frees anything from here
    try:
        f = sn.function(**arguments)
        result = f(*args)
        for got, want in zip(result if isinstance(result, list) else [result],
                             (lambda e: e if isinstance(e, list) else [e])(expected(*args))):
            np.testing.assert_allclose(got, want, rtol=1e-6)
        function, program = weakref.ref(f), weakref.ref(f._program)
        cache.clear()
        assert program() is not None  # the function holds it
        del f, result
        assert function() is None and program() is None
    finally:
        gc.enable()


def test_a_call_path_kept_apart_from_its_function_says_the_function_is_gone():
    x, y = T.vector("x"), T.vector("y")
    a, b = np.arange(3.0, dtype="float32"), np.ones(3, "float32")
    gc.collect()
    gc.disable()
    try:
        f = sn.function([x, y], x - y)
        np.testing.assert_array_equal(f(x=a, y=b), a - b)
        function = weakref.ref(f)
        call = f.__call__  # the call path alone (it holds the program)
        del f
        assert function() is None
    finally:
        gc.enable()
    np.testing.assert_array_equal(call(a, b), a - b)
    with pytest.raises(ReferenceError, match="the compiled function was deleted"):
        call(x=a, y=b)  # keywords: the function's full call path


def test_a_function_whose_program_the_cache_dropped_still_runs():
    x = T.vector("x")
    with sn.config.change_flags(program_cache_mb=0):  # each program drops the one before
        double = sn.function([x], x * 2.0)
        value = np.linspace(-1, 1, 4).astype("float32")
        np.testing.assert_array_equal(double(value), value * 2)
        triple = sn.function([x], x * 3.0)  # drops double's program
        assert sn.function([x], x * 2.0)._program is not double._program  # anew; drops triple's
        longer = np.arange(7, dtype="float32")  # a new shape: the dropped program traces again
        np.testing.assert_array_equal(double(longer), longer * 2)
        np.testing.assert_array_equal(triple(value), value * 3)
