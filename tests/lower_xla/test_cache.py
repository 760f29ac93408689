"""The program cache (``symnb/lower_xla/cache.py``): graph signatures, the LRU cache and
its counts, static arguments, and the shape guard of donated arguments."""

import numpy as np
import pytest

import symnb.tensor as T
from symnb.core.graph.basic import Constant, toposort
from symnb.lower_xla.cache import (
    ChangedShape, Program, ProgramCache, StaticArgument, compiled_program, graph_signature,
    keep_shapes,
)


def _graph(build, *inputs):
    out = build(*inputs)
    return list(inputs), [out], toposort([out], inputs)


def test_equal_graphs_built_apart_have_equal_signatures():
    a = _graph(lambda x, y: T.tanh(x * 2.0) + y, T.vector("x"), T.vector("y"))
    b = _graph(lambda u, v: T.tanh(u * 2.0) + v, T.vector("u"), T.vector("v"))
    assert graph_signature(*a) == graph_signature(*b)
    assert hash(graph_signature(*a)) == hash(graph_signature(*b))


@pytest.mark.parametrize("other", [
    lambda x, y: T.tanh(x * 3.0) + y,         # another constant
    lambda x, y: T.tanh(x * 2.0) - y,         # another op
    lambda x, y: T.tanh(y * 2.0) + x,         # inputs read in another order
    lambda x, y: T.exp(x * 2.0) + y,          # another unary op
], ids=["constant", "op", "wiring", "unary"])
def test_graphs_that_compute_differently_have_different_signatures(other):
    base = _graph(lambda x, y: T.tanh(x * 2.0) + y, T.vector("x"), T.vector("y"))
    changed = _graph(other, T.vector("x"), T.vector("y"))
    assert graph_signature(*base) != graph_signature(*changed)


def test_input_types_are_part_of_the_signature():
    f32 = _graph(lambda x: x + 1, T.vector("x", dtype="float32"))
    f64 = _graph(lambda x: x + 1, T.vector("x", dtype="float64"))
    fixed = _graph(lambda x: x + 1, T.vector("x", dtype="float32", shape=(3,)))
    signatures = {graph_signature(*g) for g in (f32, f64, fixed)}
    assert len(signatures) == 3


def test_a_variable_from_outside_the_graph_is_refused():
    x, stray = T.vector("x"), T.vector("stray")
    out = x + stray
    with pytest.raises(ValueError, match="neither an input, a constant nor computed"):
        graph_signature([x], [out], toposort([out], [x]))


def test_the_cache_counts_hits_and_misses_and_drops_the_least_recently_used():
    cache = ProgramCache(maxsize=2)
    programs = {key: Program(jitted=lambda: None, nodes=[]) for key in "abc"}
    assert cache.get("a") is None and (cache.hits, cache.misses) == (0, 0)
    cache.put("a", programs["a"])
    cache.put("b", programs["b"])
    assert cache.get("a") is programs["a"]  # "a" is now the most recently used
    cache.put("c", programs["c"])           # so "b" goes
    assert len(cache) == 2
    assert cache.get("b") is None
    assert cache.get("a") is programs["a"] and cache.get("c") is programs["c"]
    assert (cache.hits, cache.misses) == (3, 3)
    cache.clear()
    assert len(cache) == 0 and cache.get("a") is None


def test_compiled_program_reuses_the_program_of_an_equal_graph(monkeypatch):
    fresh = ProgramCache()
    monkeypatch.setattr("symnb.lower_xla.cache.program_cache", fresh)
    first = compiled_program(*_graph(lambda x: T.sin(x) * 2.0, T.vector("x")), (), "fast_run")
    again = compiled_program(*_graph(lambda u: T.sin(u) * 2.0, T.vector("u")), (), "fast_run")
    other_mode = compiled_program(*_graph(lambda u: T.sin(u) * 2.0, T.vector("u")), (), None)
    assert again is first and other_mode is not first
    assert (fresh.hits, fresh.misses) == (1, 2)
    value = np.linspace(-1, 1, 5).astype("float32")
    np.testing.assert_allclose(first.call(value)[0], np.sin(value) * 2, rtol=1e-6)
    first.call(value + 1)  # same shape: no new trace
    first.call(np.ones(7, "float32"))  # a new shape: traced again
    assert first.traces == 2 and fresh.traces == 2


def test_static_arguments_are_equal_by_dtype_shape_and_bytes():
    a = StaticArgument(np.array([1, 2], dtype="int64"))
    assert a == StaticArgument([1, 2]) and hash(a) == hash(StaticArgument([1, 2]))
    assert a != StaticArgument(np.array([1, 2], dtype="int32"))
    assert a != StaticArgument(np.array([[1, 2]], dtype="int64"))
    assert a != StaticArgument(np.array([1, 3], dtype="int64"))
    assert a != (1, 2)


def test_donated_arguments_must_keep_their_shape():
    def run(a, b):
        return [a + b, np.concatenate([b, b])]  # the second result updates argument 1

    guarded = keep_shapes(run, (1,))
    with pytest.raises(ChangedShape):
        guarded(np.ones(2), np.ones(2))
    same = keep_shapes(lambda a, b: [a, b * 2], (1,))
    np.testing.assert_array_equal(same(np.ones(2), np.ones(2))[1], [2.0, 2.0])


def test_constants_are_compared_by_value():
    a = _graph(lambda x: x + np.full(3, 0.5, "float32"), T.vector("x"))
    b = _graph(lambda x: x + np.full(3, 0.5, "float32"), T.vector("x"))
    (ca,), (cb,) = [[v for v in g[2][0].inputs if isinstance(v, Constant)] for g in (a, b)]
    assert ca is not cb  # two constants holding equal values
    assert graph_signature(*a) == graph_signature(*b)
